# The anthropic style's pure functions on fixed inputs, printing one JSON
# line per case; the pytest side runs this file under CPython and under the
# MicroPython unix port and compares the parsed lines (no network).
import jsonstream
from ai.styles import StyleError
from ai.styles import anthropic as style

CFG = {"provider": "anthropic", "name": "Anthropic", "style": "anthropic",
       "base_url": "http://127.0.0.1:9/v1", "key": "k", "model": "m",
       "max_tokens": 1024, "temperature": 0.5, "system": "S", "timeout": 5,
       "thinking": "high", "tools_level": "native", "use": "chat",
       "max_reply": 200}


class Reader:
    def __init__(self, data, k=3):
        self.data = data.encode() if isinstance(data, str) else data
        self.i = 0
        self.k = k

    def readinto(self, buf):
        n = min(self.k, len(buf), len(self.data) - self.i)
        buf[0:n] = self.data[self.i:self.i + n]
        self.i += n
        return n


class Ev(Reader):
    def __init__(self, name, data):
        Reader.__init__(self, data, 4)
        self.event = name
        self.empty = not data


class Events:
    def __init__(self, evs):
        self.evs = evs
        self.i = 0

    def next(self):
        if self.i >= len(self.evs):
            return None
        self.i += 1
        return Ev(self.evs[self.i - 1][0], self.evs[self.i - 1][1])


def out(tag, value):
    print(tag + " " + jsonstream.dumps(value))


def reply_value(r):
    return [r.text, r.calls, r.finish, r.turn]


hist = [{"role": "system", "content": "H"},
        {"role": "user", "content": "caf\u00e9 \U0001F600"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "functions.f:0", "name": "f", "args": '{"a": [1, 2.5, true, null]}'},
            {"id": "c2", "name": "g", "args": "{broken"}]},
        {"role": "tool", "tool_call_id": "functions.f:0", "name": "f", "content": "r1"},
        {"role": "tool", "tool_call_id": "c2", "name": "g", "content": "r2", "is_error": True},
        {"role": "assistant", "content": "x", "_echo": {"style": "anthropic", "blocks":
            '{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"x"}'}},
        {"role": "user", "content": "next"}]
url, headers, body = style.request(CFG, hist, [{"name": "f", "parameters": None}], True)
out("URL", [url, headers, jsonstream.encoded_len(body)])
out("REQ", body)

R = ('{"content":[{"type":"thinking","thinking":"hm \\u00e9","signature":"SIG"},'
     '{"type":"text","text":"Hi \\ud83d\\ude00"},{"type":"tool_use","id":"toolu_1",'
     '"name":"f","input":{"q":[1,{"b":false}]}}],"stop_reason":"tool_use"}')
out("REPLY", reply_value(style.read_reply(CFG, Reader(R))))

S = [("message_start", '{"type":"message_start","message":{"content":[]}}'),
     ("content_block_start", '{"type":"content_block_start","index":0,'
      '"content_block":{"type":"thinking","thinking":"","signature":""}}'),
     ("content_block_delta", '{"type":"content_block_delta","index":0,'
      '"delta":{"type":"thinking_delta","thinking":"ok"}}'),
     ("content_block_delta", '{"type":"content_block_delta","index":0,'
      '"delta":{"type":"signature_delta","signature":"SG"}}'),
     ("content_block_start", '{"type":"content_block_start","index":1,'
      '"content_block":{"type":"text","text":""}}'),
     ("content_block_delta", '{"index":1,"delta":{"type":"text_delta","text":"He"},'
      '"type":"content_block_delta"}'),
     ("content_block_delta", '{"type":"content_block_delta","index":1,'
      '"delta":{"type":"text_delta","text":"y \\u00e9"}}'),
     ("message_delta", '{"type":"message_delta","delta":{"stop_reason":"max_tokens"}}'),
     ("message_stop", '{"type":"message_stop"}')]
sunk = []
out("STREAM", reply_value(style.read_stream(CFG, Events(S), sunk.append)) + [sunk])
for cut in (S[:-1], S[:5] + [("error", '{"type":"error","error":{"type":'
                                       '"overloaded_error","message":"Overloaded"}}')]):
    try:
        style.read_stream(CFG, Events(cut), sunk.append)
        out("SERR", None)
    except StyleError as e:
        out("SERR", str(e))
try:
    style.read_reply(CFG, Reader('{"content":[{"type":"text","text":"' + "y" * 300 + '"}]}'))
except StyleError as e:
    out("BOUND", str(e))

for status, data in ((404, '{"type":"error","error":{"type":"not_found_error","message":"model: m"}}'),
                     (502, b"<html><title>502 Bad Gateway</title>\xff</html>"),
                     (500, b""), (400, '{"error":{"message":"' + "z" * 400 + '"}}')):
    out("ERR", list(style.error_info(status, Reader(data), {})))

ids = []
tok = style.read_models(CFG, Reader('{"data":[{"id":"a"},{"id":"b"}],"has_more":true,'
                                    '"last_id":"b"}'), ids.append)
out("MODELS", [ids, tok, style.models_request(CFG, "claude x/1")])
