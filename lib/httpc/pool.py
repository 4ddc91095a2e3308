"""The connection pool's figures and closing it (httpc.pool_stats,
httpc.close_all), imported on first use."""
from httpc import pooled, counts


def pool_stats():
    """{"opened": TCP connections opened so far, "reused": pooled reuses}."""
    return dict(counts)


def close_all():
    """Close every pooled connection."""
    for k in list(pooled):
        pooled.pop(k).close()
