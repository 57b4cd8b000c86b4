"""Keep numpy's BLAS to one thread: the small matrices of these networks lose badly to thread hand-offs.

On a busy two-core machine a multi-threaded OpenBLAS multiplies a 32 x 244
batch by a 244 x 128 layer 25 times slower than one thread does (measured
6.1 ms against 0.24 ms). :func:`single_thread_blas` asks the OpenBLAS that
numpy loaded to use one thread, through its C entry point; it is best
effort (another BLAS, or none found, leaves things as they are) and is
called by the training script and the ``policy`` bot, never on import.
"""

from __future__ import annotations

import ctypes
import glob
import os

__all__ = ["single_thread_blas"]

_DONE: list[bool] = []
_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads")


def single_thread_blas() -> bool:
    """Limit numpy's OpenBLAS to one thread; ``True`` if a setter was found and called (once per process)."""
    if _DONE:
        return _DONE[0]
    import numpy as np

    ok = False
    libs_dir = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libs_dir, "*openblas*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _SETTERS:
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.argtypes = [ctypes.c_int]
                fn(1)
                ok = True
                break
        if ok:
            break
    _DONE.append(ok)
    return ok
