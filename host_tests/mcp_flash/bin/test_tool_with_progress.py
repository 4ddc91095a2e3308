"""Conformance fixture (tools-call-with-progress): 0, 50 and 100 of 100,
50 ms apart, when the client asked for progress."""
SPEC = {"desc": "reports progress (conformance fixture)", "readonly": True}


def main(args):
    import shell
    from compat import sleep_ms
    import mcpserver
    for p in (0, 50, 100):
        if p:
            sleep_ms(50)
        mcpserver.progress(p, 100)
    shell.out("progress reported: 0, 50, 100 of 100")
