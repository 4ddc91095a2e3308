"""Fake OpenAI chat-completions server (flavors openai, groq, ollama, kimi,
and the OpenAI-compatible services mistral, deepseek, openrouter, xai,
cerebras, together, lmstudio, llamacpp).

Wire format (PROVIDERS.md section 1):
  POST {base}/chat/completions, Authorization: Bearer <key> (ollama: ignored)
  GET  {base}/models -> {"object":"list","data":[{"id","object","created","owned_by"}]}
  GET  /api/tags (ollama) -> {"models":[{"name","model","size",...}]}
  whole reply: {"choices":[{"message":{"role","content","tool_calls"},
                "finish_reason"}],"usage":{...}}
  stream: `data: {chunk}` events, delta.content / delta.tool_calls[index]
  fragments (only the first fragment of an index has id/type/name), usage
  chunk with choices [] when stream_options.include_usage, `data: [DONE]`.
  Flavor quirks: groq whole calls + x_groq.usage + 400 tool_use_failed;
  ollama whole calls, delta.reasoning, separate finish chunk with delta {};
  kimi reasoning_content (required on echoed tool-call turns of thinking
  models), ids "functions.<name>:<n>", usage in choices[0].usage, no `code`.
  mistral: tool-call ids of 9 letters and digits (422 for any other on a
  call or a result), 422 "Extra inputs are not permitted" for a field it
  does not take (max_completion_tokens, stream_options, reasoning_effort),
  whole calls in a stream, errors {"object": "error", "message", "type",
  "param", "code"}. deepseek: deepseek-reasoner answers with
  reasoning_content, which a tool-call turn must carry back. openrouter:
  reasoning text in delta.reasoning, keep-alive comments, reasoning as an
  object {"effort"}, errors {"error": {"code": <int>, "message"}}. xai:
  reasoning_content from grok-3-mini, reasoning_effort low|high there only.
  cerebras: errors {"message", "type", "param", "code"} at the top.
  lmstudio: no key, reasoning_content, response_format json_schema only.
  llamacpp: no key, any model name (one model is loaded), reasoning_content.
Structured replies (response_format): json_schema {"name", "schema",
"strict"?} (strict: OpenAI's strict rules, fakes.base.strict_problem) or
json_object (the word "json" in the messages); groq refuses either with
stream true or with tools, and json_schema on models without it.
A Text(refusal=...) answers with a refusal (message.refusal,
delta.refusal).
Errors: {"error":{"message","type","param","code"}} with 400 for everything
the real service refuses (tool sequence, tool shapes, max_tokens on
reasoning models, a content part of another type, a picture that is not a
strict base64 data URI of a type the flavor takes, a PDF file part
elsewhere than at OpenAI, ...).
"""

import json
import re
import time

from . import files
from .base import (ALNUM, Calls, FakeServer, Reject, Stream, Text, Whole,
                   bearer, finish_word, new_id, parsed_args, pieces, raw_args,
                   strict_problem, tokens)

NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ID9_RE = re.compile(r"^[a-zA-Z0-9]{9}$")
FLAVORS = ("openai", "groq", "ollama", "kimi", "mistral", "deepseek", "openrouter", "xai",
           "cerebras", "together", "lmstudio", "llamacpp")
NO_KEY = ("ollama", "lmstudio", "llamacpp")
# the request fields Mistral takes (docs.mistral.ai/api: chat completion);
# any other is its 422
MISTRAL_FIELDS = ("model", "messages", "temperature", "top_p", "max_tokens", "stream", "stop",
                  "random_seed", "response_format", "tools", "tool_choice", "presence_penalty",
                  "frequency_penalty", "n", "prediction", "parallel_tool_calls", "prompt_mode",
                  "safe_prompt")
# Groq's models with json_schema (console.groq.com/docs/structured-outputs)
GROQ_SCHEMA = ("openai/gpt-oss", "moonshotai/kimi-k2", "meta-llama/llama-4")
# docs.ollama.com/api/openai-compatibility: base64 image_url of these only
OLLAMA_IMAGES = ("image/jpeg", "image/png", "image/webp")

