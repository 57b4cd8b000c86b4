"""Keep numpy's BLAS to one thread: the small matrices of these networks lose badly to thread hand-offs.

On a busy two-core machine a multi-threaded OpenBLAS multiplies a 32 x 244
batch by a 244 x 128 layer 25 times slower than one thread does (measured
6.1 ms against 0.24 ms). :func:`single_thread_blas` limits every BLAS that
numpy loaded to one thread with ``threadpoolctl`` (in the extras that bring
numpy); it is called by the training scripts and the learned bots, never on
import, and does nothing where ``threadpoolctl`` is missing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["single_thread_blas"]

_LIMITS: list[Any] = []  # the active limit, kept for the life of the process


def single_thread_blas() -> bool:
    """Limit numpy's BLAS to one thread; ``True`` if ``threadpoolctl`` did it (once per process)."""
    if _LIMITS:
        return _LIMITS[0] is not None
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        _LIMITS.append(None)
        return False
    import numpy  # noqa: F401 - its BLAS must be loaded for the limit to reach it

    _LIMITS.append(threadpool_limits(limits=1, user_api="blas"))
    return True
