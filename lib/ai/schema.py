"""Replies that follow a JSON schema (overrides["schema"], ai.ask_json):
imported by the driver only for a request that has one.

    {"schema": S}       S: a JSON Schema (a dict, or its JSON text) whose
                        root is an object, or the concise syntax of Simon
                        Willison's llm: "name, age int, bio: who they are"
                        (fields split by commas, or by lines when there is
                        a line break; a type int, float, str or bool after
                        the name, str when none; a description after ":";
                        every field required)
    {"schema_multi": True}  S describes one item: the reply is
                        {"items": [item, ...]} (llm's --schema-multi)
    {"select": {path: fn}}  each value at a path (jsonstream.select's
                        patterns) goes to fn(path, value) as soon as it is
                        complete

How each provider takes a schema is catalogue data (ai/catalog.py
SCHEMAS: the form and its flags per provider and model family, each row
with its source); each style puts the form in its body in one place,
Check.body() below:
  json_schema  the style's native form: chat completions' response_format
               {"type": "json_schema", "json_schema": {"name", "schema",
               "strict"?}}, Responses' text.format {"type": "json_schema",
               "name", "schema", "strict"}, Anthropic's output_config.format
               {"type": "json_schema", "schema"}, Gemini's generationConfig
               responseMimeType application/json + responseJsonSchema
  openapi      Gemini's responseSchema (its OpenAPI subset:
               gemini.clean_schema)
  tool         Anthropic's forced tool: one tool whose input is the answer
               (tool_choice that tool, or any tool when the request offers
               others; no parallel calls; thinking off, which a forced tool
               refuses); its input_json_delta pieces are the reply's text
  json_object  JSON mode (response_format {"type": "json_object"}) and the
               instructions below
  prompt       the instructions alone: the system prompt gets the schema
               (a provider without a row)
flags: strict (OpenAI's strict mode: every object closed and every member
required, the optional ones nullable), closed (every object
additionalProperties false), nobounds (no minimum/maximum/length bounds),
nostream (the request is not streamed), notools (with tools offered the
form is prompt), require_parameters (OpenRouter: only providers that take
every parameter).

The reply's text is checked as it arrives (ai/feed.py: jsonstream's
parser fed the pieces): every value against the schema's types, enum,
required members and closed objects, and selected values handed over.
What is wrong is the request's err, each named: the model refused, the
reply was cut short by the token limit, its JSON does not parse, it
breaks the schema. A value is handed over only whole and checked.
"""
import jsonstream
from jsonstream import OBJ, END_OBJ, ARR, END_ARR, KEY, STR, NUM, TRUE, FALSE, JSONError
from ai.styles import StyleError
from ai.feed import Feed

TOOL = "structured_answer"      # the forced tool's name
NAME = "answer"                 # the json_schema form's name
# the concise syntax's type words and their JSON Schema types (a string,
# not a dict: nothing built at import)
_TYPES = " int:integer float:number str:string bool:boolean "
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
           "minLength", "maxLength")
_MAX_REFUSAL = 300
# the forms each style takes (see the top)
_FORMS = " openai:json_schema openai:json_object responses:json_schema anthropic:json_schema " \
         "anthropic:tool gemini:json_schema gemini:openapi "


def parse(s, multi=False):
    """The JSON Schema of s (a dict of its own: a dict given is copied), from
    a dict, JSON text or the concise syntax; multi wraps it as {"items":
    [...]}. ValueError says what is wrong."""
    if isinstance(s, dict):
        s = jsonstream.loads(jsonstream.dumps(s))     # (a schema is small)
    elif isinstance(s, str):
        t = s.strip()
        if t[:1] == "{":
            try:
                s = jsonstream.loads(t)
            except JSONError as e:
                raise ValueError("the schema is not valid JSON (%s)" % e)
        else:
            s = concise(t)
    if not isinstance(s, dict):
        raise ValueError("a schema is a dict, JSON text or fields such as 'name, age int'")
    if multi:
        s = {"type": "object", "properties": {"items": {"type": "array", "items": s}},
             "required": ["items"]}
    if s.get("type") != "object":
        raise ValueError("a schema's root must be an object (for a list: schema_multi, "
                         "ai -schema-multi)")
    return s


def concise(text):
    """llm's concise syntax -> a JSON Schema object (see the top)."""
    props = {}
    req = []
    for field in text.split("\n" if "\n" in text else ","):
        field = field.strip()
        if not field:
            continue
        desc = None
        if ":" in field:
            field, desc = field.split(":", 1)
            desc = desc.strip()
        words = field.split()
        if not words or len(words) > 2:
            raise ValueError("schema field '%s': write NAME [TYPE][: description]" % field.strip())
        t = words[1] if len(words) > 1 else "str"
        if t not in ("integer", "number", "string", "boolean"):
            k = _TYPES.find(" %s:" % t)
            t = _TYPES[k + len(t) + 2:_TYPES.find(" ", k + 1)] if k >= 0 else None
        if t is None:
            raise ValueError("schema field '%s': the type is int, float, str or bool, not '%s'"
                             % (words[0], words[1]))
        p = {"type": t}
        if desc:
            p["description"] = desc
        props[words[0]] = p
        req.append(words[0])
    if not req:
        raise ValueError("the schema names no field (e.g. 'name, age int')")
    return {"type": "object", "properties": props, "required": req}