# status -> (type, code, default message); kimi drops code/param
FAILS = {
    400: ("invalid_request_error", None, "Invalid request."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: ("permission_error", None, "You are not allowed to access this resource."),
    404: ("invalid_request_error", "model_not_found",
          "The model `x` does not exist or you do not have access to it."),
    408: ("timeout", None, "Request timed out."),
    409: ("invalid_request_error", "conflict", "Conflict."),
    429: ("tokens", "rate_limit_exceeded",
          "Rate limit reached for requests. Please try again in 1s."),
    500: ("server_error", None,
          "The server had an error while processing your request. Sorry about that!"),
    502: ("server_error", None, "Bad gateway."),
    503: ("server_error", None,
          "The engine is currently overloaded, please try again later."),
}


def accepted_efforts(flavor, model):
    """The reasoning effort values a model takes, as each service documents
    them (a value outside is its 400), or None when the model has no such
    parameter; "any" where the fake does not check. OpenAI: the API
    reference's reasoning.effort (gpt-5.1: none, low, medium, high; models
    before it no none; gpt-5-pro high only; xhigh after gpt-5.1-codex-max),
    the reasoning guide (o-series: low, medium, high), gpt-5's minimal;
    chat and gpt-4/3 models do not reason. Groq: console.groq.com/docs/
    reasoning (GPT-OSS low, medium, high; Qwen 3 none, default)."""
    m = model
    if flavor == "xai":
        return ("low", "high") if m.startswith("grok-3-mini") else None
    if flavor == "cerebras":
        return ("low", "medium", "high") if m.startswith("gpt-oss") else None
    if flavor == "groq":
        if m.startswith("openai/gpt-oss"):
            return ("low", "medium", "high")
        if m.startswith("qwen/qwen3"):
            return ("none", "default")
        return None
    if flavor != "openai":
        return "any"
    if "-chat" in m or m.startswith("gpt-4") or m.startswith("gpt-3"):
        return None
    if m.startswith("gpt-5-pro"):
        return ("high",)
    if m.startswith("gpt-5.1-codex-max") or (m.startswith("gpt-5.") and not m.startswith("gpt-5.1")):
        return ("none", "low", "medium", "high", "xhigh")
    if m.startswith("gpt-5.1"):
        return ("none", "low", "medium", "high")
    if m.startswith("gpt-5"):
        return ("minimal", "low", "medium", "high")
    return ("low", "medium", "high")


def check_effort(fake, flavor, model, value, param):
    """Raise the service's 400 for a reasoning effort the model refuses."""
    ok = accepted_efforts(flavor, model)
    if value is None or ok == "any":
        return
    if ok is None:
        if flavor == "groq":
            raise fake.bad("`reasoning_effort` is not supported with this model", param)
        raise fake.bad("Unsupported parameter: '%s' is not supported with this model."
                       % param, param, "unsupported_parameter")
    if value not in ok:
        said = ", ".join("'%s'" % v for v in ok[:-1])
        said = "%s, and '%s'" % (said, ok[-1]) if said else "'%s'" % ok[-1]
        raise fake.bad("Unsupported value: '%s' is not supported with the '%s' model. "
                       "Supported values are: %s." % (value, model, said), param,
                       "unsupported_value")


def content_text(content):
    """Text of a message content (string or list of text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


class FakeOpenAI(FakeServer):
    MODELS = {
        "openai": ("gpt-4o-mini", "gpt-4.1", "o3-mini", "gpt-5-mini"),
        "groq": ("llama-3.3-70b-versatile", "openai/gpt-oss-20b", "qwen/qwen3-32b"),
        "ollama": ("llama3.2:latest", "qwen3:8b", "gpt-oss:20b"),
        "kimi": ("kimi-k2-0905-preview", "kimi-k2-thinking", "kimi-k2.5"),
        "mistral": ("mistral-small-latest", "mistral-large-latest", "magistral-small-latest"),
        "deepseek": ("deepseek-chat", "deepseek-reasoner"),
        "openrouter": ("openai/gpt-4o-mini", "anthropic/claude-sonnet-4.5", "deepseek/deepseek-r1"),
        "xai": ("grok-3-mini", "grok-4", "grok-4-fast-non-reasoning"),
        "cerebras": ("llama3.1-8b", "gpt-oss-120b", "qwen-3-32b"),
        "together": ("meta-llama/Llama-3.3-70B-Instruct-Turbo", "Qwen/Qwen3-235B-A22B-fp8-tput"),
        "lmstudio": ("openai/gpt-oss-20b", "qwen/qwen3-4b"),
        "llamacpp": ("default",),
    }

    def __init__(self, flavor="openai", key="sk-test", models=None):
        if flavor not in FLAVORS:
            raise ValueError("flavor must be one of %s" % (FLAVORS,))
        self.flavor = flavor
        self.DEFAULT_MODELS = self.MODELS[flavor]
        FakeServer.__init__(self, key, models)

    # ------------------------------------------------------------ errors
    def err(self, status, message, type_=None, code=None, param=None, headers=None):
        if type_ is None:
            type_ = FAILS.get(status, FAILS[500])[0]
        e = {"message": message, "type": type_}
        if self.flavor == "openrouter":
            e = {"code": status, "message": message}
        elif self.flavor != "kimi":
            e["param"] = param
            e["code"] = code
        if self.flavor == "mistral":
            e["object"] = "error"
            return Reject(status, e, headers)
        if self.flavor == "cerebras":
            return Reject(status, e, headers)
        return Reject(status, {"error": e}, headers)

    def bad(self, message, param=None, code=None):
        if self.flavor == "mistral":
            return self.err(422, message, "invalid_request_error", code, param)
        return self.err(400, message, "invalid_request_error", code, param)

    def fail_body(self, f):
        type_, code, msg = FAILS.get(f.status, FAILS[500])
        if f.status == 429 and f.kind == "quota":
            type_ = code = "insufficient_quota"
            msg = ("You exceeded your current quota, please check your plan "
                   "and billing details.")
        if self.flavor == "kimi":
            type_ = {401: "invalid_authentication_error",
                     404: "resource_not_found_error",
                     429: "rate_limit_reached_error"}.get(f.status, type_)
        r = self.err(f.status, f.message or msg, type_, code)
        return r.status, r.body

    # ------------------------------------------------------------ routing
    def route(self, req):
        p = req.path.rstrip("/")
        if req.method == "GET" and p == self.PREFIX + "/models":
            self.check_auth(req)
            return Whole(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 1700000000 + i,
                 "owned_by": "library" if self.flavor == "ollama" else "system"}
                for i, m in enumerate(self.model_ids)]})
        if req.method == "GET" and p == "/api/tags" and self.flavor == "ollama":
            return Whole(200, {"models": [
                {"name": m, "model": m, "modified_at": "2026-01-01T00:00:00Z",
                 "size": 2000000000 + i, "digest": "%064x" % (i + 1),
                 "details": {"format": "gguf", "family": m.split(":")[0]}}
                for i, m in enumerate(self.model_ids)]})
        if req.method == "POST" and p == self.PREFIX + "/chat/completions":
            return self.chat(req)
        raise self.err(404, "Invalid URL (%s %s)" % (req.method, req.path),
                       "invalid_request_error")

    def check_auth(self, req):
        if self.flavor in NO_KEY:
            return
        key = bearer(req)
        if key == self.key:
            return
        if self.flavor == "kimi":
            raise self.err(401, "Invalid Authentication", "invalid_authentication_error")
        if self.flavor == "groq":
            raise self.err(401, "Invalid API Key", "invalid_request_error",
                           "invalid_api_key")
        if not key:
            raise self.err(401, "You didn't provide an API key. You need to provide "
                           "your API key in an Authorization header using Bearer "
                           "auth (i.e. Authorization: Bearer YOUR_KEY).",
                           "invalid_request_error")
        shown = key[:3] + "*" * 4 + key[-2:] if len(key) > 8 else "*" * 4
        raise self.err(401, "Incorrect API key provided: %s." % shown,
                       "invalid_request_error", "invalid_api_key")

    def known_model(self, model):
        if model in self.model_ids or self.flavor == "llamacpp":
            return True
        return self.flavor == "ollama" and model + ":latest" in self.model_ids

    # ------------------------------------------------------------ validation
    def validate(self, req):
        b = req.json
        if not isinstance(b, dict):
            raise self.bad("We could not parse the JSON body of your request. "
                           "The OpenAI API expects a JSON payload.")
        model = b.get("model")
        if not isinstance(model, str) or not model:
            raise self.bad("you must provide a model parameter", "model")
        if not self.known_model(model):
            if self.flavor == "ollama":
                raise self.err(404, 'model "%s" not found, try pulling it first'
                               % model, "api_error")
            if self.flavor == "kimi":
                raise self.err(404, "Not found the model %s or Permission denied"
                               % model, "resource_not_found_error")
            raise self.err(404, "The model `%s` does not exist or you do not have "
                           "access to it." % model, "invalid_request_error",
                           "model_not_found")
        msgs = b.get("messages")
        if not isinstance(msgs, list) or not msgs:
            raise self.bad("[] is too short - 'messages'", "messages")
        if "stream_options" in b and not b.get("stream"):
            raise self.bad("The 'stream_options' parameter is only allowed when "
                           "'stream' is enabled.", "stream_options", "invalid_value")
        if "max_tokens" in b and self.flavor == "openai" and (model[:1] == "o" or model.startswith("gpt-5")):
            raise self.bad("Unsupported parameter: 'max_tokens' is not supported "
                           "with this model. Use 'max_completion_tokens' instead.",
                           "max_tokens", "unsupported_parameter")
        if self.flavor == "mistral":
            for k in b:
                if k not in MISTRAL_FIELDS:
                    raise self.bad("Extra inputs are not permitted (body.%s)" % k, k,
                                   "extra_forbidden")
        if self.flavor == "openrouter" and "reasoning" in b:
            if (b["reasoning"] or {}).get("effort") not in ("minimal", "low", "medium", "high"):
                raise self.bad("reasoning.effort must be one of minimal, low, medium, high",
                               "reasoning")
        check_effort(self, self.flavor, model, b.get("reasoning_effort"), "reasoning_effort")
        self.check_tools(b)
        self.check_messages(msgs, model)
        self.check_format(b, model)

    def check_format(self, b, model):
        """response_format as the service takes it (see the top)."""
        rf = b.get("response_format")
        if rf is None:
            return
        kind = rf.get("type") if isinstance(rf, dict) else None
        if kind not in ("json_schema", "json_object", "text"):
            raise self.bad("Invalid value for 'response_format.type'.", "response_format.type",
                           "invalid_value")
        if self.flavor == "groq":
            if b.get("stream"):
                raise self.bad("response_format` does not support streaming", "stream")
            if b.get("tools"):
                raise self.bad("json mode cannot be combined with tool/function calling",
                               "response_format")
        if kind == "json_object":
            if self.flavor == "lmstudio":
                raise self.bad("'response_format.type' must be 'json_schema'", "response_format")
            text = json.dumps(b.get("messages")).lower()
            if "json" not in text:
                raise self.bad("'messages' must contain the word 'json' in some form, to use "
                               "'response_format' of type 'json_object'.", "messages")
            return
        if kind != "json_schema":
            return
        js = rf.get("json_schema")
        if not isinstance(js, dict) or not isinstance(js.get("schema"), dict):
            raise self.bad("Missing required parameter: 'response_format.json_schema'.",
                           "response_format.json_schema", "missing_required_parameter")
        if self.flavor == "groq" and not any(model.startswith(m) for m in GROQ_SCHEMA):
            raise self.bad("This model does not support response format `json_schema`. See "
                           "supported models at https://console.groq.com/docs/structured-outputs"
                           "#supported-models", "response_format")
        if js.get("strict"):
            if self.flavor == "groq" and not model.startswith("openai/gpt-oss"):
                raise self.bad("strict mode is only supported on openai/gpt-oss models",
                               "response_format")
            if not NAME_RE.match(str(js.get("name"))):
                raise self.bad("Invalid 'response_format.json_schema.name': string does not "
                               "match pattern.", "response_format.json_schema.name")
            problem = strict_problem(js["schema"])
            if problem:
                raise self.bad("Invalid schema for response_format '%s': %s" % (
                    js.get("name"), problem), "response_format", "invalid_json_schema")

    def check_tools(self, b):
        tools = b.get("tools")
        if tools is not None:
            if not isinstance(tools, list):
                raise self.bad("Invalid type for 'tools': expected an array.", "tools",
                               "invalid_type")
            for i, t in enumerate(tools):
                at = "tools[%d]" % i
                if not isinstance(t, dict) or "type" not in t:
                    raise self.bad("Missing required parameter: '%s.type'." % at,
                                   at + ".type", "missing_required_parameter")
                if t["type"] != "function":
                    raise self.bad("Invalid value: '%s'. Supported values are: "
                                   "'function' and 'custom'." % t["type"],
                                   at + ".type", "invalid_value")
                fn = t.get("function")
                if not isinstance(fn, dict):
                    raise self.bad("Missing required parameter: '%s.function'." % at,
                                   at + ".function", "missing_required_parameter")
                name = fn.get("name")
                if not isinstance(name, str):
                    raise self.bad("Missing required parameter: '%s.function.name'."
                                   % at, at + ".function.name",
                                   "missing_required_parameter")
                if not NAME_RE.match(name):
                    raise self.bad("Invalid '%s.function.name': string does not match "
                                   "pattern. Expected a string that matches the "
                                   "pattern '^[a-zA-Z0-9_-]{1,64}$'." % at,
                                   at + ".function.name", "invalid_value")
                if "parameters" in fn and not isinstance(fn["parameters"], dict):
                    raise self.bad("Invalid type for '%s.function.parameters': "
                                   "expected an object." % at,
                                   at + ".function.parameters", "invalid_type")
        if "tool_choice" in b and not tools:
            raise self.bad("Invalid value for 'tool_choice': 'tool_choice' is only "
                           "allowed when 'tools' are specified.", "tool_choice")

    def check_messages(self, msgs, model):
        pending = None      # ids of the last assistant tool_calls not answered yet
        pending_at = 0
        for i, m in enumerate(msgs):
            at = "messages.[%d]" % i
            if not isinstance(m, dict) or m.get("role") not in (
                    "system", "developer", "user", "assistant", "tool"):
                raise self.bad("Invalid value for '%s.role'." % at, at + ".role",
                               "invalid_value")
            role = m["role"]
            if role == "tool":
                if self.flavor == "mistral" and not ID9_RE.match(str(m.get("tool_call_id"))):
                    raise self.bad("Tool call id was %s but must be a-z, A-Z, 0-9, with a "
                                   "length of 9." % m.get("tool_call_id"))
                if "content" not in m:
                    raise self.bad("Missing required parameter: '%s.content'." % at,
                                   at + ".content", "missing_required_parameter")
                if pending is None or m.get("tool_call_id") not in pending:
                    raise self.bad("Invalid parameter: messages with role 'tool' must "
                                   "be a response to a preceeding message with "
                                   "'tool_calls'.", at + ".role")
                pending.remove(m["tool_call_id"])
                continue
            if pending:
                raise self.bad("An assistant message with 'tool_calls' must be "
                               "followed by tool messages responding to each "
                               "'tool_call_id'. The following tool_call_ids did not "
                               "have response messages: %s" % ", ".join(pending),
                               "messages.[%d].role" % pending_at)
            pending = None
            if role != "assistant":
                if "content" not in m:
                    raise self.bad("Missing required parameter: '%s.content'." % at,
                                   at + ".content", "missing_required_parameter")
                self.check_parts(m["content"], at, role)
                continue
            calls = m.get("tool_calls")
            if not calls:
                if m.get("content") is None:
                    raise self.bad("Invalid value for '%s.content': expected a string, "
                                   "got null." % at, at + ".content")
                continue
            pending, pending_at = [], i
            for j, c in enumerate(calls):
                if self.flavor == "mistral" and not ID9_RE.match(str((c or {}).get("id"))):
                    raise self.bad("Tool call id was %s but must be a-z, A-Z, 0-9, with a "
                                   "length of 9." % (c or {}).get("id"))
                cat = "%s.tool_calls[%d]" % (at, j)
                fn = c.get("function") if isinstance(c, dict) else None
                if not isinstance(fn, dict) or not c.get("id") or \
                        c.get("type") != "function" or "name" not in fn:
                    raise self.bad("Missing required parameter: '%s.function'." % cat,
                                   cat, "missing_required_parameter")
                if not isinstance(fn.get("arguments"), str):
                    raise self.bad("Invalid type for '%s.function.arguments': "
                                   "expected a string." % cat,
                                   cat + ".function.arguments", "invalid_type")
                pending.append(c["id"])
            if (self.flavor == "kimi" and "thinking" in model or self.flavor == "deepseek"
                    and model == "deepseek-reasoner") and m.get("reasoning_content") is None:
                raise self.bad("thinking is enabled but reasoning_content is missing "
                               "in assistant tool call message at index %d" % i)
        if pending:
            raise self.bad("An assistant message with 'tool_calls' must be followed "
                           "by tool messages responding to each 'tool_call_id'. The "
                           "following tool_call_ids did not have response messages: "
                           "%s" % ", ".join(pending), "messages.[%d].role" % pending_at)

    def check_parts(self, content, at, role):
        """A content list: text parts, and in a user message pictures as
        base64 data URIs (Ollama: jpeg, png, webp only) and, at OpenAI, PDF
        file parts; each decoded strictly and recorded (fake.files)."""
        if not isinstance(content, list):
            return
        for j, p in enumerate(content):
            pat = "%s.content[%d]" % (at, j)
            kind = p.get("type") if isinstance(p, dict) else None
            try:
                if kind == "text":
                    if not isinstance(p.get("text"), str):
                        raise ValueError("text must be a string")
                elif kind == "image_url" and role == "user":
                    url = (p.get("image_url") or {}).get("url")
                    types = OLLAMA_IMAGES if self.flavor == "ollama" else files.IMAGES
                    mime, data = files.data_uri(url, types)
                    files.record(self, "image", mime, data)
                elif kind == "file" and role == "user" and self.flavor == "openai":
                    f = p.get("file") or {}
                    mime, data = files.data_uri(f.get("file_data"), ("application/pdf",))
                    files.record(self, "pdf", mime, data, f.get("filename"))
                else:
                    raise self.bad("Invalid value: '%s'. Supported values are: 'text'%s." % (
                        kind, ", 'image_url'" if role == "user" else ""), pat + ".type",
                        "invalid_value")
            except ValueError as e:
                raise self.bad("Invalid content part at %s: %s." % (pat, e), pat,
                               "invalid_image_format")

    # ------------------------------------------------------------ replies
    def default_reply(self, msgs):
        tail = []
        for m in reversed(msgs):
            if m.get("role") != "tool":
                break
            tail.insert(0, content_text(m.get("content")))
        if tail:
            return Text("tool said: " + "; ".join(tail))
        for m in reversed(msgs):
            if m.get("role") == "user":
                return Text("echo: " + content_text(m.get("content")))
        return Text("echo: ")

    def convert(self, script, req):
        """Hook for FakeTextOnly: turn a script into what this server sends."""
        return script

    def chat(self, req):
        self.check_auth(req)
        self.validate(req)
        b = req.json
        stream = bool(b.get("stream"))
        ctx = {"model": b["model"], "req": req, "id": new_id("chatcmpl-", 24, ALNUM),
               "created": int(time.time()),
               "usage": bool((b.get("stream_options") or {}).get("include_usage")),
               "ncalls": sum(len(m.get("tool_calls") or ()) for m in b["messages"])}
        return self.answer(
            req, stream,
            lambda s: self.whole(self.convert(s, req), ctx),
            lambda s: self.stream(self.convert(s, req), ctx),
            self.fail_body,
            lambda f: self.stream_fail(f, ctx),
            lambda: self.default_reply(b["messages"]))

    def call_list(self, script, ctx):
        if self.flavor == "groq":
            for name, args in script.calls:
                if not parsed_args(args)[0]:
                    raise Reject(400, {"error": {
                        "message": "Failed to call a function. Please adjust your "
                                   "prompt. See 'failed_generation' for more details.",
                        "type": "invalid_request_error", "code": "tool_use_failed",
                        "failed_generation": "<function=%s>%s</function>"
                                             % (name, args)}})
        out = []
        for i, (name, args) in enumerate(script.calls):
            if self.flavor == "kimi":
                cid = "functions.%s:%d" % (name, ctx["ncalls"] + i)
            elif self.flavor == "mistral":
                cid = new_id("", 9, ALNUM)
            elif self.flavor == "ollama":
                cid = new_id("call_", 8, ALNUM.lower())
            else:
                cid = new_id("call_", 24, ALNUM)
            out.append({"id": cid, "type": "function",
                        "function": {"name": name, "arguments": raw_args(args)}})
        return out

    def usage(self, ctx, text):
        p = tokens(ctx["req"].raw.decode("utf-8", "replace"))
        c = tokens(text)
        return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}

    def finish(self, script):
        if isinstance(script, Calls) and script.finish is None:
            return "tool_calls"
        return finish_word(script.finish, ("stop", "length", "content_filter"))

    def think_field(self):
        return {"kimi": "reasoning_content", "ollama": "reasoning", "groq": "reasoning",
                "deepseek": "reasoning_content", "openrouter": "reasoning",
                "xai": "reasoning_content", "lmstudio": "reasoning_content",
                "llamacpp": "reasoning_content"}.get(self.flavor)

    def whole(self, script, ctx):
        text = script.text
        msg = {"role": "assistant", "content": text}
        if isinstance(script, Calls):
            msg["tool_calls"] = self.call_list(script, ctx)
        else:
            msg["refusal"] = script.refusal
            if script.refusal:
                msg["content"] = None
        if script.think and self.think_field():
            msg[self.think_field()] = script.think.text
        usage = self.usage(ctx, text or "")
        body = {"id": ctx["id"], "object": "chat.completion", "created": ctx["created"],
                "model": ctx["model"],
                "choices": [{"index": 0, "message": msg, "logprobs": None,
                             "finish_reason": self.finish(script)}],
                "usage": usage, "system_fingerprint": "fp_fake"}
        if self.flavor == "groq":
            body["x_groq"] = {"id": new_id("req_", 26, ALNUM.lower())}
        return Whole(200, body, {"x-request-id": new_id("req_", 32)})

    def chunk(self, ctx, delta, finish=None, **extra):
        c = {"id": ctx["id"], "object": "chat.completion.chunk",
             "created": ctx["created"], "model": ctx["model"],
             "system_fingerprint": "fp_fake",
             "choices": [{"index": 0, "delta": delta, "logprobs": None,
                          "finish_reason": finish}]}
        c.update(extra)
        return (None, c)

    def text_events(self, ctx, text, think=None):
        ev = []
        if self.flavor != "ollama":
            ev.append(self.chunk(ctx, {"role": "assistant", "content": ""}))
        if think and self.think_field():
            for p in pieces(think.text, self.delta_size):
                ev.append(self.chunk(ctx, {self.think_field(): p}))
        if text:
            for p in pieces(text, self.delta_size):
                d = {"content": p}
                if self.flavor == "ollama" and len(ev) == 0:
                    d["role"] = "assistant"
                ev.append(self.chunk(ctx, d))
        return ev

    def stream(self, script, ctx):
        ev = self.text_events(ctx, script.text, script.think)
        for p in pieces(getattr(script, "refusal", None) or "", self.delta_size):
            if p:
                ev.append(self.chunk(ctx, {"refusal": p}))
        if isinstance(script, Calls):
            calls = self.call_list(script, ctx)
            if self.flavor in ("groq", "ollama", "mistral", "xai"):
                frags = [dict(c, index=i) for i, c in enumerate(calls)]
                ev.append(self.chunk(ctx, {"tool_calls": frags}))
            else:
                for i, c in enumerate(calls):
                    fn = c["function"]
                    ev.append(self.chunk(ctx, {"tool_calls": [
                        {"index": i, "id": c["id"], "type": "function",
                         "function": {"name": fn["name"], "arguments": ""}}]}))
                    for p in pieces(fn["arguments"], 7):
                        ev.append(self.chunk(ctx, {"tool_calls": [
                            {"index": i, "function": {"arguments": p}}]}))
        usage = self.usage(ctx, script.text or "")
        extra = {}
        if self.flavor == "groq":
            extra["x_groq"] = {"id": new_id("req_", 26, ALNUM.lower()), "usage": usage}
        last = self.chunk(ctx, {}, self.finish(script), **extra)
        if self.flavor == "kimi":
            last[1]["choices"][0]["usage"] = usage
        ev.append(last)
        if ctx["usage"] and self.flavor in ("openai", "ollama"):
            ev.append(self.chunk(ctx, {}, usage=usage))
            ev[-1][1]["choices"] = []
        ev.append((None, "[DONE]"))
        return Stream(ev, {"x-request-id": new_id("req_", 32)})

    def stream_fail(self, f, ctx):
        ev = self.text_events(ctx, "Partial answer")[:3]
        status, body = self.fail_body(f)
        ev.append((None, body))
        return Stream(ev)
