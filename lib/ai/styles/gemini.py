"""Google Gemini style (the `gemini` style of lib/ai).

Wire format spoken here (Gemini API v1beta; /v1 bases work the same):

  POST {base}/models/{model}:generateContent
  POST {base}/models/{model}:streamGenerateContent?alt=sse
       headers x-goog-api-key: <key>, content-type: application/json
       (+ accept: text/event-stream when streaming)
  {"contents": [{"role": "user"|"model", "parts": [part, ...]}],
   "systemInstruction": {"parts": [{"text"}]},
   "tools": [{"functionDeclarations": [{"name","description","parameters"}]}],
   "generationConfig": {"maxOutputTokens", "temperature",
       "thinkingConfig": {"thinkingBudget": N} | {"thinkingLevel": word},
       "responseMimeType": "application/json", "responseJsonSchema" |
       "responseSchema"}}      (a schema: ai/schema.py)

  Parts: {"text"}, {"text", "thought": true} (thinking summary),
  {"functionCall": {"name", "args": {object}, "id"?}},
  {"functionResponse": {"name", "id"?, "response": {"output"|"error": text}}},
  {"inlineData": {"mimeType", "data": base64}}; any part may carry
  "thoughtSignature" (opaque, echoed byte for byte). Files (ai/files.py):
  per file a text part "[file /photo.jpg, 48 KB, image/jpeg]", then its
  inlineData (a picture, a PDF) or a text part (a text file): a user
  message's before its text, a tool result's after the round's
  functionResponse parts.

  History -> contents: user -> user text part; assistant -> model content
  (thought parts that carried a signature, one text part, then one
  functionCall part per call); consecutive tool results -> ONE user content
  with a functionResponse part per call (`response` must be an object).
  System messages opening the history join cfg["system"] (cfg first) in
  systemInstruction; a later one is sent as user text "[system] ...".
  Parameters schemas are copied keeping only the fields of Gemini's Schema
  object (SCHEMA_KEYS: the service answers 400 to any other, e.g. $schema,
  additionalProperties, propertyNames, patternProperties, exclusiveMinimum,
  multipleOf, uniqueItems, allOf, $ref); const "x" -> enum ["x"]; oneOf ->
  anyOf; enum with non-string values dropped; array-valued type -> first
  non-null type + nullable; string formats other than enum/date-time
  dropped; an object schema without properties is omitted (the service
  refuses an empty OBJECT).

  Thinking word -> gemini-2.5*: thinkingBudget (thinking());
  gemini-3 and later (and unversioned gemini-*-latest aliases):
  thinkingLevel (the words of the model's family: ai/catalog.py EFFORTS;
  Pro models have no "minimal"); other models
  (gemma, gemini-2.0, 1.5): nothing. Never both fields. A preset's thinking
  map (budget | level | none) decides instead of the model id.

  Reply: {"candidates": [{"content": {"role": "model", "parts": [...]},
  "finishReason"}], "promptFeedback": {"blockReason"}, "usageMetadata"}.
  Text = the non-thought text parts joined. finishReason STOP -> "stop"
  ("tool_calls" when there are calls), MAX_TOKENS -> "length", SAFETY /
  RECITATION / BLOCKLIST / PROHIBITED_CONTENT / SPII / IMAGE_SAFETY ->
  "filter", others raw; no candidates + promptFeedback.blockReason X ->
  "blocked:X".

  Stream: `data: <partial GenerateContentResponse>` events (CRLF seen), no
  event names, no [DONE]; text arrives in pieces, calls whole, the last
  event has finishReason. A data event {"error": {...}} is a mid-stream
  failure. No finishReason (nor blockReason) before the end -> "stream
  ended early".

  Errors: {"error": {"code", "message", "status", "details": [{"@type",
  "reason"?, "retryDelay"?}]}}; 400 with reason API_KEY_INVALID, 401, 403
  -> kind "key"; 404 -> kind "model"; FAILED_PRECONDITION (e.g. region not
  supported) -> kind "blocked"; RetryInfo.retryDelay "2s" -> retry hint.

  Models: GET {base}/models?pageSize=N[&pageToken=T] -> {"models": [{"name":
  "models/...", "supportedGenerationMethods": [...]}], "nextPageToken"};
  ids are reported without "models/", only models that list
  generateContent (or list no methods at all) (read in ai/models.py).

Echo (history["_echo"]) = {"style": "gemini", and only what is present:
  "thoughts": [[text, signature], ...]  thought runs closed by a signature,
  "text_sig": signature of the text part,
  "call_sigs": [signature or None per call],
  "ids": true when the calls carry the service's own ids}.
  Text and calls are not copied into the echo: the model content is rebuilt
  from content/tool_calls + these fields, signatures unchanged. Thought
  text without a signature is dropped (the service reads nothing from
  it). Calls without service ids get ids "gemini-<tag>-<n>" that are never
  sent (the service pairs results with calls by name and order). For
  gemini-3+ models, a model turn with calls but no signature at all (e.g.
  history from another provider) gets Google's documented placeholder
  signature on its first call, else the service answers 400.

Memory: stream events are parsed with jsonstream.select (one compiled rule
set and one buffer for all events), a whole reply with a walk of the pull
parser that feeds the same handlers (no rule set to build); a part's text
waits in a store.Spool until the part is known (then to the driver's Out:
cfg["max_reply"] characters), thought text and signatures are held under
bounds (ai.styles.HELD for thought text, MAX_OPAQUE for signatures);
functionCall objects are materialized one at a time (bounded
by jsonstream's max_value, _MAX_ARGS); nothing else is kept. A request's
call arguments and tool schemas given as JSON text are parsed in the body's
first pass, the length count, and the verdicts reused by the pass that
sends it (see _args, _declarations).
"""
import jsonstream
from compat import ticks_ms, const, lazy
from ai.styles import (HELD, MAX_ERROR, StyleError, blocking, output, reply as _reply, as_str as _text, tokens,
                       wire as _str, json_ok)

