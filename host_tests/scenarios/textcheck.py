# The text the test servers send (a fixed pattern, peers/sdk_server.py's
# big tools and peers/fastmcp_server.py's), checked as it arrives in pieces:
# shared by the MCP result scenarios.
BIG = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"


class Check:
    """Compares text arriving in pieces with BIG repeated for its first
    `upto` characters; what follows (the cut note) is kept in rest."""

    def __init__(self, upto):
        self.upto = upto
        self.n = 0
        self.ok = True
        self.rest = ""

    def add(self, s):
        k = 0
        while k < len(s) and self.n < self.upto:
            i = self.n % len(BIG)
            m = min(len(s) - k, len(BIG) - i, self.upto - self.n)
            if s[k:k + m] != BIG[i:i + m]:
                self.ok = False
            k += m
            self.n += m
        if k < len(s):
            self.rest = (self.rest + s[k:])[:80]

    def result(self, size):
        """ok: the pattern, then the note when the text was cut."""
        note = "\n... (truncated, %d bytes)" % size if size > self.upto else ""
        return self.ok and self.n == min(size, self.upto) and self.rest == note
