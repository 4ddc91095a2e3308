# lib/mcp/oauth.py's encodings and lib/mcp/es256.py's signature under the
# MicroPython unix port; test_oauth.py compares the lines with CPython's
# and verifies the JWT with PyJWT.
#   oauth_units <PEM file>
import sys
import hashlib

import compat
from mcp import oauth, es256

# RFC 7636 appendix B: the code verifier and its S256 challenge
print("pkce", oauth.b64url(hashlib.sha256(b"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").digest()))
print("quote", compat.quote("a b&c=d/\u00e9~*"))
print("unquote", oauth.unquote("a+b%26c%3Dd%2F%C3%A9~%2a", True), oauth.unquote("50%"),
      oauth.unquote("/a+b%20c%zz%4"))
print("form", oauth.form([("a", "x y"), ("skip", None), ("b", "1/2")]))
h = oauth.params('Basic realm="bearer", Bearer error="insufficient_scope", '
                 'scope="a b", resource_metadata="http://h/x", error_description="say \\"no\\""')
print("params", sorted(h.items()))
print("params2", sorted(oauth.params('Bearer realm=x,scope=y, DPoP algs="ES256"').items()))
with open(sys.argv[1]) as f:
    pem = f.read()
print("d", es256.private_key(pem))
print("jwt", es256.assertion(pem, "dev-1", "http://127.0.0.1:1/as"))
