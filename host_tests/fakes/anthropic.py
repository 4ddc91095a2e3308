"""Fake Anthropic Messages server.

Wire format (PROVIDERS.md section 3):
  POST {base}/messages with `x-api-key` + `anthropic-version: 2023-06-01`, or
  `Authorization: Bearer` + `anthropic-version: 2026-10-21` (both accepted).
  Request {model, max_tokens, messages, system?, tools?: [{name, description,
  input_schema}], thinking?, stream?}. Reply {"type":"message","content":[
  thinking?, text?, tool_use*], "stop_reason", "usage"}.
  Stream: `event: <type>\\ndata: {...}\\n\\n` with message_start,
  content_block_start / _delta (text_delta, input_json_delta, thinking_delta,
  signature_delta) / _stop, message_delta, message_stop; `ping` events with
  comments=True; `event: error` for a mid-stream failure.
  GET {base}/models?limit=&after_id= -> {"data","has_more","first_id","last_id"}.
Errors: {"type":"error","error":{"type","message"},"request_id"}. Follow-ups
are validated: alternation, tool_result blocks first in the next user message
for every tool_use id, thinking blocks echoed unchanged with their signature.
"""

import re

from . import files
from .base import (ALNUM, Calls, Fail, FakeServer, Reject, Stream, Text, Whole,
                   finish_word, new_id, parsed_args, pieces, raw_args, schema_nodes, tokens)

VERSIONS = ("2023-06-01", "2023-01-01", "2026-10-21")
NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
TYPES = {400: "invalid_request_error", 401: "authentication_error",
         402: "billing_error", 403: "permission_error", 404: "not_found_error",
         413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
         504: "timeout_error", 529: "overloaded_error"}
MESSAGES = {400: "Invalid request.", 401: "invalid x-api-key",
            403: "Your API key does not have permission to use the specified resource.",
            404: "Not found.", 413: "Request exceeds the maximum allowed number of bytes.",
            429: "This request would exceed your organization's rate limit.",
            500: "Internal server error", 529: "Overloaded"}
BLOCK_TYPES = ("text", "image", "document", "tool_use", "tool_result", "thinking",
               "redacted_thinking", "search_result")


# the most output tokens a model gives (Anthropic's models overview): more
# in max_tokens is a 400
MAX_OUTPUT = (("claude-3-haiku", 4096), ("claude-3-5-haiku", 8192), ("claude-opus-4-1", 32000),
              ("claude-opus-4-2025", 32000), ("claude-opus-4-0", 32000))


def max_output(model):
    for prefix, n in MAX_OUTPUT:
        if model.startswith(prefix):
            return n
    return 64000


def block_text(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content
                       if isinstance(b, dict) and b.get("type") == "text")
    return ""


