"""The provider catalogue. A provider that speaks an existing API style is
one entry here and touches no other code.

Fields: id, name, style (module under ai/styles), base_url, key (a key is
needed), model (default), tools ("native" | "text-fallback" | "none"),
local (runs on the user's own machine: errors suggest starting it)."""

PROVIDERS = (
    {"id": "groq", "name": "Groq", "style": "openai",
     "base_url": "https://api.groq.com/openai/v1", "key": True,
     "model": "llama-3.3-70b-versatile", "tools": "native"},
    {"id": "ollama", "name": "Ollama (local)", "style": "openai",
     "base_url": "http://localhost:11434/v1", "key": False,
     "model": "llama3.2", "tools": "native", "local": True},
    {"id": "openai", "name": "OpenAI", "style": "openai",
     "base_url": "https://api.openai.com/v1", "key": True,
     "model": "gpt-5-mini", "tools": "native"},
    {"id": "kimi", "name": "Kimi (Moonshot)", "style": "openai",
     "base_url": "https://api.moonshot.ai/v1", "key": True,
     "model": "kimi-k2-turbo-preview", "tools": "native"},
    {"id": "gemini", "name": "Google Gemini", "style": "gemini",
     "base_url": "https://generativelanguage.googleapis.com/v1beta", "key": True,
     "model": "gemini-2.5-flash", "tools": "native"},
    {"id": "anthropic", "name": "Anthropic", "style": "anthropic",
     "base_url": "https://api.anthropic.com/v1", "key": True,
     "model": "claude-sonnet-4-5", "tools": "native"},
)


def find(pid):
    for p in PROVIDERS:
        if p["id"] == pid:
            return p
    return None


def ids():
    return [p["id"] for p in PROVIDERS]
