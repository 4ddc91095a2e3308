"""Generate a streamed chat reply as OpenAI-style chunk documents (host
side): one JSON document per line, as the SSE `data:` lines of a Groq
reply carry them."""
import json

WORDS = ("the", "board", "reads", "every", "reply", "straight", "off", "the", "socket",
         "caf\u00e9", "line\nbreak", "\"quoted\"", "with", "a", "small", "buffer")


def event(i, n):
    head = {"id": "chatcmpl-5c1f1b9e-1f0e-4f4d-9d1e-2b7c0e8b9a11", "object": "chat.completion.chunk",
            "created": 1733000000, "model": "llama-3.3-70b-versatile",
            "system_fingerprint": "fp_c0cfa69934"}
    if i == 0:
        choice = {"index": 0, "delta": {"role": "assistant", "content": ""},
                  "logprobs": None, "finish_reason": None}
    elif i == n - 1:
        choice = {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}
        head["x_groq"] = {"id": "req_01jd8x", "usage": {"queue_time": 0.02, "prompt_tokens": 40,
                                                        "completion_tokens": n - 2}}
    else:
        choice = {"index": 0, "delta": {"content": " " + WORDS[i % len(WORDS)]},
                  "logprobs": None, "finish_reason": None}
    head["choices"] = [choice]
    return json.dumps(head, separators=(",", ":"))


def write_chat(path, n=2000):
    """Write n chunk documents, one per line; return (pieces of text,
    characters of text, finish reason) for checking."""
    text = "".join(" " + WORDS[i % len(WORDS)] for i in range(1, n - 1))
    with open(path, "w") as f:
        for i in range(n):
            f.write(event(i, n) + "\n")
    return n - 2, len(text), "stop"