def adapt(schema, form, flags):
    """schema (parse()'s) as the provider takes it (see the flags above):
    changed in place, or for the form openapi a copy."""
    s = schema
    s.pop("$schema", None)
    if form == "openapi":
        from ai.styles.gemini import clean_schema
        return clean_schema(s)
    stack = [s]
    while stack:
        n = stack.pop()
        if not isinstance(n, dict):
            continue
        if "nobounds" in flags:
            for k in _BOUNDS:
                n.pop(k, None)
            if isinstance(n.get("minItems"), int) and n["minItems"] > 1:
                del n["minItems"]
        props = n.get("properties")
        if isinstance(props, dict) or n.get("type") == "object":
            if "strict" in flags or "closed" in flags:
                n["additionalProperties"] = False
            if "strict" in flags and isinstance(props, dict):
                req = n.get("required") or []
                for k in props:
                    if k not in req:
                        props[k] = _nullable(props[k])
                n["required"] = list(props)
        for k in ("properties", "$defs", "definitions"):
            if isinstance(n.get(k), dict):
                stack.extend(n[k].values())
        for k in ("items", "additionalProperties", "anyOf", "oneOf", "allOf"):
            v = n.get(k)
            if isinstance(v, list):
                stack.extend(v)
            elif isinstance(v, dict):
                stack.append(v)
    return s


def _nullable(p):
    """A member schema that also takes null (strict mode's optional)."""
    if not isinstance(p, dict):
        return p
    t = p.get("type")
    if isinstance(t, str):
        if t != "null":
            p["type"] = [t, "null"]
        return p
    if isinstance(t, list):
        if "null" not in t:
            t.append("null")
        return p
    return {"anyOf": [p, {"type": "null"}]}


def instructions(schema):
    """The system prompt's part for the json_object and prompt forms."""
    return ("Answer with one JSON object that follows this JSON Schema, and nothing else "
            "(no prose, no code fence). JSON Schema: " + jsonstream.dumps(schema))


def _and(old, tool):
    if old is not None:
        for t in (old.factory() if isinstance(old, jsonstream.Array) else old):
            yield t
    yield tool


def form(cfg, tools):
    """(form, flags) for this request (ai/catalog.py SCHEMAS)."""
    from ai import catalog
    words = catalog.row(catalog.SCHEMAS, cfg["provider"], cfg.get("model") or "") or ["prompt"]
    f = words[0]
    flags = tuple(words[1:])
    if tools and "notools" in flags:
        f = "prompt"
    if _FORMS.find(" %s:%s " % (cfg["style"], f)) < 0:
        f = "prompt"        # (a style switched by ai.<use>.style, or the text fallback)
    return f, flags