MAX_OPAQUE = 262144       # all signatures of one reply (they can pass 128 KB)
_MAX_ARGS = const(16384)          # one functionCall object as materialized
_MAX_CALLS = const(64)
SKIP_SIG = "skip_thought_signature_validator"
# the fields of Gemini's Schema object; anything else is a 400 ("Unknown
# name ... Cannot find field"), e.g. $schema, additionalProperties, $ref
SCHEMA_KEYS = ("type", "format", "title", "description", "nullable", "enum",
               "maxItems", "minItems", "properties", "required",
               "minProperties", "maxProperties", "minLength", "maxLength",
               "pattern", "example", "anyOf", "propertyOrdering", "default",
               "items", "minimum", "maximum")
FORMATS = ("enum", "date-time", "int32", "int64", "float", "double")



# ---------------------------------------------------------------- request

def _model(cfg):
    m = cfg["model"]
    return m[7:] if m.startswith("models/") else m


def key_headers(cfg):
    h = {}
    if cfg.get("key"):
        h["x-goog-api-key"] = cfg["key"]
    return h


def request(cfg, history, tools, stream):
    """(url, headers, body value tree) for one generateContent request."""
    headers = key_headers(cfg)
    headers["content-type"] = "application/json"
    url = cfg["base_url"] + "/models/" + _model(cfg)
    if stream:
        url += ":streamGenerateContent?alt=sse"
        headers["accept"] = "text/event-stream"
    else:
        url += ":generateContent"
    three = _generation(cfg) == 3
    chk = [0]       # see _args
    body = {"contents": jsonstream.Array(lambda: _contents(cfg, history, three, chk))}
    system = _system(cfg, history)
    if system:
        body["systemInstruction"] = {"parts": [{"text": s} for s in system]}
    if tools and cfg.get("tools_level", "native") == "native":
        dchk = [0, bytearray()]     # see _declarations
        body["tools"] = [{"functionDeclarations": jsonstream.Array(
            lambda: _declarations(tools, dchk))}]
    gen = {}
    if cfg.get("max_tokens"):
        gen["maxOutputTokens"] = cfg["max_tokens"]
    if cfg.get("temperature") is not None:
        gen["temperature"] = cfg["temperature"]
    if cfg.get("thinking"):
        think = thinking(cfg)
        if think:
            gen["thinkingConfig"] = think
    if gen:
        body["generationConfig"] = gen
    if cfg.get("schema"):
        cfg["schema"].body(body)     # (ai/schema.py: responseJsonSchema)
    return url, headers, body


