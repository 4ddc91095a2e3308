"""Conformance fixture (tools-call-simple-text): plain console output is
the tool's text result."""
SPEC = {"desc": "a simple text response (conformance fixture)", "readonly": True}


def main(args):
    import shell
    shell.out("This is a simple text response for testing.")
