# Holds n TLS connections open at once with httpc's own budget switched off
# (httpc.TLS_MAX = 0), to show that the harness stops a run that holds more
# than the board allows. argv: url n
import sys
import httpc

httpc.TLS_MAX = httpc.SOCKETS_MAX = 0
url, n = sys.argv[1], int(sys.argv[2])
held = []
for i in range(n):
    held.append(httpc.request("GET", url, fresh=True))
    print("OPEN", i + 1)
for r in held:
    r.close()
print("DONE")
