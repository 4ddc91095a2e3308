#define MICROPY_HW_BOARD_NAME "AntOS AI XIAO ESP32S3 Sense"
#define MICROPY_HW_MCU_NAME "ESP32S3"
#define MICROPY_PY_MACHINE_DAC (0)
// The console on USB (the XIAO's only USB port is the chip's own) and
// UART0, as ANTOS_ESP32S3.
#define MICROPY_HW_ENABLE_UART_REPL (1)
// The camera module's defaults for this board (its pins, from
// cnadler86/micropython-camera-API's list of boards); lib/shell/hw.py
// passes the pins of the board profile anyway.
#define MICROPY_CAMERA_MODEL_XIAO_ESP32S3 (1)
