"""Conformance fixture (tools-call-with-logging): each line of console
output reaches a client that set a log level as notifications/message."""
SPEC = {"desc": "three log lines, 50 ms apart (conformance fixture)", "readonly": True}


def main(args):
    import shell
    from compat import sleep_ms
    shell.out("Tool execution started")
    sleep_ms(50)
    shell.out("Tool processing data")
    sleep_ms(50)
    shell.out("Tool execution completed")
