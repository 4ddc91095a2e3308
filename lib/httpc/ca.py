# httpc.ca: the TLS side of httpc, imported by the first https request:
# the verifying context with its CA roots, and the wording of handshake
# failures.
#
# Roots: with no CA file (httpc.CA_FILE None and no ca=, the default),
# MicroPython uses the module cacerts (ROOTS: DER bytes constants, frozen
# in flash; made by tools/cabundle.py), dropped from sys.modules once
# loaded; CPython uses the system roots. A CA file replaces them:
# concatenated DER certificates (each a self-delimiting ASN.1 SEQUENCE,
# 0x30 + length) or a PEM bundle. On MicroPython each certificate goes to
# mbedTLS on its own (it takes DER only and accumulates them). The context
# is kept for the next request with the same CA file.
from compat import MICROPYTHON, const
from httpc import HTTPError

_MAX_CERT = const(16384)        # longest DER certificate in a bundle
_MAX_PEM_LINES = const(400)     # base64 lines of one PEM certificate
# mbedTLS error codes (MicroPython raises them as OSError(code))

_kept = [None, None]   # [CA file, SSL context]: parsed roots are kept for reuse


def each_cert(path, fn):
    """Call fn(der_bytes) for every certificate in a DER or PEM bundle."""
    try:
        f = open(path, "rb")
    except OSError:
        raise HTTPError("TLS: cannot read CA file %s (fix the path, or set "
                        "httpc.CA_FILE = None for the default roots)" % path, "tls")
    bad = HTTPError("TLS: CA file %s is not a DER or PEM certificate bundle"
                    % path, "tls")
    n = 0
    try:
        first = f.read(1)
        f.seek(0)
        if first == b"\x30":
            pos = 0
            while True:
                hdr = f.read(4)
                if not hdr:
                    break
                if len(hdr) < 4 or hdr[0] != 0x30:
                    raise bad
                size = hdr[1]
                if size < 0x80:             # short form: the length itself
                    total = 2 + size
                elif size in (0x81, 0x82):  # long form: 1 or 2 length bytes
                    k = size & 0x7F
                    v = hdr[2] if k == 1 else hdr[2] * 256 + hdr[3]
                    total = 2 + k + v
                else:
                    raise bad
                if total > _MAX_CERT:
                    raise bad
                f.seek(pos)
                der = f.read(total)
                if len(der) != total:
                    raise bad
                fn(der)
                n += 1
                pos += total
        else:
            import binascii
            parts = None
            while True:
                line = f.readline()
                if not line:
                    break
                line = line.strip()
                if line.startswith(b"-----BEGIN CERTIFICATE"):
                    parts = []
                elif line.startswith(b"-----END CERTIFICATE"):
                    if parts:
                        fn(binascii.a2b_base64(b"".join(parts)))
                        n += 1
                    parts = None
                elif parts is not None:
                    parts.append(line)
                    if len(parts) > _MAX_PEM_LINES:
                        raise bad
    finally:
        f.close()
    if not n:
        raise bad
    return n


def context(ca):
    """The SSL context that verifies servers against the roots of CA file
    `ca` (None: the built-in / system roots)."""
    if _kept[1] is not None and _kept[0] == ca:
        return _kept[1]
    _kept[0] = _kept[1] = None
    if MICROPYTHON:
        import tls
        ctx = tls.SSLContext(tls.PROTOCOL_TLS_CLIENT)
        ctx.verify_mode = tls.CERT_REQUIRED

        def add(der):
            try:
                ctx.load_verify_locations(der)
            except (ValueError, OSError):
                raise HTTPError("TLS: bad certificate in %s" % (ca or "cacerts"),
                                "tls")
        if ca is None:
            import sys
            try:
                import cacerts
            except ImportError:
                raise HTTPError("TLS: no CA certificates (no cacerts module in "
                                "the firmware; set httpc.CA_FILE)", "tls")
            try:
                for der in cacerts.ROOTS:
                    add(der)
            finally:
                # a copy loaded from a .mpy file would keep its bytes in the heap
                sys.modules.pop("cacerts", None)
        else:
            each_cert(ca, add)
    else:
        import ssl
        if ca is None:
            ctx = ssl.create_default_context()
        else:
            ders = []
            each_cert(ca, ders.append)
            try:
                ctx = ssl.create_default_context(cadata=b"".join(ders))
            except ssl.SSLError:
                raise HTTPError("TLS: bad certificate in CA file %s" % ca, "tls")
        ctx.check_hostname = True
    _kept[0] = ca
    _kept[1] = ctx
    return ctx
