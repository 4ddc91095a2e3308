# What the ESP32 port freezes (ports/esp32/boards/manifest.py) that runs
# on the unix port: asyncio and the networking bundle's modules.
include("$(MPY_DIR)/extmod/asyncio")
require("mip")
require("ntptime")
require("ssl")
require("requests")