def thinking(cfg):
    """generationConfig.thinkingConfig for cfg["thinking"] (see the top)."""
    word = cfg.get("thinking")
    tmap = cfg.get("thinking_map")      # a preset's: budget | level | none
    if not word or tmap == "none":
        return None
    gen = 2.5 if tmap == "budget" else 3 if tmap == "level" else _generation(cfg)
    m = _model(cfg).lower()
    if gen == 2.5:      # thinkingBudget: flash may switch thinking off (0), pro not
        pro = "-pro" in m
        if word == "minimal":
            budget = 128 if pro else 0
        elif word == "low":
            budget = 1024
        elif word == "high":
            budget = 16384
        elif word == "max":
            budget = 32768 if pro else 24576
        else:
            budget = 8192
        return {"thinkingBudget": budget}
    if gen == 3:        # the words of the model's family (ai/catalog.py EFFORTS)
        from ai import catalog
        words = catalog.efforts(cfg["provider"], m)
        return {"thinkingLevel": catalog.nearest(word, words)} if words else None
    return None


def _generation(cfg):
    """3 for gemini-3 and later (and unversioned gemini-*-latest aliases),
    2.5 for gemini-2.5*, else None (no thinking knob)."""
    m = _model(cfg).lower()
    if not m.startswith("gemini-"):
        return None
    m = m[7:]
    n = 0
    while n < len(m) and m[n] in "0123456789":
        n += 1
    if n == 0:
        return 3 if m.endswith("latest") else None
    major = int(m[:n])
    if major >= 3:
        return 3
    if m.startswith("2.5"):
        return 2.5
    return None


def _system(cfg, history):
    """cfg["system"] then the system messages that open the history (a list
    of the existing strings, nothing copied)."""
    out = []
    if cfg.get("system"):
        out.append(_str(cfg["system"]))
    for m in history:
        if m.get("role") != "system":
            break
        if m.get("content"):
            out.append(_text(m["content"]))
    return out


def _declarations(tools, chk):
    """Yields the functionDeclarations. A schema given as JSON text (Raw,
    or RawFile: MCP tools in ai.run, the tools cache) is loaded and cleaned
    in the body's first pass (the length count, which holds no write
    buffer), and chk = [cursor, bytearray of verdicts] notes per text what
    the next passes write: 0 no parameters, 1 the text itself (cleaning
    changes nothing), 2 the cleaned copy (loaded and cleaned again, one
    tool at a time). One byte per tool: the count of tools costs no heap."""
    chk[0] = 0
    seen = chk[1]
    for t in tools:
        d = {"name": t["name"]}
        if t.get("description"):
            d["description"] = t["description"]
        p = t.get("parameters")
        raw = not isinstance(p, dict) and p is not None
        if raw:
            n = chk[0] = chk[0] + 1
            v = seen[n - 1] if n <= len(seen) else None
            if v == 1:
                d["parameters"] = p
            if v == 1 or v == 0:
                yield d
                continue
            from ai import lines
            p = lines.load(p)
        v = 0
        if isinstance(p, dict) and (p.get("properties") or p.get("type") not in (None, "object")):
            c = clean_schema(p)
            v = 1 if raw and c == p else 2
            d["parameters"] = t["parameters"] if v == 1 else c
        if raw and n > len(seen):
            seen.append(v)
        p = c = None
        yield d


