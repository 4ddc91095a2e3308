# A session over verified TLS to both the provider and an MCP server, on a
# board that holds one TLS connection (ANTOS_BOARD's budget; httpc's own
# from the same profile): a chat, a tool round, a second ai.run with a
# tool, and mcp.test. The provider's kept-alive connection has to make
# room for the MCP server's and back. No heap sampler (heapmon): the test
# judges its cap by the run passing, and the sampler's thread, its stack
# scanned at every collection, flipped the run at the cap on a busy machine.
# argv: ca_file provider_base_url mcp_url store_root
import gc
import sys
import ai
import httpc
import mcp
import store
from ai import config, loop  # noqa: F401  (in the baseline, as frozen code is)
from ai.styles import load
from mcp import client  # noqa: F401

ca, base, url, root = sys.argv[1:5]
httpc.CA_FILE = ca
store.set_root(root)
ov = {"provider": "openai", "style": "openai", "base_url": base, "model": "gpt-4o-mini",
      "key": "sk-test", "timeout": 10}
load("openai")
mcp.add("sdk", url)
gc.collect()        # (the imports' garbage gone, as heapmon.start() left it)
hist = [{"role": "user", "content": "hello"}]
reply, err, _ = ai.ask(hist, ov)
print("CHAT", repr(reply), repr(err))
for q in ("weather in Rochdale?", "and in Leeds?"):
    hist.append({"role": "user", "content": q})
    reply, err = ai.run(hist, ov, mcps=["sdk"])
    print("RUN", repr(reply), repr(err))
info, err = mcp.test("sdk")
print("TEST", info and info["tools"], info and info.get("listen"), repr(err))
print("OPEN tls=%d sockets=%d" % (httpc.counts["tls"], httpc.counts["sockets"]))

