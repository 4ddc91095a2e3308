# Seeed Studio XIAO ESP32S3 Sense: an ESP32-S3R8 (8 MB octal PSRAM) with
# 8 MB flash and the Sense board's OV2640 camera, with the AntOS AI
# libraries frozen in. The port's fragments as ANTOS_ESP32S3 uses them.
# The camera is a user C module (cnadler86/micropython-camera-API): make
# firmware CAMERA_DIR=<its checkout> builds it in; without it the firmware
# has no camera module and the console's camera command says so.
set(IDF_TARGET esp32s3)
set(SDKCONFIG_DEFAULTS
    boards/sdkconfig.base
    ${SDKCONFIG_IDF_VERSION_SPECIFIC}
    boards/sdkconfig.usb
    boards/sdkconfig.ble
    boards/sdkconfig.spiram_sx
    boards/ESP32_GENERIC_S3/sdkconfig.board
    boards/sdkconfig.240mhz
    boards/sdkconfig.spiram_oct
    ${MICROPY_BOARD_DIR}/sdkconfig.board
)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)
