"""ndpad on the GPU against a device-to-device copy and the peers, in one run (#28).

For each workload: ndpad.pad on a torch CUDA tensor (torch in, torch out), PyTorch's
``F.pad`` and ``cupy.pad`` on the same data (outputs checked equal to ndpad's), and a
device-to-device copy of (input + output) / 2 bytes, as the CPU benchmarks count a
pad's bytes. Times are CUDA-event medians of ``--reps`` calls after warm-up, each call
including the output's allocation (from the library's caching allocator), as users
call it. Ratios are to the copy's time: 1.0 moves bytes as fast as the copy.

    python bench/gpu.py [--reps 30] [--out bench/device/gpu-<name>.md] [--profile 2000]

``--profile N`` first prints (to stderr) where the host's time goes in N calls of the
small pad (cProfile, by own time): the per-call cost that small pads pay.

Run on the GPU machine by ``bench/device/check_all.sh`` (the wheel carried).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any, Callable, List, Optional, Tuple

import torch
import torch.nn.functional as F

import ndpad

try:
    import cupy
except ImportError:  # the table says "-"
    cupy = None

DEV = torch.device("cuda", 0)

# name, shape, dtype, numpy-style pad_width, mode, F.pad's pad (last axis first) or None
WORKLOADS: List[Tuple[str, Tuple[int, ...], Any, Any, str, Optional[Tuple[int, ...]]]] = [
    ("f32 [8,64,112,112] pad 1 H,W constant", (8, 64, 112, 112), torch.float32,
     ((0, 0), (0, 0), (1, 1), (1, 1)), "constant", (1, 1, 1, 1)),
    ("bf16 [8,64,112,112] pad 1 H,W constant", (8, 64, 112, 112), torch.bfloat16,
     ((0, 0), (0, 0), (1, 1), (1, 1)), "constant", (1, 1, 1, 1)),
    ("f32 [8,64,112,112] pad 3 H,W reflect", (8, 64, 112, 112), torch.float32,
     ((0, 0), (0, 0), (3, 3), (3, 3)), "reflect", (3, 3, 3, 3)),
    ("bf16 [8,64,112,112] pad 3 H,W reflect", (8, 64, 112, 112), torch.bfloat16,
     ((0, 0), (0, 0), (3, 3), (3, 3)), "reflect", (3, 3, 3, 3)),
    ("f32 [32,64,56,56] pad 3 H,W wrap", (32, 64, 56, 56), torch.float32,
     ((0, 0), (0, 0), (3, 3), (3, 3)), "wrap", (3, 3, 3, 3)),
    ("u8 [2160,3840,3] pad 16 H,W reflect", (2160, 3840, 3), torch.uint8,
     ((16, 16), (16, 16), (0, 0)), "reflect", None),
    ("f32 [16,1024,1024] axis 0 by 2", (16, 1024, 1024), torch.float32,
     ((2, 2), (0, 0), (0, 0)), "constant", (0, 0, 0, 0, 2, 2)),
    ("f32 1-D 256 Mi pad 1000", (256 << 20,), torch.float32, ((1000, 1000),), "constant",
     (1000, 1000)),
    ("f32 [1048576,7] -> [..,8]", (1048576, 7), torch.float32, ((0, 0), (0, 1)), "constant",
     (0, 1)),
    ("f32 [1,3,32,32] pad 1 (launch)", (1, 3, 32, 32), torch.float32,
     ((0, 0), (0, 0), (1, 1), (1, 1)), "constant", (1, 1, 1, 1)),
]

TORCH_MODES = {"constant": "constant", "reflect": "reflect", "wrap": "circular",
               "edge": "replicate"}


def timed(f: Callable[[], Any], reps: int) -> float:
    """Median seconds of ``f`` over ``reps`` calls (CUDA events), after 3 warm-ups."""
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def peer_fpad(x: Any, pad: Optional[Tuple[int, ...]], mode: str) -> Optional[Callable[[], Any]]:
    if pad is None or mode not in TORCH_MODES:
        return None
    f = lambda: F.pad(x, pad, mode=TORCH_MODES[mode])  # noqa: E731
    try:
        f()
    except Exception as e:  # noqa: BLE001 - a mode, dtype or rank F.pad lacks
        print(f"  F.pad: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
        return None
    return f


def peer_cupy(x: Any, widths: Any, mode: str) -> Optional[Callable[[], Any]]:
    if cupy is None or x.dtype == torch.bfloat16:
        return None
    c = cupy.from_dlpack(x)
    f = lambda: cupy.pad(c, widths, mode=mode)  # noqa: E731
    try:
        f()
    except Exception as e:  # noqa: BLE001
        print(f"  cupy.pad: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
        return None
    return f


def same(a: Any, b: Any) -> bool:
    """Whether a peer's output ``b`` (a torch tensor or a CuPy array) equals ndpad's."""
    if not isinstance(b, torch.Tensor):
        b = torch.from_dlpack(b)
    return tuple(a.shape) == tuple(b.shape) and torch.equal(a, b)


def profile(calls: int) -> None:
    """Where the host's time goes in ``calls`` pads of the small workload."""
    import cProfile
    import pstats
    import time

    x = torch.rand(1, 3, 32, 32, device=DEV)
    widths = ((0, 0), (0, 0), (1, 1), (1, 1))
    for _ in range(100):
        ndpad.pad(x, widths)
    torch.cuda.synchronize()
    for name, f in [("ndpad.pad", lambda: ndpad.pad(x, widths)),
                    ("F.pad", lambda: F.pad(x, (1, 1, 1, 1))),
                    ("torch.empty", lambda: torch.empty((1, 3, 34, 34), device=DEV)),
                    ("current_stream", lambda: torch.cuda.current_stream(x.device).cuda_stream)]:
        start = time.perf_counter()
        for _ in range(calls):
            f()
        torch.cuda.synchronize()
        print(f"{name}: {(time.perf_counter() - start) / calls * 1e6:.1f} us a call (host)",
              file=sys.stderr)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        ndpad.pad(x, widths)
    prof.disable()
    torch.cuda.synchronize()
    pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(18)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--out", default=None)
    ap.add_argument("--profile", type=int, default=0)
    args = ap.parse_args()
    if args.profile:
        profile(args.profile)
    name = torch.cuda.get_device_name(0)
    lines = [
        f"# ndpad on the GPU: {name}",
        "",
        f"torch {torch.__version__}, CuPy {getattr(cupy, '__version__', '-')}, "
        f"ndpad {ndpad.__version__}; median of {args.reps} calls (CUDA events), each "
        "with its output's allocation. Ratio: a device-to-device copy of (input + "
        "output) / 2 bytes over the call's time (1.0 = as fast as the copy).",
        "",
        "| workload | MiB in+out | copy GB/s | ndpad ms (ratio) | F.pad ms (ratio) | "
        "cupy.pad ms (ratio) | ndpad vs best peer |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, shape, dtype, widths, mode, fpad in WORKLOADS:
        print(label, file=sys.stderr)
        x = (torch.rand(shape, device=DEV) * 250).to(dtype)
        ours = lambda: ndpad.pad(x, widths, mode)  # noqa: E731
        want = ours()
        in_bytes = x.numel() * x.element_size()
        out_bytes = want.numel() * want.element_size()
        n = (in_bytes + out_bytes) // 2
        a = torch.empty(n, dtype=torch.uint8, device=DEV)
        b = torch.empty(n, dtype=torch.uint8, device=DEV)
        t_copy = timed(lambda: b.copy_(a), args.reps)
        del a, b
        t_ours = timed(ours, args.reps)
        cells = [f"{t_ours * 1e3:.3f} ({t_copy / t_ours:.2f})"]
        best = None
        for peer in (peer_fpad(x, fpad, mode), peer_cupy(x, widths, mode)):
            if peer is None:
                cells.append("-")
                continue
            if not same(want, peer()):
                cells.append("differs")
                continue
            t = timed(peer, args.reps)
            best = t if best is None else min(best, t)
            cells.append(f"{t * 1e3:.3f} ({t_copy / t:.2f})")
        ahead = f"{best / t_ours:.2f}x" if best is not None else "-"
        lines.append(f"| {label} | {(in_bytes + out_bytes) / 2**20:.0f} | "
                     f"{2 * n / t_copy / 1e9:.0f} | " + " | ".join(cells) + f" | {ahead} |")
        del x, want
        torch.cuda.empty_cache()
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
