"""Conformance fixture (resources-read-text): a script that is a resource."""
SPEC = {"desc": "the static text resource (conformance fixture)", "readonly": True,
        "resource": "test://static-text", "mime": "text/plain"}


def main(args):
    import shell
    shell.out("This is the content of the static text resource.")
