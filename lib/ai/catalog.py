"""The provider catalogue. A provider that speaks an existing API style is
one entry here (plus, in host_tests, a flavour of that style's fake
server) and touches no other code: what differs between providers of one
style is data in the entry's quirks, never an `if provider == ...` in a
style module.

Fields: id, name, style (module under ai/styles), base_url, key (a key is
needed), model (default), tools ("native" | "text-fallback" | "none"),
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

Entries are tuples in FIELDS order (a tuple costs a fraction of a dict's
heap); find() and ai.providers() hand out dicts."""

FIELDS = ("id", "name", "style", "base_url", "key", "model", "tools", "local",
          "quirks")
PROVIDERS = (
    ("groq", "Groq", "openai", "https://api.groq.com/openai/v1", True,
     "llama-3.3-70b-versatile", "native", False, ""),
    ("ollama", "Ollama (local)", "openai", "http://localhost:11434/v1", False,
     "llama3.2", "native", True, "max_tokens"),
    ("openai", "OpenAI", "openai", "https://api.openai.com/v1", True,
     "gpt-5-mini", "native", False, "effort_full no_obfuscation"),
    ("kimi", "Kimi (Moonshot)", "openai", "https://api.moonshot.ai/v1", True,
     "kimi-k2-turbo-preview", "native", False, "max_tokens no_effort"),
    ("gemini", "Google Gemini", "gemini",
     "https://generativelanguage.googleapis.com/v1beta", True,
     "gemini-2.5-flash", "native", False, ""),
    ("anthropic", "Anthropic", "anthropic", "https://api.anthropic.com/v1", True,
     "claude-sonnet-4-5", "native", False, ""),
)


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
