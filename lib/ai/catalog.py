"""The provider catalogue. A provider that speaks an existing API style is
one entry here (plus, in host_tests, a flavour of that style's fake
server) and touches no other code: what differs between providers of one
style is data in the entry's quirks, never an `if provider == ...` in a
style module.

Fields: id, name, style (module under ai/styles; a provider of the openai
or responses style may be switched to the other by ai.<use>.style),
base_url, key (an API key is needed), model (default), tools ("native" |
"text-fallback" | "none"),
local (runs on the user's own machine: errors suggest starting it),
quirks (words separated by spaces, read by the style; config.resolve hands
them to the style as the tuple cfg["quirks"]),
max_tokens (the reply's token limit sent when ai.<use>.max_tokens is not
set; None: the service's own default. Anthropic requires one: 8192, what
Claude 3.5 Haiku and every later model can give (Anthropic's models
overview; Claude 3 Haiku gives 4096: set ai.<use>.max_tokens), a long chat
answer rather than 1024's few paragraphs).

Quirks of the openai (chat completions) style:
  max_tokens      sends the older `max_tokens` field (default:
                  `max_completion_tokens`, which reasoning models require)
  no_obfuscation  streamed requests send stream_options.include_obfuscation
                  false (else every delta is padded with random text)
  x_initiator     X-Initiator: agent on a request whose last message is a
                  tool result, else user (Copilot bills what a person asks)
  stream_usage    streamed requests ask for the token usage
                  (stream_options.include_usage; others report it unasked
                  or not at all: ai status shows what came)
  tool_id9        tool-call ids in the messages as the service makes them:
                  9 letters and digits (Mistral answers 422 to "call_..." or
                  Kimi's "functions.get_weather:0"; mapped the same way on
                  the call and on its result)
  app_title       X-Title: the firmware's name on every request (OpenRouter's
                  app attribution; HTTP-Referer, the app's site, is not sent:
                  the firmware has none)
  reasoning_object the thinking word goes as reasoning {"effort": word}
                  (OpenRouter's one field for every model) instead of
                  reasoning_effort
  vision_request  a request that carries a picture says so in the header
                  Copilot-Vision-Request: true (the Copilot API refuses
                  pictures without it)
The driver reads one quirk:
  copilot         the key is a GitHub login: each request first gets a
                  Copilot session token (ai/copilot.py), which also gives
                  the base URL, the editor headers and each model's tools
                  level

PRESETS: fast, cheap models by a short name, unique across providers, used
in model tokens (ai/config.py: "<preset>[,thinking=W][,model=ID]"): name,
provider, model id, thinking map. The thinking map says how the style
turns the thinking word into its native knob for that model family (a
plain model id leaves it to the style's rule by model id):
  effort    reasoning_effort / Responses reasoning.effort (EFFORTS)
  budget    Anthropic thinking.budget_tokens, Gemini 2.5 thinkingBudget
  adaptive  Anthropic thinking {"type": "adaptive"}
  level     Gemini 3 thinkingLevel (EFFORTS)
  none      nothing is sent (the model has no knob)

SCHEMAS: how each model family takes a reply's JSON schema (ai/schema.py:
the forms and flags), one row each: provider, model id prefix ("*": any),
the form and its flags (where each row is documented: the comment above
it, row by row); the first row that matches decides, a provider without
one gets the schema in its instructions (the form prompt) and the reply
is checked all the same.

EFFORTS: the words each model family takes for its thinking knob
(reasoning_effort, Responses reasoning.effort, Gemini 3 thinkingLevel),
lowest first, one row each: provider, model id prefix ("*": any model of
the provider), the words ("-": the model has no such knob: nothing is
sent) (where each row is documented: the comment above it, row by row).
The first row that matches
decides; a provider without rows sends nothing. A thinking word the family
does not take is sent as its nearest one on the scale SCALE (a tie goes
up; a word off the scale, Groq's "default", counts as medium): "max" is
each family's highest, "minimal" its lowest. A value a model does not take
is a 400, which is why this is per family: the openai SDK's own type lists
max too, noting that not every model takes every value.

FILES: what a provider's models take as files on a message (ai/files.py),
one row each: provider, model id prefix ("*": any), the types ("jpeg",
"png", "gif", "webp", "pdf" joined by commas; "-": none: pictures and PDFs
are refused; a leading "?": whether a model sees pictures is the model's,
which the catalogue cannot know: they are sent and the server answers),
the most base64 bytes of one file and of one request with files ("-": no
limit known) (where each row is documented: the comment above the
table, row by row). The first row that matches decides; a provider without rows takes none. Text files are sent
as text to every model (the request limit holds for them too).

Entries are tuples in FIELDS order (a tuple costs a fraction of a dict's
heap); find() and ai.providers() hand out dicts."""