def clean_schema(schema):
    """A copy of a JSON Schema holding only what Gemini's Schema object
    knows (see the top of this module). Iterative; the input is not
    changed; property names are never taken for keywords."""
    if not isinstance(schema, dict):
        return {}
    root = {}
    stack = [(schema, root)]
    while stack:
        src, dst = stack.pop()
        for k in src:
            v = src[k]
            if k == "const":
                if isinstance(v, str) and "enum" not in src:
                    dst["enum"] = [v]
            elif k == "oneOf" or k == "anyOf":
                if isinstance(v, list) and (k == "anyOf" or "anyOf" not in src):
                    lst = dst["anyOf"] = []
                    for sub in v:
                        c = {}
                        lst.append(c)
                        if isinstance(sub, dict):
                            stack.append((sub, c))
            elif k not in SCHEMA_KEYS:
                pass
            elif k == "enum":
                if isinstance(v, list) and all(isinstance(e, str) for e in v):
                    dst[k] = v
            elif k == "format":
                if v in FORMATS:
                    dst[k] = v
            elif k == "type":
                if isinstance(v, list):
                    types = [x for x in v if x != "null"]
                    if len(types) < len(v):
                        dst["nullable"] = True
                    v = types[0] if types else "null"
                if isinstance(v, str):
                    dst[k] = v
            elif k == "properties":
                if isinstance(v, dict):
                    m = dst[k] = {}
                    for name in v:
                        sub = v[name]
                        c = m[name] = {}
                        if isinstance(sub, dict):
                            stack.append((sub, c))
            elif k == "items":
                if isinstance(v, list):     # tuple form: the first schema
                    v = v[0] if v else {}
                if isinstance(v, dict):
                    c = dst[k] = {}
                    stack.append((v, c))
            else:
                dst[k] = v
    return root


def _args(args, chk):
    """functionCall.args for a call's args text: the text itself (Raw) when
    it is one JSON object; another JSON value as {"value": v}; invalid JSON
    (a model of another provider) as {"text": args}. chk: see
    styles.json_ok."""
    if isinstance(args, dict):
        return args
    if not isinstance(args, str):
        return {}
    s = args.strip()
    if not s:
        return {}
    if not json_ok(s, chk):
        return {"text": args}
    r = jsonstream.Raw(s)
    return r if s[0] == "{" else {"value": r}


def _echo(m):
    e = m.get("_echo")
    if isinstance(e, dict) and e.get("style") == "gemini":
        return e
    return None


def _model_parts(m, three, chk):
    e = _echo(m)
    parts = []
    if e:
        for t in e.get("thoughts") or ():
            parts.append({"text": t[0], "thought": True, "thoughtSignature": t[1]})
    text = m.get("content") or ""
    tsig = e.get("text_sig") if e else None
    if text or tsig:
        p = {"text": _str(text)}
        if tsig:
            p["thoughtSignature"] = tsig
        parts.append(p)
    calls = m.get("tool_calls") or ()
    sigs = (e.get("call_sigs") if e else None) or ()
    ids = e.get("ids") if e else False
    # gemini-3 refuses calls whose turn lost its signature: Google's
    # documented placeholder for histories made elsewhere
    placeholder = three and calls and not any(sigs)
    i = 0
    for c in calls:
        fc = {"name": c.get("name") or "", "args": _args(c.get("args"), chk)}
        if ids and c.get("id"):
            fc["id"] = c["id"]
        p = {"functionCall": fc}
        sig = sigs[i] if i < len(sigs) else None
        if placeholder and i == 0:
            sig = SKIP_SIG
        if sig:
            p["thoughtSignature"] = sig
        parts.append(p)
        i += 1
    return parts


def file_parts(cfg, m, text=None):
    """The parts of message m's files (ai/files.py: a label, then the
    picture or PDF as inlineData, a text file as text), then text: the one
    place that writes them."""
    from ai import files
    out = []
    for label, _, mime, v in files.parts(cfg, m):
        out.append({"text": label})
        if v is not None:
            out.append({"text": v} if mime == files.TEXT else
                       {"inlineData": {"mimeType": mime, "data": v}})
    if text:
        out.append({"text": text})
    return out


def _results(cfg, tools, names, real):
    """ONE user content with a functionResponse part per tool result (and
    after them the files of those that have some)."""
    parts = []
    shown = []
    for t in tools:
        cid = t.get("tool_call_id")
        name = t.get("name") or names.get(cid) or "tool"
        text = t.get("content")
        text = "" if text is None else _str(text)
        fr = {"name": name,
              "response": {"error": text} if t.get("is_error") else {"output": text}}
        if real and cid:
            fr["id"] = cid
        parts.append({"functionResponse": fr})
        if t.get("files"):
            shown.append(t)
    for t in shown:
        parts.extend(file_parts(cfg, t))
    return {"role": "user", "parts": parts}


