"""Conformance fixture (tools-call-embedded-resource)."""
SPEC = {"desc": "an embedded resource (conformance fixture)", "readonly": True}


def main(args):
    import mcpserver
    mcpserver.content({"type": "resource", "resource": {
        "uri": "test://embedded-resource", "mimeType": "text/plain",
        "text": "This is an embedded resource content."}})
