#!/usr/bin/env python3
"""Side-by-side benchmark: ndpad against numpy.pad, ONNX Runtime and OpenVINO.

For every workload of issue 5, in ONE run: generate the input, time
  * a numpy copy of the same bytes (the baseline: half of input + output bytes,
    copied from one reused buffer into another, one thread),
  * numpy.pad (numpy slicing + copy for the crop; numpy cannot crop),
  * ONNX Runtime, a one-node Pad model (intra_op_num_threads 1 and default; output
    bound to a reused buffer through IOBinding),
  * OpenVINO, an opset12 Pad model (INFERENCE_NUM_THREADS 1 and default; shared input
    and output buffers),
  * ndpad, through the `ndpad-bench` binary (pad_into a reused buffer and pad_with a
    fresh output; 1 and 2 threads; with its own in-process copy baseline),
cache cold (a 128 MiB buffer read and written before every timed call) and hot; and
check that every peer's output equals ndpad's output bit for bit. Any difference makes
the run exit with status 1 (after the results are written). A peer that does not
support a workload shows "-".

Usage (after bench/setup.sh):
    .venv-bench/bin/python bench/peers.py [--quick] [--only SUBSTR] [--out-dir bench]
        [--wait-load 0.5 --wait-max 600] [--python-only]
"""

import os
import sys

# numpy's copy speed depends on these OpenBLAS settings; unset them for this process
# only (they are read when numpy is imported, so re-execute before importing it).
_BLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
if any(v in os.environ for v in _BLAS_VARS):
    env = {k: v for k, v in os.environ.items() if k not in _BLAS_VARS}
    env["NDPAD_BENCH_UNSET_BLAS"] = ",".join(v for v in _BLAS_VARS if v in os.environ)
    os.execve(sys.executable, [sys.executable] + sys.argv, env)

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# 4x the 32 MiB L3 of the benchmark machine; NDPAD_BENCH_EVICT_MIB (or --evict-mib)
# changes it, for this script and the ndpad-bench binary alike.
EVICT_BYTES = int(os.environ.get("NDPAD_BENCH_EVICT_MIB", "128")) << 20

# ---------------------------------------------------------------------------------
# Workloads


