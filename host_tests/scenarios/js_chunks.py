# The readinto() source the jsonstream scenarios share: serves bytes at
# most k per call (every chunking of a document).


class Chunks:
    def __init__(self, data, k):
        self.data = data
        self.k = k
        self.i = 0

    def readinto(self, buf):
        n = min(len(self.data) - self.i, self.k, len(buf))
        buf[0:n] = self.data[self.i:self.i + n]
        self.i += n
        return n
