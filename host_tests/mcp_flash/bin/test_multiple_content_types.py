"""Conformance fixture (tools-call-mixed-content): output text first, then
the items the script adds."""
SPEC = {"desc": "text, an image and a resource (conformance fixture)", "readonly": True}
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"


def main(args):
    import shell
    import mcpserver
    shell.out("Multiple content types test:")
    mcpserver.content({"type": "image", "data": PNG, "mimeType": "image/png"})
    mcpserver.content({"type": "resource", "resource": {
        "uri": "test://mixed-content-resource", "mimeType": "application/json",
        "text": '{"test":"data","value":123}'}})