def workloads(quick):
    """(name, label, dtype, shape, begin, end, mode, reps) for every workload."""
    q = quick
    n = 1 if q else 8
    nchw = (n, 64, 112, 112)
    nchw56 = (4 * n, 64, 56, 56)
    nchw7 = (4 * n, 512, 7, 7)
    cifar = (1250 * n, 32, 32, 3)
    f32, f16, u8 = np.float32, np.float16, np.uint8

    def hw(p):
        return [0, 0, p, p], [0, 0, p, p]

    rows = [
        ("nchw_pad1_constant", f"f32 {list(nchw)} pad 1 on H,W, constant", f32, nchw, *hw(1), "constant"),
        ("nchw_pad3_reflect", f"f32 {list(nchw)} pad 3 on H,W, reflect", f32, nchw, *hw(3), "reflect"),
        ("nchw_pad3_edge", f"f32 {list(nchw)} pad 3 on H,W, edge", f32, nchw, *hw(3), "edge"),
        ("nchw_pad3_wrap", f"f32 {list(nchw)} pad 3 on H,W, wrap", f32, nchw, *hw(3), "wrap"),
        ("nchw_pad3_symmetric", f"f32 {list(nchw)} pad 3 on H,W, symmetric", f32, nchw, *hw(3), "symmetric"),
        ("narrow_rows_7_to_8", f"f32 [{131072 if q else 1048576},7] -> [..,8] constant", f32,
         (131072 if q else 1048576, 7), [0, 0], [0, 1], "constant"),
        ("outer_axis_pad2", f"f32 [{2 if q else 16},1024,1024] pad axis 0 by 2, constant", f32,
         (2 if q else 16, 1024, 1024), [2, 0, 0], [2, 0, 0], "constant"),
        ("nchw_crop2", f"f32 {list(nchw)} crop 2 on H,W", f32, nchw, *hw(-2), "constant"),
        ("u8_image_pad16_constant", "u8 [2160,3840,3] pad 16 on H,W, constant" if not q else
         "u8 [540,960,3] pad 16 on H,W, constant", u8, (540, 960, 3) if q else (2160, 3840, 3),
         [16, 16, 0], [16, 16, 0], "constant"),
        ("u8_image_pad16_reflect", "u8 [2160,3840,3] pad 16 on H,W, reflect" if not q else
         "u8 [540,960,3] pad 16 on H,W, reflect", u8, (540, 960, 3) if q else (2160, 3840, 3),
         [16, 16, 0], [16, 16, 0], "reflect"),
        ("1d_64Mi_pad1000", f"f32 1-D {'8' if q else '64'} Mi elements pad 1000 each side", f32,
         ((8 if q else 64) << 20,), [1000], [1000], "constant"),
        # Beyond the list: shorter rows and smaller planes (a later ResNet
        # stage), where the cost per row and the jumps between planes weigh more.
        ("nchw56_pad3_reflect", f"f32 {list(nchw56)} pad 3 on H,W, reflect", f32, nchw56, *hw(3),
         "reflect"),
        ("nchw56_pad3_wrap", f"f32 {list(nchw56)} pad 3 on H,W, wrap", f32, nchw56, *hw(3), "wrap"),
        ("nchw56_crop2", f"f32 {list(nchw56)} crop 2 on H,W", f32, nchw56, *hw(-2), "constant"),
        # The last ResNet stage's 7x7 maps padded to 9x9 for a 3x3 convolution: 36-byte
        # rows in planes of 324 bytes (exec/tiny.rs).
        ("nchw7_pad1_constant", f"f32 {list(nchw7)} pad 1 on H,W, constant", f32, nchw7, *hw(1),
         "constant"),
        ("nchw7_pad1_reflect", f"f32 {list(nchw7)} pad 1 on H,W, reflect", f32, nchw7, *hw(1),
         "reflect"),
        # The same maps in half precision (2-byte elements: a table of bytes).
        ("nchw7_f16_pad1_reflect", f"f16 {list(nchw7)} pad 1 on H,W, reflect", f16, nchw7,
         *hw(1), "reflect"),
        # CIFAR images padded by 4 for random crops (torchvision's RandomCrop(32, 4)).
        ("cifar_u8_pad4_constant", f"u8 {list(cifar)} pad 4 on H,W, constant", u8, cifar,
         [0, 4, 4, 0], [0, 4, 4, 0], "constant"),
    ]
    out = []
    for name, label, dt, shape, b, e, mode in rows:
        moved = int(np.prod(shape)) * np.dtype(dt).itemsize * 2
        if q:
            reps = 2
        elif moved >= 300e6:
            reps = 11
        elif moved >= 150e6:
            reps = 15
        else:
            reps = 21
        out.append(dict(name=name, label=label, dtype=dt, shape=shape, begin=b, end=e,
                        mode=mode, reps=reps))
    return out


def make_input(w, rng):
    if w["dtype"] == np.uint8:
        return rng.integers(0, 256, size=w["shape"], dtype=np.uint8)
    return rng.standard_normal(size=w["shape"], dtype=np.float32).astype(w["dtype"])


# ---------------------------------------------------------------------------------
# Timing


