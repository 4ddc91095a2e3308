#define MICROPY_HW_BOARD_NAME "AntOS AI ESP32-S3 (PSRAM)"
#define MICROPY_HW_MCU_NAME "ESP32S3"
#define MICROPY_PY_MACHINE_DAC (0)
// REPL (and the console) also on UART0, as ESP32_GENERIC_S3 does: boards
// such as the DevKitC-1 are often used through their USB-UART bridge port.
#define MICROPY_HW_ENABLE_UART_REPL (1)
