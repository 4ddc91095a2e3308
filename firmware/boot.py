# Runs at every boot, before main.py: join the WiFi network saved in the
# settings (wifi.ssid / wifi.password; the console's `wifi connect` saves
# them) and set the clock, which TLS certificate checks need. Nothing here
# is fatal: on any failure a line says why and the console still starts.
# If NTP fails now, httpc tries again before the next https request
# (compat.clock_ok), so a late network still gets a set clock.
def _boot():
    from compat import gc_policy
    gc_policy()     # the GC collects early (see compat.gc_policy)
    try:
        import store
        ssid = store.get("wifi.ssid")
        wait = store.get("wifi.wait") or 15          # seconds
    except Exception as e:
        print("boot: settings unreadable (%s); console starts offline" % e)
        return
    if not ssid:
        print("boot: no WiFi configured (in the console: wifi connect SSID PASS)")
        return
    import network
    import time
    sta = network.WLAN(network.STA_IF)
    try:
        sta.active(True)
        if not sta.isconnected():
            sta.connect(ssid, store.get("wifi.password") or "")
            t0 = time.ticks_ms()
            while not sta.isconnected() and time.ticks_diff(time.ticks_ms(), t0) < wait * 1000:
                time.sleep_ms(100)
    except Exception as e:      # e.g. "Wifi Internal Error": keep booting
        print("boot: WiFi %s: %s" % (ssid, e))
        return
    if not sta.isconnected():
        why = {getattr(network, "STAT_WRONG_PASSWORD", -1): "wrong password",
               getattr(network, "STAT_NO_AP_FOUND", -1): "network not found"}
        print("boot: WiFi %s not joined within %d s (%s); the console starts offline, "
              "`wifi connect SSID PASS` tries again" % (ssid, wait,
                                                         why.get(sta.status(), "no answer")))
        return
    print("boot: WiFi %s, address %s" % (ssid, sta.ifconfig()[0]))
    from compat import clock_ok
    if not clock_ok():
        print("boot: clock not set (no NTP answer); https will retry it")


_boot()
del _boot
