"""ai -schema's reply on the console: its JSON printed as it arrives,
indented, a token at a time (ai/feed.py: a value goes out once its token is
whole), through the console's sanitizer; a spinner until the first piece,
as the markdown Screen (shell/md.py) has. A reply that stops being JSON goes
on as its text (the request's err then says what is wrong with it)."""
import shell
from shell import term
from jsonstream import OBJ, END_OBJ, ARR, END_ARR, KEY, JSONError, dumps


class Printer(term.Waiting):
    def __init__(self):
        from ai.feed import Feed
        self.feed = Feed(hook=self.token, fence=True)
        self.depth = 0
        self.first = True       # the open container has no member yet
        self.key = False        # a key was written: its value goes on its line
        self.raw = False        # not JSON: the text as it comes
        self.wrote = False

    def sink(self, piece):
        term.check_interrupt()
        self.unspin()
        if not self.raw:
            try:
                self.feed.feed(piece)
                return
            except JSONError:
                self.raw = True
                shell.write("\n")
        shell.write(piece)
        self.wrote = True

    def end(self):
        self.unspin()
        if self.wrote:
            shell.write("\n")
            self.wrote = False

    def token(self, ev, v, path):
        w = shell.write
        self.wrote = True
        if ev == END_OBJ or ev == END_ARR:
            self.depth -= 1
            if not self.first:
                w("\n" + "  " * self.depth)
            w("}" if ev == END_OBJ else "]")
            self.first = False
            return
        if self.key:
            self.key = False
        elif self.depth:
            w(("\n" if self.first else ",\n") + "  " * self.depth)
        self.first = False
        if ev == KEY:
            w(dumps(v), shell.BOLD_CYAN)
            w(": ")
            self.key = True
        elif ev == OBJ or ev == ARR:
            w("{" if ev == OBJ else "[")
            self.depth += 1
            self.first = True
        else:
            w(dumps(v))
