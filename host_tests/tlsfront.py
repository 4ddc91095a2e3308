"""A TLS front for any loopback test server: https://localhost:PORT in,
plain http to the server behind it out, so that a fake provider, a real
MCP server from PyPI or npm, or the board's own `mcp serve` can be spoken
to over verified TLS (a test CA made by trustme), as a board speaks to
real services. Each connection is one thread pumping bytes both ways; the
front counts the TLS connections it holds open (`open`, `peak`), which a
test compares with what the board's budget allows.

    ca = LocalCA(tmp_path)               # ca.pem / ca.der for the client
    with TLSFront(plain_url, ca) as f:
        f.url                           # https://localhost:PORT/<path>
    Splitter(f.port)                    # in front of it: records cut across segments
"""
import os
import select
import socket
import ssl
import threading
import time

import trustme


class LocalCA:
    """A test CA and a certificate for localhost and 127.0.0.1, with the
    CA's certificate written as PEM and DER (a client's CA file)."""

    def __init__(self, folder):
        self.ca = trustme.CA()
        cert = self.ca.issue_cert("localhost", "127.0.0.1")
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        cert.configure_cert(self.ctx)
        self.pem = os.path.join(str(folder), "test-ca.pem")
        self.der = os.path.join(str(folder), "test-ca.der")
        self.ca.cert_pem.write_to_path(self.pem)
        with open(self.der, "wb") as f:
            f.write(ssl.PEM_cert_to_DER_cert(self.ca.cert_pem.bytes().decode()))


class TLSFront:
    def __init__(self, target, ca):
        """target: the plain server's URL (http://127.0.0.1:PORT[/path])."""
        rest = target.split("://", 1)[1]
        hostport, _, path = rest.partition("/")
        host, _, port = hostport.rpartition(":")
        self.target = (host, int(port))
        self.ctx = ca.ctx
        self.lock = threading.Lock()
        self.open = self.peak = self.total = 0
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.url = "https://localhost:%d/%s" % (self.port, path)
        self.base = "https://localhost:%d" % self.port
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while self.running:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _count(self, n):
        with self.lock:
            self.open += n
            if n > 0:
                self.total += 1
                self.peak = max(self.peak, self.open)

    def _serve(self, raw):
        try:
            raw.settimeout(30)
            s = self.ctx.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            return
        self._count(1)
        try:
            back = socket.create_connection(self.target, timeout=30)
        except OSError:
            s.close()
            self._count(-1)
            return
        try:
            self._pump(s, back)
        finally:
            for x in (s, back):
                try:
                    x.close()
                except OSError:
                    pass
            self._count(-1)

    def _pump(self, s, back):
        s.setblocking(False)
        back.setblocking(False)
        while self.running:
            # TLS may hold decrypted bytes the socket no longer shows
            ready = [s] if s.pending() else select.select([s, back], [], [], 0.5)[0]
            for src in ready:
                dst = back if src is s else s
                try:
                    data = src.recv(65536)
                except (ssl.SSLWantReadError, BlockingIOError):
                    continue
                except OSError:
                    return
                if not data:
                    return
                dst.setblocking(True)
                try:
                    dst.sendall(data)
                except OSError:
                    return
                finally:
                    dst.setblocking(False)

    def close(self):
        self.running = False
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Splitter:
    """A TCP relay in front of a server that cuts every piece the server
    sends into two TCP segments a few ms apart: in front of a TLS front,
    TLS records arrive in parts (MicroPython's Stream.readinto then gives
    None mid-record)."""

    def __init__(self, port, pause=0.003):
        self.port_to, self.pause = port, pause
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.cut = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            b = socket.create_connection(("127.0.0.1", self.port_to))
            for s in (c, b):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._pump, args=(c, b, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(b, c, True), daemon=True).start()

    def _pump(self, src, dst, split):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if split and len(data) > 1:
                    half = len(data) // 2
                    dst.sendall(data[:half])
                    self.cut += 1
                    time.sleep(self.pause)
                    data = data[half:]
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.sock.close()


class Front:
    """A loopback server's URL as a client reaches it: as it is (tls
    False), or over TLS with its records cut across TCP segments (a
    TLSFront behind a Splitter; .ca: the client's CA file)."""

    def __init__(self, url, folder, tls):
        self.url, self.ca, self.parts = url, None, ()
        if tls:
            local = LocalCA(folder)
            front = TLSFront(url, local)
            split = Splitter(front.port)
            self.url = "https://localhost:%d/%s" % (split.port, url.split("/", 3)[3])
            self.ca = local.der
            self.parts = (split, front)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for p in self.parts:
            p.close()
