# A board program that keeps its own loop: a sensor read every 100 ms, the
# board's MCP server for an AI on a PC, and a chat whose model calls a tool,
# all in one asyncio loop (lib/README.md: "Programs with their own loop").
import asyncio
import time
import machine
import mcpserver
from ai import aio

PORT = 8765         # the MCP server's
adc = machine.ADC(machine.Pin(34))
longest = [0]       # the longest the sensor task waited past its 100 ms


async def sensor():
    last = time.ticks_ms()
    while True:
        await asyncio.sleep_ms(100)
        adc.read_u16()
        now = time.ticks_ms()
        longest[0] = max(longest[0], time.ticks_diff(now, last) - 100)
        last = now


READING = {"name": "sensor_reading", "description": "The board's sensor, now",
           "parameters": {"type": "object", "properties": {}},
           "run": lambda args: "the sensor reads %d" % adc.read_u16()}


def show(piece):
    print(piece, end="")


async def main():
    sensing = asyncio.create_task(sensor())
    serving = asyncio.create_task(mcpserver.serve(PORT))
    history = [{"role": "user", "content": "What does the sensor read?"}]
    reply, err = await aio.run(history, {"stream": show}, tools=[READING])
    print(err or "")
    print("the sensor waited at most %d ms past its 100" % longest[0])
    sensing.cancel()
    serving.cancel()


if __name__ == "__main__":
    asyncio.run(main())
