"""Fake OpenAI-shaped chat-completions server for a model WITHOUT tool support.

Wire format: as fakes.openai (flavor "openai"), but a request carrying `tools`
or `tool_choice`, a message with role "tool", or an assistant message with
`tool_calls` is refused with 400 ("tools are not supported by this model").
Scripted Calls(...) are answered as TEXT in the fallback format the client
asks for, one fenced block per call:
    ```tool_call
    {"name": "get_weather", "arguments": {"city": "Rochdale"}}
    ```
Empty queue: a last user message starting with "Tool result" gets
"tool said: <text after the first colon>", anything else is echoed.
"""

import json

from .base import Calls, Text, parsed_args
from .openai import FakeOpenAI, content_text


class FakeTextOnly(FakeOpenAI):
    def __init__(self, key="sk-test", models=None):
        self.MODELS = {"openai": ("text-model-1", "text-model-2")}
        FakeOpenAI.__init__(self, "openai", key, models)

    def validate(self, req):
        b = req.json
        if isinstance(b, dict):
            self.refuse_tools(b)
        FakeOpenAI.validate(self, req)

    def refuse_tools(self, b):
        for k in ("tools", "tool_choice"):
            if k in b:
                raise self.bad("tools are not supported by this model", k)
        msgs = b.get("messages")
        for i, m in enumerate(msgs if isinstance(msgs, list) else ()):
            if not isinstance(m, dict):
                continue
            if m.get("role") == "tool" or m.get("tool_calls"):
                raise self.bad("tools are not supported by this model: message %d "
                               "has role 'tool' or tool_calls" % i,
                               "messages.[%d]" % i)

    def convert(self, script, req):
        if not isinstance(script, Calls):
            return script
        blocks = [script.text or "I will use a tool."]
        for name, args in script.calls:
            ok, obj = parsed_args(args)
            arg_text = json.dumps(obj) if ok else args
            blocks.append('```tool_call\n{"name": %s, "arguments": %s}\n```'
                          % (json.dumps(name), arg_text))
        return Text("\n\n".join(blocks), think=script.think, finish=script.finish)

    def default_reply(self, msgs):
        for m in reversed(msgs):
            if m.get("role") == "user":
                text = content_text(m.get("content"))
                if text.startswith("Tool result"):
                    return Text("tool said: " + text.split(":", 1)[-1].strip())
                return Text("echo: " + text)
        return Text("echo: ")
