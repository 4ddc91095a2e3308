"""tools/cabundle.py, the CA bundle the device trusts: proven against a
loopback TLS server on CPython and under the MicroPython unix port
(mbedTLS, as on the device)."""
import datetime
import os
import ssl

import pytest
import trustme

import httpc
from httpserver import Server

from toolrun import PY, ROOT, load, run

cabundle = load("cabundle")


def der_of(pem_bytes):
    return ssl.PEM_cert_to_DER_cert(pem_bytes.decode())


def device_split(path):
    """The bundle as the device reads it: httpc's own DER splitter."""
    out = []
    httpc._each_cert(str(path), out.append)
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
        r = mpy.run("http_tls", heap="64K", args=[srv.port, good, bad, pki["src"]],
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
