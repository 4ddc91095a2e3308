"""Build the CA bundle the device trusts: the root certificates httpc loads.

    python tools/cabundle.py [--module lib/cacerts.py] [-o FILE.der]
                             [--source FILE_OR_DIR]... [--name NAME]...
                             [--add FILE]... [--no-defaults] [--all] [--list]

Outputs:
  --module FILE  (the default, lib/cacerts.py) a Python module, one bytes
                 constant per DER root in ROOTS. firmware/manifest.py
                 freezes lib/, so the roots live in flash, not in the heap;
                 on MicroPython httpc hands each one to mbedTLS
                 (tls.SSLContext.load_verify_locations takes DER only) when
                 neither httpc.CA_FILE nor ca= names a file. The output is
                 deterministic (same source and options -> same bytes):
                 lib/cacerts.py is committed and a test regenerates it.
  -o FILE.der    DER certificates concatenated, nothing between them (each
                 is a self-delimiting ASN.1 SEQUENCE, 0x30 + length): the
                 file format httpc reads from httpc.CA_FILE or ca= (PEM
                 works there too). Only written when asked for.

Why the bundle is small: on the ESP32 every root is parsed into the mbedTLS
heap (the ~40 KB of IDF heap that WiFi and the TLS connection also need) at
the first https request. The whole Mozilla set (~140 roots, ~190 KB DER)
cannot work there, so by default only the roots below go in.

Source: the Mozilla roots as shipped by Debian's ca-certificates package:
the folder /usr/share/ca-certificates/mozilla (only Mozilla's roots), else
/etc/ssl/certs/ca-certificates.crt (which also holds any CA the machine's
admin added, so --all would ship those too); or the PEM/DER files given by
--source. The package version (from dpkg's status file) goes in the
module's header when the source is the system set.

Default roots (DEFAULT_ROOTS, one-line reasons in ROOT_WHY) -- a choice,
made from public knowledge without probing the hosts (no network here), of
the roots that anchor the HTTPS hosts in lib/ai/catalog.py and typical MCP
servers:
  ISRG Root X1 / X2        Let's Encrypt (RSA / ECDSA chains): one of the
                           CAs Cloudflare's edge issues from, and most
                           self-hosted MCP servers
  GTS Root R1 / R4         Google Trust Services (RSA / ECDSA): Google APIs
                           (generativelanguage.googleapis.com) and the other
                           CA of Cloudflare's edge (api.openai.com and
                           api.groq.com are served through Cloudflare)
  DigiCert Global Root G2  DigiCert: Azure and many SaaS APIs
  Amazon Root CA 1         AWS-hosted APIs and MCP servers (ACM)
Left out on purpose: the GlobalSign roots that cross-sign GTS (the GTS
roots themselves are enough: mbedTLS looks in the trusted list first),
roots from before 2010 that browsers are retiring (DigiCert Global Root CA,
Baltimore CyberTrust Root, expired 2025), and everything else.
Not verified offline: which CA api.anthropic.com and api.moonshot.ai use
today (CAs change). If a host fails on the device with "TLS: certificate
not trusted for HOST (unknown CA)", find its root on a PC
(`openssl s_client -connect HOST:443 -showcerts`, the last "i:" line) and
  --name "Root Name"    add a root of the source by its subject common name
                        (or OU, for roots that have no CN); see --list
  --add root.pem        add certificates from your own PEM or DER file
  --all                 every unexpired root of the source (prints a size
                        warning: too big for an ESP32 without PSRAM)
  --no-defaults         start from an empty selection (only --name/--add)
then rebuild the firmware (or, without rebuilding, put a DER/PEM file on
the board and set httpc.CA_FILE to it: that file replaces the bundle).
A requested root that is missing, ambiguous or expired is an error (exit 1).

Subject names and expiry dates are read with the `cryptography` package
when it is importable (it is in .venv: trustme needs it), else by a minimal
DER walk (_der_info) that reads only the subject CN/OU/O and notAfter.
"""
import argparse
import base64
import datetime
import os
import shlex
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODULE = os.path.join(ROOT, "lib", "cacerts.py")
SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
SYSTEM_DIR = "/usr/share/ca-certificates/mozilla"
DPKG_STATUS = "/var/lib/dpkg/status"

