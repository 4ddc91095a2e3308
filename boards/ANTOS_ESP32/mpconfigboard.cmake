# Any ESP32 module without PSRAM (ESP32-WROOM-32, DevKitC), 4 MB flash, with
# the AntOS AI libraries frozen in. Port fragments as ESP32_GENERIC uses
# them (paths relative to ports/esp32), then this board's own.
set(SDKCONFIG_DEFAULTS
    boards/sdkconfig.base
    ${SDKCONFIG_IDF_VERSION_SPECIFIC}
    boards/sdkconfig.ble
    ${MICROPY_BOARD_DIR}/sdkconfig.board
)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)
