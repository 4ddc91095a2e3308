"""Conformance fixture (tools-call-image): a script adds an image to the
result of the MCP call it serves (a 1x1 red PNG)."""
SPEC = {"desc": "an image (conformance fixture)", "readonly": True}
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"


def main(args):
    import mcpserver
    mcpserver.content({"type": "image", "data": PNG, "mimeType": "image/png"})
