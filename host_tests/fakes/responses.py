"""Fake OpenAI Responses server (it serves /chat/completions too, as the
real service does: it is a FakeOpenAI of flavor "openai").

Wire format (PROVIDERS.md section 2):
  POST {base}/responses, Authorization: Bearer <key>
  {model, input: str | [items], instructions?, tools?: [{"type":"function",
   name, description?, parameters, strict?}], max_output_tokens?,
   temperature?, reasoning?: {effort, summary?}, include?, store?, stream?}
  Whole reply: {"id":"resp_...","object":"response","status","error",
   "incomplete_details","instructions","model","output":[items],"tools",
   "usage",...}; items: reasoning {"id":"rs_...","summary":[],
   "encrypted_content"?} (reasoning models, FIRST), message {"id":"msg_...",
   "role":"assistant","status","content":[{"type":"output_text","text",
   "annotations":[]}]}, function_call {"id":"fc_...","call_id":"call_...",
   "name","arguments","status"}.
  Stream: `event: <type>` + data with the same type and a sequence_number:
   response.created, response.in_progress, then per item
   response.output_item.added, (message) response.content_part.added,
   response.output_text.delta..., response.output_text.done,
   response.content_part.done, (call) response.function_call_arguments.delta
   keyed by output_index ..., response.function_call_arguments.done,
   response.output_item.done; then response.completed | incomplete (with
   the whole response again). No [DONE].
  Failures: Fail(midstream=True) -> HTTP 200, text deltas, then
   `event: error` {"type":"error","code","message","param"} (kind="failed":
   response.failed with response.error instead).
  data_only = True frames the stream as LiteLLM's /v1/responses and other
   OpenAI-compatible services do: no `event:` lines, the type only inside
   the data, every object's keys in alphabetical order (pydantic models of
   the openai SDK's types: "type" after "delta", an item's "type" after its
   "summary"), and a last `data: [DONE]`.

Validation answers 400 with the service's words where the real service
does: `messages` instead of `input`; a function tool that is strict (the
default) with a schema strict mode refuses; include
reasoning.encrypted_content, reasoning or temperature on a model that does
not take it; max_output_tokens < 16; a reasoning item replayed without its
encrypted content while store is false ("Item with id ... not found"), with
content it did not issue, or without the item that followed it; a
function_call replayed without its reasoning item; a function_call without
a function_call_output and the reverse.
"""

import base64
import json
import time

from . import files
from .base import (ALNUM, Calls, Stream, Text, Whole, new_id, pieces, raw_args, strict_problem,
                   tokens)
from .openai import FakeOpenAI, accepted_efforts, check_effort

