"""Fake Google Gemini (Generative Language API) server.

Wire format (PROVIDERS.md section 4):
  POST {base}/models/{model}:generateContent and
       {base}/models/{model}:streamGenerateContent?alt=sse, base /v1beta or /v1,
  key in `x-goog-api-key` or `?key=`.
  Request {contents: [{role: user|model, parts}], systemInstruction?,
  tools?: [{functionDeclarations: [{name, description, parameters}]}],
  generationConfig?}. Reply {candidates: [{content: {role, parts},
  finishReason}], usageMetadata, modelVersion, responseId}; parts {text},
  {text, thought: true}, {functionCall: {name, args, id?}, thoughtSignature?}.
  Stream: `data: <partial GenerateContentResponse>` + CRLF CRLF, no event
  names, no [DONE]; calls arrive whole; the last event has finishReason and
  usageMetadata. Without alt=sse the stream is one JSON array.
  GET {base}/models?pageSize=&pageToken= -> {models: [...], nextPageToken?}.
Errors: {"error":{"code","message","status","details"?}}. Validation as the
real service: roles, part oneof, schema keys the service does not know,
function call/response turn pairing, thought signatures echoed verbatim,
thinkingBudget xor thinkingLevel.
"""

import base64
import json
import re

from . import files
from .base import (ALNUM, Blocked, Calls, FakeServer, Reject, Stream, Text, Whole,
                   finish_word, new_id, parsed_args, pieces, tokens)

STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
          404: "NOT_FOUND", 409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
          503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
MESSAGES = {400: "Request contains an invalid argument.",
            403: "The caller does not have permission",
            404: "Requested entity was not found.",
            429: "You exceeded your current quota, please check your plan and "
                 "billing details.",
            500: "An internal error has occurred. Please retry or report the problem.",
            503: "The model is overloaded. Please try again later.",
            504: "The request timed out. Please try again."}
TOP_KEYS = ("contents", "tools", "toolConfig", "safetySettings", "systemInstruction",
            "generationConfig", "cachedContent", "labels")
SCHEMA_KEYS = ("type", "format", "title", "description", "nullable", "enum",
               "maxItems", "minItems", "properties", "required", "minProperties",
               "maxProperties", "minLength", "maxLength", "pattern", "example",
               "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum")
SCHEMA_TYPES = ("STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL")
DATA_KEYS = ("text", "inlineData", "functionCall", "functionResponse", "fileData",
             "executableCode", "codeExecutionResult")
PART_KEYS = DATA_KEYS + ("thought", "thoughtSignature", "videoMetadata",
                         "partMetadata")
# ai.google.dev/gemini-api/docs/image-understanding and document-processing
INLINE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/heic", "image/heif",
                "application/pdf")
FN_NAME_RE = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
CHAT_METHODS = ["generateContent", "countTokens", "createCachedContent",
                "batchGenerateContent"]