DEFAULT_ROOTS = (
    "ISRG Root X1",
    "ISRG Root X2",
    "GTS Root R1",
    "GTS Root R4",
    "DigiCert Global Root G2",
    "Amazon Root CA 1",
)
# why each default root is there (the module header's last column)
ROOT_WHY = {
    "ISRG Root X1": "Let's Encrypt RSA: Cloudflare, MCP",
    "ISRG Root X2": "Let's Encrypt ECDSA chains",
    "GTS Root R1": "Google APIs (Gemini), Cloudflare (RSA)",
    "GTS Root R4": "Google APIs, Cloudflare (ECDSA)",
    "DigiCert Global Root G2": "DigiCert: Azure and many SaaS APIs",
    "Amazon Root CA 1": "AWS-hosted APIs, MCP servers (ACM)",
}
# width of the module's bytes literals: with the indent and the last one's
# comma, lines stay within 80 characters
LIT_WIDTH = 75

# Above this the summary warns: the parsed roots alone take a large share of
# the ESP32's ~40 KB IDF heap (parsed form is bigger than the DER).
WARN_BYTES = 12 * 1024
# lib/httpc/ca.py reads a DER certificate with a 1- or 2-byte length, at most
# 16 KB: refuse anything it could not load on the device.
CERT_MAX = 16384

_PEM_BEGIN = (b"-----BEGIN CERTIFICATE-----", b"-----BEGIN TRUSTED CERTIFICATE-----")
_PEM_END = (b"-----END CERTIFICATE-----", b"-----END TRUSTED CERTIFICATE-----")


class Error(Exception):
    """A problem a person can fix; main() prints it and exits 1."""


class Cert:
    """One certificate: der bytes, cn, ous (list), org, not_after (aware
    UTC datetime or None), origin (file it came from)."""

    def __init__(self, der, origin):
        self.der = der
        self.origin = origin
        self.why = ""         # set when selected: why it is in the bundle
        self.cn, self.ous, self.org, self.not_after = cert_info(der)

    @property
    def label(self):
        if self.cn:
            return self.cn
        if self.ous:
            return self.ous[-1]
        return self.org or "(no subject name)"

    def names(self):
        """Lower-cased names --name can match: the CN and every OU."""
        out = [self.cn] if self.cn else []
        return [n.lower() for n in out + self.ous]

    def expired(self, now):
        return self.not_after is not None and self.not_after < now


# ---------------------------------------------------------------- reading

def _first_tlv_len(der, where):
    """Total length of the DER SEQUENCE at the start of der (checked)."""
    if len(der) < 2 or der[0] != 0x30:
        raise Error("%s: not a DER certificate" % where)
    ln = der[1]
    if ln < 0x80:
        return 2 + ln
    n = ln & 0x7F
    if n == 0 or n > 3 or len(der) < 2 + n:
        raise Error("%s: not a DER certificate" % where)
    return 2 + n + int.from_bytes(der[2:2 + n], "big")


def split_der(data, where):
    """Concatenated DER certificates -> list of bytes."""
    out = []
    pos = 0
    while pos < len(data):
        total = _first_tlv_len(data[pos:pos + 8], where)
        if pos + total > len(data):
            raise Error("%s: truncated DER certificate" % where)
        out.append(data[pos:pos + total])
        pos += total
    return out


