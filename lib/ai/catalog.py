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
them to the style as the tuple cfg["quirks"]).

Quirks of the openai (chat completions) style:
  max_tokens      sends the older `max_tokens` field (default:
                  `max_completion_tokens`, which reasoning models require)
  effort_full     `reasoning_effort` takes the whole thinking vocabulary
                  (minimal|low|medium|high|max as is); default: low|medium|
                  high (minimal -> low, max -> high)
  no_effort       the service has no reasoning_effort knob: send nothing
                  (thinking is chosen by the model id)
  no_obfuscation  streamed requests send stream_options.include_obfuscation
                  false (else every delta is padded with random text)
  effort_by_model reasoning_effort only where the model has it (Groq):
                  gpt-oss ids low|medium|high, qwen3 ids none (minimal) or
                  default, other models nothing
  x_initiator     X-Initiator: agent on a request whose last message is a
                  tool result, else user (Copilot bills what a person asks)
  stream_usage    streamed requests ask for the token usage
                  (stream_options.include_usage; others report it unasked
                  or not at all: ai status shows what came)
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
  effort    reasoning_effort / Responses reasoning.effort
  budget    Anthropic thinking.budget_tokens, Gemini 2.5 thinkingBudget
  adaptive  Anthropic thinking {"type": "adaptive"}
  level     Gemini 3 thinkingLevel (max -> high)
  none      nothing is sent (the model has no knob)

Entries are tuples in FIELDS order (a tuple costs a fraction of a dict's
heap); find() and ai.providers() hand out dicts."""

FIELDS = ("id", "name", "style", "base_url", "key", "model", "tools", "local",
          "quirks")
PROVIDERS = (
    ("groq", "Groq", "openai", "https://api.groq.com/openai/v1", True,
     "llama-3.3-70b-versatile", "native", False, "effort_by_model"),
    ("ollama", "Ollama (local)", "openai", "http://localhost:11434/v1", False,
     "llama3.2", "native", True, "max_tokens stream_usage"),
    ("openai", "OpenAI", "responses", "https://api.openai.com/v1", True,
     "gpt-5-mini", "native", False, "effort_full no_obfuscation"),
    ("kimi", "Kimi (Moonshot)", "openai", "https://api.moonshot.ai/v1", True,
     "kimi-k2-turbo-preview", "native", False, "max_tokens no_effort"),
    ("gemini", "Google Gemini", "gemini",
     "https://generativelanguage.googleapis.com/v1beta", True,
     "gemini-2.5-flash", "native", False, ""),
    ("anthropic", "Anthropic", "anthropic", "https://api.anthropic.com/v1", True,
     "claude-sonnet-4-5", "native", False, ""),
    ("copilot", "GitHub Copilot", "openai", "https://api.githubcopilot.com",
     False, "gpt-4.1", "native", False, "copilot no_effort x_initiator"),
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