class FakeResponses(FakeOpenAI):
    MODELS = {"openai": ("gpt-5-mini", "gpt-4.1-mini", "o4-mini", "gpt-5-nano")}

    data_only = False

    def __init__(self, key="sk-test", models=None):
        FakeOpenAI.__init__(self, "openai", key, models)
        self.issued = {}        # reasoning id -> encrypted content
        self.follows = {}       # reasoning id -> id of the item after it
        self.reasoning_of = {}  # function_call item id -> reasoning id

    def route(self, req):
        if req.method == "POST" and req.path.rstrip("/") == self.PREFIX + "/responses":
            return self.responses(req)
        return FakeOpenAI.route(self, req)

    @staticmethod
    def thinks(model):
        return accepted_efforts("openai", model) is not None

    # ------------------------------------------------------------ validation
    def validate_responses(self, req):
        b = req.json
        if not isinstance(b, dict):
            raise self.bad("We could not parse the JSON body of your request. "
                           "The OpenAI API expects a JSON payload.")
        if "messages" in b:
            raise self.bad("Unsupported parameter: 'messages'. In the Responses API, "
                           "this parameter has moved to 'input'.", "messages",
                           "unsupported_parameter")
        model = b.get("model")
        if not isinstance(model, str) or not model:
            raise self.bad("Missing required parameter: 'model'.", "model",
                           "missing_required_parameter")
        if model not in self.model_ids:
            raise self.err(404, "The model `%s` does not exist or you do not have "
                           "access to it." % model, "invalid_request_error",
                           "model_not_found")
        thinks = self.thinks(model)
        if "reasoning.encrypted_content" in (b.get("include") or ()) and not thinks:
            raise self.bad("Encrypted content is not supported with this model.",
                           "include", "unsupported_value")
        if b.get("reasoning") and not thinks:
            raise self.bad("Unsupported parameter: 'reasoning.effort' is not supported "
                           "with this model.", "reasoning.effort",
                           "unsupported_parameter")
        if "temperature" in b and thinks:
            raise self.bad("Unsupported parameter: 'temperature' is not supported with "
                           "this model.", "temperature", "unsupported_parameter")
        check_effort(self, "openai", model, (b.get("reasoning") or {}).get("effort"),
                     "reasoning.effort")
        mot = b.get("max_output_tokens")
        if mot is not None and (not isinstance(mot, int) or mot < 16):
            raise self.bad("Invalid 'max_output_tokens': integer below minimum value. "
                           "Expected a value >= 16, but got %s instead." % mot,
                           "max_output_tokens", "integer_below_min_value")
        self.check_resp_tools(b.get("tools"))
        self.check_text_format(b.get("text"))
        items = b.get("input")
        if isinstance(items, str):
            return
        if not isinstance(items, list):
            raise self.bad("Invalid type for 'input': expected one of a string or "
                           "array of input items.", "input", "invalid_type")
        self.check_items(items, b.get("store", True) is False)

    def check_resp_tools(self, tools):
        if tools is None:
            return
        if not isinstance(tools, list):
            raise self.bad("Invalid type for 'tools': expected an array.", "tools")
        for i, t in enumerate(tools):
            at = "tools[%d]" % i
            if not isinstance(t, dict) or t.get("type") != "function":
                raise self.bad("Invalid value for '%s.type'." % at, at + ".type",
                               "invalid_value")
            if "function" in t:
                raise self.bad("Unknown parameter: '%s.function'." % at,
                               at + ".function", "unknown_parameter")
            name = t.get("name")
            if not isinstance(name, str):
                raise self.bad("Missing required parameter: '%s.name'." % at,
                               at + ".name", "missing_required_parameter")
            params = t.get("parameters")
            if t.get("strict", True) is not False:
                props = (params or {}).get("properties") or {}
                if (params or {}).get("additionalProperties") is not False:
                    raise self.bad("Invalid schema for function '%s': In context=(), "
                                   "'additionalProperties' is required to be supplied "
                                   "and to be false." % name, at + ".parameters",
                                   "invalid_function_parameters")
                if sorted((params or {}).get("required") or []) != sorted(props):
                    raise self.bad("Invalid schema for function '%s': In context=(), "
                                   "'required' is required to be supplied and to be an "
                                   "array including every key in properties." % name,
                                   at + ".parameters", "invalid_function_parameters")

    def check_text_format(self, text):
        """text.format: {"type": "text"} | {"type": "json_object"} |
        {"type": "json_schema", "name", "schema", "strict"?} (strict, the
        default: OpenAI's strict rules)."""
        if text is None:
            return
        f = (text or {}).get("format") if isinstance(text, dict) else None
        kind = (f or {}).get("type") if isinstance(f, dict) else None
        if kind not in ("text", "json_object", "json_schema"):
            raise self.bad("Invalid value for 'text.format.type'.", "text.format.type",
                           "invalid_value")
        if kind != "json_schema":
            return
        if "json_schema" in f:
            raise self.bad("Unknown parameter: 'text.format.json_schema'.",
                           "text.format.json_schema", "unknown_parameter")
        if not isinstance(f.get("name"), str) or not isinstance(f.get("schema"), dict):
            raise self.bad("Missing required parameter: 'text.format.name'.",
                           "text.format.name", "missing_required_parameter")
        if f.get("strict", True) is not False:
            problem = strict_problem(f["schema"])
            if problem:
                raise self.bad("Invalid schema for response_format '%s': %s" % (
                    f["name"], problem), "text.format.schema", "invalid_json_schema")

    def check_items(self, items, stateless):
        calls = {}          # call_id -> index, until its output comes
        for i, it in enumerate(items):
            at = "input[%d]" % i
            if not isinstance(it, dict):
                raise self.bad("Invalid type for '%s': expected an object." % at, at)
            kind = it.get("type", "message" if "role" in it else None)
            nxt = items[i + 1] if i + 1 < len(items) else None
            if kind == "message":
                if it.get("role") not in ("user", "assistant", "system", "developer"):
                    raise self.bad("Invalid value: '%s'. Supported values are: 'assistant', "
                                   "'system', 'developer', and 'user'." % it.get("role"),
                                   at + ".role", "invalid_value")
                if not isinstance(it.get("content"), (str, list)):
                    raise self.bad("Missing required parameter: '%s.content'." % at,
                                   at + ".content", "missing_required_parameter")
                if it["role"] == "user" and isinstance(it["content"], list):
                    self.check_input_parts(it["content"], at)
            elif kind == "reasoning":
                rid = it.get("id")
                if not isinstance(it.get("summary"), list):
                    raise self.bad("Missing required parameter: '%s.summary'." % at,
                                   at + ".summary", "missing_required_parameter")
                enc = it.get("encrypted_content")
                if enc is None and stateless:
                    raise self.bad("Item with id '%s' not found. Items are not persisted "
                                   "when `store` is set to false. Try again with `store` "
                                   "set to true, or remove this item from your input."
                                   % rid, "input")
                if enc is not None and self.issued.get(rid) != enc:
                    raise self.bad("The encrypted content for item %s could not be "
                                   "verified." % rid, "input", "invalid_encrypted_content")
                want = self.follows.get(rid)
                if want and not (isinstance(nxt, dict) and nxt.get("id") == want):
                    raise self.bad("Item '%s' of type 'reasoning' was provided without its "
                                   "required following item." % rid, "input")
            elif kind == "function_call":
                for k in ("call_id", "name", "arguments"):
                    if not isinstance(it.get(k), str):
                        raise self.bad("Missing required parameter: '%s.%s'." % (at, k),
                                       "%s.%s" % (at, k), "missing_required_parameter")
                rid = self.reasoning_of.get(it.get("id"))
                if rid and not any(isinstance(x, dict) and x.get("id") == rid
                                   for x in items[:i]):
                    raise self.bad("Item '%s' of type 'function_call' was provided without "
                                   "its required 'reasoning' item: '%s'." % (it["id"], rid),
                                   "input")
                calls[it["call_id"]] = i
            elif kind == "function_call_output":
                cid = it.get("call_id")
                if not isinstance(it.get("output"), str):
                    raise self.bad("Missing required parameter: '%s.output'." % at,
                                   at + ".output", "missing_required_parameter")
                if cid not in calls:
                    raise self.bad("No tool call found for function call output with "
                                   "call_id %s." % cid, "input")
                del calls[cid]
            else:
                raise self.bad("Invalid value: '%s'." % kind, at + ".type", "invalid_value")
        for cid in calls:
            raise self.bad("No tool output found for function call %s." % cid, "input")

    def check_input_parts(self, parts, at):
        """A user message's content list: input_text, input_image (a strict
        base64 data URI of a picture), input_file (filename and a PDF data
        URI); files decoded and recorded (fake.files)."""
        for j, p in enumerate(parts):
            pat = "%s.content[%d]" % (at, j)
            kind = p.get("type") if isinstance(p, dict) else None
            try:
                if kind == "input_text":
                    if not isinstance(p.get("text"), str):
                        raise ValueError("text must be a string")
                elif kind == "input_image":
                    mime, data = files.data_uri(p.get("image_url"), files.IMAGES)
                    files.record(self, "image", mime, data)
                elif kind == "input_file":
                    if not isinstance(p.get("filename"), str):
                        raise ValueError("a file_data needs a filename")
                    mime, data = files.data_uri(p.get("file_data"), ("application/pdf",))
                    files.record(self, "pdf", mime, data, p["filename"])
                else:
                    raise self.bad("Invalid value: '%s'. Supported values are: 'input_text', "
                                   "'input_image', 'input_file'." % kind, pat + ".type",
                                   "invalid_value")
            except ValueError as e:
                raise self.bad("Invalid '%s': %s." % (pat, e), pat, "invalid_value")

    # ------------------------------------------------------------ replies
    def resp_default(self, items):
        if isinstance(items, str):
            return Text("echo: " + items)
        tail = []
        for it in reversed(items):
            if it.get("type") != "function_call_output":
                break
            tail.insert(0, it.get("output", ""))
        if tail:
            return Text("tool said: " + "; ".join(tail))
        for it in reversed(items):
            if it.get("role") == "user":
                c = it.get("content")
                return Text("echo: " + (c if isinstance(c, str) else json.dumps(c)))
        return Text("echo: ")

    def responses(self, req):
        self.check_auth(req)
        self.validate_responses(req)
        b = req.json
        ctx = {"id": new_id("resp_", 32, ALNUM.lower()), "created": int(time.time()),
               "model": b["model"], "req": req, "seq": 0,
               "encrypted": "reasoning.encrypted_content" in (b.get("include") or ())}
        return self.answer(
            req, bool(b.get("stream")),
            lambda s: Whole(200, self.response(ctx, self.output(s, ctx), s)),
            lambda s: self.resp_stream(s, ctx),
            self.fail_body,
            lambda f: self.resp_stream_fail(f, ctx),
            lambda: self.resp_default(b.get("input")))

    def output(self, script, ctx):
        out = []
        if self.thinks(ctx["model"]):
            rid = new_id("rs_", 40, ALNUM.lower())
            item = {"id": rid, "type": "reasoning", "summary": []}
            if ctx["encrypted"]:
                size = script.think.size if script.think else 300
                enc = "gAAAAA" + base64.b64encode(
                    (rid + ":" + "x" * size).encode()).decode()
                item["encrypted_content"] = enc
                self.issued[rid] = enc
            out.append(item)
        if script.text:
            out.append({"id": new_id("msg_", 40, ALNUM.lower()), "type": "message",
                        "status": "completed", "role": "assistant", "content": [
                            {"type": "output_text", "annotations": [], "logprobs": [],
                             "text": script.text}]})
        if getattr(script, "refusal", None):
            out.append({"id": new_id("msg_", 40, ALNUM.lower()), "type": "message",
                        "status": "completed", "role": "assistant", "content": [
                            {"type": "refusal", "refusal": script.refusal}]})
        if isinstance(script, Calls):
            for name, args in script.calls:
                out.append({"id": new_id("fc_", 40, ALNUM.lower()), "type": "function_call",
                            "status": "completed", "arguments": raw_args(args),
                            "call_id": new_id("call_", 24, ALNUM), "name": name})
        if out and out[0]["type"] == "reasoning":
            self.follows[out[0]["id"]] = out[1]["id"] if len(out) > 1 else None
            for it in out:
                if it["type"] == "function_call":
                    self.reasoning_of[it["id"]] = out[0]["id"]
        return out

    def status(self, script):
        f = (script.finish or "").lower()
        if f in ("length", "max_tokens", "max_output_tokens"):
            return "incomplete", {"reason": "max_output_tokens"}
        if f in ("content_filter", "refusal", "safety"):
            return "incomplete", {"reason": "content_filter"}
        return "completed", None

    def response(self, ctx, output, script, status=None):
        b = ctx["req"].json
        st, details = self.status(script) if status is None else (status, None)
        text = "".join(p.get("text") or p.get("refusal") for it in output
                       if it["type"] == "message" for p in it["content"])
        p = tokens(ctx["req"].raw.decode("utf-8", "replace"))
        c = tokens(text)
        return {"id": ctx["id"], "object": "response", "created_at": ctx["created"],
                "status": st, "background": False, "error": None,
                "incomplete_details": details, "instructions": b.get("instructions"),
                "max_output_tokens": b.get("max_output_tokens"), "model": ctx["model"],
                "output": output, "parallel_tool_calls": True,
                "previous_response_id": None,
                "reasoning": {"effort": (b.get("reasoning") or {}).get("effort"),
                              "summary": None},
                "store": b.get("store", True), "temperature": b.get("temperature", 1.0),
                "text": {"format": {"type": "text"}}, "tool_choice": "auto",
                "tools": b.get("tools") or [], "top_p": 1.0, "truncation": "disabled",
                "usage": {"input_tokens": p, "output_tokens": c, "total_tokens": p + c},
                "user": None, "metadata": {}}

    def ev(self, ctx, kind, **data):
        d = {"type": kind, "sequence_number": ctx["seq"]}
        d.update(data)
        ctx["seq"] += 1
        return (kind, d)

    def item_events(self, ctx, i, it):
        ev = []
        if it["type"] == "message":
            ev.append(self.ev(ctx, "response.output_item.added", output_index=i,
                              item=dict(it, status="in_progress", content=[])))
            part = it["content"][0]
            kind = "refusal" if part["type"] == "refusal" else "output_text"
            ev.append(self.ev(ctx, "response.content_part.added", item_id=it["id"],
                              output_index=i, content_index=0,
                              part={"type": kind, "annotations": [], "text": ""}
                              if kind == "output_text" else {"type": kind, "refusal": ""}))
            text = part.get("text") or part.get("refusal")
            name = "response.refusal" if kind == "refusal" else "response.output_text"
            for p in pieces(text, self.delta_size):
                ev.append(self.ev(ctx, name + ".delta", item_id=it["id"],
                                  output_index=i, content_index=0, delta=p, logprobs=[]))
            ev.append(self.ev(ctx, name + ".done", item_id=it["id"],
                              output_index=i, content_index=0, text=text, logprobs=[]))
            ev.append(self.ev(ctx, "response.content_part.done", item_id=it["id"],
                              output_index=i, content_index=0, part=it["content"][0]))
        elif it["type"] == "function_call":
            ev.append(self.ev(ctx, "response.output_item.added", output_index=i,
                              item=dict(it, status="in_progress", arguments="")))
            for p in pieces(it["arguments"], 7):
                ev.append(self.ev(ctx, "response.function_call_arguments.delta",
                                  item_id=it["id"], output_index=i, delta=p))
            ev.append(self.ev(ctx, "response.function_call_arguments.done",
                              item_id=it["id"], output_index=i, arguments=it["arguments"]))
        else:
            ev.append(self.ev(ctx, "response.output_item.added", output_index=i,
                              item={"id": it["id"], "type": it["type"], "summary": []}))
        ev.append(self.ev(ctx, "response.output_item.done", output_index=i, item=it))
        return ev

    def start_events(self, ctx, script):
        empty = self.response(ctx, [], script, "in_progress")
        return [self.ev(ctx, "response.created", response=empty),
                self.ev(ctx, "response.in_progress", response=empty)]

    def resp_stream(self, script, ctx):
        output = self.output(script, ctx)
        ev = self.start_events(ctx, script)
        for i, it in enumerate(output):
            ev.extend(self.item_events(ctx, i, it))
        whole = self.response(ctx, output, script)
        end = "response.completed" if whole["status"] == "completed" else "response.incomplete"
        ev.append(self.ev(ctx, end, response=whole))
        return Stream(self.frame(ev), {"x-request-id": new_id("req_", 32)})

    def frame(self, events):
        if not self.data_only:
            return events
        return [(None, json.dumps(d, sort_keys=True, ensure_ascii=False, separators=(",", ":")))
                for _, d in events] + [(None, "[DONE]")]

    def resp_stream_fail(self, f, ctx):
        script = Text("Partial answer")
        ev = self.start_events(ctx, script)
        msg = self.fail_body(f)[1]["error"]["message"]
        ev.append(self.ev(ctx, "response.output_text.delta", item_id="msg_x",
                          output_index=0, content_index=0, delta="Partial", logprobs=[]))
        if f.kind == "failed":
            whole = self.response(ctx, [], script, "failed")
            whole["error"] = {"code": "server_error", "message": msg}
            ev.append(self.ev(ctx, "response.failed", response=whole))
        else:
            ev.append(self.ev(ctx, "error", code="server_error", message=msg, param=None))
        return Stream(self.frame(ev))
