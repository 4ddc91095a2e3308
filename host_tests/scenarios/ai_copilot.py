# Two Copilot chats under a small heap: a plain one, then a streamed one
# after the session token has to be exchanged again (the fake makes tokens
# that end inside the 60 s refresh margin; with "unset", the board's clock
# is at 2000 and the fake refuses a token after one chat: the 401 is what
# renews it). argv: github_root oauth root [unset]
import sys
import ai
import store
from ai import copilot, config  # noqa: F401  (in the baseline, as frozen code is)
from ai.styles import load
import heapmon

root, oauth, flash = sys.argv[1:4]
if sys.argv[4:] == ["unset"]:
    copilot.now = lambda: 946684800 + 60
store.set_root(flash)
store.update({"copilot.api": root, "copilot.token": oauth})
ov = {"provider": "copilot", "timeout": 10}
load(config.resolve(ov)["style"])
heapmon.start()
reply, err = ai.ask_simple("hello", ov)
print("CHAT1", repr(reply), repr(err))
pieces = []
ov["stream"] = pieces.append
reply, err = ai.ask_simple("again", ov)
print("CHAT2", repr(reply), repr(err), len(pieces))
heapmon.report()