def pem_to_der(data, where):
    """Every CERTIFICATE block of a PEM text -> list of DER bytes (base64 of
    the body; "TRUSTED CERTIFICATE" blocks lose OpenSSL's trailing aux)."""
    out = []
    body = None
    for line in data.splitlines():
        line = line.strip()
        if line in _PEM_BEGIN:
            body = []
        elif line in _PEM_END:
            if body is None:
                raise Error("%s: END without BEGIN CERTIFICATE" % where)
            try:
                der = base64.b64decode(b"".join(body), validate=True)
            except ValueError:
                raise Error("%s: bad base64 in a PEM certificate" % where)
            out.append(der[:_first_tlv_len(der, where)])
            body = None
        elif body is not None:
            body.append(line)
    if body is not None:
        raise Error("%s: PEM certificate without END line" % where)
    return out


def read_certs(path):
    """Certificates of one PEM or DER file, or of every .crt/.pem/.cer/.der
    file under a folder (sorted, so the output is reproducible)."""
    if os.path.isdir(path):
        out = []
        for d, dirs, files in os.walk(path):
            dirs.sort()
            for f in sorted(files):
                if f.lower().endswith((".crt", ".pem", ".cer", ".der")):
                    out.extend(read_certs(os.path.join(d, f)))
        return out
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Error("cannot read %s: %s" % (path, e.strerror or e))
    ders = split_der(data, path) if data[:1] == b"\x30" else pem_to_der(data, path)
    if not ders:
        raise Error("%s: no certificate found (need PEM or DER)" % path)
    return [Cert(d, path) for d in ders]


def system_source():
    for p in (SYSTEM_DIR, SYSTEM_BUNDLE):
        if os.path.exists(p):
            return p
    raise Error("no system CA certificates (%s or %s); install the Debian/Ubuntu "
                "package ca-certificates, or give --source FILE_OR_DIR"
                % (SYSTEM_DIR, SYSTEM_BUNDLE))


# ---------------------------------------------------------------- subject

def cert_info(der):
    """(cn, [ou...], org, not_after) of a DER certificate."""
    try:
        return _crypto_info(der)
    except ImportError:
        return _der_info(der)


def _crypto_info(der):
    from cryptography import x509
    from cryptography.x509.oid import NameOID
    with warnings.catch_warnings():
        # a few Mozilla roots have a negative serial number (deprecation warning)
        warnings.simplefilter("ignore")
        try:
            c = x509.load_der_x509_certificate(der)
            subject = c.subject
        except ValueError as e:
            raise Error("cannot parse a certificate: %s" % e)

        def get(oid):
            return [str(a.value) for a in subject.get_attributes_for_oid(oid)]
        cn = get(NameOID.COMMON_NAME)
        org = get(NameOID.ORGANIZATION_NAME)
        after = getattr(c, "not_valid_after_utc", None)
        if after is None:
            after = c.not_valid_after.replace(tzinfo=datetime.timezone.utc)
    return (cn[-1] if cn else None, get(NameOID.ORGANIZATIONAL_UNIT_NAME),
            org[-1] if org else None, after)


_OID_CN = bytes((0x55, 0x04, 0x03))
_OID_OU = bytes((0x55, 0x04, 0x0B))
_OID_O = bytes((0x55, 0x04, 0x0A))


def _tlv(buf, pos, end):
    """(tag, content start, content end) of the DER element at pos."""
    if pos + 2 > end:
        raise Error("cannot parse a certificate: truncated")
    tag, ln = buf[pos], buf[pos + 1]
    pos += 2
    if ln >= 0x80:
        n = ln & 0x7F
        if n == 0 or n > 3 or pos + n > end:
            raise Error("cannot parse a certificate: bad length")
        ln = int.from_bytes(buf[pos:pos + n], "big")
        pos += n
    if pos + ln > end:
        raise Error("cannot parse a certificate: truncated")
    return tag, pos, pos + ln


def _string(tag, raw):
    if tag == 0x1E:
        return raw.decode("utf-16-be")
    if tag == 0x1C:
        return raw.decode("utf-32-be")
    if tag == 0x14:
        return raw.decode("latin-1")
    return raw.decode("utf-8")   # UTF8String, PrintableString, IA5String...