FIELDS = ("id", "name", "style", "base_url", "key", "model", "tools", "local",
          "quirks", "max_tokens")
PROVIDERS = (
    ("groq", "Groq", "openai", "https://api.groq.com/openai/v1", True,
     "llama-3.3-70b-versatile", "native", False, "", None),
    ("ollama", "Ollama (local)", "openai", "http://localhost:11434/v1", False,
     "llama3.2", "native", True, "max_tokens stream_usage", None),
    ("openai", "OpenAI", "responses", "https://api.openai.com/v1", True,
     "gpt-5-mini", "native", False, "no_obfuscation", None),
    ("kimi", "Kimi (Moonshot)", "openai", "https://api.moonshot.ai/v1", True,
     "kimi-k2-turbo-preview", "native", False, "max_tokens", None),
    ("gemini", "Google Gemini", "gemini",
     "https://generativelanguage.googleapis.com/v1beta", True,
     "gemini-2.5-flash", "native", False, "", None),
    ("anthropic", "Anthropic", "anthropic", "https://api.anthropic.com/v1", True,
     "claude-sonnet-4-5", "native", False, "", 8192),
    ("copilot", "GitHub Copilot", "openai", "https://api.githubcopilot.com",
     False, "gpt-4.1", "native", False, "copilot x_initiator vision_request", None),
    # docs.mistral.ai/api (chat completions: max_tokens; 9-character tool ids)
    ("mistral", "Mistral", "openai", "https://api.mistral.ai/v1", True,
     "mistral-small-latest", "native", False, "max_tokens tool_id9", None),
    # api-docs.deepseek.com (max_tokens; stream_options.include_usage;
    # deepseek-reasoner's reasoning_content)
    ("deepseek", "DeepSeek", "openai", "https://api.deepseek.com", True,
     "deepseek-chat", "native", False, "max_tokens stream_usage", None),
    # openrouter.ai/docs/api-reference/overview (X-Title; reasoning object)
    ("openrouter", "OpenRouter", "openai", "https://openrouter.ai/api/v1", True,
     "openai/gpt-4o-mini", "native", False, "app_title reasoning_object", None),
    # docs.x.ai/docs/api-reference (chat completions, max_completion_tokens)
    ("xai", "xAI (Grok)", "openai", "https://api.x.ai/v1", True,
     "grok-3-mini", "native", False, "", None),
    # inference-docs.cerebras.ai/api-reference/chat-completions
    ("cerebras", "Cerebras", "openai", "https://api.cerebras.ai/v1", True,
     "llama3.1-8b", "native", False, "", None),
    # docs.together.ai/reference/chat-completions-1 (max_tokens)
    ("together", "Together AI", "openai", "https://api.together.xyz/v1", True,
     "meta-llama/Llama-3.3-70B-Instruct-Turbo", "native", False, "max_tokens", None),
    # lmstudio.ai/docs/app/api/endpoints/openai (no key; the loaded model)
    ("lmstudio", "LM Studio (local)", "openai", "http://localhost:1234/v1", False,
     "openai/gpt-oss-20b", "native", True, "max_tokens", None),
    # github.com/ggml-org/llama.cpp/tree/master/tools/server (llama-server:
    # no key unless --api-key; one model, whatever the model field says)
    ("llamacpp", "llama.cpp server (local)", "openai", "http://localhost:8080/v1", False,
     "default", "native", True, "max_tokens", None),
)

