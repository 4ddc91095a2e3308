# ai.run with an MCP tool: the fake provider asks for sdk__get_weather, the
# real MCP Python SDK server answers, the provider replies with the result.
# argv: provider base_url model key store_root mcp_url
import sys
import ai
import mcp
import store
from ai import config, loop  # noqa: F401  (in the baseline, as frozen code is)
from ai.styles import load
from mcp import client  # noqa: F401  (code in the baseline, like frozen modules)
import heapmon

provider, base, model, key, root, url = sys.argv[1:7]
store.set_root(root)
ov = {"provider": provider, "base_url": base, "model": model, "key": key,
      "timeout": 10}
if provider == "openai":
    ov["style"] = "openai"      # the chat-completions row (FakeOpenAI)
load(config.resolve(ov)["style"])
mcp.add("sdk", url)
heapmon.start()
hist = [{"role": "user", "content": "weather in Rochdale?"}]
reply, err = ai.run(hist, ov, mcps=["sdk"])
print("RUN", repr(reply), repr(err), [m["role"] for m in hist])
heapmon.report()