def camel(key):
    """Proto JSON accepts snake_case too: normalise a key to lowerCamelCase."""
    head, _, rest = key.partition("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest.split("_")) if rest \
        else key


def norm(d):
    """Shallow copy of a dict with camelCase keys (values untouched)."""
    return dict((camel(k), v) for k, v in d.items()) if isinstance(d, dict) else d


def canon(args):
    return json.dumps(args, sort_keys=True)


def response_text(resp):
    if isinstance(resp, dict):
        for k in ("output", "result", "error"):
            if k in resp:
                v = resp[k]
                return v if isinstance(v, str) else json.dumps(v)
    return json.dumps(resp)


def levels(model):
    """The thinkingLevel values a model takes (ai.google.dev/gemini-api/docs/
    thinking: Gemini 3 Pro low and high; later Pro models add medium; Flash
    all four)."""
    if model.startswith("gemini-3-pro"):
        return ("low", "high")
    if "-pro" in model:
        return ("low", "medium", "high")
    return ("minimal", "low", "medium", "high")


class FakeGemini(FakeServer):
    PREFIX = "/v1beta"
    CRLF = True
    DEFAULT_MODELS = ("gemini-2.5-flash", "gemini-2.5-pro", "gemini-3-pro-preview",
                      "gemini-embedding-001")
    GEN_MODEL = "gemini-fake-%05d"
    page_size = 50

    def __init__(self, key="AIza-test", models=None):
        FakeServer.__init__(self, key, models)
        self.turns = []        # issued call turns: [(name, canon args, sig|None)]
        self.signatures = set()

    # ------------------------------------------------------------ errors
    def err(self, status, message, details=None, headers=None):
        e = {"code": status, "message": message,
             "status": STATUS.get(status, "UNKNOWN")}
        if details:
            e["details"] = details
        return Reject(status, {"error": e}, headers)

    def bad(self, message):
        return self.err(400, message)

    def fail_body(self, f):
        msg = f.message or MESSAGES.get(f.status, "Error")
        details = None
        if f.kind == "bad_key":
            r = self.bad_key()
            return r.status, r.body
        if f.status == 429:
            details = [{"@type": "type.googleapis.com/google.rpc.QuotaFailure",
                        "violations": [{"quotaMetric": "generativelanguage."
                                        "googleapis.com/generate_content_free_tier_"
                                        "requests", "quotaValue": "10"}]},
                       {"@type": "type.googleapis.com/google.rpc.RetryInfo",
                        "retryDelay": "2s"}]
        r = self.err(f.status, msg, details)
        return r.status, r.body

    def bad_key(self):
        msg = "API key not valid. Please pass a valid API key."
        return self.err(400, msg, [
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
             "reason": "API_KEY_INVALID", "domain": "googleapis.com",
             "metadata": {"service": "generativelanguage.googleapis.com"}},
            {"@type": "type.googleapis.com/google.rpc.LocalizedMessage",
             "locale": "en-US", "message": msg}])

    # ------------------------------------------------------------ routing
    def route(self, req):
        path = req.path
        version = "v1beta" if path.startswith("/v1beta/") else "v1"
        if not (path.startswith("/v1beta/") or path.startswith("/v1/")):
            raise self.err(404, "Not found: %s" % path)
        rest = path.split("/", 2)[2]
        if req.method == "GET" and rest.rstrip("/") == "models":
            self.check_auth(req)
            return self.list_models(req.query)
        if req.method == "POST" and rest.startswith("models/") and ":" in rest:
            model, method = rest[7:].rsplit(":", 1)
            if method in ("generateContent", "streamGenerateContent"):
                return self.generate(req, model, method, version)
        raise self.err(404, "Method not found: %s %s" % (req.method, path))

    def check_auth(self, req):
        key = req.headers.get("x-goog-api-key") or req.query.get("key")
        if not key:
            # what the real service says when no key is sent at all
            raise self.err(403, "Method doesn't allow unregistered callers (callers "
                           "without established identity). Please use API Key or "
                           "other form of API consumer identity to call this API.")
        if key != self.key:
            raise self.bad_key()

    def methods(self, model):
        return ["embedContent"] if "embedding" in model else CHAT_METHODS

    def list_models(self, q):
        try:
            size = int(q.get("pageSize", self.page_size))
            start = int(base64.urlsafe_b64decode(q["pageToken"]).decode()) \
                if q.get("pageToken") else 0
        except ValueError:
            raise self.bad("Invalid pageSize or pageToken.")
        size = max(1, min(size, 1000))
        ids = self.model_ids[start:start + size]
        body = {"models": [{"name": "models/" + m, "version": "001",
                            "displayName": m.replace("-", " ").title(),
                            "description": "Fake model %s" % m,
                            "inputTokenLimit": 1048576, "outputTokenLimit": 65536,
                            "supportedGenerationMethods": self.methods(m)}
                           for m in ids]}
        if start + size < len(self.model_ids):
            body["nextPageToken"] = base64.urlsafe_b64encode(
                str(start + size).encode()).decode()
        return Whole(200, body)

    # ------------------------------------------------------------ validation
    def validate(self, b, model, version):
        if not isinstance(b, dict):
            raise self.bad("Invalid JSON payload received. Unexpected token.")
        if model not in self.model_ids or "generateContent" not in self.methods(model):
            raise self.err(404, "models/%s is not found for API version %s, or is not "
                           "supported for generateContent. Call ListModels to see the "
                           "list of available models and their supported methods."
                           % (model, version))
        b = norm(b)
        for k in b:
            if k not in TOP_KEYS:
                raise self.bad('Invalid JSON payload received. Unknown name "%s": '
                               'Cannot find field.' % k)
        gc = norm(b.get("generationConfig") or {})
        tc = norm(gc.get("thinkingConfig") or {})
        if "thinkingBudget" in tc and "thinkingLevel" in tc:
            raise self.bad("You can only set only one of thinking budget and thinking "
                           "level.")
        level = tc.get("thinkingLevel")
        if level is not None and str(level).lower() not in levels(model):
            raise self.bad("Thinking level %s is not supported for this model." % level)
        self.check_tools(b.get("tools"))
        self.check_json_reply(gc, b.get("tools"), model)
        contents = b.get("contents")
        if not isinstance(contents, list) or not contents:
            raise self.bad("* GenerateContentRequest.contents: contents is not "
                           "specified\n")
        if not all(isinstance(c, dict) for c in contents):
            raise self.bad("Invalid JSON payload received. Expected an object at "
                           "'contents'.")
        return self.check_contents([norm(c) for c in contents])

    def check_tools(self, tools):
        if tools is not None and not isinstance(tools, list):
            raise self.bad("Invalid JSON payload received. Unknown name \"tools\": "
                           "Proto field is repeated, expected a list.")
        for i, t in enumerate(tools or ()):
            t = norm(t) if isinstance(t, dict) else {"functionDeclarations": [None]}
            for j, fd in enumerate(t.get("functionDeclarations") or ()):
                fd = norm(fd) if isinstance(fd, dict) else {}
                name = fd.get("name")
                if not isinstance(name, str) or not FN_NAME_RE.match(name):
                    raise self.bad("* GenerateContentRequest.tools[%d].function_"
                                   "declarations[%d].name: Invalid function name. Must "
                                   "start with a letter or an underscore. Must be "
                                   "alphameric (a-z, A-Z, 0-9), underscores (_), dots "
                                   "(.), colons (:), or dashes (-), with a maximum "
                                   "length of 64.\n" % (i, j))
                if "parameters" in fd:
                    self.check_schema(fd["parameters"], "tools[%d].function_"
                                      "declarations[%d].parameters" % (i, j))

    def check_json_reply(self, gc, tools, model):
        """generationConfig responseMimeType application/json with
        responseJsonSchema (JSON Schema) or responseSchema
        (the Schema proto), never both; with function declarations only
        from Gemini 3 (ai.google.dev/gemini-api/docs/structured-output)."""
        mime = gc.get("responseMimeType")
        js, sch = gc.get("responseJsonSchema"), gc.get("responseSchema")
        if js is not None and sch is not None:
            raise self.bad("responseSchema and responseJsonSchema cannot both be set.")
        if (js is not None or sch is not None) and mime != "application/json":
            raise self.bad("response_mime_type must be application/json when a response "
                           "schema is set.")
        if sch is not None:
            self.check_schema(sch, "generation_config.response_schema")
        if mime == "application/json" and tools and not model.startswith("gemini-3"):
            raise self.bad("Function calling with a response mime type: 'application/json' "
                           "is unsupported")

    def check_schema(self, schema, path):
        """Iterative walk: every key must be one the Schema proto knows."""
        todo = [(schema, path)]
        while todo:
            s, at = todo.pop()
            if not isinstance(s, dict):
                raise self.bad("Invalid JSON payload received. Expected an object at "
                               "'%s'." % at)
            for k, v in s.items():
                key = camel(k)
                if key not in SCHEMA_KEYS:
                    raise self.bad('Invalid JSON payload received. Unknown name "%s" '
                                   "at '%s': Cannot find field." % (k, at))
                if key == "type":
                    if isinstance(v, list):
                        raise self.bad('Invalid JSON payload received. Unknown name '
                                       '"type" at \'%s\': Proto field is not '
                                       'repeating, cannot start list.' % at)
                    if not isinstance(v, str) or v.upper() not in SCHEMA_TYPES:
                        raise self.bad("Invalid value at '%s.type' (type.googleapis."
                                       "com/google.ai.generativelanguage.v1beta.Type),"
                                       " %s" % (at, json.dumps(v)))
                elif key == "enum":
                    for n, e in enumerate(v if isinstance(v, list) else [v]):
                        if not isinstance(e, str):
                            raise self.bad("Invalid value at '%s.enum[%d]' "
                                           "(TYPE_STRING), %s" % (at, n, json.dumps(e)))
                elif key == "properties" and isinstance(v, dict):
                    for n, sub in enumerate(v.values()):
                        todo.append((sub, "%s.properties[%d].value" % (at, n)))
                elif key == "items":
                    todo.append((v, at + ".items"))
                elif key == "anyOf" and isinstance(v, list):
                    for n, sub in enumerate(v):
                        todo.append((sub, "%s.any_of[%d]" % (at, n)))

    def check_contents(self, contents):
        for i, c in enumerate(contents):
            role = c.get("role", "user")
            if role not in ("user", "model"):
                raise self.bad("Please use a valid role: user, model.")
            parts = c.get("parts")
            if not isinstance(parts, list) or not parts:
                raise self.bad("* GenerateContentRequest.contents[%d].parts: contents."
                               "parts must not be empty.\n" % i)
            parts = c["parts"] = [norm(p) for p in parts]
            for j, p in enumerate(parts):
                at = "contents[%d].parts[%d]" % (i, j)
                if not isinstance(p, dict):
                    raise self.bad("Invalid JSON payload received. Expected an object "
                                   "at '%s'." % at)
                for k in p:
                    if k not in PART_KEYS:
                        raise self.bad('Invalid JSON payload received. Unknown name '
                                       '"%s" at \'%s\': Cannot find field.' % (k, at))
                if sum(1 for k in DATA_KEYS if k in p) != 1:
                    raise self.bad("* GenerateContentRequest.%s.data: required oneof "
                                   "field 'data' must have one initialized field\n" % at)
                if "inlineData" in p:
                    self.check_inline(norm(p["inlineData"]), at)
                sig = p.get("thoughtSignature")
                if sig is not None and sig not in self.signatures:
                    raise self.bad("Corrupted thought signature.")
                fr = norm(p.get("functionResponse"))
                if fr is not None and not (isinstance(fr, dict) and
                                           isinstance(fr.get("response"), dict)):
                    raise self.bad("Invalid value at '%s.function_response.response' "
                                   "(type.googleapis.com/google.protobuf.Struct), %s"
                                   % (at, json.dumps(fr.get("response")
                                                     if isinstance(fr, dict) else fr)))
                fc = norm(p.get("functionCall"))
                if fc is not None and not (isinstance(fc, dict) and
                                           isinstance(fc.get("args", {}), dict)):
                    raise self.bad("Invalid value at '%s.function_call.args' (type."
                                   "googleapis.com/google.protobuf.Struct)" % at)
        for i, c in enumerate(contents):
            calls = [p for p in c["parts"] if "functionCall" in p]
            resps = [norm(p["functionResponse"]) for p in c["parts"]
                     if "functionResponse" in p]
            prev = contents[i - 1] if i else None
            if calls:
                if prev is None or prev.get("role", "user") != "user":
                    raise self.bad("Please ensure that function call turn comes "
                                   "immediately after a user turn or after a function "
                                   "response turn.")
                self.check_signatures(calls, i)
                nxt = contents[i + 1] if i + 1 < len(contents) else {"parts": []}
                names = sorted(norm(p.get("functionResponse")).get("name") or ""
                               for p in nxt["parts"] if "functionResponse" in p)
                if names != sorted(norm(p["functionCall"]).get("name") or "" for p in calls):
                    raise self.bad("Please ensure that the number of function response "
                                   "parts is equal to the number of function call "
                                   "parts of the function call turn.")
            if resps and (prev is None or not any("functionCall" in p
                                                  for p in prev["parts"])):
                raise self.bad("Please ensure that function response turn comes "
                               "immediately after a function call turn.")

    def check_inline(self, d, at):
        """inlineData: a MIME type the service takes and strict base64 data;
        recorded (fake.files)."""
        mime = d.get("mimeType") if isinstance(d, dict) else None
        if mime not in INLINE_TYPES:
            raise self.bad("Unsupported MIME type: %s" % mime)
        data = files.strict_b64(d.get("data"))
        if data is None:
            raise self.bad("Invalid value at '%s.inline_data.data' (TYPE_BYTES), Base64 "
                           "decoding failed" % at)
        files.record(self, "pdf" if mime == "application/pdf" else "image", mime, data)

    def check_signatures(self, calls, i):
        """Echoed calls must carry the signatures issued with them."""
        key = [(norm(p["functionCall"]).get("name"),
                canon(norm(p["functionCall"]).get("args", {}))) for p in calls]
        with self._lock:
            turns = list(self.turns)
        for turn in reversed(turns):
            if [(n, a) for n, a, _ in turn] != key:
                continue
            for k, (name, _, sig) in enumerate(turn):
                if sig and calls[k].get("thoughtSignature") != sig:
                    raise self.bad("Function call is missing a thought_signature in "
                                   "functionCall parts. This is required for tools to "
                                   "work correctly, and missing thought_signature may "
                                   "lead to degraded model performance. Additional "
                                   "data, function call `default_api:%s` , position "
                                   "%d. Please refer to https://ai.google.dev/gemini-"
                                   "api/docs/thought-signatures for more details."
                                   % (name, i + 1))
            return

    # ------------------------------------------------------------ replies
    def default_reply(self, contents):
        last = norm(contents[-1])
        parts = [norm(p) for p in last.get("parts") or ()]
        res = [response_text(norm(p["functionResponse"]).get("response"))
               for p in parts if "functionResponse" in p]
        if res:
            return Text("tool said: " + "; ".join(res))
        for c in reversed(contents):
            c = norm(c)
            if c.get("role", "user") == "user":
                return Text("echo: " + "".join(norm(p).get("text", "")
                                                for p in c.get("parts") or ()))
        return Text("echo: ")

    def generate(self, req, model, method, version):
        self.check_auth(req)
        b = req.json
        self.validate(b, model, version)
        stream = method == "streamGenerateContent"
        ctx = {"model": model, "sse": req.query.get("alt") == "sse",
               "in": tokens(req.raw.decode("utf-8", "replace")),
               "id": new_id("", 22, ALNUM)}
        return self.answer(req, stream,
                           lambda s: Whole(200, self.whole(s, ctx)),
                           lambda s: self.stream(s, ctx),
                           self.fail_body,
                           lambda f: self.stream_fail(f, ctx),
                           lambda: self.default_reply(b["contents"]))

    def envelope(self, ctx, cand=None, usage=None, **extra):
        r = {}
        if cand is not None:
            cand.setdefault("index", 0)
            r["candidates"] = [cand]
        if usage is not None:
            r["usageMetadata"] = usage
        r.update(extra)
        r["modelVersion"] = ctx["model"]
        r["responseId"] = ctx["id"]
        return r

    def usage(self, ctx, script):
        out = tokens(getattr(script, "text", "") or "")
        u = {"promptTokenCount": ctx["in"], "candidatesTokenCount": out,
             "totalTokenCount": ctx["in"] + out}
        if getattr(script, "think", None):
            u["thoughtsTokenCount"] = tokens(script.think.text)
            u["totalTokenCount"] += u["thoughtsTokenCount"]
        return u

    def parts(self, script):
        """(parts, finishReason, extra candidate fields) of a script."""
        out, sig = [], None
        if script.think:
            out.append({"text": script.think.text, "thought": True})
            sig = script.think.signature
        if script.text:
            out.append({"text": script.text})
        if isinstance(script, Calls):
            turn = []
            for name, args in script.calls:
                ok, obj = parsed_args(args)
                if not ok:
                    return [], "MALFORMED_FUNCTION_CALL", {
                        "finishMessage": "Malformed function call: %s" % args}
                fc = {"name": name, "args": obj}
                if script.ids:
                    fc["id"] = new_id("", 8, ALNUM.lower())
                part = {"functionCall": fc}
                if sig and not turn:
                    part["thoughtSignature"] = sig
                turn.append((name, canon(obj), part.get("thoughtSignature")))
                out.append(part)
            with self._lock:
                self.turns.append(turn)
            finish = finish_word(script.finish, ("STOP", "MAX_TOKENS", "SAFETY"))
        else:
            if sig and script.text:
                out[-1]["thoughtSignature"] = sig
            finish = finish_word(script.finish, ("STOP", "MAX_TOKENS", "SAFETY"))
        if sig:
            with self._lock:
                self.signatures.add(sig)
        return out, finish, {}

    def whole(self, script, ctx):
        if isinstance(script, Blocked):
            return self.blocked(script, ctx)
        parts, finish, extra = self.parts(script)
        cand = {"content": {"parts": parts, "role": "model"} if parts
                else {"role": "model"}, "finishReason": finish}
        cand.update(extra)
        return self.envelope(ctx, cand, self.usage(ctx, script))

    def blocked(self, script, ctx):
        return self.envelope(ctx, None, self.usage(ctx, script), promptFeedback={
            "blockReason": script.reason,
            "safetyRatings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT",
                               "probability": "HIGH"}]})

    def stream(self, script, ctx):
        if isinstance(script, Blocked):
            return self.events([self.blocked(script, ctx)], ctx)
        parts, finish, extra = self.parts(script)
        split = []
        for p in parts:
            if "text" in p and len(p["text"]) > self.delta_size:
                chunks = pieces(p["text"], self.delta_size)
                for n, t in enumerate(chunks):
                    q = dict(p, text=t)
                    if n:
                        q.pop("thoughtSignature", None)
                    split.append(q)
            else:
                split.append(p)
        evs = [self.envelope(ctx, {"content": {"parts": [p], "role": "model"}})
               for p in split]
        if not evs:
            evs = [self.envelope(ctx, {"content": {"role": "model"}})]
        evs[-1]["candidates"][0]["finishReason"] = finish
        evs[-1]["candidates"][0].update(extra)
        evs[-1]["usageMetadata"] = self.usage(ctx, script)
        return self.events(evs, ctx)

    def events(self, objs, ctx):
        if not ctx["sse"]:
            return Whole(200, objs)
        return Stream([(None, o) for o in objs])

    def stream_fail(self, f, ctx):
        objs = [self.envelope(ctx, {"content": {"parts": [{"text": t}],
                                                "role": "model"}})
                for t in ("Partial ", "answer")]
        objs.append(self.fail_body(f)[1])
        return self.events(objs, ctx)