def _time(tag, raw):
    s = raw.decode("ascii").rstrip("Z")
    if tag == 0x17:                      # UTCTime YYMMDDHHMMSS
        yy = int(s[:2])
        s = ("20" if yy < 50 else "19") + s
    return datetime.datetime(int(s[:4]), int(s[4:6]), int(s[6:8]), int(s[8:10]),
                             int(s[10:12]), int(s[12:14] or 0),
                             tzinfo=datetime.timezone.utc)


def _der_info(der):
    """The same as _crypto_info by walking the DER: Certificate ->
    tbsCertificate -> [version], serial, signature, issuer, validity,
    subject; subject = SEQUENCE OF SET OF SEQUENCE {OID, string}."""
    _, a, b = _tlv(der, 0, len(der))             # Certificate
    _, a, b = _tlv(der, a, b)                    # tbsCertificate
    fields = []
    while a < b and len(fields) < 6:
        tag, s, e = _tlv(der, a, b)
        if not (tag == 0xA0 and not fields):     # skip [0] version
            fields.append((s, e))
        a = e
    if len(fields) < 5:
        raise Error("cannot parse a certificate: short tbsCertificate")
    (vs, ve), (ss, se) = fields[3], fields[4]
    _, ns, ne = _tlv(der, vs, ve)                # notBefore
    tag, ns, ne = _tlv(der, ne, ve)              # notAfter
    after = _time(tag, der[ns:ne])
    cn, ous, org = [], [], []
    while ss < se:
        _, rs, re_ = _tlv(der, ss, se)           # SET (RDN)
        ss = re_
        while rs < re_:
            _, ps, pe = _tlv(der, rs, re_)      # SEQUENCE {OID, value}
            rs = pe
            _, os_, oe = _tlv(der, ps, pe)
            oid = der[os_:oe]
            vtag, vs_, ve_ = _tlv(der, oe, pe)
            for want, into in ((_OID_CN, cn), (_OID_OU, ous), (_OID_O, org)):
                if oid == want:
                    into.append(_string(vtag, der[vs_:ve_]))
    return (cn[-1] if cn else None, ous, org[-1] if org else None, after)


# ---------------------------------------------------------------- selection

def find(certs, name, where):
    """The one certificate of certs whose CN (or OU) is name."""
    low = name.strip().lower()
    hits = []
    for c in certs:
        if low in c.names() and all(h.der != c.der for h in hits):
            hits.append(c)
    if not hits:
        raise Error('root "%s" not found in %s (see --list; or --add a PEM file '
                    'with that root)' % (name, where))
    if len(hits) > 1:
        raise Error('root name "%s" matches %d roots in %s: %s -- give the OU name '
                    'instead' % (name, len(hits), where, "; ".join(
                        "/".join([h.cn or ""] + h.ous) for h in hits)))
    return hits[0]


