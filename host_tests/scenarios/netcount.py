# The board's network budget, enforced on a scenario (romboot installs it
# when ANTOS_BOARD names a board; not device code). On an ESP32 each TLS
# connection takes ESP-IDF heap the unix port never charges (mbedTLS
# allocates outside the GC heap on both), and lwIP sockets are few; the
# board profile (boardprofile.PROFILE) says how many may be open at once.
# romboot puts stand-ins for the socket and tls modules in sys.modules
# (netsock.py, nettls.py: the real modules' names, with socket.socket and
# SSLContext.wrap_socket counted). When one more than the profile allows
# would be open, the scenario stops with a line on stderr ("NETBUDGET ...", which the runner turns into a test failure)
# and exit status 97. At exit "NETPEAK tls=T sockets=S" goes to stderr
# (unless ANTOS_NETPEAK=0, as make sim sets).
#
# Open sockets are counted from /proc/self/fd (every fd that is a socket:
# the client's, the board's server listening and accepted, the TCP under
# a TLS connection), so a closed one is never counted; those the process
# was started with are not the scenario's (a parent such as Node.js gives
# its child socket pairs for stdin and stdout). TLS connections are the
# wrapped sockets whose fd is still open. The count is taken when a socket
# is made and when a TLS connection is made.
import os
import sys

_S_IFMT, _S_IFSOCK = 0o170000, 0o140000
_state = {"tls": [], "peak_tls": 0, "peak_sockets": 0, "limits": None, "inherited": ()}


def _socket_fds():
    out = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.stat("/proc/self/fd/" + name)[0] & _S_IFMT == _S_IFSOCK:
                out.append(name)
        except OSError:     # (the listing's own fd, gone by now)
            pass
    return out


def open_sockets():
    """Sockets open now (not those the process was started with)."""
    n = 0
    for name in _socket_fds():
        if name not in _state["inherited"]:
            n += 1
    return n


def check(new_tls):
    """Before a socket is used (new_tls 0) or wrapped in TLS (1): stop the
    scenario when the board would hold more than it allows."""
    live = [s for s in _state["tls"] if s.fileno() >= 0]
    _state["tls"] = live
    n_tls = len(live) + new_tls
    n_sock = open_sockets()
    if n_tls > _state["peak_tls"]:
        _state["peak_tls"] = n_tls
    if n_sock > _state["peak_sockets"]:
        _state["peak_sockets"] = n_sock
    board, tls_max, sockets_max = _state["limits"]
    if (tls_max and n_tls > tls_max) or (sockets_max and n_sock > sockets_max):
        sys.stderr.write("NETBUDGET %d TLS connections and %d sockets open at once; "
                         "%s allows %d and %d\n" % (n_tls, n_sock, board, tls_max, sockets_max))
        raise SystemExit(97)


def wrapped(sock):
    """sock (the TCP socket under a TLS connection) is open until closed."""
    _state["tls"].append(sock)


def install(profile):
    fig = profile["figures"]
    _state["limits"] = (profile["board"], fig["tls_max"], fig["sockets_max"])
    _state["inherited"] = _socket_fds()
    import netsock
    sys.modules["socket"] = netsock
    try:
        import nettls
        sys.modules["tls"] = nettls
    except ImportError:     # a build without tls
        pass

    def report():
        if os.getenv("ANTOS_NETPEAK") == "0":    # (make sim: no line for a person)
            return
        sys.stderr.write("NETPEAK tls=%d sockets=%d\n" % (_state["peak_tls"],
                                                           _state["peak_sockets"]))
    sys.atexit(report)
