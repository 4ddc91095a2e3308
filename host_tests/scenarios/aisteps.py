# Steps the ai.ask scenarios share (ai_rounds, ai_<style>_chat): set-up,
# one round with its result line, and the tool results of a round.
import ai
import store
from ai import config
from ai.styles import load

WEATHER = {"name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object",
                          "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}


def setup(provider, base, model, key, root, style=None):
    """The overrides for the fake; key "-" means none. The style's code is
    loaded now so that it is in the baseline, as frozen code is. Provider
    openai runs chat completions (the rows of FakeOpenAI) unless style says
    otherwise (ai_responses)."""
    store.set_root(root)
    ov = {"provider": provider, "base_url": base, "model": model, "timeout": 10}
    if provider == "openai":
        ov["style"] = style or "openai"
    if key != "-":
        ov["key"] = key
    load(config.resolve(ov)["style"])
    return ov


def say(label, hist, ov, text=None):
    """Add a user turn (text), ask, print LABEL reply err turns; the calls."""
    if text:
        hist.append({"role": "user", "content": text})
    reply, err, calls = ai.ask(hist, ov)
    print(label, repr(reply), repr(err), len(hist))
    return calls


def stream(hist, ov, text):
    """A streamed round: STREAM pieces joined reply err."""
    pieces = []
    ov["stream"] = pieces.append
    hist.append({"role": "user", "content": text})
    reply, err, calls = ai.ask(hist, ov)
    print("STREAM", len(pieces), repr("".join(pieces)), repr(reply), repr(err))
    return pieces


def ask_calls(hist, ov, text=None):
    """Ask for tool calls: (err, calls, "name/args" list for printing)."""
    if text:
        hist.append({"role": "user", "content": text})
    reply, err, calls = ai.ask(hist, ov)
    return err, calls, [(c["name"], c["args"]) for c in calls or ()]


def answer(hist, calls, content):
    """A tool result for every call, in order (content: text, or a function
    of the call)."""
    for c in calls or ():
        hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                     "content": content(c) if callable(content) else content})
