"""Type stubs of ``ndpad.zarr``."""

import os
from pathlib import Path
from typing import Any, Literal, Optional, Sequence, Union

from .typing import Interior, NegativePads

__all__ = ["pad"]

def pad(
    src: Union[str, os.PathLike[str], Any],
    dst: Union[str, os.PathLike[str], Any],
    pad_width: Any,
    mode: Literal["constant", "edge", "reflect", "symmetric", "wrap"] = "constant",
    *,
    constant_values: Any = 0,
    negative_pads: NegativePads = None,
    interior: Interior = 0,
    threads: Optional[int] = None,
    chunks: Optional[Sequence[int]] = None,
    max_memory: Optional[int] = None,
    max_chunks: int = 1048576,
) -> Path: ...
