"""Conformance fixture (tools-call-elicitation): asks the client's user."""
SPEC = {"desc": "asks the client's user (conformance fixture)", "readonly": True,
        "usage": "test_elicitation MESSAGE",
        "args": (("message", "text", "1", "the message to show the user"),)}
SCHEMA = {"type": "object", "properties": {
    "username": {"type": "string", "description": "User's response"},
    "email": {"type": "string", "description": "User's email address"}},
    "required": ["username", "email"]}


def main(args):
    import shell
    import mcpserver
    answer, err = mcpserver.elicit(args[0], SCHEMA)
    if err:
        raise shell.Error("test_elicitation: " + err)
    shell.out("User response: action=%s content=%s" % (answer.get("action"),
                                                      answer.get("content")))
