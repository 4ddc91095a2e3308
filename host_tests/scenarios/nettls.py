# The tls module as scenarios see it (netcount.py): the real one, with every
# TLS connection counted against the board's budget. SSLContext wraps the
# real context (a subclass of a native type would keep attributes such as
# verify_mode to itself).
import tls as _tls

import netcount


def __getattr__(name):
    return getattr(_tls, name)


class SSLContext:
    def __init__(self, *args):
        object.__setattr__(self, "_ctx", _tls.SSLContext(*args))

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    def __setattr__(self, name, value):
        setattr(self._ctx, name, value)

    def wrap_socket(self, sock, *args, **kw):
        netcount.check(1)
        s = self._ctx.wrap_socket(sock, *args, **kw)
        netcount.wrapped(sock)
        return s
