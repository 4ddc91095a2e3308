"""The connection pool's figures and closing it (httpc.pool_stats,
httpc.close_all), imported on first use."""
from httpc import live, pooled, counts


def pool_stats():
    """{"opened": TCP connections opened so far, "reused": pooled reuses,
    "sockets" and "tls": open now, pooled or busy, by either driver}."""
    return dict(counts)


def close_all():
    """Close every connection: the pooled ones, and those busy requests
    still hold (of an asyncio loop a KeyboardInterrupt abandoned: its
    tasks' finally blocks never ran)."""
    pooled.clear()
    while live:
        live[-1].close()