class FakeAnthropic(FakeServer):
    DEFAULT_MODELS = ("claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1")
    GEN_MODEL = "claude-fake-%05d"
    page_size = 20

    def __init__(self, key="sk-ant-test", models=None):
        FakeServer.__init__(self, key, models)
        self.issued = {}          # thinking signature -> thinking text
        self.think_of_tool = {}   # tool_use id -> [(thinking, signature), ...]

    # ------------------------------------------------------------ errors
    def err(self, status, message, type_=None, headers=None):
        return Reject(status, {"type": "error", "error": {
            "type": type_ or TYPES.get(status, "api_error"), "message": message},
            "request_id": new_id("req_011", 21, ALNUM)}, headers)

    def bad(self, message):
        return self.err(400, message)

    def fail_body(self, f):
        r = self.err(f.status, f.message or MESSAGES.get(f.status, "Error"))
        return r.status, r.body

    # ------------------------------------------------------------ routing
    def route(self, req):
        p = req.path.rstrip("/")
        if req.method == "GET" and p == self.PREFIX + "/models":
            self.check_auth(req)
            return self.list_models(req.query)
        if req.method == "POST" and p == self.PREFIX + "/messages":
            return self.messages(req)
        raise self.err(404, "Not Found")

    def check_auth(self, req):
        h = req.headers
        version = h.get("anthropic-version")
        if not version:
            raise self.bad("anthropic-version: header is required")
        if version not in VERSIONS:
            raise self.bad("anthropic-version: invalid version %s" % version)
        key = h.get("x-api-key")
        auth = h.get("authorization") or ""
        if key is None and auth[:7].lower() == "bearer ":
            key = auth[7:].strip()
        if not key:
            raise self.err(401, "x-api-key header is required")
        if key != self.key:
            raise self.err(401, "invalid x-api-key")
        return version

    def list_models(self, q):
        try:
            limit = int(q.get("limit", self.page_size))
        except ValueError:
            raise self.bad("limit: Input should be a valid integer")
        if not 1 <= limit <= 1000:
            raise self.bad("limit: Input should be between 1 and 1000")
        start = 0
        if "after_id" in q:
            if q["after_id"] not in self.model_ids:
                raise self.err(404, "after_id: model %s not found" % q["after_id"])
            start = self.model_ids.index(q["after_id"]) + 1
        ids = self.model_ids[start:start + limit]
        data = [{"type": "model", "id": m,
                 "display_name": m.replace("-", " ").title(),
                 "created_at": "2025-%02d-01T00:00:00Z" % (1 + (start + i) % 12)}
                for i, m in enumerate(ids)]
        return Whole(200, {"data": data, "has_more": start + limit < len(self.model_ids),
                           "first_id": ids[0] if ids else None,
                           "last_id": ids[-1] if ids else None})

    # ------------------------------------------------------------ validation
    def validate(self, req, version):
        b = req.json
        if not isinstance(b, dict):
            raise self.bad("There was an error parsing the body of your request: "
                           "expected a JSON object")
        for k in ("model", "max_tokens", "messages"):
            if k not in b:
                raise self.bad("%s: Field required" % k)
        mt = b["max_tokens"]
        if isinstance(mt, bool) or not isinstance(mt, int) or mt < 1:
            raise self.bad("max_tokens: Input should be a valid integer greater than 0")
        if b["model"] not in self.model_ids:
            raise self.err(404, "model: %s" % b["model"])
        cap = max_output(b["model"])
        if mt > cap:
            raise self.bad("max_tokens: %d > %d, which is the maximum allowed number of "
                           "output tokens for %s" % (mt, cap, b["model"]))
        if version == "2026-10-21":
            for k in ("temperature", "top_p", "top_k"):
                if k in b:
                    raise self.bad("%s: is not supported with anthropic-version "
                                   "2026-10-21" % k)
        th = b.get("thinking")
        if th is not None:
            kind = th.get("type") if isinstance(th, dict) else None
            if kind == "enabled":
                bt = th.get("budget_tokens")
                if isinstance(bt, bool) or not isinstance(bt, int) or bt < 1024:
                    raise self.bad("thinking.enabled.budget_tokens: Input should be "
                                   "greater than or equal to 1024")
                if bt >= mt:
                    raise self.bad("`max_tokens` must be greater than "
                                   "`thinking.budget_tokens`.")
                if b.get("temperature", 1) != 1:
                    raise self.bad("`temperature` may only be set to 1 when thinking "
                                   "is enabled.")
            elif kind not in ("disabled", "adaptive"):
                raise self.bad("thinking: Input tag '%s' found using 'type' does not "
                               "match any of the expected tags: 'enabled', "
                               "'disabled', 'adaptive'" % kind)
        system = b.get("system")
        if system is not None and not isinstance(system, (str, list)):
            raise self.bad("system: Input should be a valid string or list")
        self.check_tools(b.get("tools"))
        self.check_choice(b, th)
        self.check_output(b)
        # the latest turn must carry its thinking only while thinking is on
        self.check_messages(b["messages"], th and th.get("type") in ("enabled",
                                                                      "adaptive"))

    def check_tools(self, tools):
        if tools is None:
            return
        if not isinstance(tools, list):
            raise self.bad("tools: Input should be a valid list")
        for i, t in enumerate(tools):
            at = "tools.%d" % i
            kind = t.get("type") if isinstance(t, dict) else None
            if not isinstance(t, dict) or kind == "function":
                raise self.bad("%s: Input tag '%s' found using 'type' does not match "
                               "any of the expected tags" % (at, kind))
            if kind not in (None, "custom"):
                continue      # server tools (web_search_..., bash_..., ...)
            if not isinstance(t.get("name"), str) or not NAME_RE.match(t["name"]):
                raise self.bad("%s.name: String should match pattern "
                               "'^[a-zA-Z0-9_-]{1,128}$'" % at)
            sch = t.get("input_schema")
            if not isinstance(sch, dict):
                raise self.bad("%s.input_schema: Field required" % at)
            if sch.get("type") != "object":
                raise self.bad("%s.input_schema.type: Input should be 'object'" % at)

    def check_choice(self, b, th):
        """tool_choice {"type": auto|any|tool|none, "name" (tool),
        "disable_parallel_tool_use"?}; a forced tool (any, tool) refuses
        thinking (docs.claude.com: extended thinking, tool use)."""
        tc = b.get("tool_choice")
        if tc is None:
            return
        kind = tc.get("type") if isinstance(tc, dict) else None
        if kind not in ("auto", "any", "tool", "none"):
            raise self.bad("tool_choice: Input tag '%s' found using 'type' does not match any "
                           "of the expected tags: 'auto', 'any', 'tool', 'none'" % kind)
        names = [t.get("name") for t in b.get("tools") or ()]
        if kind == "tool" and tc.get("name") not in names:
            raise self.bad("tool_choice.name: Tool '%s' not found in tools" % tc.get("name"))
        if kind in ("any", "tool") and th and th.get("type") in ("enabled", "adaptive"):
            raise self.bad("Thinking may not be enabled when tool_choice forces tool use.")

    def check_output(self, b):
        """output_config.format {"type": "json_schema", "schema"}: models from
        Sonnet 4.5 / Opus 4.1 / Haiku 4.5; every object additionalProperties
        false; no numeric or length bounds
        (docs.claude.com/en/docs/build-with-claude/structured-outputs)."""
        oc = b.get("output_config")
        if oc is None:
            return
        f = (oc or {}).get("format") if isinstance(oc, dict) else None
        if not isinstance(f, dict) or f.get("type") != "json_schema" or \
                not isinstance(f.get("schema"), dict):
            raise self.bad("output_config.format: Input tag '%s' found using 'type' does not "
                           "match any of the expected tags: 'json_schema'" % (f or {}).get("type"))
        m = b["model"]
        if m.startswith(("claude-3", "claude-sonnet-4-0", "claude-sonnet-4-2", "claude-opus-4-0",
                         "claude-opus-4-2")):
            raise self.bad("'%s' does not support output_config.format" % m)
        for where, n in schema_nodes(f["schema"], "output_config.format.schema"):
            if n.get("additionalProperties") is not False:
                raise self.bad("%s: For 'object' type, 'additionalProperties' must be "
                               "explicitly set to false" % where)
        stack = [f["schema"]]
        while stack:
            n = stack.pop()
            if isinstance(n, dict):
                for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                          "multipleOf", "minLength", "maxLength"):
                    if k in n:
                        raise self.bad("output_config.format.schema: '%s' is not supported" % k)
                stack.extend(v for v in n.values() if isinstance(v, (dict, list)))
            elif isinstance(n, list):
                stack.extend(n)

    def check_messages(self, msgs, thinking_on=True):
        if not isinstance(msgs, list) or not msgs:
            raise self.bad("messages: at least one message is required")
        last_asst = None
        for i, m in enumerate(msgs):
            at = "messages.%d" % i
            role = m.get("role") if isinstance(m, dict) else None
            if role == "system":
                raise self.bad('messages: Unexpected role "system". The Messages API '
                               'accepts a top-level `system` parameter, not "system" '
                               'as an input message role.')
            if role not in ("user", "assistant"):
                raise self.bad("%s.role: Input should be 'user' or 'assistant'" % at)
            if i == 0 and role != "user":
                raise self.bad('messages: first message must use the "user" role')
            if i and msgs[i - 1].get("role") == role:
                raise self.bad('messages: roles must alternate between "user" and '
                               '"assistant", but found multiple "%s" roles in a row'
                               % role)
            c = m.get("content")
            final = i == len(msgs) - 1 and role == "assistant"
            if isinstance(c, str):
                if not c and not final:
                    raise self.bad("%s: all messages must have non-empty content "
                                   "except for the optional final assistant message"
                                   % at)
                continue
            if not isinstance(c, list) or (not c and not final):
                raise self.bad("%s.content: Input should be a valid string or a "
                               "non-empty list of content blocks" % at)
            for j, blk in enumerate(c):
                self.check_block(blk, "%s.content.%d" % (at, j), role)
            if role == "assistant":
                last_asst = i
                self.check_thinking(c, at)
            self.check_results(msgs, i)
        if last_asst is not None and thinking_on:
            self.check_latest_thinking(msgs[last_asst].get("content"),
                                       "messages.%d" % last_asst)

    def check_block(self, blk, at, role):
        kind = blk.get("type") if isinstance(blk, dict) else None
        if kind not in BLOCK_TYPES:
            raise self.bad("%s.type: Input tag '%s' found using 'type' does not "
                           "match any of the expected tags" % (at, kind))
        if kind == "text" and (not isinstance(blk.get("text"), str) or not blk["text"]):
            raise self.bad("messages: text content blocks must be non-empty")
        if kind in ("image", "document"):
            if role != "user":
                raise self.bad("%s: %s blocks can only be in user messages" % (at, kind))
            self.check_source(blk, at, kind)
        if kind == "tool_use":
            if role != "assistant":
                raise self.bad("%s: tool_use blocks can only be in assistant messages"
                               % at)
            for k in ("id", "name", "input"):
                if k not in blk:
                    raise self.bad("%s.%s: Field required" % (at, k))
            if not isinstance(blk["input"], dict):
                raise self.bad("%s.input: Input should be a valid dictionary" % at)
        if kind == "tool_result":
            if role != "user":
                raise self.bad("%s: tool_result blocks can only be in user messages"
                               % at)
            if "tool_use_id" not in blk:
                raise self.bad("%s.tool_use_id: Field required" % at)
            if not isinstance(blk.get("content", ""), (str, list)):
                raise self.bad("%s.content: Input should be a valid string or list"
                               % at)
            for k, sub in enumerate(blk["content"] if isinstance(blk.get("content"), list) else ()):
                if not isinstance(sub, dict) or sub.get("type") not in ("text", "image", "document"):
                    raise self.bad("%s.content.%d.type: Input tag '%s' found using 'type' does "
                                   "not match any of the expected tags: 'text', 'image', "
                                   "'document'" % (at, k, sub.get("type") if isinstance(sub, dict)
                                                   else None))
                self.check_block(sub, "%s.content.%d" % (at, k), role)
            if "is_error" in blk and not isinstance(blk["is_error"], bool):
                raise self.bad("%s.is_error: Input should be a valid boolean" % at)
        if kind == "thinking":
            for k in ("thinking", "signature"):
                if not isinstance(blk.get(k), str):
                    raise self.bad("%s.%s: Field required" % (at, k))

    def check_source(self, blk, at, kind):
        """An image or document block's source: base64 (strict) of a picture
        type, or of a PDF; a document's text; recorded (fake.files)."""
        src = blk.get("source")
        if not isinstance(src, dict):
            raise self.bad("%s.source: Field required" % at)
        mime = src.get("media_type")
        if src.get("type") == "text" and kind == "document":
            if mime != "text/plain" or not isinstance(src.get("data"), str):
                raise self.bad("%s.source.media_type: Input should be 'text/plain'" % at)
            return files.record(self, "text", mime, src["data"])
        if src.get("type") != "base64":
            raise self.bad("%s.source.type: Input tag '%s' found using 'type' does not match "
                           "any of the expected tags" % (at, src.get("type")))
        types = files.IMAGES if kind == "image" else ("application/pdf",)
        if mime not in types:
            raise self.bad("%s.source.media_type: Input should be %s" % (
                at, " or ".join("'%s'" % t for t in types)))
        data = files.strict_b64(src.get("data"))
        if data is None:
            raise self.bad("%s.source.base64.data: invalid base64 data" % at)
        files.record(self, "image" if kind == "image" else "pdf", mime, data)

    def check_results(self, msgs, i):
        """Message i: tool_result ids must answer the previous assistant's
        tool_use ids, first in the content, all of them."""
        m = msgs[i]
        c = m.get("content")
        at = "messages.%d" % i
        if m["role"] == "assistant":
            ids = [b["id"] for b in c if b.get("type") == "tool_use"]
            if not ids:
                return
            nxt = msgs[i + 1] if i + 1 < len(msgs) else {}
            nc = nxt.get("content")
            got = []
            for b in nc if isinstance(nc, list) else ():
                if not isinstance(b, dict) or b.get("type") != "tool_result":
                    break
                got.append(b.get("tool_use_id"))
            missing = [x for x in ids if x not in got]
            if missing:
                raise self.bad("%s: `tool_use` ids were found without `tool_result` "
                               "blocks immediately after: %s. Each `tool_use` block "
                               "must have a corresponding `tool_result` block in the "
                               "next message." % (at, ", ".join(missing)))
            return
        prev = msgs[i - 1].get("content") if i else None
        ids = [b.get("id") for b in prev if isinstance(b, dict)
               and b.get("type") == "tool_use"] if isinstance(prev, list) else []
        for j, b in enumerate(c):
            if b.get("type") == "tool_result" and b.get("tool_use_id") not in ids:
                raise self.bad("%s.content.%d: unexpected `tool_use_id` found in "
                               "`tool_result` blocks: %s. Each `tool_result` block "
                               "must have a corresponding `tool_use` block in the "
                               "previous message." % (at, j, b.get("tool_use_id")))

    def check_thinking(self, c, at):
        for j, b in enumerate(c):
            if b.get("type") == "thinking" and b["signature"] not in self.issued:
                raise self.bad("%s.content.%d: Invalid `signature` in `thinking` block"
                               % (at, j))

    def check_latest_thinking(self, c, at):
        """The latest assistant turn with tool_use must start with the thinking
        blocks issued with it, unchanged."""
        if not isinstance(c, list):
            return
        want = []
        for b in c:
            if b.get("type") == "tool_use" and b.get("id") in self.think_of_tool:
                want = self.think_of_tool[b["id"]]
                break
        if not want:
            return
        for j, (text, sig) in enumerate(want):
            b = c[j] if j < len(c) else {}
            if b.get("type") not in ("thinking", "redacted_thinking"):
                raise self.bad("%s.content.%d.type: Expected `thinking` or "
                               "`redacted_thinking`, but found `%s`. When `thinking` "
                               "is enabled, a final `assistant` message must start "
                               "with a thinking block (preceeding the lastmost set of "
                               "`tool_use` and `tool_result` blocks). We recommend you "
                               "include thinking blocks from previous turns. To avoid "
                               "this requirement, disable `thinking`."
                               % (at, j, b.get("type")))
            if b.get("thinking") != text or b.get("signature") != sig:
                raise self.bad("%s.content.%d: `thinking` or `redacted_thinking` "
                               "blocks in the latest assistant message cannot be "
                               "modified. These blocks must remain as they were in "
                               "the original response." % (at, j))

    # ------------------------------------------------------------ replies
    def default_reply(self, msgs):
        last = msgs[-1]
        c = last.get("content")
        if last.get("role") == "user" and isinstance(c, list):
            res = [block_text(b.get("content", "")) for b in c
                   if isinstance(b, dict) and b.get("type") == "tool_result"]
            if res:
                return Text("tool said: " + "; ".join(res))
        for m in reversed(msgs):
            if m.get("role") == "user":
                return Text("echo: " + block_text(m.get("content")))
        return Text("echo: ")

    def messages(self, req):
        version = self.check_auth(req)
        self.validate(req, version)
        b = req.json
        ctx = {"model": b["model"], "id": new_id("msg_01", 22, ALNUM),
               "in": tokens(req.raw.decode("utf-8", "replace"))}
        return self.answer(req, bool(b.get("stream")),
                           lambda s: self.whole(s, ctx),
                           lambda s: self.stream(s, ctx),
                           self.fail_body,
                           lambda f: self.stream_fail(f, ctx),
                           lambda: self.default_reply(b["messages"]))

    def blocks(self, script):
        """Content blocks of a script; tool_use input may be a raw string."""
        out = []
        if script.think:
            out.append({"type": "thinking", "thinking": script.think.text,
                        "signature": script.think.signature})
        if script.text:
            out.append({"type": "text", "text": script.text})
        if isinstance(script, Calls):
            for name, args in script.calls:
                ok, obj = parsed_args(args)
                out.append({"type": "tool_use", "id": new_id("toolu_01", 22, ALNUM),
                            "name": name, "input": obj if ok else args})
        with self._lock:
            if script.think:
                self.issued[script.think.signature] = script.think.text
                for blk in out:
                    if blk["type"] == "tool_use":
                        self.think_of_tool[blk["id"]] = [
                            (script.think.text, script.think.signature)]
        return out

    def stop_reason(self, script):
        if isinstance(script, Calls) and script.finish is None:
            return "tool_use"
        return finish_word(script.finish, ("end_turn", "max_tokens", "refusal"))

    def usage(self, ctx, out):
        return {"input_tokens": ctx["in"], "output_tokens": out,
                "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}

    def message(self, ctx, content, stop, out_tokens):
        return {"id": ctx["id"], "type": "message", "role": "assistant",
                "model": ctx["model"], "content": content, "stop_reason": stop,
                "stop_sequence": None, "usage": self.usage(ctx, out_tokens)}

    def whole(self, script, ctx):
        return Whole(200, self.message(ctx, self.blocks(script), self.stop_reason(script),
                                       tokens(script.text or "")),
                     {"request-id": new_id("req_011", 21, ALNUM)})

    def start_events(self, ctx):
        return [("message_start", {"type": "message_start",
                                   "message": self.message(ctx, [], None, 1)})]

    def stream(self, script, ctx):
        ev = self.start_events(ctx)
        for i, blk in enumerate(self.blocks(script)):
            kind = blk["type"]
            start = dict(blk)
            if kind == "thinking":
                start.update(thinking="", signature="")
                deltas = [{"type": "thinking_delta", "thinking": p}
                          for p in pieces(blk["thinking"], self.delta_size)]
                deltas.append({"type": "signature_delta",
                               "signature": blk["signature"]})
            elif kind == "text":
                start["text"] = ""
                deltas = [{"type": "text_delta", "text": p}
                          for p in pieces(blk["text"], self.delta_size)]
            else:
                start["input"] = {}
                deltas = [{"type": "input_json_delta", "partial_json": p}
                          for p in [""] + pieces(raw_args(blk["input"]), 7)]
            ev.append(("content_block_start", {"type": "content_block_start",
                                               "index": i, "content_block": start}))
            ev += [("content_block_delta", {"type": "content_block_delta",
                                            "index": i, "delta": d}) for d in deltas]
            ev.append(("content_block_stop", {"type": "content_block_stop",
                                              "index": i}))
        ev.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": self.stop_reason(script),
                                               "stop_sequence": None},
                                     "usage": {"output_tokens":
                                               tokens(script.text or "")}}))
        ev.append(("message_stop", {"type": "message_stop"}))
        return Stream(ev, {"request-id": new_id("req_011", 21, ALNUM)},
                      ping=("ping", {"type": "ping"}))

    def stream_fail(self, f, ctx):
        ev = self.start_events(ctx)
        ev.append(("content_block_start", {"type": "content_block_start", "index": 0,
                                           "content_block": {"type": "text",
                                                             "text": ""}}))
        for p in ("Partial ", "answer"):
            ev.append(("content_block_delta", {"type": "content_block_delta",
                                               "index": 0,
                                               "delta": {"type": "text_delta",
                                                         "text": p}}))
        status = f.status if f.status in TYPES and f.status >= 500 else 529
        body = self.fail_body(Fail(status, f.message))[1]
        ev.append(("error", body))
        return Stream(ev, ping=("ping", {"type": "ping"}))