class Evictor:
    """Reads and writes EVICT_BYTES (temporal stores, unlike a large memset) so the
    next call starts with cold caches."""

    def __init__(self):
        self.buf = np.ones(EVICT_BYTES // 8, dtype=np.uint64)

    def __call__(self):
        np.add(self.buf, 1, out=self.buf)


def timeit(fn, reps, evict=None):
    """Times fn() reps times after one untimed warm-up; evicts before each call."""
    if evict:
        evict()
    fn()
    ts = []
    for _ in range(reps):
        if evict:
            evict()
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return ts


def summarize(ts, moved):
    s = sorted(ts)
    best, med = s[0], float(np.median(s))
    return dict(best_s=best, median_s=med, gbps=moved / best / 1e9,
                gbps_median=moved / med / 1e9, times_s=ts)


# ---------------------------------------------------------------------------------
# Peers: each returns (run_fn, get_output_fn) or None when the workload is unsupported.


def numpy_peer(w, x):
    b, e, mode = w["begin"], w["end"], w["mode"]
    if any(v < 0 for v in b + e):
        if mode != "constant" or any(v > 0 for v in b + e):
            return None
        sl = tuple(slice(-bb, x.shape[i] + ee) for i, (bb, ee) in enumerate(zip(b, e)))
        box = {}

        def run():
            box["y"] = x[sl].copy()  # a C-contiguous copy of the cropped view
        return run, lambda clear=False: box.pop("y", None) if clear else box["y"]
    pw = list(zip(b, e))
    box = {}

    def run():
        box["y"] = np.pad(x, pw, mode=mode)
    return run, lambda clear=False: box.pop("y", None) if clear else box["y"]


def out_shape(w):
    return tuple(d + bb + ee for d, bb, ee in zip(w["shape"], w["begin"], w["end"]))


def ort_peer(w, x, threads):
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    mode = w["mode"]
    if mode not in ("constant", "reflect", "edge", "wrap"):
        return None
    if mode != "constant" and any(v < 0 for v in w["begin"] + w["end"]):
        return None
    elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16,
            np.dtype(np.uint8): TensorProto.UINT8}[x.dtype]
    pads = np.array(w["begin"] + w["end"], dtype=np.int64)
    inits = [numpy_helper.from_array(pads, "pads")]
    inputs = ["x", "pads"]
    if mode == "constant":
        inits.append(numpy_helper.from_array(np.zeros((), dtype=x.dtype), "cv"))
        inputs.append("cv")
    node = helper.make_node("Pad", inputs, ["y"], mode=mode)
    graph = helper.make_graph(
        [node], "pad",
        [helper.make_tensor_value_info("x", elem, list(x.shape))],
        [helper.make_tensor_value_info("y", elem, list(out_shape(w)))],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads  # 0 = ORT's default
    so.inter_op_num_threads = 1
    try:
        sess = ort.InferenceSession(model.SerializeToString(), so,
                                    providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001
        print(f"  ORT cannot build {w['name']}: {e}", file=sys.stderr)
        return None
    y = np.empty(out_shape(w), dtype=x.dtype)
    io = sess.io_binding()
    io.bind_cpu_input("x", x)
    io.bind_output("y", "cpu", 0, x.dtype, list(y.shape), y.ctypes.data)

    def run():
        sess.run_with_iobinding(io)
    return run, lambda: y


def ov_peer(w, x, threads):
    import openvino as ov
    import openvino.opset12 as ops

    mode = w["mode"]
    if mode not in ("constant", "edge", "reflect", "symmetric"):
        return None
    if mode != "constant" and any(v < 0 for v in w["begin"] + w["end"]):
        return None
    p = ops.parameter(list(x.shape), dtype=x.dtype, name="x")
    pb = ops.constant(np.array(w["begin"], dtype=np.int64))
    pe = ops.constant(np.array(w["end"], dtype=np.int64))
    if mode == "constant":
        node = ops.pad(p, pb, pe, mode, ops.constant(np.zeros((), dtype=x.dtype)))
    else:
        node = ops.pad(p, pb, pe, mode)
    model = ov.Model([node], [p], "pad")
    cfg = {"INFERENCE_PRECISION_HINT": "f32"}
    if threads:
        cfg["INFERENCE_NUM_THREADS"] = threads
    cm = ov.Core().compile_model(model, "CPU", cfg)
    req = cm.create_infer_request()

    def run():
        req.infer({0: x}, share_inputs=True, share_outputs=True)

    def out():
        return req.get_output_tensor(0).data
    return run, out


# ---------------------------------------------------------------------------------


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False, f"shape/dtype {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
    a8 = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    b8 = np.ascontiguousarray(b).reshape(-1).view(np.uint8)
    if np.array_equal(a8, b8):
        return True, ""
    bad = np.flatnonzero(a8 != b8)
    return False, f"{bad.size} differing bytes, first at byte {bad[0]}"


def run_ndpad(binary, args, tmp):
    p = subprocess.run([str(binary)] + args, capture_output=True, text=True, cwd=tmp)
    if p.returncode != 0:
        raise RuntimeError(f"ndpad-bench {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return json.loads(p.stdout)


def machine_info():
    info = {}
    try:
        ls = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in ls.splitlines():
            k, _, v = line.partition(":")
            info.setdefault("lscpu", {})[k.strip()] = v.strip()
    except OSError:
        pass
    lc = info.get("lscpu", {})
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for mod in ("onnxruntime", "openvino", "onnx"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            versions[mod] = "missing"
    try:
        versions["rustc"] = subprocess.run(["rustc", "--version"], capture_output=True,
                                           text=True).stdout.strip()
    except OSError:
        pass
    # A prebuilt binary run on another machine (no rustc or git there) says where from.
    versions["rustc"] = os.environ.get("NDPAD_BENCH_RUSTC", versions.get("rustc", ""))
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--",
                                "crates/ndpad"], capture_output=True, text=True).stdout.strip()
        versions["ndpad"] = head + (" + uncommitted changes in crates/ndpad" if dirty else "")
    except OSError:
        pass
    versions["ndpad"] = os.environ.get("NDPAD_BENCH_REV", versions.get("ndpad", "?")) or "?"
    fam = f" (family {lc.get('CPU family', '?')}, model {lc.get('Model', '?')}" + (
        f", {lc['Hypervisor vendor']} guest)" if lc.get("Hypervisor vendor") else ")")
    return dict(
        model=lc.get("Model name", platform.processor()) + fam,
        cores=os.cpu_count(),
        l3=lc.get("L3 cache", "?"),
        memory=mem,
        kernel=platform.release(),
        thp=open("/sys/kernel/mm/transparent_hugepage/enabled").read().strip()
        if os.path.exists("/sys/kernel/mm/transparent_hugepage/enabled") else "?",
        versions=versions,
        unset_env=os.environ.get("NDPAD_BENCH_UNSET_BLAS", ""),
    )


def wait_for_load(limit, max_wait):
    t0 = time.time()
    while os.getloadavg()[0] >= limit and time.time() - t0 < max_wait:
        time.sleep(5)
    return os.getloadavg()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small shapes, 2 reps: a smoke run")
    ap.add_argument("--only", default="", help="only workloads whose name contains this")
    ap.add_argument("--out-dir", default=str(ROOT / "bench"))
    ap.add_argument("--binary", default=None, help="ndpad-bench binary (default: build it)")
    ap.add_argument("--wait-load", type=float, default=None,
                    help="wait until the 1-minute load average is below this before starting")
    ap.add_argument("--wait-max", type=float, default=600)
    ap.add_argument("--no-builtin", action="store_true", help="skip the ndpad-only rows")
    ap.add_argument("--threads", default=None,
                    help="ndpad thread counts, e.g. 1,2,4,8,16 (default: 1 and all cores)")
    ap.add_argument("--reps", type=int, default=None,
                    help="timed calls per contender and cache state (default 11-21 by size)")
    ap.add_argument("--evict-mib", type=int, default=None,
                    help="size of the cold-cache eviction buffer (default 128, or "
                         "$NDPAD_BENCH_EVICT_MIB); use >= 4x the last-level cache")
    args = ap.parse_args()
    global EVICT_BYTES
    if args.evict_mib is not None:
        EVICT_BYTES = args.evict_mib << 20
    os.environ["NDPAD_BENCH_EVICT_MIB"] = str(EVICT_BYTES >> 20)

    binary = args.binary
    if binary is None:
        tgt = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
        subprocess.run(["cargo", "build", "--release", "-p", "ndpad-bench"], cwd=ROOT,
                       check=True, env={**os.environ, "CARGO_TARGET_DIR": tgt})
        binary = Path(tgt) / "release" / "ndpad-bench"
    binary = Path(binary).resolve()

    load_start = None
    if args.wait_load is not None:
        load_start = wait_for_load(args.wait_load, args.wait_max)
    load_start = load_start or os.getloadavg()
    t_start = time.time()
    info = machine_info()
    ncores = os.cpu_count() or 1
    threads_nd = sorted({1, ncores} if args.threads is None else
                        {int(t) for t in args.threads.split(",")} | {1})
    print(f"machine: {info['model']}, {ncores} cores; load {load_start}; "
          f"unset: {info['unset_env'] or 'none'}", file=sys.stderr)

    rng = np.random.default_rng(5)
    ev = Evictor()
    tmp = Path(tempfile.mkdtemp(prefix="ndpad-bench-", dir="/dev/shm" if
                                os.path.isdir("/dev/shm") else None))
    failures, results = [], []
    try:
        for w in workloads(args.quick):
            if args.only and args.only not in w["name"]:
                continue
            t0 = time.time()
            reps = w["reps"] if args.reps is None else max(1, args.reps)
            x = make_input(w, rng)
            inp, outp = tmp / "in.npy", tmp / "out.npy"
            np.save(inp, x)
            nd = run_ndpad(binary, [
                "run", "--input", str(inp), "--begin", ",".join(map(str, w["begin"])),
                "--end", ",".join(map(str, w["end"])), "--mode", w["mode"],
                "--threads", ",".join(map(str, threads_nd)), "--reps", str(reps),
                "--cache", "cold,hot", "--out", str(outp), "--name", w["name"]], tmp)
            inp.unlink()
            y_nd = np.load(outp)
            outp.unlink()
            moved = x.nbytes + y_nd.nbytes
            assert moved == nd["moved_bytes"], (moved, nd["moved_bytes"])
            half = moved // 2
            src = np.ones(half, dtype=np.uint8)
            dst = np.zeros(half, dtype=np.uint8)
            row = dict(name=w["name"], label=w["label"], moved_bytes=moved, reps=reps,
                       in_shape=list(x.shape), out_shape=list(y_nd.shape), ndpad=nd["results"],
                       peers={}, checks={})
            peers = [("numpy.pad", lambda: numpy_peer(w, x))]
            for th in (1, 0):
                tag = "1t" if th == 1 else "default"
                peers.append((f"ORT {tag}", lambda th=th: ort_peer(w, x, th)))
                peers.append((f"OpenVINO {tag}", lambda th=th: ov_peer(w, x, th)))
            entries = [("numpy_copy", lambda: np.copyto(dst, src), None)]
            for pname, make in peers:
                try:
                    peer = make()
                except Exception as exc:  # noqa: BLE001
                    print(f"  {pname} on {w['name']}: cannot set up: {exc}", file=sys.stderr)
                    peer = None
                if peer is None:
                    row["checks"][pname] = "-"
                else:
                    entries.append((pname, peer[0], peer[1]))
            # Interleaved: each round times every entry once, so a change in machine load
            # affects them alike. Round 0 is a warm-up. Fresh outputs (numpy.pad) are
            # freed before the next timed call, outside the timing.
            failed = set()
            for cache in ("cold", "hot"):
                e = ev if cache == "cold" else None
                times = {n: [] for n, _, _ in entries}
                for rnd in range(reps + 1):
                    for n, run, get in entries:
                        if n in failed:
                            continue
                        if get is not None and n == "numpy.pad":
                            get(clear=True)
                        if e:
                            e()
                        try:
                            t = time.perf_counter()
                            run()
                            dt = time.perf_counter() - t
                        except Exception as exc:  # noqa: BLE001
                            print(f"  {n} on {w['name']} failed: {exc}", file=sys.stderr)
                            row["checks"][n] = f"error: {exc}"
                            failed.add(n)
                            continue
                        if rnd:
                            times[n].append(dt)
                for n, ts in times.items():
                    if ts and n not in failed:
                        row["peers"][f"{n}/{cache}"] = summarize(ts, moved)
            for n, run, get in entries:
                if get is None or n in failed:
                    continue
                run()
                ok, why = same(y_nd, get())
                row["checks"][n] = "equal" if ok else f"DIFFERENT: {why}"
                if not ok:
                    failures.append(f"{w['name']}: ndpad != {n}: {why}")
            del entries, peers, src, dst
            results.append(row)
            del x, y_nd
            line = [f"{w['name']}: {time.time() - t0:.1f}s;"]
            c = row["peers"]["numpy_copy/cold"]["best_s"]
            for k, v in row["peers"].items():
                if k.endswith("/cold") and not k.startswith("numpy_copy"):
                    line.append(f"{k.split('/')[0]} {c / v['best_s']:.2f}")
            for r in nd["results"]:
                if r["cache"] == "cold" and r["kind"] != "copy":
                    line.append(f"ndpad {r['kind']} {r['threads']}t {r['ratio_vs_1t_copy']:.2f}")
            print("  " + " | ".join(line), file=sys.stderr, flush=True)
        builtin = []
        if not args.no_builtin and not args.only:
            builtin = run_ndpad(binary, ["builtin", "--name", "all", "--threads",
                                         ",".join(map(str, threads_nd)), "--reps",
                                         "3" if args.quick else str(args.reps or 11),
                                         "--cache", "cold,hot"], tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load_end = os.getloadavg()
    out = dict(machine=info, quick=args.quick, threads=threads_nd, evict_mib=EVICT_BYTES >> 20, load_start=list(load_start),
               load_end=list(load_end), seconds=time.time() - t_start,
               workloads=results, ndpad_only=builtin, failures=failures)
    od = Path(args.out_dir)
    od.mkdir(parents=True, exist_ok=True)
    suffix = "-quick" if args.quick else ""
    (od / f"results{suffix}.json").write_text(json.dumps(out, indent=1))
    md = render(out)
    (od / f"results{suffix}.md").write_text(md)
    print(md)
    if failures:
        print("\n*** OUTPUT MISMATCH: ndpad differs from a peer ***", file=sys.stderr)
        for f in failures:
            print("  " + f, file=sys.stderr)
        sys.exit(1)


# ---------------------------------------------------------------------------------
# Markdown


PEERS = ["numpy.pad", "ORT 1t", "ORT default", "OpenVINO 1t", "OpenVINO default"]


def nd_get(row, cache, kind, threads):
    for r in row["ndpad"]:
        if r["cache"] == cache and r["kind"] == kind and r["threads"] == threads:
            return r
    return None


def fmt(ratio, gbps):
    return f"{ratio:.2f} ({gbps:.1f})"


def render(out):
    m = out["machine"]
    v = m["versions"]
    ths = out.get("threads") or [1, 2]
    nt = max(ths)
    ev_mib = out.get("evict_mib", 128)
    L = []
    L.append("# ndpad vs peers: padding speed as a ratio to a memory copy\n")
    L.append(f"Machine: **{m['model']}**, {m['cores']} cores, L3 {m['l3']}, {m['memory']} RAM, "
             f"Linux {m['kernel']}, THP `{m['thp']}`.  ")
    L.append(f"Versions: Python {v.get('python')}, numpy {v.get('numpy')}, onnxruntime "
             f"{v.get('onnxruntime')}, openvino {v.get('openvino')}, onnx {v.get('onnx')}, "
             f"{v.get('rustc', '')}, ndpad {v.get('ndpad', '?')}.  ")
    ls, le = out["load_start"], out["load_end"]
    L.append(f"Load average (1/5/15 min) at start {ls[0]:.2f}/{ls[1]:.2f}/{ls[2]:.2f}, at end "
             f"{le[0]:.2f}/{le[1]:.2f}/{le[2]:.2f}; run took {out['seconds']:.0f} s"
             f"{' (--quick: small shapes, 2 reps)' if out['quick'] else ''}. "
             f"Unset for the run: {m['unset_env'] or 'nothing'}.\n")
    L.append("Each cell: **ratio to the copy** (copy time / pad time; >= 1 is as fast as a "
             "copy) and, in parentheses, GB/s of bytes moved (input + output bytes / best "
             "time). The copy copies half the bytes moved (it reads and writes them), one "
             "thread; peers are divided by the numpy copy (`np.copyto`) timed in the same "
             "Python process, ndpad by its own in-process copy (`copy_from_slice`), both in "
             f"the same run and cache state; {nt}-thread columns too are divided by the "
             "**1-thread** copy. Best of N runs (N in the reps column), contenders "
             "interleaved round by round; large buffers have huge-page advice on both "
             f"sides (numpy's default; see bench/README.md). Cold: a {ev_mib} MiB "
             "buffer is read and written before every timed call. `-`: the peer does not "
             "support the workload. ndpad `into` = `pad_into` a reused output buffer; "
             "`fresh` = `pad_with` (allocates the output). numpy.pad always allocates; ORT "
             "writes into a bound buffer (IOBinding), OpenVINO into its request's buffer. "
             "`vs best peer` = best 1-thread peer time / ndpad 1-thread `into` time (> 1: "
             "ndpad is faster). `NT copy`: the same copy with non-temporal stores "
             "(`ndpad::copy_around_cache`, the floor of an output written around the "
             "cache), measured in the same run: `into` as a ratio to it, and its own "
             "ratio to the plain copy.\n")
    for cache in ("cold", "hot"):
        L.append(f"\n## Cache {cache}\n")
        hdr = ["workload", "MB moved", "reps", "copy GB/s numpy / rust"] + PEERS + [
            "ndpad 1t into", "ndpad 1t fresh", f"ndpad {nt}t into", f"ndpad {nt}t fresh",
            "1t into / NT copy (NT copy / copy)", "vs best 1t peer", f"vs best peer (any threads, ndpad {nt}t into)",
            "equal to peers"]
        L.append("| " + " | ".join(hdr) + " |")
        L.append("|" + "---|" * len(hdr))
        for row in out["workloads"]:
            moved = row["moved_bytes"]
            pc = row["peers"][f"numpy_copy/{cache}"]
            rc = nd_get(row, cache, "copy", 1)
            cells = [row["label"], f"{moved / 1e6:.0f}", str(row["reps"]),
                     f"{pc['gbps']:.1f} / {rc['gbps']:.1f}"]
            best1, best_any = None, None
            for p in PEERS:
                r = row["peers"].get(f"{p}/{cache}")
                if r is None:
                    cells.append("-")
                    continue
                cells.append(fmt(pc["best_s"] / r["best_s"], r["gbps"]))
                if "default" not in p:
                    best1 = r["best_s"] if best1 is None else min(best1, r["best_s"])
                best_any = r["best_s"] if best_any is None else min(best_any, r["best_s"])
            for th in (1, nt):
                for kind in ("pad_into", "pad_with"):
                    r = nd_get(row, cache, kind, th)
                    cells.append(fmt(r["ratio_vs_1t_copy"], r["gbps"]) if r else "-")
            i1 = nd_get(row, cache, "pad_into", 1)
            i2 = nd_get(row, cache, "pad_into", nt) or i1
            ntc = nd_get(row, cache, "copy_nt", 1)
            cells.append(f"{i1['ratio_vs_nt_copy']:.2f} ({ntc['ratio']:.2f})"
                         if ntc and "ratio_vs_nt_copy" in i1 else "-")
            cells.append(f"{best1 / i1['best_s']:.2f}" if best1 else "-")
            cells.append(f"{best_any / i2['best_s']:.2f}" if best_any else "-")
            ch = row["checks"]
            bad = [k for k, s in ch.items() if s not in ("equal", "-")]
            cells.append("**NO: " + ", ".join(bad) + "**" if bad else
                         f"yes ({sum(s == 'equal' for s in ch.values())} peers)")
            L.append("| " + " | ".join(cells) + " |")
    # Thread scaling
    L.append(f"\n## ndpad thread scaling (threads {', '.join(map(str, ths))}; this machine "
             f"has {m['cores']} cores)\n")
    L.append("Cache cold, best time. Each cell: GB/s of bytes moved and, in parentheses, the "
             "speed-up over 1 thread. `copy` is ndpad-bench's in-process copy of half the "
             "bytes moved with that many threads (parallel above 1 MiB): the memory "
             "bandwidth the machine gives that many threads. `into` = `pad_into`, "
             "`fresh` = `pad_with`.\n")
    hdr = ["workload", "kind"] + [f"{t}t" for t in ths]
    L.append("| " + " | ".join(hdr) + " |")
    L.append("|" + "---|" * len(hdr))
    rows = [(r["label"], r["moved_bytes"], r["ndpad"]) for r in out["workloads"]] + [
        (b["name"], b["moved_bytes"], b["results"]) for b in out["ndpad_only"]]
    for label, moved, res in rows:
        def g(kind, th):
            for r in res:
                if r["cache"] == "cold" and r["kind"] == kind and r["threads"] == th:
                    return r["best_s"]
            return None
        for kind, name in (("copy", "copy"), ("pad_into", "into"), ("pad_with", "fresh")):
            t1 = g(kind, 1)
            if t1 is None:
                continue
            cells = [label if kind == "copy" else "", name]
            for th in ths:
                t = g(kind, th)
                cells.append("-" if t is None else f"{moved / t / 1e9:.1f} ({t1 / t:.2f}x)")
            L.append("| " + " | ".join(cells) + " |")
    if out["ndpad_only"]:
        L.append("\n## ndpad-only paths (no peer supports them; checked equal to "
                 "`ndpad::reference::pad`)\n")
        L.append("Ratio to ndpad's in-process 1-thread copy (GB/s).\n")
        L.append(f"| workload | MB moved | cold 1t into | cold 1t fresh | cold {nt}t into | "
                 f"cold {nt}t fresh | hot 1t into | hot 1t fresh |")
        L.append("|---|---|---|---|---|---|---|---|")
        for b in out["ndpad_only"]:
            res = b["results"]

            def c(cache, kind, th):
                for r in res:
                    if r["cache"] == cache and r["kind"] == kind and r["threads"] == th:
                        return fmt(r["ratio_vs_1t_copy"], r["gbps"])
                return "-"
            L.append(f"| {b['name']} | {b['moved_bytes'] / 1e6:.1f} | {c('cold', 'pad_into', 1)} | "
                     f"{c('cold', 'pad_with', 1)} | {c('cold', 'pad_into', nt)} | "
                     f"{c('cold', 'pad_with', nt)} | {c('hot', 'pad_into', 1)} | "
                     f"{c('hot', 'pad_with', 1)} |")
    L.append("\n## Output equality\n")
    if out["failures"]:
        L.append("**FAILED** — ndpad's output differs from a peer's:\n")
        for f in out["failures"]:
            L.append(f"- {f}")
    else:
        n = sum(s == "equal" for r in out["workloads"] for s in r["checks"].values())
        L.append(f"Every ndpad output was equal, bit for bit, to every supporting peer's "
                 f"output ({n} comparisons).")
    below = []
    for row in out["workloads"]:
        r = nd_get(row, "cold", "pad_into", 1)
        if r and r["ratio"] < 0.95:
            below.append(f"{row['name']} ({r['ratio']:.2f})")
    L.append("\nndpad 1-thread cold `pad_into` below 0.95x copy: " +
             (", ".join(below) if below else "none") + ".")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    main()
