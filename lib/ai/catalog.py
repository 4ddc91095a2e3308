"""The provider catalogue. A provider that speaks an existing API style is
one entry here and touches no other code.

Fields: id, name, style (module under ai/styles), base_url, key (a key is
needed), model (default), tools ("native" | "text-fallback" | "none"),
local (runs on the user's own machine: errors suggest starting it).
Entries are tuples in FIELDS order (a tuple costs a fraction of a dict's
heap); find() and ai.providers() hand out dicts."""

FIELDS = ("id", "name", "style", "base_url", "key", "model", "tools", "local")
PROVIDERS = (
    ("groq", "Groq", "openai", "https://api.groq.com/openai/v1", True,
     "llama-3.3-70b-versatile", "native", False),
    ("ollama", "Ollama (local)", "openai", "http://localhost:11434/v1", False,
     "llama3.2", "native", True),
    ("openai", "OpenAI", "openai", "https://api.openai.com/v1", True,
     "gpt-5-mini", "native", False),
    ("kimi", "Kimi (Moonshot)", "openai", "https://api.moonshot.ai/v1", True,
     "kimi-k2-turbo-preview", "native", False),
    ("gemini", "Google Gemini", "gemini",
     "https://generativelanguage.googleapis.com/v1beta", True,
     "gemini-2.5-flash", "native", False),
    ("anthropic", "Anthropic", "anthropic", "https://api.anthropic.com/v1", True,
     "claude-sonnet-4-5", "native", False),
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
