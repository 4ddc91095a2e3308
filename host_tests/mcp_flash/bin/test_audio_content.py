"""Conformance fixture (tools-call-audio): a short WAV (8 samples)."""
SPEC = {"desc": "an audio clip (conformance fixture)", "readonly": True}
WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="


def main(args):
    import mcpserver
    mcpserver.content({"type": "audio", "data": WAV, "mimeType": "audio/wav"})
