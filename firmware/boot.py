# Runs at every boot, before main.py: join the WiFi network saved in the
# settings (wifi.ssid / wifi.password) and set the clock, which TLS
# certificate checks need. Failures are reported, never fatal.
def _boot():
    import store
    ssid = store.get("wifi.ssid")
    if not ssid:
        print("boot: no WiFi configured (in the console: wifi connect SSID PASS)")
        return
    try:
        import network
        import time
        sta = network.WLAN(network.STA_IF)
        sta.active(True)
        if not sta.isconnected():
            sta.connect(ssid, store.get("wifi.password") or "")
            for _ in range(100):
                if sta.isconnected():
                    break
                time.sleep_ms(100)
        if not sta.isconnected():
            print("boot: WiFi %s not reached" % ssid)
            return
        import ntptime
        ntptime.settime()
    except Exception as e:  # keep booting: the console still works offline
        print("boot:", e)


_boot()
del _boot
