"""What the modules of ``ndpad.dask`` share beyond ``ndpad._dispatch``."""

from __future__ import annotations

import numpy as np

# An object element counts as its reference, the kernel pads the indices of objects.
INTP = np.dtype(np.intp)


def replaced(seq, axis, item):
    """``seq`` as a tuple, its item ``axis`` replaced by ``item``."""
    seq = list(seq)
    seq[axis] = item
    return tuple(seq)