def select(source_certs, where, names=(), added=(), all_roots=False, now=None):
    """Pick the certificates for the bundle. Returns (certs, notes) where
    notes are lines to print (skipped expired roots with --all)."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    picked, notes = [], []

    def take(c, what, why):
        if c.expired(now):
            raise Error('%s "%s" expired on %s: it cannot anchor any chain'
                        % (what, c.label, c.not_after.date()))
        if len(c.der) > CERT_MAX:
            raise Error('%s "%s" is %d bytes: over the %d the device reader takes'
                        % (what, c.label, len(c.der), CERT_MAX))
        if all(p.der != c.der for p in picked):
            c.why = why
            picked.append(c)

    if all_roots:
        for c in source_certs:
            if c.expired(now):
                notes.append("skipped (expired %s): %s" % (c.not_after.date(), c.label))
            else:
                take(c, "root", "--all")
    for n in names:
        take(find(source_certs, n, where), "root", ROOT_WHY.get(n, "--name"))
    for c in added:
        take(c, "certificate from " + c.origin + ":",
             "--add " + os.path.basename(c.origin))
    return picked, notes


def _write(path, data):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def write_bundle(path, certs):
    """The DER file format: certificates concatenated."""
    data = b"".join(c.der for c in certs)
    _write(path, data)
    return len(data)


def package_version(status=DPKG_STATUS, package="ca-certificates"):
    """Installed version of a Debian package from dpkg's status file, or None."""
    try:
        with open(status, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    for para in text.split("\n\n"):
        fields = {}
        for line in para.splitlines():
            k, sep, v = line.partition(":")
            if sep and not line[:1].isspace():
                fields[k] = v.strip()
        if fields.get("Package") == package and "installed" in fields.get("Status", ""):
            return fields.get("Version")
    return None


def bytes_literals(data, width=LIT_WIDTH):
    """data as adjacent b"..." literals of at most width characters each
    (the compiler joins adjacent literals into one constant). Printable
    ASCII stays as is, every other byte is a \\xHH escape (exactly two hex
    digits, so a following digit is never taken into it); an escape is never
    split between two literals."""
    out, cur, n = [], [], 3
    for x in data:
        t = chr(x) if 32 <= x < 127 and x not in (34, 92) else "\\x%02x" % x
        if n + len(t) > width:
            out.append('b"%s"' % "".join(cur))
            cur, n = [], 3
        cur.append(t)
        n += len(t)
    if cur or not out:
        out.append('b"%s"' % "".join(cur))
    return out


def module_text(certs, source, version, command):
    """The source of lib/cacerts.py: a header comment, then ROOTS. source:
    where the roots came from; version: of Debian's ca-certificates, or
    None; command: how to regenerate it."""
    total = sum(len(c.der) for c in certs)
    lines = [
        "# cacerts: the root certificates httpc trusts on MicroPython when",
        "# neither httpc.CA_FILE nor ca= names a CA file (a file replaces them).",
        "# ROOTS holds one DER certificate per bytes constant: frozen into the",
        "# firmware they stay in flash; httpc hands each to",
        "# tls.SSLContext.load_verify_locations, then drops this module from",
        "# sys.modules.",
        "#",
        "# Generated by tools/cabundle.py from " + (
            "Debian ca-certificates " + version if version else "the certificates in"),
        ("# (%s)." if version else "# %s.") % source,
        "# Do not edit. Regenerate (the choice of roots is explained there):",
        "#   %s" % command,
        "#",
        "# %d roots, %d bytes DER (name, valid until, why):" % (len(certs), total),
    ]
    for c in certs:
        lines.append("#   %-23s  %s  %s" % (
            _one_line(c.label), c.not_after.date() if c.not_after else "?", c.why))
    lines.append("ROOTS = (")
    for c in certs:
        lines.append("    # " + _one_line(c.label))
        lits = bytes_literals(c.der)
        for lit in lits[:-1]:
            lines.append("    " + lit)
        lines.append("    " + lits[-1] + ",")
    lines.append(")")
    return "\n".join(lines) + "\n"


def _one_line(s):
    return " ".join(s.split())


def write_module(path, certs, source, version, command):
    _write(path, module_text(certs, source, version, command).encode("utf-8"))
    return sum(len(c.der) for c in certs)


def regen_command(a, module):
    """The command line that makes this module again (selection options)."""
    rel = os.path.relpath(os.path.abspath(module), ROOT)
    parts = ["python", "tools/cabundle.py", "--module",
             module if rel.startswith("..") else rel]
    for s in a.source:
        parts += ["--source", s]
    if a.no_defaults:
        parts.append("--no-defaults")
    if a.all:
        parts.append("--all")
    for n in a.name:
        parts += ["--name", n]
    for f in a.add:
        parts += ["--add", f]
    return " ".join(shlex.quote(x) for x in parts)


def summary(certs):
    lines = []
    for c in certs:
        lines.append("  %5d  %s%s" % (len(c.der), c.label, (
            "  (until %s)" % c.not_after.date()) if c.not_after else ""))
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="cabundle.py",
        description="Build the device CA bundle: lib/cacerts.py (frozen into "
                    "the firmware; httpc's default roots on MicroPython) or a "
                    "DER file (concatenated certificates, for httpc.CA_FILE), "
                    "from the system's Mozilla set. The ESP32 parses every "
                    "root into its small TLS heap: the default bundle is short.",
        epilog="default roots, and why each is there:\n" + "".join(
            "  %-24s %s\n" % (n, ROOT_WHY[n]) for n in DEFAULT_ROOTS) +
        "a host that fails with \"TLS: certificate not trusted for HOST\n"
        "(unknown CA)\" needs its root added: --name (see --list) or --add FILE",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--module", metavar="FILE.py",
                   help="write the roots as a module of bytes constants (the "
                        "default output: lib/cacerts.py)")
    p.add_argument("-o", "--out", metavar="FILE.der",
                   help="write the roots as concatenated DER (only this output "
                        "unless --module is given too)")
    p.add_argument("--source", action="append", default=[], metavar="FILE_OR_DIR",
                   help="PEM/DER bundle or folder to pick --name roots from "
                        "(default %s, else %s)" % (SYSTEM_DIR, SYSTEM_BUNDLE))
    p.add_argument("--name", action="append", default=[], metavar="NAME",
                   help="also include this root (subject CN, or OU when it has "
                        "no CN); repeatable")
    p.add_argument("--add", action="append", default=[], metavar="FILE",
                   help="also include every certificate of this PEM/DER file")
    p.add_argument("--no-defaults", action="store_true",
                   help="do not include the default roots")
    p.add_argument("--all", action="store_true",
                   help="every unexpired root of the source (far too big for an "
                        "ESP32 without PSRAM; prints a warning)")
    p.add_argument("--list", action="store_true",
                   help="list the roots of the source and exit")
    a = p.parse_args(argv)
    try:
        sources = a.source or [system_source()]
        where = ", ".join(sources)
        source_certs = []
        for s in sources:
            source_certs.extend(read_certs(s))
        if a.list:
            for c in sorted(source_certs, key=lambda c: c.label.lower()):
                extra = (" [OU: %s]" % "; ".join(c.ous)) if c.cn and c.ous else ""
                print("%5d  %s%s" % (len(c.der), c.label, extra))
            print("%d certificates in %s" % (len(source_certs), where))
            return 0
        names = ([] if a.no_defaults else list(DEFAULT_ROOTS)) + a.name
        added = []
        for f in a.add:
            added.extend(read_certs(f))
        certs, notes = select(source_certs, where, names, added, a.all)
        if not certs:
            raise Error("nothing selected (use --name, --add or --all)")
        module = a.module or (None if a.out else DEFAULT_MODULE)
        done = []
        if a.out:
            done.append((a.out, write_bundle(a.out, certs)))
        if module:
            version = None if a.source else package_version()
            done.append((module, write_module(module, certs, where, version,
                                              regen_command(a, module))))
    except Error as e:
        print("cabundle: %s" % e, file=sys.stderr)
        return 1
    for n in notes:
        print(n)
    for path, total in done:
        print("%s: %d roots, %d bytes" % (path, len(certs), total))
    for line in summary(certs):
        print(line)
    total = sum(len(c.der) for c in certs)
    if total > WARN_BYTES:
        print("cabundle: WARNING: %d roots, %d bytes. On an ESP32 without PSRAM "
              "every root is parsed into the ~40 KB heap that WiFi and TLS share, "
              "at the first https request: expect TLS failures. Keep to the roots "
              "you need (default selection, --name, --add)." % (len(certs), total),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
