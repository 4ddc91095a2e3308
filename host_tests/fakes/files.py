"""Files in requests, as the fakes check them (issue 38): base64 decoded
strictly (the alphabet, a length of a multiple of 4, "=" padding only at
the very end: a client that encodes pieces of a length not a multiple of
3 puts padding in the middle, which this refuses), data URIs of the types
a service takes. Each fake records what it decoded in `fake.files`:
{"kind": "image" | "pdf" | "text", "mime", "data" (bytes; a text
document's str), "name"}, so tests compare SHA-256 of what arrived with
the file on flash."""
import binascii
import re

B64 = re.compile(r"[A-Za-z0-9+/]*={0,2}\Z")
IMAGES = ("image/jpeg", "image/png", "image/gif", "image/webp")


def strict_b64(s):
    """The bytes of base64 text s, or None where it is not strict base64
    (anything outside the alphabet, padding inside, a bad length)."""
    if not isinstance(s, str) or len(s) % 4 or not B64.match(s):
        return None
    try:
        return binascii.a2b_base64(s.encode(), strict_mode=True)
    except (binascii.Error, ValueError):
        return None


def data_uri(url, types=IMAGES + ("application/pdf",)):
    """(MIME type, bytes) of a base64 data URI of one of types; ValueError
    saying what is wrong."""
    if not isinstance(url, str) or not url.startswith("data:"):
        raise ValueError("not a data URI")
    head, _, b64 = url.partition(",")
    if not head.endswith(";base64"):
        raise ValueError("not base64")
    mime = head[5:-7]
    if mime not in types:
        raise ValueError("unsupported type %s" % mime)
    data = strict_b64(b64)
    if data is None:
        raise ValueError("invalid base64")
    return mime, data


def record(fake, kind, mime, data, name=None):
    fake.files.append({"kind": kind, "mime": mime, "data": data, "name": name})