class Check:
    """One request's schema: its wire form (cfg["schema"]: body() puts it
    in the style's body), the system prompt's instructions where the form
    needs them, and the reply's text checked as it arrives (add: the Out's
    sink; end: the err)."""

    def __init__(self, cfg, o, tools, sink):
        try:
            schema = parse(o["schema"], o.get("schema_multi"))
        except ValueError as e:
            raise StyleError("schema: %s" % e)
        f, flags = form(cfg, tools)
        self.form = f
        self.flags = flags
        self.nostream = "nostream" in flags
        self.tool = TOOL if f == "tool" else None
        if f == "json_object" or f == "prompt":
            text = instructions(schema)
            cfg["system"] = cfg["system"] + "\n\n" + text if cfg.get("system") else text
        if f != "prompt":
            # (the check reads what was sent: strict mode's optional
            # members are there as null)
            self.wire = adapt(schema, f, flags)
            if f != "openapi":
                schema = self.wire
            cfg["schema"] = self
        if f == "tool":
            cfg["thinking"] = None
        self.cfg = cfg
        self.schema = schema
        self.sink = sink
        self.err = None
        self.stack = []         # per open container: [schema, required seen, required, array?]
        self.member = None      # the schema of the member whose key was read, and
        self.optional = False   # whether it may be left out
        self.feed = Feed(o.get("select"), self.token, fence=f == "prompt")

    def body(self, body):
        """The schema in a request's body, in the style's place (see the top)."""
        f = self.form
        s = self.wire
        st = self.cfg["style"]
        strict = "strict" in self.flags
        if f == "json_object":
            body["response_format"] = {"type": "json_object"}
        elif f == "tool":
            tool = {"name": TOOL, "description": "Give your answer as this tool's input.",
                    "input_schema": s}
            old = body.get("tools")
            body["tools"] = jsonstream.Array(lambda: _and(old, tool))
            body["tool_choice"] = {"type": "any" if old else "tool",
                                   "disable_parallel_tool_use": True}
            if not old:
                body["tool_choice"]["name"] = TOOL
        elif st == "gemini":
            gen = body.get("generationConfig")
            if gen is None:
                gen = body["generationConfig"] = {}
            gen["responseMimeType"] = "application/json"
            gen["responseSchema" if f == "openapi" else "responseJsonSchema"] = s
        elif st == "anthropic":
            body["output_config"] = {"format": {"type": "json_schema", "schema": s}}
        elif st == "responses":
            body["text"] = {"format": {"type": "json_schema", "name": NAME, "schema": s,
                                       "strict": strict}}
        else:
            js = {"name": NAME, "schema": s}
            if strict:
                js["strict"] = True
            body["response_format"] = {"type": "json_schema", "json_schema": js}
        if "require_parameters" in self.flags:
            body["provider"] = {"require_parameters": True}

    # -- the reply's text
    def add(self, piece):
        if self.sink is not None:
            self.sink(piece)
        self._take(piece)

    def _take(self, piece):
        """piece to the parser (None: the text is over); the first thing
        wrong in the text is kept as the err and the rest is not read."""
        if self.err is None:
            try:
                if piece is None:
                    self.feed.end()
                else:
                    self.feed.feed(piece)
            except JSONError as e:
                self.err = "the reply's JSON does not parse (%s)" % e
            except StyleError as e:     # (the check's: see token())
                self.err = "the reply breaks the schema: %s" % e

    def end(self, reply, size):
        """The request's err (None: the reply is the answer, or a tool
        round, or empty: the driver says why)."""
        who = self.cfg["provider"] + ": "
        f = reply.finish or ""
        if f[:8] == "refused:" or f == "filter" or f[:8] == "blocked:":
            why = f[8:] if f[:8] == "refused:" else ("the content filter" if f == "filter"
                                                     else f[8:])
            return who + "the model refused to answer (%s)" % why[:_MAX_REFUSAL]
        if reply.calls or not size:
            return None
        if f == "length":
            from ai.config import source
            return who + ("the reply was cut short by the token limit after %d characters, "
                          "its JSON unfinished (raise %s)" % (size, source(self.cfg, "max_tokens")))
        self._take(None)
        return who + self.err if self.err else None

    # -- the check, a token at a time (Feed's hook)
    def token(self, ev, v, path):
        st = self.stack
        if ev == KEY:
            top = st[-1]
            s = top[0]
            props = s.get("properties") if s else None
            sub = props.get(v) if isinstance(props, dict) else None
            if sub is None and s and s.get("additionalProperties") is False:
                raise StyleError("%s has a member '%s' the schema does not allow" % (
                    where(path[:-1]), v))
            req = top[2]
            self.optional = True
            if v in req:
                top[1] |= 1 << req.index(v)
                self.optional = False
            self.member = sub
            return
        if ev == END_OBJ or ev == END_ARR:
            top = st.pop()
            req = top[2]
            for i in range(len(req)):
                if not top[1] >> i & 1:
                    raise StyleError("%s has no member '%s' (required)" % (where(path[:-1]), req[i]))
            return
        s = self.schema
        optional = False
        if st:
            top = st[-1]
            if top[3]:
                s = top[0].get("items") if top[0] else None
            else:
                s, optional = self.member, self.optional
        if not isinstance(s, dict) or "type" not in s:
            s = None        # (anyOf, $ref...: not checked)
        if s is not None and not (v is None and optional):
            t = s["type"]
            got = _kind(ev, v)
            ok = got in t if isinstance(t, list) else got == t
            if not ok and got == "integer":
                ok = "number" in t if isinstance(t, list) else t == "number"
            if not ok:
                raise StyleError("%s is %s, not %s" % (where(path), _a(got), _a(
                    t if isinstance(t, str) else " or ".join(t))))
            e = s.get("enum")
            if isinstance(e, list) and ev != OBJ and ev != ARR and v not in e:
                raise StyleError("%s is %s, not one of %s" % (
                    where(path), jsonstream.dumps(v)[:60], jsonstream.dumps(e)[1:-1][:120]))
        if ev == OBJ or ev == ARR:
            req = s.get("required") if s is not None and ev == OBJ else None
            st.append([s, 0, req if isinstance(req, list) else (), ev == ARR])


def _kind(ev, v):
    if ev == OBJ:
        return "object"
    if ev == ARR:
        return "array"
    if ev == STR:
        return "string"
    if ev == NUM:
        return "integer" if isinstance(v, int) else "number"
    if ev == TRUE or ev == FALSE:
        return "boolean"
    return "null"


def _a(t):
    if t == "boolean":
        return "true or false"
    return t if t == "null" else ("an " if t[0] in "aio" else "a ") + t


def where(path):
    """items[3].age; "the reply" for the root."""
    out = []
    for k in path:
        if isinstance(k, int):
            out.append("[%d]" % k)
        elif k is not None:
            out.append(("." if out else "") + k)
    return "".join(out) or "the reply"
