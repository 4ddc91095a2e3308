include("$(PORT_DIR)/boards/manifest.py")
include("$(BOARD_DIR)/../../firmware/manifest.py")
