# Shared by the http_* scenarios: read a stream to its end through one
# buffer, counting its bytes and summing their values (a check that needs
# no copy of the data).


def drain(src, buf):
    """(bytes read, sum of their values) of src.readinto() until it ends."""
    n = total = 0
    while True:
        k = src.readinto(buf)
        if not k:
            return n, total
        n += k
        for i in range(k):
            total += buf[i]
