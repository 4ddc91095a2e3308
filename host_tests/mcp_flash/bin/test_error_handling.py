"""Conformance fixture (tools-call-error): a command that fails gives a
result with isError."""
SPEC = {"desc": "always fails (conformance fixture)", "readonly": True}


def main(args):
    import shell
    raise shell.Error("This tool intentionally returns an error for testing")
