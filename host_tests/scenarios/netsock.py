# The socket module as scenarios see it (netcount.py): the real one, with
# every socket made counted against the board's budget.
import socket as _socket

import netcount


def __getattr__(name):
    return getattr(_socket, name)


def socket(*args):
    s = _socket.socket(*args)
    try:
        netcount.check(0)
    except MemoryError:     # (counting allocates: as if making it had failed)
        s.close()
        raise
    return s
