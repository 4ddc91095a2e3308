# A large Gemini model list, paginated, read with the style functions
# straight off the socket under a small heap: only a count is kept, so the
# working heap must not grow with the list; then a wrong key's error
# body through error_info. argv: base_url key
import sys
import httpc
import modelpages
from ai.styles import gemini as style
import heapmon

base, key = sys.argv[1:3]
cfg = {"base_url": base, "key": key, "style": "gemini"}

heapmon.start()
print("MODELS", *modelpages.count(style, cfg))
# a wrong key: the error body through error_info
url, headers = style.models_request({"base_url": base, "key": "wrong", "style": "gemini"}, None)
r = httpc.request("GET", url, headers, timeout=10)
try:
    print("ERROR", r.status, style.error_info(r.status, r, r.headers))
finally:
    r.close()
heapmon.report()