# one line per preset: name provider model map (a string stays in flash;
# a table of tuples would be built in RAM at import)
PRESETS = """groq-fast groq llama-3.1-8b-instant none
groq-oss groq openai/gpt-oss-20b effort
ollama-small ollama llama3.2 none
ollama-think ollama qwen3:4b effort
gpt-mini openai gpt-5-mini effort
gpt-nano openai gpt-5-nano effort
kimi-turbo kimi kimi-k2-turbo-preview none
gemini-flash gemini gemini-2.5-flash budget
gemini-lite gemini gemini-2.5-flash-lite budget
gemini3-flash gemini gemini-3-flash-preview level
claude-haiku anthropic claude-haiku-4-5 budget
claude-sonnet anthropic claude-sonnet-4-6 adaptive
copilot-mini copilot gpt-5-mini none
copilot-4.1 copilot gpt-4.1 none
mistral-small mistral mistral-small-latest none
deepseek-fast deepseek deepseek-chat none
openrouter-mini openrouter openai/gpt-4o-mini none
grok-mini xai grok-3-mini effort
cerebras-fast cerebras llama3.1-8b none
together-llama together meta-llama/Llama-3.3-70B-Instruct-Turbo none
lmstudio-local lmstudio openai/gpt-oss-20b none
llamacpp-local llamacpp default none"""


# (ai/schema.py: the forms and flags) Where each row is documented, row by
# row (comments: no flash for them):
#   openai *: platform.openai.com/docs/guides/structured-outputs
#   groq openai/gpt-oss: console.groq.com/docs/structured-outputs: strict on GPT-OSS; no stream, no tools
#   groq moonshotai/kimi-k2: console.groq.com/docs/structured-outputs
#   groq meta-llama/llama-4: console.groq.com/docs/structured-outputs
#   groq *: console.groq.com/docs/text-chat: JSON mode
#   ollama *: docs.ollama.com/api/openai-compatibility
#   kimi *: platform.moonshot.ai/docs/guide/use-json-mode-feature-of-kimi-api
#   gemini gemini-3: ai.google.dev/gemini-api/docs/structured-output: with tools from Gemini 3
#   gemini gemini-2.5: ai.google.dev/gemini-api/docs/structured-output
#   gemini *: ai.google.dev/gemini-api/docs/structured-output: responseSchema
#   anthropic claude-3: docs.claude.com/en/docs/build-with-claude/structured-outputs: from Sonnet 4.5, Opus 4.1
#   anthropic claude-sonnet-4-0: docs.claude.com/en/docs/build-with-claude/structured-outputs
#   anthropic claude-sonnet-4-2: docs.claude.com/en/docs/build-with-claude/structured-outputs
#   anthropic claude-opus-4-0: docs.claude.com/en/docs/build-with-claude/structured-outputs
#   anthropic claude-opus-4-2: docs.claude.com/en/docs/build-with-claude/structured-outputs
#   anthropic *: docs.claude.com/en/docs/build-with-claude/structured-outputs
#   mistral *: docs.mistral.ai/capabilities/structured-output/custom_structured_output
#   deepseek *: api-docs.deepseek.com/guides/json_mode
#   openrouter *: openrouter.ai/docs/features/structured-outputs
#   xai *: docs.x.ai/docs/guides/structured-outputs
#   cerebras *: inference-docs.cerebras.ai/capabilities/structured-outputs
#   together *: docs.together.ai/docs/json-mode
#   lmstudio *: lmstudio.ai/docs/app/api/structured-output
#   llamacpp *: github.com/ggml-org/llama.cpp/tree/master/tools/server
SCHEMAS = """openai * json_schema strict
groq openai/gpt-oss json_schema strict nostream notools
groq moonshotai/kimi-k2 json_schema nostream notools
groq meta-llama/llama-4 json_schema nostream notools
groq * json_object nostream notools
ollama * json_schema
kimi * json_object
gemini gemini-3 json_schema
gemini gemini-2.5 json_schema notools
gemini * openapi notools
anthropic claude-3 tool
anthropic claude-sonnet-4-0 tool
anthropic claude-sonnet-4-2 tool
anthropic claude-opus-4-0 tool
anthropic claude-opus-4-2 tool
anthropic * json_schema closed nobounds
mistral * json_schema strict
deepseek * json_object
openrouter * json_schema strict require_parameters
xai * json_schema strict
cerebras * json_schema strict
together * json_schema
lmstudio * json_schema
llamacpp * json_schema"""

