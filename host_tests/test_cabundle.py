"""tools/cabundle.py and lib/cacerts.py (the roots httpc trusts by default
on MicroPython, frozen in flash): the module is what the tool makes from the
system's Debian set, holds only the default roots, and is proven against a
loopback TLS server on CPython and under the MicroPython unix port (mbedTLS,
as on the device); the DER file output (for httpc.CA_FILE / ca=) too."""
import datetime
import re
import os
import ssl
import subprocess

import pytest
import trustme

import httpc
from httpserver import Server

import cacerts
from toolrun import load, run
from mpyrun import GOAL

cabundle = load("cabundle")


def der_of(pem_bytes):
    return ssl.PEM_cert_to_DER_cert(pem_bytes.decode())


def device_split(path):
    """The bundle as the device reads it: httpc's own DER splitter."""
    from httpc.ca import each_cert
    out = []
    each_cert(str(path), out.append)
    return out


# ---------------------------------------------------------------- cabundle

@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """Two trustme CAs (they have no CN: the name is the OU), a PEM source
    holding both, and a TLS server context with a "localhost" leaf of A."""
    d = tmp_path_factory.mktemp("cab")
    a = trustme.CA(organization_unit_name="AntOS Test Root A")
    b = trustme.CA(organization_unit_name="AntOS Test Root B")
    paths = {"a": d / "a.pem", "b": d / "b.pem", "src": d / "src.pem",
             "b_der": d / "b.der"}
    paths["a"].write_bytes(a.cert_pem.bytes())
    paths["b"].write_bytes(b.cert_pem.bytes())
    paths["src"].write_bytes(a.cert_pem.bytes() + b"\n" + b.cert_pem.bytes())
    paths["b_der"].write_bytes(der_of(b.cert_pem.bytes()))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    a.issue_cert("localhost").configure_cert(ctx)
    return {"dir": d, "ctx": ctx, "A": der_of(a.cert_pem.bytes()),
            "B": der_of(b.cert_pem.bytes()), **{k: str(v) for k, v in paths.items()}}