def _contents(cfg, history, three, chk):
    """Yields wire contents; consecutive tool results are grouped."""
    chk[0] = 0
    pending = []     # tool messages of the current round (references)
    names = {}       # call id -> name of the last model turn
    real = False     # the last model turn's ids came from the service
    lead = True
    for m in history:
        r = m.get("role")
        if r == "tool":
            pending.append(m)
            continue
        if pending:
            yield _results(cfg, pending, names, real)
            pending = []
        if r == "system" and lead:
            continue            # went to systemInstruction
        lead = False
        if r == "assistant":
            parts = _model_parts(m, three, chk)
            names = {}
            for c in m.get("tool_calls") or ():
                names[c.get("id")] = c.get("name")
            e = _echo(m)
            real = bool(e and e.get("ids"))
            if parts:
                yield {"role": "model", "parts": parts}
        else:
            text = _str(m.get("content") or "")
            if r == "system":
                text = "[system] " + _text(text)
            yield {"role": "user", "parts": file_parts(cfg, m, text) if m.get("files") else [{"text": text}]}
    if pending:
        yield _results(cfg, pending, names, real)


# ---------------------------------------------------------------- replies

class _Reader:
    """Assembles one reply (whole or streamed) from select() callbacks.

    A part is only known to be thought text once the whole part object is
    read ("thought": true may follow "text"), so each part's text waits in
    `pend` (a store.Spool: a whole reply's one long part goes to flash, not
    RAM) until the part ends: at the next part, or at the end of the
    document / stream event. Then it goes to out or to the current thought
    run."""

    def __init__(self, cfg, out):
        import store
        self.limit = cfg.get("max_reply") or HELD   # a part's text
        self.held = min(self.limit, HELD)           # thought text, held
        self.out = out
        self.idx = None          # index of the open part
        self.pend = store.Spool("part")
        self.thought = False
        self.sig = None          # signature pieces of the open part
        self.fc = None           # functionCall of the open part
        self.opaque = 0          # signature characters so far
        self.run = []            # thought text of the current run
        self.runlen = 0
        self.thoughts = []
        self.text_sig = None
        self.calls = []
        self.call_sigs = []
        self.ids = False
        self.tag = "%x" % (ticks_ms() & 0xffffff)
        self.finish = None
        self.block = None
        self.err = None          # mid-body error message pieces
        self.err_status = None

    def rules(self):
        """select() rules for stream events: one rule set, two handlers
        (the field name ends the path)."""
        # patterns built from pieces: a literal over 10 characters is a
        # heap object per module on MicroPython, a short one is shared
        C = "candidates[0]."
        P = C + "content.parts[*]."
        s = jsonstream.Stream(self._piece)
        v = self._val
        return jsonstream.Rules({
            P + "text": s, P + "thoughtSignature": s, "error." + "message": s,
            P + "thought": v, P + "functionCall": v, C + "finishReason": v,
            "promptFeedback" + "." + "blockReason": v, "error." + "status": v,
            "usageMetadata.promptTokenCount": tokens,       # every chunk's:
            "usageMetadata.candidatesTokenCount": tokens})  # the counts so far

    # -- select handlers
    def _open(self, path):
        k = path[4]
        if k != self.idx:
            self.flush()
            self.idx = k

    def _piece(self, path, piece):
        """text, thoughtSignature and error.message pieces."""
        k = path[-1]
        if k == "message":
            if self.err is None:
                self.err = []
            if isinstance(piece, str) and sum(len(p) for p in self.err) < MAX_ERROR:
                self.err.append(piece)
            return
        self._open(path)
        if not piece or not isinstance(piece, str):
            return
        if k == "text":
            self.pend.add(piece)
            if self.pend.size > self.limit:
                raise StyleError("%s longer than %d characters" % ("reply", self.limit))
            return
        self.opaque += len(piece)
        if self.opaque > MAX_OPAQUE:
            raise StyleError("thought signature longer than %d bytes" % MAX_OPAQUE)
        if self.sig is None:
            self.sig = []
        self.sig.append(piece)

    def _val(self, path, value):
        """thought, functionCall, finishReason, blockReason, error.status."""
        k = path[-1]
        if k == "status":
            self.err_status = value
            if self.err is None:
                self.err = []
        elif k == "finishReason":
            if isinstance(value, str):
                self.finish = value
        elif k == "blockReason":
            if isinstance(value, str):
                self.block = value
        else:
            self._open(path)
            if k == "thought":
                self.thought = value is True
            elif isinstance(value, dict):
                self.fc = value

    # -- assembly
    def flush(self):
        """Close the open part."""
        if self.idx is None:
            return
        sig = "".join(self.sig) if self.sig else None
        if self.fc is not None:
            # Gemini 2.x put it inside functionCall; part level is current
            inner = self.fc.get("thoughtSignature")
            self._add_call(self.fc, sig or (inner if isinstance(inner, str) else None))
            self.run = []
            self.runlen = 0
        elif self.thought:
            self.runlen += self.pend.size
            if self.runlen > self.held:
                raise StyleError("%s longer than %d characters" % ("thinking", self.held))
            self.run.append(self.pend.text())
            if sig:
                self.thoughts.append(["".join(self.run), sig])
                self.run = []
                self.runlen = 0
        elif self.pend.size or sig:
            self.run = []       # an unsigned thought run: dropped
            self.runlen = 0
            self.pend.pieces(self.out.add)
            if sig:
                self.text_sig = sig
        self.idx = None
        self.pend.drop()
        self.thought = False
        self.sig = None
        self.fc = None

    def _add_call(self, fc, sig):
        if len(self.calls) >= _MAX_CALLS:
            raise StyleError("more than %d tool calls" % _MAX_CALLS)
        args = fc.get("args")
        args = "{}" if args is None else jsonstream.dumps(args)
        cid = fc.get("id")
        if isinstance(cid, str) and cid:
            self.ids = True
        else:
            cid = "gemini-%s-%d" % (self.tag, len(self.calls))
        self.calls.append({"id": cid, "name": _str(fc.get("name") or ""),
                           "args": args})
        self.call_sigs.append(sig)

    def error(self):
        """The mid-body error message, or None."""
        if self.err is None:
            return None
        msg = "".join(self.err).strip()
        from ai.styles.gemini_errors import first_line     # error path only
        return first_line(msg) or _str(self.err_status or "error")

    def reply(self):
        self.flush()
        calls = self.calls or None
        f = self.finish
        if f is None and self.block:
            finish = "blocked:" + _str(self.block)
        elif calls and f in (None, "STOP"):
            finish = "tool_calls"
        elif f == "STOP" or f == "MAX_TOKENS":
            finish = "stop" if f == "STOP" else "length"
        elif f in ("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT",
                   "SPII", "IMAGE_SAFETY"):
            finish = "filter"
        else:
            finish = f or "stop"
        echo = {}
        if self.thoughts:
            echo["thoughts"] = self.thoughts
        if self.text_sig:
            echo["text_sig"] = self.text_sig
        if calls and any(self.call_sigs):
            echo["call_sigs"] = self.call_sigs
        if self.ids:
            echo["ids"] = True
        if echo:
            echo["style"] = "gemini"
        return _reply(self.out, calls, finish, echo or None)


