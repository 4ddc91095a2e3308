"""Conformance fixture (tools-call-embedded-resource)."""
SPEC = {"desc": "an embedded resource (conformance fixture)", "readonly": True}


def main(args):
    from mcp import server
    server.content({"type": "resource", "resource": {
        "uri": "test://embedded-resource", "mimeType": "text/plain",
        "text": "This is an embedded resource content."}})
