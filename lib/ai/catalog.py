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

EFFORTS: the words each model family takes for its thinking knob
(reasoning_effort, Responses reasoning.effort, Gemini 3 thinkingLevel),
lowest first, one row each: provider, model id prefix ("*": any model of
the provider), the words ("-": the model has no such knob: nothing is
sent) and "|"; where that is documented is a comment beside the table.
The first row that matches decides; a provider without rows sends
nothing. A thinking word the family does not take is sent as its nearest
one on the scale SCALE (a tie goes up; a word off the scale, Groq's
"default", counts as medium): "max" is each family's highest, "minimal"
its lowest. A value a model does not take
is a 400, which is why this is per family: the openai SDK's own type lists
max too, noting that not every model takes every value.

FILES: what a provider's models take as files on a message (ai/files.py),
one row each: provider, model id prefix ("*": any), the types ("jpeg",
"png", "gif", "webp", "pdf" joined by commas; "-": none: pictures and PDFs
are refused; a leading "?": whether a model sees pictures is the model's,
which the catalogue cannot know: they are sent and the server answers),
the most base64 bytes of one file and of one request with files ("-": no
limit known) and "|"; where that is documented is a comment beside the
table. The first row that
matches decides; a provider without rows takes none. Text files are sent
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
copilot-4.1 copilot gpt-4.1 none"""


SCALE = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
# (OpenAI API reference: platform.openai.com/docs/api-reference/responses/create,
# reasoning.effort; the same words for chat completions' reasoning_effort).
# Each row's source, in order (comments: the board carries none of this text):
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
#   gemini gemini-3-pro: ai.google.dev/gemini-api/docs/thinking: Gemini 3 Pro low, high
#   gemini gemini-3.1-pro: ai.google.dev/gemini-api/docs/thinking: Pro has no minimal
#   gemini *: ai.google.dev/gemini-api/docs/thinking: Gemini 3 Flash
EFFORTS = """openai gpt-5.1-codex-max none low medium high xhigh |
openai gpt-5.1-chat - |
openai gpt-5.1 none low medium high |
openai gpt-5. none low medium high xhigh |
openai gpt-5-pro high |
openai gpt-5-chat - |
openai gpt-5 minimal low medium high |
openai o low medium high |
openai gpt- - |
openai * low medium high |
groq openai/gpt-oss low medium high |
groq qwen/qwen3 none default |
groq * - |
ollama * low medium high |
kimi * - |
copilot * - |
gemini gemini-3-pro low high |
gemini gemini-3.1-pro low medium high |
gemini * minimal low medium high |"""


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
FILES = """openai gpt-3.5 - - - |
openai * jpeg,png,gif,webp,pdf 20971520 52428800 |
groq meta-llama/llama-4 jpeg,png,gif,webp - 4194304 |
groq * - - - |
ollama * ?jpeg,png,webp - - |
kimi moonshot-v1-8k-vision jpeg,png,webp - - |
kimi moonshot-v1-32k-vision jpeg,png,webp - - |
kimi moonshot-v1-128k-vision jpeg,png,webp - - |
kimi kimi-k2.5 jpeg,png,webp - - |
kimi kimi-k2.6 jpeg,png,webp - - |
kimi kimi-k2.7 jpeg,png,webp - - |
kimi * - - - |
gemini * jpeg,png,webp,pdf - 20971520 |
anthropic * jpeg,png,gif,webp,pdf 5242880 33554432 |
copilot * ?jpeg,png,gif,webp - - |"""


def efforts(provider, model, table=EFFORTS):
    """The words model (of provider) takes for its thinking knob, lowest
    first (EFFORTS), or None when it has none; with table=FILES the words
    of its files row (None: it takes none). The first row of table for
    provider whose prefix model starts with ("*": any), up to the "|". (A
    scan of the text: only the matching row is cut out of it.)"""
    head = provider + " "
    i = 0
    while i >= 0:
        j = table.find("\n", i)
        if table.startswith(head, i):
            k = i + len(head)
            e = table.find(" ", k)
            prefix = table[k:e]
            if prefix == "*" or model.startswith(prefix):
                words = table[e:table.find("|", e)].split()
                return None if words[0] == "-" else words
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