def _enter(p, ev):
    """Step into the container at the cursor if it is ev (OBJ or ARR)."""
    if p.peek() == ev:
        p.next()
        return True
    return False


def _field(p, r, path, k, stream):
    """Hand member k's value to the reader as select() would: a Stream rule
    gets a string in pieces then None, anything else gets the value."""
    path[5] = k
    if stream and p.peek() == jsonstream.STR:
        p.stream_string(lambda piece: r._piece(path, piece))
        r._piece(path, None)
    else:
        v = p.read_value()
        if stream:
            r._piece(path, v)
        else:
            r._val(path, v)


def _candidate(p, r, path):
    """The members of candidates[0]: finishReason, content.parts[*]."""
    J = jsonstream
    while p.next() == J.KEY:
        k = p.value
        if k == "finishReason":
            _field(p, r, path, k, False)
        elif k == "content" and _enter(p, J.OBJ):
            while p.next() == J.KEY:
                if p.value == "parts" and _enter(p, J.ARR):
                    i = 0
                    while p.peek() != J.END_ARR:
                        if _enter(p, J.OBJ):
                            path[4] = i
                            while p.next() == J.KEY:
                                f = p.value
                                if f == "text" or f == "thoughtSignature":
                                    _field(p, r, path, f, True)
                                elif f == "thought" or f == "functionCall":
                                    _field(p, r, path, f, False)
                                else:
                                    p.skip_value()
                        else:
                            p.skip_value()
                        i += 1
                    p.next()
                else:
                    p.skip_value()
        else:
            p.skip_value()


