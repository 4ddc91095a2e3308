"""Conformance fixture (tools-call-sampling): asks the client's model."""
SPEC = {"desc": "asks the client's model (conformance fixture)", "readonly": True,
        "usage": "test_sampling PROMPT",
        "args": (("prompt", "text", "1", "the prompt to send to the LLM"),)}


def main(args):
    import shell
    import mcpserver
    text, err = mcpserver.sample(args[0], 100)
    if err:
        raise shell.Error("test_sampling: " + err)
    shell.out("LLM response: " + text)
