# Freezes lib/ into the firmware (bytecode in flash costs almost no heap).
# Included by each board's manifest after the port's own manifest.
module("compat.py", base_path="../lib")
module("jsonstream.py", base_path="../lib")
module("httpc.py", base_path="../lib")
module("store.py", base_path="../lib")
package("ai", base_path="../lib")
package("mcp", base_path="../lib")
package("shell", base_path="../lib")