def make_cert(cn, days_left):
    """A self-signed CA certificate with a CN, valid until now + days_left."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "AntOS tests"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=400))
            .not_valid_after(now + datetime.timedelta(days=days_left))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM)


def test_select_by_name_writes_exactly_that_root(pki, tmp_path):
    out = tmp_path / "ca.der"
    r = run("cabundle.py", "--source", pki["src"], "--no-defaults",
            "--name", "antos test root a", "-o", out)      # names are case-insensitive
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == pki["A"]
    assert device_split(out) == [pki["A"]]
    assert "1 roots, %d bytes" % len(pki["A"]) in r.stdout
    assert "AntOS Test Root A" in r.stdout and "Root B" not in r.stdout
    assert r.stderr == ""                                  # small: no size warning


def test_add_appends_pem_and_der_files_once(pki, tmp_path):
    out = tmp_path / "ca.der"
    r = run("cabundle.py", "--source", pki["src"], "--no-defaults",
            "--name", "AntOS Test Root A", "--add", pki["b"], "--add", pki["b_der"],
            "--add", pki["a"], "-o", out)
    assert r.returncode == 0, r.stderr
    assert device_split(out) == [pki["A"], pki["B"]]       # deduplicated, in order
    assert cabundle.split_der(out.read_bytes(), "x") == [pki["A"], pki["B"]]
    assert "2 roots, %d bytes" % (len(pki["A"]) + len(pki["B"])) in r.stdout


def test_missing_root_is_an_error_and_writes_nothing(pki, tmp_path):
    out = tmp_path / "ca.der"
    r = run("cabundle.py", "--source", pki["src"], "--no-defaults",
            "--name", "AntOS Test Root A", "--name", "AntOS Test Root C", "-o", out)
    assert r.returncode == 1
    assert 'root "AntOS Test Root C" not found in %s' % pki["src"] in r.stderr
    assert not out.exists()
    # the default list is looked up too: a source without those roots fails
    r = run("cabundle.py", "--source", pki["src"], "-o", out)
    assert r.returncode == 1 and 'root "ISRG Root X1" not found' in r.stderr
    r = run("cabundle.py", "--add", pki["dir"] / "nope.pem", "--source", pki["src"],
            "--no-defaults", "-o", out)
    assert r.returncode == 1 and "cannot read" in r.stderr and "nope.pem" in r.stderr
    assert not out.exists()


def test_expired_and_ambiguous_roots_are_refused(pki, tmp_path):
    src = tmp_path / "src.pem"
    src.write_bytes(make_cert("AntOS Old Root", -3) + make_cert("AntOS Twin", 30)
                    + make_cert("AntOS Twin", 60) + make_cert("AntOS Wurzel \u00c4", 90))
    out = tmp_path / "ca.der"
    r = run("cabundle.py", "--source", src, "--no-defaults", "--name", "AntOS Old Root",
            "-o", out)
    assert r.returncode == 1 and 'root "AntOS Old Root" expired on' in r.stderr
    r = run("cabundle.py", "--source", src, "--no-defaults", "--name", "AntOS Twin",
            "-o", out)
    assert r.returncode == 1 and "matches 2 roots" in r.stderr
    assert not out.exists()
    # --all skips the expired one and says so
    r = run("cabundle.py", "--source", src, "--no-defaults", "--all", "-o", out)
    assert r.returncode == 0, r.stderr
    assert "skipped (expired" in r.stdout and "AntOS Old Root" in r.stdout
    assert len(device_split(out)) == 3 and "AntOS Wurzel \u00c4" in r.stdout


def test_der_walk_reads_the_same_names_as_cryptography(pki, tmp_path):
    """The fallback parser (no cryptography) against cryptography, on the
    test roots (OU only, UTF8 CN) and on the whole system Mozilla set."""
    ders = [pki["A"], pki["B"], der_of(make_cert("AntOS Wurzel \u00c4", 5))]
    for p in (cabundle.SYSTEM_DIR, cabundle.SYSTEM_BUNDLE):
        if os.path.exists(p):
            ders += [c.der for c in cabundle.read_certs(p)]
    for der in ders:
        assert cabundle._der_info(der) == cabundle._crypto_info(der)
    assert cabundle._der_info(pki["A"])[:3] == (None, ["AntOS Test Root A"],
                                                "trustme v%s" % trustme.__version__)
    print("DER walk agrees with cryptography on %d certificates" % len(ders))


def test_pem_parsing_edge_cases(pki):
    bad = b"-----BEGIN CERTIFICATE-----\nMIIB\n"
    with pytest.raises(cabundle.Error, match="without END"):
        cabundle.pem_to_der(bad, "f")
    with pytest.raises(cabundle.Error, match="truncated"):
        cabundle.split_der(pki["A"] + pki["B"][:40], "f")
    # an OpenSSL "TRUSTED CERTIFICATE" keeps only the certificate (aux dropped)
    import base64
    body = base64.encodebytes(pki["A"] + b"\x30\x03\x02\x01\x05")
    trusted = (b"-----BEGIN TRUSTED CERTIFICATE-----\n" + body
               + b"-----END TRUSTED CERTIFICATE-----\n")
    assert cabundle.pem_to_der(trusted, "f") == [pki["A"]]


@pytest.fixture(scope="module")
def bundles(pki):
    d = pki["dir"]
    good, bad = d / "good.der", d / "bad.der"
    r = run("cabundle.py", "--source", pki["src"], "--no-defaults", "--name",
            "AntOS Test Root B", "--name", "AntOS Test Root A", "-o", good)
    assert r.returncode == 0, r.stderr
    r = run("cabundle.py", "--source", pki["src"], "--no-defaults", "--name",
            "AntOS Test Root B", "-o", bad)
    assert r.returncode == 0, r.stderr
    return str(good), str(bad)


def ok_handler(req, w):
    w.respond(200, b"secure")


def test_bundle_verifies_a_tls_server_with_httpc_on_cpython(pki, bundles):
    good, bad = bundles
    httpc.close_all()
    try:
        with Server(ok_handler, tls=pki["ctx"]) as srv:
            url = "https://localhost:%d/" % srv.port
            with httpc.request("GET", url, ca=good) as r:
                assert (r.status, r.read()) == (200, b"secure")
            with pytest.raises(httpc.HTTPError) as ei:
                httpc.request("GET", url, ca=bad)          # only the other root
            assert str(ei.value) == "TLS: certificate not trusted for localhost (unknown CA)"
    finally:
        httpc.close_all()


def test_bundle_verifies_a_tls_server_under_micropython(mpy, pki, bundles):
    """The same bundle through mbedTLS (one load_verify_locations per DER
    certificate), reusing the httpc TLS scenario of test_httpc."""
    good, bad = bundles
    with Server(ok_handler, tls=pki["ctx"]) as srv:
        r = mpy.run("http_tls", heap=GOAL, args=[srv.port, good, bad, pki["src"]],
                    timeout=60)
    out = [ln for ln in r.out.splitlines() if not ln.startswith("HEAPMON")]
    assert r.rc == 0, r
    assert out[:4] == ["good 200 secure", "reuse opened=1 reused=1", "pem 200 secure",
                       "unknown tls TLS: certificate not trusted for localhost (unknown CA)"], r
    assert out[-1] == "DONE", r


def test_default_selection_from_the_system_mozilla_set(tmp_path):
    try:
        src = cabundle.system_source()
    except cabundle.Error as e:
        pytest.skip(str(e))
    out = tmp_path / "ca.der"
    r = run("cabundle.py", "-o", out)
    assert r.returncode == 0, r.stderr
    ders = device_split(out)
    labels = [cabundle.Cert(d, "x").label for d in ders]
    assert labels == list(cabundle.DEFAULT_ROOTS)
    total = len(out.read_bytes())
    assert total < 8 * 1024, total                 # 5.6 KB with today's list
    assert "%d roots, %d bytes" % (len(ders), total) in r.stdout and r.stderr == ""
    assert src in (cabundle.SYSTEM_DIR, cabundle.SYSTEM_BUNDLE)
    # --all: the whole (unexpired) set, with the size warning
    r = run("cabundle.py", "--all", "-o", out)
    assert r.returncode == 0, r.stderr
    now = datetime.datetime.now(datetime.timezone.utc)
    want = [c for c in cabundle.read_certs(src) if not c.expired(now)]
    assert len(device_split(out)) == len({c.der for c in want}) > 100
    assert "WARNING" in r.stderr and "ESP32 without PSRAM" in r.stderr


# ---------------------------------------------------------------- lib/cacerts.py

def module_roots(path):
    """ROOTS of a generated module file, run as Python source."""
    ns = {}
    exec(compile(open(path, encoding="utf-8").read(), str(path), "exec"), ns)
    return ns["ROOTS"]


def without_origin(text):
    """The module text without the lines that name the source, its Debian
    version and the command (they differ between machines and paths)."""
    return [ln for ln in text.splitlines()
            if not ln.startswith(("# Generated by", "# (", "#   python tools/"))]


def test_committed_module_is_what_the_tool_makes_from_the_system_set(tmp_path):
    try:
        cabundle.system_source()
    except cabundle.Error as e:
        pytest.skip("cannot regenerate lib/cacerts.py to compare: %s" % e)
    out = tmp_path / "cacerts.py"
    r = run("cabundle.py", "--module", out)
    assert r.returncode == 0, r.stderr
    assert "%s: %d roots, %d bytes" % (out, len(cacerts.ROOTS),
                                       sum(len(d) for d in cacerts.ROOTS)) in r.stdout
    assert module_roots(out) == cacerts.ROOTS
    committed = open(cacerts.__file__, encoding="utf-8").read()
    assert without_origin(out.read_text()) == without_origin(committed)
    first = out.read_bytes()
    r = run("cabundle.py", "--module", out)               # deterministic
    assert r.returncode == 0 and out.read_bytes() == first
    assert "#   python tools/cabundle.py --module lib/cacerts.py\n" in committed
    version = cabundle.package_version()
    if version:
        assert "from Debian ca-certificates %s\n" % version in committed


def test_module_holds_the_default_roots_unexpired_and_small():
    now = datetime.datetime.now(datetime.timezone.utc)
    labels = []
    for der in cacerts.ROOTS:
        assert isinstance(der, bytes)
        assert cabundle.split_der(der, "cacerts") == [der]   # one whole DER each
        c = cabundle.Cert(der, "cacerts")
        assert c.not_after > now + datetime.timedelta(days=365), c.label
        labels.append(c.label)
    assert labels == list(cabundle.DEFAULT_ROOTS)
    total = sum(len(d) for d in cacerts.ROOTS)
    assert total < 8 * 1024, total                 # 5581 bytes today
    text = open(cacerts.__file__, encoding="utf-8").read()
    for name in cabundle.DEFAULT_ROOTS:            # listed with its reason
        assert cabundle.ROOT_WHY[name] in text and "    # %s\n" % name in text
    assert max(len(ln) for ln in text.splitlines()) <= 80


def test_adjacent_literals_are_one_constant_in_the_xtensawin_mpy(tmp_path):
    """mpy-cross joins the wrapped b"..." b"..." into one constant per root:
    each DER lies whole in the .mpy, which is barely bigger than the DER."""
    mpy = tmp_path / "cacerts.mpy"
    r = subprocess.run([load("mpybuild").mpy_cross(), "-march=xtensawin", "-o", str(mpy), cacerts.__file__],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    data = mpy.read_bytes()
    for der in cacerts.ROOTS:
        assert der in data
    total = sum(len(d) for d in cacerts.ROOTS)
    print("cacerts.mpy (xtensawin): %d bytes for %d bytes of DER" % (len(data), total))
    assert len(data) < total + 256


def test_bytes_literals_round_trip_every_byte_value():
    data = bytes(range(256)) * 2 + b'"\\x41\\'
    lits = cabundle.bytes_literals(data, 40)
    assert all(len(x) <= 40 for x in lits) and len(lits) > 10
    assert b"".join(eval(x) for x in lits) == data     # each one alone is valid
    assert eval(" ".join(lits)) == data                # adjacent: joined
    assert cabundle.bytes_literals(b"") == ['b""']


def test_module_output_format_and_outputs(pki, tmp_path, monkeypatch):
    mod, der = tmp_path / "roots.py", tmp_path / "roots.der"
    r = run("cabundle.py", "--source", pki["src"], "--no-defaults", "--name",
            "AntOS Test Root A", "--add", pki["b"], "--module", mod, "-o", der)
    assert r.returncode == 0, r.stderr
    assert module_roots(mod) == (pki["A"], pki["B"])
    assert der.read_bytes() == pki["A"] + pki["B"]
    text = mod.read_text()
    lines = text.splitlines()
    assert lines[0].startswith("# cacerts: ")
    assert "# Generated by tools/cabundle.py from the certificates in" in lines
    assert "# %s." % pki["src"] in lines                  # no Debian version
    assert ("#   python tools/cabundle.py --module %s --source %s --no-defaults "
            "--name 'AntOS Test Root A' --add %s" % (mod, pki["src"], pki["b"])) in lines
    assert "# 2 roots, %d bytes DER (name, valid until, why):" % (
        len(pki["A"]) + len(pki["B"])) in lines
    i = lines.index("ROOTS = (")
    assert lines[i - 2].startswith("#   AntOS Test Root A ") and lines[i - 2].endswith(" --name")
    assert lines[i - 1].endswith(" --add b.pem")
    assert lines[i + 1] == "    # AntOS Test Root A" and lines[-1] == ")"
    assert max(len(ln) for ln in lines[i:]) <= 80       # the header holds long paths
    # -o alone writes only the DER file; no output option: the module at
    # DEFAULT_MODULE (pointed at tmp_path here)
    mod.unlink()
    r = run("cabundle.py", "--source", pki["src"], "--no-defaults", "--name",
            "AntOS Test Root B", "-o", der)
    assert r.returncode == 0 and der.read_bytes() == pki["B"] and not mod.exists()
    monkeypatch.setattr(cabundle, "DEFAULT_MODULE", str(mod))
    assert cabundle.main(["--source", pki["src"], "--no-defaults", "--name",
                          "AntOS Test Root B"]) == 0
    assert module_roots(mod) == (pki["B"],)


def test_package_version_from_dpkg_status(tmp_path):
    st = tmp_path / "status"
    st.write_text("Package: ca-certificates-java\nStatus: install ok installed\n"
                  "Version: 1\n\nPackage: ca-certificates\nStatus: install ok "
                  "installed\nPriority: standard\nVersion: 20230311+deb12u1\n"
                  "Description: x\n more: text\n")
    assert cabundle.package_version(str(st)) == "20230311+deb12u1"
    st.write_text("Package: ca-certificates\nStatus: deinstall ok config-files\n"
                  "Version: 2\n")
    assert cabundle.package_version(str(st)) is None
    assert cabundle.package_version(str(tmp_path / "none")) is None


def test_cpython_refuses_a_test_ca_with_the_bundle_roots(pki, tmp_path):
    """The bundle's roots as a DER file (ca=): the test CA's server is
    refused; the test CA's own file works. CPython's default stays the
    system roots (CA_FILE None), which refuse it too."""
    bundle = tmp_path / "cacerts.der"
    bundle.write_bytes(b"".join(cacerts.ROOTS))
    assert httpc.CA_FILE is None
    httpc.close_all()
    try:
        with Server(ok_handler, tls=pki["ctx"]) as srv:
            url = "https://localhost:%d/" % srv.port
            for ca in (str(bundle), None):
                with pytest.raises(httpc.HTTPError) as ei:
                    httpc.request("GET", url, ca=ca)
                assert str(ei.value) == ("TLS: certificate not trusted for localhost "
                                         "(unknown CA)"), ca
            with httpc.request("GET", url, ca=pki["a"]) as r:
                assert (r.status, r.read()) == (200, b"secure")
    finally:
        httpc.close_all()


def test_micropython_default_roots_are_the_bundle(mpy, pki):
    """Under the unix port (lib/ from the ROM image): with no ca= and
    CA_FILE None httpc loads every cacerts root (load_verify_locations
    calls counted by the scenario), once, drops the module, refuses the
    test CA's server; ca=<test CA file> replaces the bundle and works. A
    broken or missing bundle is a clear "TLS:" error."""
    with Server(ok_handler, tls=pki["ctx"]) as srv:
        r = mpy.run("http_ca", heap=GOAL, args=[srv.port, pki["a"]], timeout=60)
    assert r.rc == 0, r
    out = r.out.splitlines()
    refused = "bundle tls TLS: certificate not trusted for localhost (unknown CA)"
    n = len(cacerts.ROOTS)
    assert out[0] == "default CA_FILE None", r
    assert out[1:3] == [refused, refused], r
    assert out[4:] == [
        "loaded %d False" % n, "testca 200 secure 1", "roots %d" % n,
        "junk tls TLS: bad certificate in cacerts False",
        "gone tls TLS: no CA certificates (no cacerts module in the firmware; "
        "set httpc.CA_FILE) False",
        "DONE"], r
    kept = int(out[3].split()[1])
    print("heap kept by the bundle's TLS context:", kept)
    assert kept < 4500, kept                       # ~3.9 KB: the context, not the roots


def test_help_says_why_each_default_root_is_there():
    """tools/README.md sends people to --help for the reasons: it must list them."""
    r = run("cabundle.py", "--help")
    assert r.returncode == 0
    for name in cabundle.DEFAULT_ROOTS:
        assert re.search(r"^  %s +%s$" % (re.escape(name), re.escape(cabundle.ROOT_WHY[name])),
                         r.stdout, re.M), r.stdout
    assert "see this file's docstring" not in r.stdout