def read_reply(cfg, body, out=None):
    """The Reply of a whole generateContent body (object with readinto): a
    walk with the pull parser over what the stream rules name
    (candidates[0].content.parts[*], finishReason, promptFeedback.blockReason,
    error.message/status); everything else skipped unread. Lighter than
    select() rules; the handlers see the same paths (they read the part
    index path[4] and the field name path[-1])."""
    r = _Reader(cfg, output(cfg, out))
    J = jsonstream
    p = J.Parser(body, max_value=_MAX_ARGS)
    path = [None, 0, None, None, 0, None]
    # streamGenerateContent without alt=sse (a proxy that dropped it)
    # answers an array of these objects: each read as a stream's event
    many = _enter(p, J.ARR)
    walked = False
    while _enter(p, J.OBJ):
        walked = True
        while p.next() == J.KEY:
            k = p.value
            if k == "candidates" and _enter(p, J.ARR):
                n = 0
                while p.peek() != J.END_ARR:
                    if n == 0 and _enter(p, J.OBJ):
                        _candidate(p, r, path)
                    else:
                        p.skip_value()
                    n += 1
                p.next()
            elif (k == "promptFeedback" or k == "error") and _enter(p, J.OBJ):
                while p.next() == J.KEY:
                    f = p.value
                    if k == "error" and f == "message":
                        _field(p, r, path, f, True)
                    elif f == ("status" if k == "error" else "blockReason"):
                        _field(p, r, path, f, False)
                    else:
                        p.skip_value()
            else:
                p.skip_value()
        r.flush()
        if not many:
            break
    if many:
        p.next()                # "]"
    elif not walked:
        p.skip_value()
    p.finish()
    msg = r.error()
    if msg:
        raise StyleError(msg)
    return r.reply()


def stream(cfg, events, out, block=True):
    """The Reply of a streamGenerateContent?alt=sse reply; out (an Out, or a
    sink) gets reply text as it arrives (never thought text). A step
    generator (ai.styles: the style contract)."""
    r = _Reader(cfg, output(cfg, out))
    rules = r.rules()
    buf = bytearray(256)    # one parse buffer for every event
    while True:
        try:
            ev = events.next() if block else (yield from events.take())
            if ev is None:
                break
            if ev.empty:
                continue
            jsonstream.select(ev, rules, max_value=_MAX_ARGS, buf=buf)
        except OSError as e:
            # the connection died (httpc.HTTPError): a reply whose finish
            # already arrived is complete, anything else is cut off
            if r.finish is not None or r.block is not None:
                break
            if getattr(e, "kind", None) in ("deadline", "timeout"):
                raise       # the driver words it, naming the setting to raise
            raise StyleError("stream ended early" + " (%s)" % e)
        r.flush()               # parts are numbered afresh in every event
        msg = r.error()
        if msg:
            raise StyleError(msg)
    if not (r.finish is not None or r.block is not None):
        raise StyleError("stream ended early")
    return r.reply()


read_stream = blocking(stream)


# the error replies and the model list, imported on first use
# (CONTRIBUTING.md: Loading lazily)
__getattr__ = lazy((("error_info", "ai.styles.gemini_errors"), ("models_request", "ai.models"),
                    ("read_models", "ai.models")))