SCALE = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
# (OpenAI API reference: platform.openai.com/docs/api-reference/responses/create,
# reasoning.effort; the same words for chat completions' reasoning_effort)
# Where each row is documented, row by row (comments: no flash for them):
#   openai gpt-5.1-codex-max: OpenAI API reference: xhigh for models after gpt-5.1-codex-max
#   openai gpt-5.1-chat: OpenAI models page: chat models do not reason
#   openai gpt-5.1: OpenAI API reference: gpt-5.1 takes none, low, medium, high
#   openai gpt-5.: OpenAI API reference: none from gpt-5.1, xhigh after gpt-5.1-codex-max
#   openai gpt-5-pro: OpenAI API reference: gpt-5-pro takes high only
#   openai gpt-5-chat: OpenAI models page: chat models do not reason
#   openai gpt-5: OpenAI API reference: no none before gpt-5.1; platform.openai.com/docs/guides/latest-model: minimal
#   openai o: platform.openai.com/docs/guides/reasoning: the o-series takes low, medium, high
#   openai gpt-: platform.openai.com/docs/models: gpt-4.1, gpt-4o and older do not reason
#   openai *: OpenAI API reference: what every reasoning model takes
#   groq openai/gpt-oss: console.groq.com/docs/reasoning: GPT-OSS low, medium, high
#   groq qwen/qwen3: console.groq.com/docs/reasoning: Qwen 3 none or default
#   groq *: console.groq.com/docs/reasoning: other models have no reasoning_effort
#   ollama *: docs.ollama.com/api/openai-compatibility: reasoning_effort sets think
#   kimi *: platform.moonshot.ai/docs: the model id chooses thinking (kimi-k2-thinking)
#   copilot *: GitHub Copilot's chat API has no reasoning_effort (CopilotChat.nvim sends none)
#   openrouter *: openrouter.ai/docs/use-cases/reasoning-tokens
#   xai grok-3-mini: docs.x.ai/docs/guides/reasoning
#   xai *: docs.x.ai/docs/guides/reasoning: grok-3-mini only
#   cerebras gpt-oss: inference-docs.cerebras.ai/capabilities/reasoning
#   cerebras *: inference-docs.cerebras.ai/capabilities/reasoning
#   mistral *: docs.mistral.ai/api: no reasoning_effort
#   deepseek *: api-docs.deepseek.com/guides/reasoning_model
#   together *: docs.together.ai/reference/chat-completions-1
#   lmstudio *: lmstudio.ai/docs/app/api/endpoints/openai
#   llamacpp *: github.com/ggml-org/llama.cpp/tree/master/tools/server
#   gemini gemini-3-pro: ai.google.dev/gemini-api/docs/thinking: Gemini 3 Pro low, high
#   gemini gemini-3.1-pro: ai.google.dev/gemini-api/docs/thinking: Pro has no minimal
#   gemini *: ai.google.dev/gemini-api/docs/thinking: Gemini 3 Flash
EFFORTS = """openai gpt-5.1-codex-max none low medium high xhigh
openai gpt-5.1-chat -
openai gpt-5.1 none low medium high
openai gpt-5. none low medium high xhigh
openai gpt-5-pro high
openai gpt-5-chat -
openai gpt-5 minimal low medium high
openai o low medium high
openai gpt- -
openai * low medium high
groq openai/gpt-oss low medium high
groq qwen/qwen3 none default
groq * -
ollama * low medium high
kimi * -
copilot * -
openrouter * minimal low medium high
xai grok-3-mini low high
xai * -
cerebras gpt-oss low medium high
cerebras * -
mistral * -
deepseek * -
together * -
lmstudio * -
llamacpp * -
gemini gemini-3-pro low high
gemini gemini-3.1-pro low medium high
gemini * minimal low medium high"""


