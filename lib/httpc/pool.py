"""The connection pool's figures and closing it (httpc.pool_stats,
httpc.close_all), imported on first use."""
from httpc import _pool, _stats


def pool_stats():
    """{"opened": TCP connections opened so far, "reused": pooled reuses}."""
    return dict(_stats)


def close_all():
    """Close every pooled connection."""
    for k in list(_pool):
        _pool.pop(k).close()
