# ESP32-S3 with 8 MB octal PSRAM (N8R8 / N16R8 modules, DevKitC-1) and the
# AntOS AI libraries frozen in. Port fragments as ESP32_GENERIC_S3 with its
# SPIRAM_OCT variant uses them: without sdkconfig.spiram_oct the PSRAM is
# driven in quad mode, is not found, and the board boots without it.
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
