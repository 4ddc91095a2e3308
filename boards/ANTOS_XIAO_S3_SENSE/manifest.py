# This board's frozen modules: the firmware's (firmware/manifest.py), with
# this board's profile. MicroPython runs a manifest in its own folder, so
# the folder's name is the board's.
import os

include("../../firmware/manifest.py", board=os.path.basename(os.getcwd()))
