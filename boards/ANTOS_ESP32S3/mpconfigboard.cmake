# ESP32-S3 with octal PSRAM (8 MB: N8R8 / N16R8 modules) and the AntOS AI
# libraries frozen in. Same sdkconfig fragments as ESP32_GENERIC_S3 with its
# SPIRAM_OCT variant: without sdkconfig.spiram_oct the PSRAM is driven in
# quad mode, is not found, and the board boots without it.
set(IDF_TARGET esp32s3)
set(SDKCONFIG_DEFAULTS
    boards/sdkconfig.base
    boards/sdkconfig.ble
    boards/sdkconfig.spiram_sx
    boards/ESP32_GENERIC_S3/sdkconfig.board
    boards/sdkconfig.240mhz
    boards/sdkconfig.spiram_oct
)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)
