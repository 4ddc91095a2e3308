# ES256 client assertions (RFC 7523 private_key_jwt, JWS RFC 7515/7518) in
# pure Python for both interpreters, imported by mcp/oauth.py only when a
# token request authenticates with a private key.
#
# Key: an EC P-256 private key as PEM, PKCS#8 ("BEGIN PRIVATE KEY") or SEC1
# ("BEGIN EC PRIVATE KEY"); the scalar d is the OCTET STRING that follows
# ECPrivateKey's version 1 (02 01 01 04 20 <32 bytes>) in both.
# JWT: base64url(header) "." base64url(claims) "." base64url(r || s), header
# {"alg":"ES256","typ":"JWT"}, claims iss = sub = client_id, aud = the
# authorization server's issuer, iat, exp (+5 min), jti (random).
# ECDSA over P-256 with SHA-256 (FIPS 186-4): Jacobian coordinates (a = -3),
# one inversion per signature; nonce k from os.urandom hashed with d and the
# message digest (a weak RNG alone cannot repeat k across messages). Not
# constant-time: big ints in Python are not; the key signs on the device only.
# About 256 doublings and 128 additions of 256-bit numbers per signature.
import os
import binascii
import hashlib

import jsonstream
from mcp.exchange import McpError
from mcp.oauth import b64url
from compat import epoch

P = 2 ** 256 - 2 ** 224 + 2 ** 192 + 2 ** 96 - 1
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
     0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5, 1)
_P256 = b"\x2a\x86\x48\xce\x3d\x03\x01\x07"      # OID 1.2.840.10045.3.1.7


def private_key(pem):
    """The scalar d of an EC P-256 private key in PEM text."""
    a = pem.find("-----BEGIN")
    a = pem.find("-----", a + 10) if a >= 0 else -1
    b = pem.find("-----END")
    try:
        der = binascii.a2b_base64("".join(pem[a + 5:b].split()))
    except ValueError:
        der = b""
    if a < 0 or b < a or _P256 not in der:
        raise McpError("the client key is not an EC P-256 private key in PEM")
    i = der.find(b"\x02\x01\x01\x04\x20")
    d = int.from_bytes(der[i + 5:i + 37], "big") if i >= 0 else 0
    if not 0 < d < N:
        raise McpError("the client key is not an EC P-256 private key in PEM")
    return d


def _double(p):
    x, y, z = p
    if not y or not z:
        return (0, 1, 0)
    delta = z * z % P
    gamma = y * y % P
    beta = x * gamma % P
    alpha = 3 * (x - delta) * (x + delta) % P
    x3 = (alpha * alpha - 8 * beta) % P
    z3 = ((y + z) * (y + z) - gamma - delta) % P
    return (x3, (alpha * (4 * beta - x3) - 8 * gamma * gamma) % P, z3)


def _add(p, q):
    if not p[2]:
        return q
    if not q[2]:
        return p
    x1, y1, z1 = p
    x2, y2, z2 = q
    z1z1 = z1 * z1 % P
    z2z2 = z2 * z2 % P
    u1 = x1 * z2z2 % P
    u2 = x2 * z1z1 % P
    s1 = y1 * z2 * z2z2 % P
    s2 = y2 * z1 * z1z1 % P
    h = (u2 - u1) % P
    r = (s2 - s1) % P
    if not h:
        return _double(p) if not r else (0, 1, 0)
    hh = h * h % P
    hhh = h * hh % P
    v = u1 * hh % P
    x3 = (r * r - hhh - 2 * v) % P
    return (x3, (r * (v - x3) - s1 * hhh) % P, z1 * z2 * h % P)


def mul(k, p=G):
    """k * p in Jacobian coordinates (z = 0: the point at infinity)."""
    r = (0, 1, 0)
    for i in range(255, -1, -1):
        r = _double(r)
        if (k >> i) & 1:
            r = _add(r, p)
    return r


def sign(d, digest):
    """ECDSA signature r || s (64 bytes) of a 32-byte SHA-256 digest."""
    z = int.from_bytes(digest, "big")
    seed = os.urandom(32) + d.to_bytes(32, "big") + digest
    while True:
        k = int.from_bytes(hashlib.sha256(b"\x01" + seed).digest()
                           + hashlib.sha256(b"\x02" + seed).digest(), "big") % (N - 1) + 1
        x, _, zz = mul(k)
        r = x * pow(pow(zz, 2, P), P - 2, P) % P % N
        s = pow(k, N - 2, N) * (z + r * d) % N
        if r and s:
            return r.to_bytes(32, "big") + s.to_bytes(32, "big")
        seed = hashlib.sha256(seed).digest()


def assertion(pem, client_id, audience):
    """A client assertion JWT (RFC 7523) signed with the key in pem."""
    d = private_key(pem)
    now = epoch()
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "iat": now,
              "exp": now + 300, "jti": b64url(os.urandom(12))}
    msg = b64url(b'{"alg":"ES256","typ":"JWT"}') + "." + b64url(jsonstream.dumps(claims).encode())
    return msg + "." + b64url(sign(d, hashlib.sha256(msg.encode()).digest()))