# (OpenAI: developers.openai.com/api/docs/guides/images-vision and
# .../guides/pdf-files; Anthropic: docs.claude.com/en/docs/build-with-claude/vision
# and .../pdf-support). Each row's source, in order (comments: the board
# carries none of this text):
#   openai gpt-3.5: OpenAI models page: text only
#   openai *: OpenAI images-vision guide (50 MB a request), pdf-files guide
#   groq meta-llama/llama-4: console.groq.com/docs/vision: base64 requests up to 4 MB
#   groq *: console.groq.com/docs/vision: only Llama 4 sees
#   ollama *: docs.ollama.com/api/openai-compatibility: base64 jpeg, png, webp
#   kimi moonshot-v1-8k-vision: platform.kimi.ai/docs/guide/use-kimi-vision-model
#   kimi moonshot-v1-32k-vision: (the same)
#   kimi moonshot-v1-128k-vision: (the same)
#   kimi kimi-k2.5: (the same)
#   kimi kimi-k2.6: Kimi K2.6 model card: image input
#   kimi kimi-k2.7: Kimi K2.7 model card: image input
#   kimi *: platform.kimi.ai/docs/guide/use-kimi-vision-model: others text only
#   gemini *: ai.google.dev/gemini-api/docs/image-understanding: 20 MB inline
#   anthropic *: Anthropic vision guide: 5 MB an image, 32 MB a request
#   copilot *: Copilot's models list says per model (capabilities.supports.vision)
#   mistral *: docs.mistral.ai/capabilities/vision: the vision models (Pixtral, Mistral Small and Medium)
#   deepseek *: api-docs.deepseek.com: the chat API takes text only
#   openrouter *: openrouter.ai/docs/features/multimodal/images: the model's own input modalities
#   xai *: docs.x.ai/docs/guides/image-understanding: jpg and png, the vision models
#   cerebras *: inference-docs.cerebras.ai: text models only
#   together *: docs.together.ai/docs/vision-overview: the vision models
#   lmstudio *: lmstudio.ai/docs: images for a vision model loaded (the server answers)
#   llamacpp *: github.com/ggml-org/llama.cpp/tree/master/tools/server: images with --mmproj
FILES = """openai gpt-3.5 - - -
openai * jpeg,png,gif,webp,pdf 20971520 52428800
groq meta-llama/llama-4 jpeg,png,gif,webp - 4194304
groq * - - -
ollama * ?jpeg,png,webp - -
kimi moonshot-v1-8k-vision jpeg,png,webp - -
kimi moonshot-v1-32k-vision jpeg,png,webp - -
kimi moonshot-v1-128k-vision jpeg,png,webp - -
kimi kimi-k2.5 jpeg,png,webp - -
kimi kimi-k2.6 jpeg,png,webp - -
kimi kimi-k2.7 jpeg,png,webp - -
kimi * - - -
gemini * jpeg,png,webp,pdf - 20971520
anthropic * jpeg,png,gif,webp,pdf 5242880 33554432
copilot * ?jpeg,png,gif,webp - -
mistral * ?jpeg,png,gif,webp - -
deepseek * - - -
openrouter * ?jpeg,png,gif,webp - -
xai * ?jpeg,png - -
cerebras * - - -
together * ?jpeg,png,webp - -
lmstudio * ?jpeg,png,webp - -
llamacpp * ?jpeg,png,webp - -"""


def efforts(provider, model, table=EFFORTS):
    """The words model (of provider) takes for its thinking knob, lowest
    first (EFFORTS), or None when it has none; with table=FILES the words
    of its files row (None: it takes none)."""
    words = row(table, provider, model)
    return None if words is None or words[0] == "-" else words


def row(t, provider, model):
    """The words of the first row of the table t (EFFORTS, SCHEMAS) for
    provider whose prefix model starts with, or None. (A scan of the text:
    only the matching row is cut out of it.)"""
    head = provider + " "
    i = 0
    while i >= 0:
        j = t.find("\n", i)
        if t.startswith(head, i):
            k = i + len(head)
            e = t.find(" ", k)
            prefix = t[k:e]
            if prefix == "*" or model.startswith(prefix):
                return t[e:j if j >= 0 else len(t)].split()
        i = j + 1 if j >= 0 else -1
    return None


def nearest(word, words):
    """The one of words (EFFORTS) closest to the thinking word on SCALE; a
    tie goes up."""
    def at(w):
        return SCALE.index(w) if w in SCALE else 3      # ("default": medium)
    want = at(word)
    best = None
    for w in words:
        d = abs(at(w) - want)
        if best is None or d < best[0] or (d == best[0] and at(w) > at(best[1])):
            best = (d, w)
    return best[1]


def entry(p):
    """The dict of one PROVIDERS tuple (a new dict every call)."""
    return dict(zip(FIELDS, p))


def find(pid):
    for p in PROVIDERS:
        if p[0] == pid:
            return entry(p)
    return None


def ids():
    return [p[0] for p in PROVIDERS]

