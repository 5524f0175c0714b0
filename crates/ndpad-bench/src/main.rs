//! `ndpad-bench`: times ndpad against a plain memory copy of the same number of bytes,
//! in the same process, and prints the results as JSON. `bench/peers.py` drives it and
//! compares its output with numpy, ONNX Runtime and OpenVINO.
//!
//! ```text
//! ndpad-bench run --input x.npy --begin 0,0,1,1 --end 0,0,1,1 [--mode constant]
//!     [--value 0] [--negative crop-first|original-index] [--threads 1,2|scaling]
//!     [--reps 7] [--cache cold,hot,repeat | --cold | --hot] [--out y.npy] [--name NAME]
//!     [--check outputs|reference|none] [--no-huge-pages] [--stream-min-bytes N]
//! ndpad-bench builtin --name int4|int4big|string|interior|all [timing options as above]
//! ```
//!
//! Bytes moved = input bytes + output bytes (strings: their text). The copy baseline
//! copies half that many bytes (a copy reads and writes each byte), from one reused
//! buffer into another, with the same number of threads. `--cold` evicts the caches
//! before every timed call by writing a 128 MiB buffer (4x the 32 MiB L3 of the
//! benchmark machine; `NDPAD_BENCH_EVICT_MIB` changes it). `--cache repeat` times
//! each contender's calls back to back, nothing evicted (a pad called in a loop on
//! the same arrays, its output still where the last call left it); cold and hot
//! interleave the contenders round by round.
//!
//! The input, the reused output and the copy buffers are allocated like numpy's large
//! arrays (transparent-huge-page advice on Linux, before first touch), as the peers'
//! buffers in `bench/peers.py` are; `--no-huge-pages` turns that off.
//! `--stream-min-bytes` sets `PadOptions::stream_min_bytes` for the pads (default:
//! the machine's rule; 0 writes every output around the cache, 18446744073709551615
//! none).
//!
//! Timed per cache state and thread count, interleaved (each round times each once):
//! `copy`, `pad_into` (into one reused output buffer), `pad_with` (a fresh output
//! each call, as in a loop of pads: an untimed `pad_with` is freed just before it,
//! and the allocator or the output pool may hand its memory to the next),
//! `pad_with_new` (the same, the pool emptied first: new pages from 32 MiB),
//! `fresh_fill`, the floor of a new output (allocated as `pad_with` allocates one,
//! written once), and `copy_nt`, the copy with
//! non-temporal stores (the floor of an output written around the cache, measured on
//! this machine: the pads' `ratio_vs_nt_copy`). One untimed warm-up round. The last
//! `pad_into` and `pad_with` outputs of every thread count are checked
//! equal to a single-threaded `pad_with` output (`--check outputs`, the default; with
//! `--check reference`, and for `builtin`, that one to `ndpad::reference::pad` too);
//! any difference exits with status 1. `--check none` checks nothing, for experiments
//! that time a build writing wrong outputs on purpose (a step left out).

use std::hint::black_box;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use ndpad::{
    pad_into, pad_with, AxisPad, DType, Mode, NegativePads, PadOptions, PadSpec, Plan, Scalar,
    Tensor, TensorViewMut,
};
use ndpad_formats::npy::{write_npy_to, NpyFile};
use serde_json::{json, Value};

type Res<T> = Result<T, String>;

/// Whether large benchmark buffers get transparent-huge-page advice (as numpy gives
/// its large arrays on Linux, so the peers' inputs and outputs have it too).
static HUGE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// A zeroed buffer of `n` bytes, advised (before its first touch) to use transparent
/// huge pages when large, as numpy does for its arrays, then touched.
fn buffer(n: usize, fill: u8) -> Vec<u8> {
    let mut v = match HUGE.load(std::sync::atomic::Ordering::Relaxed) {
        true => ndpad::output_buffer(n).unwrap_or_else(|| vec![0u8; n]),
        false => vec![0u8; n],
    };
    v.fill(fill);
    v
}

struct Args(Vec<String>);

impl Args {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .position(|a| a == name)
            .and_then(|i| self.0.get(i + 1))
            .map(String::as_str)
    }
    fn has(&self, name: &str) -> bool {
        self.0.iter().any(|a| a == name)
    }
    fn num(&self, name: &str, default: usize) -> Res<usize> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|e| format!("{name} {v}: {e}")),
        }
    }
}

fn list_i64(s: &str) -> Res<Vec<i64>> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    s.split(',')
        .map(|x| x.trim().parse::<i64>().map_err(|e| format!("{x}: {e}")))
        .collect()
}

fn available() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The thread counts to time: "1,2", "scaling" (1..=cores) or "all" (1 and cores).
fn thread_list(s: Option<&str>) -> Res<Vec<usize>> {
    let n = available();
    let mut v = match s {
        None | Some("all") => vec![1, n],
        Some("scaling") => (1..=n).collect(),
        Some(s) => s
            .split(',')
            .map(|x| x.trim().parse::<usize>().map_err(|e| format!("{x}: {e}")))
            .collect::<Res<Vec<_>>>()?,
    };
    v.dedup();
    if v.contains(&0) {
        return Err("thread counts must be >= 1".into());
    }
    Ok(v)
}

fn caches(a: &Args) -> Res<Vec<&'static str>> {
    if a.has("--cold") && !a.has("--hot") {
        return Ok(vec!["cold"]);
    }
    if a.has("--hot") && !a.has("--cold") {
        return Ok(vec!["hot"]);
    }
    a.get("--cache")
        .unwrap_or("cold,hot")
        .split(',')
        .map(|c| match c.trim() {
            "cold" => Ok("cold"),
            "hot" => Ok("hot"),
            "repeat" => Ok("repeat"),
            o => Err(format!("unknown cache state {o} (cold, hot, repeat)")),
        })
        .collect()
}

fn mode_of(name: &str, value: Option<&str>, dtype: DType) -> Res<Mode> {
    Ok(match name {
        "constant" => Mode::Constant(match value {
            None => None,
            Some(v) => Some(Scalar::parse(dtype, v).map_err(|e| e.to_string())?),
        }),
        "edge" => Mode::Edge,
        "reflect" => Mode::Reflect,
        "symmetric" => Mode::Symmetric,
        "wrap" => Mode::Wrap,
        o => return Err(format!("unknown mode {o}")),
    })
}

/// Reads and writes a buffer larger than the last-level cache, so the next call starts
/// cold. (A plain fill would not do: large memsets use non-temporal stores, which
/// bypass the caches and leave them as they were.)
struct Evictor {
    buf: Vec<u64>,
    k: u64,
}

impl Evictor {
    fn new() -> Evictor {
        let mib = std::env::var("NDPAD_BENCH_EVICT_MIB")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(128usize);
        Evictor {
            buf: vec![1u64; (mib << 20) / 8],
            k: 0,
        }
    }
    fn evict(&mut self) {
        self.k = self.k.wrapping_add(1);
        let k = black_box(self.k);
        self.buf.iter_mut().for_each(|x| *x = x.wrapping_add(k));
        black_box(&mut self.buf);
    }
}

fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let best = v[0];
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    (best, median)
}

/// Copies `src` into `dst` as ndpad splits work among `threads`, with ordinary stores
/// (the copy baseline) or, `around_cache`, non-temporal ones (`ndpad::copy_around_cache`:
/// the floor of an output written around the cache, measured on this machine).
fn copy_bytes(threads: usize, dst: &mut [u8], src: &[u8], around_cache: bool) {
    let copy = |d: &mut [u8], s: &[u8]| match around_cache {
        true => {
            ndpad::copy_around_cache(d, black_box(s));
        }
        false => d.copy_from_slice(black_box(s)),
    };
    let (t, chunk) = split(threads, dst.len());
    ndpad::threads::share(t, dst.chunks_mut(chunk).zip(src.chunks(chunk)), |(d, s)| {
        copy(d, s)
    });
}

/// How ndpad splits an output of `bytes` bytes when asked for `threads`: the threads
/// it writes it with, and the bytes of a part (a few parts each, whole pages).
fn split(threads: usize, bytes: usize) -> (usize, usize) {
    let opts = PadOptions {
        threads,
        ..PadOptions::default()
    };
    let t = ndpad::threads::for_bytes(&opts, bytes);
    (t, ndpad::threads::part_len(t, bytes).next_multiple_of(4096))
}

/// The floor of a fresh output: `n` bytes allocated as `pad_with` allocates a new
/// output (uninitialized under 32 MiB, where the allocator may reuse freed memory; new
/// zero pages mapped for the pool above) and written once, by
/// `threads` threads as the copy is.
fn fresh_fill(threads: usize, n: usize) -> ndpad::OwnedBytes {
    if n < ndpad::PooledBuffer::MIN_BYTES {
        return vec![1u8; n].into();
    }
    let Some(mut v) = ndpad::PooledBuffer::new(n) else {
        return Vec::new().into();
    };
    let (t, chunk) = split(threads, n);
    ndpad::threads::share(t, v.as_mut_slice().chunks_mut(chunk), |c| c.fill(1));
    v.into()
}

/// Bytes moved by a pad: input read plus output written (strings: their 16-byte spans
/// and their text).
fn traffic(input: &Tensor, out: &Tensor) -> usize {
    match (input.strings(), out.strings()) {
        (Some(a), Some(b)) => 16 * (a.len() + b.len()) + a.text_len() + b.text_len(),
        _ => input.bytes().map_or(0, <[u8]>::len) + out.bytes().map_or(0, <[u8]>::len),
    }
}

/// What a run checks its outputs against (`--check`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Nothing.
    None,
    /// Every output against a single-threaded `pad_with` output.
    Outputs,
    /// As `Outputs`, and that one against `ndpad::reference::pad`.
    Reference,
}

impl Check {
    fn parse(s: Option<&str>) -> Res<Check> {
        match s.unwrap_or("outputs") {
            "none" => Ok(Check::None),
            "outputs" => Ok(Check::Outputs),
            "reference" => Ok(Check::Reference),
            o => Err(format!("unknown --check {o} (outputs, reference, none)")),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Check::None => "none",
            Check::Outputs => "outputs",
            Check::Reference => "reference",
        }
    }
}

struct Job {
    name: String,
    input: Tensor,
    spec: PadSpec,
    check: Check,
    out: Option<String>,
}

fn entry(
    cache: &str,
    kind: &str,
    threads: usize,
    times: Vec<f64>,
    moved: usize,
    copy_best: Option<f64>,
    copy1_best: Option<f64>,
) -> (Value, f64) {
    let (best, median) = stats(times.clone());
    let mut v = json!({
        "cache": cache,
        "kind": kind,
        "threads": threads,
        "best_s": best,
        "median_s": median,
        "gbps": moved as f64 / best / 1e9,
        "gbps_median": moved as f64 / median / 1e9,
        "times_s": times,
    });
    if let Some(c) = copy_best {
        v["ratio"] = json!(c / best);
    }
    if let Some(c) = copy1_best {
        v["ratio_vs_1t_copy"] = json!(c / best);
    }
    (v, best)
}

fn bench(
    job: &Job,
    threads: &[usize],
    caches: &[&str],
    reps: usize,
    stream_min_bytes: usize,
) -> Res<Value> {
    let input = &job.input;
    let e = |e: ndpad::PadError| format!("{}: {e}", job.name);
    let plan = Plan::new(input.dtype(), input.shape(), &job.spec).map_err(e)?;
    let is_str = input.dtype() == DType::String;
    // The expected output: one single-threaded pad_with.
    let expect = pad_with(input.view(), &job.spec, &PadOptions::single_threaded()).map_err(e)?;
    if job.check == Check::Reference {
        let r = ndpad::reference::pad(input.view(), &job.spec).map_err(e)?;
        if r != expect {
            return Err(format!(
                "{}: ndpad output differs from ndpad::reference",
                job.name
            ));
        }
    }
    let moved = traffic(input, &expect).max(2);
    let half = moved / 2;
    let src = buffer(half, 1);
    let mut dst = buffer(half, 0);
    let mut out_bytes = buffer(plan.output_bytes(), 0);
    let n_strings = if is_str { plan.output_numel() } else { 0 };
    let mut out_strings = ndpad::Strings::filled(n_strings, "").map_err(|e| e.to_string())?;
    let mut ev = Evictor::new();
    let mut results = Vec::new();
    let mut mismatches = Vec::new();
    for &cache in caches {
        let cold = cache == "cold";
        let mut copy1 = None;
        for &t in threads {
            let opts = PadOptions {
                threads: t,
                stream_min_bytes,
                ..PadOptions::default()
            };
            let shape = plan.output_shape().to_vec();
            // Interleaved: each round times the copy, pad_into, the new output's floor,
            // pad_with into new memory (the pool emptied before each of these two) and
            // pad_with again (as in a loop of pads: an untimed pad_with's output just
            // freed, whose memory the allocator or the pool may hand on) once, so a
            // change in machine load affects all alike. Round 0 is a warm-up.
            let mut times: [Vec<f64>; 6] = Default::default();
            let mut last: Option<Tensor> = None;
            let mut floor = ndpad::OwnedBytes::from(Vec::new());
            // Round by round, each contender once a round; or with "repeat" each
            // contender's rounds back to back (its warm-up first).
            let rounds = 0..=reps.max(1);
            let order: Vec<(usize, usize)> = match cache {
                "repeat" => (0..times.len())
                    .flat_map(|k| rounds.clone().map(move |r| (r, k)))
                    .collect(),
                _ => rounds
                    .flat_map(|r| (0..times.len()).map(move |k| (r, k)))
                    .collect(),
            };
            for (i, &(round, k)) in order.iter().enumerate() {
                let slot = &mut times[k];
                // The previous fresh output is freed outside the timing.
                drop(last.take());
                drop(std::mem::replace(&mut floor, Vec::new().into()));
                if k == 4 && (i == 0 || order[i - 1].1 != 4) {
                    // As in a loop of pads, the output just freed was itself written by
                    // one such call, every page of it (the call before, into new pages,
                    // may leave its zero constant to pages it never touched); with
                    // "repeat", the round before was one.
                    drop(black_box(
                        pad_with(input.view(), &job.spec, &opts).map_err(e)?,
                    ));
                }
                if cold {
                    ev.evict();
                }
                if k == 2 || k == 3 {
                    ndpad::PooledBuffer::release_idle();
                }
                let t0 = Instant::now();
                match k {
                    0 => copy_bytes(t, &mut dst, &src, false),
                    5 => copy_bytes(t, &mut dst, &src, true),
                    1 => {
                        let r = if is_str {
                            TensorViewMut::from_strings(&shape, &mut out_strings)
                                .and_then(|mut v| pad_into(input.view(), &job.spec, &mut v, &opts))
                        } else {
                            TensorViewMut::from_bytes(input.dtype(), &shape, &mut out_bytes)
                                .and_then(|mut v| pad_into(input.view(), &job.spec, &mut v, &opts))
                        };
                        r.map_err(e)?;
                    }
                    3 | 4 => {
                        last = Some(black_box(
                            pad_with(input.view(), &job.spec, &opts).map_err(e)?,
                        ))
                    }
                    _ if is_str => {}
                    _ => floor = black_box(fresh_fill(t, plan.output_bytes())),
                }
                let dt = t0.elapsed().as_secs_f64();
                if round > 0 {
                    slot.push(dt);
                }
                if (k == 3 || k == 4) && round == reps.max(1) && last.as_ref() != Some(&expect) {
                    mismatches.push(format!("pad_with ({k}) threads={t}"));
                }
            }
            let same = if is_str {
                expect.strings() == Some(&out_strings)
            } else {
                expect.bytes() == Some(&out_bytes[..])
            };
            if !same {
                mismatches.push(format!("pad_into threads={t}"));
            }
            let [ct, it, ft, nt, wt, st] = times;
            let (v, copy_best) = entry(cache, "copy", t, ct, moved, None, copy1);
            results.push(v);
            if t == 1 {
                copy1 = Some(copy_best);
            }
            let (v, nt_best) = entry(cache, "copy_nt", t, st, moved, Some(copy_best), copy1);
            results.push(v);
            for (kind, times) in [("pad_into", it), ("pad_with", wt), ("pad_with_new", nt)] {
                let (mut v, best) = entry(cache, kind, t, times, moved, Some(copy_best), copy1);
                v["ratio_vs_nt_copy"] = json!(nt_best / best);
                results.push(v);
            }
            if !is_str {
                results.push(entry(cache, "fresh_fill", t, ft, moved, Some(copy_best), copy1).0);
            }
        }
    }
    if let Some(path) = &job.out {
        let f = std::fs::File::create(path).map_err(|x| format!("{path}: {x}"))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        write_npy_to(&mut w, &expect.view()).map_err(|x| format!("{path}: {x}"))?;
        w.flush().map_err(|x| format!("{path}: {x}"))?;
    }
    if job.check != Check::None && !mismatches.is_empty() {
        return Err(format!(
            "{}: outputs differ from the single-threaded pad_with output: {}",
            job.name,
            mismatches.join(", ")
        ));
    }
    let axes: Vec<Value> = job
        .spec
        .axes
        .iter()
        .map(|a| json!([a.begin, a.end, a.interior]))
        .collect();
    Ok(json!({
        "name": job.name,
        "dtype": input.dtype().name(),
        "mode": job.spec.mode.name(),
        "pads": axes,
        "in_shape": input.shape(),
        "out_shape": plan.output_shape(),
        "moved_bytes": moved,
        "reps": reps,
        "threads_available": available(),
        "evict_bytes": ev.buf.len() * 8,
        "stream_min_bytes": stream_min_bytes,
        "huge_page_advice": HUGE.load(std::sync::atomic::Ordering::Relaxed),
        "check": job.check.name(),
        "results": results,
    }))
}

fn f32_tensor(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 - 500.0).collect();
    #[allow(clippy::unwrap_used)]
    Tensor::from_slice(shape, &v).unwrap()
}

/// The ndpad-only workloads: packed sub-byte, strings, interior padding.
fn builtin(name: &str) -> Res<Vec<Job>> {
    // An int4 [n, n - 1] tensor (rows that start inside bytes) and a pad of 1 all round.
    let int4 = |n: usize| {
        let bytes = (0..n * (n - 1) / 2).map(|i| (i * 37 % 251) as u8).collect();
        Tensor::from_bytes(DType::Int4, &[n, n - 1], bytes).map_err(|e| e.to_string())
    };
    let pad1 = || {
        PadSpec::new(
            vec![AxisPad::new(1, 1), AxisPad::new(1, 1)],
            Mode::Constant(None),
        )
    };
    let all = ["int4", "string", "interior"];
    let names: Vec<&str> = if name == "all" {
        all.to_vec()
    } else {
        vec![name]
    };
    names
        .into_iter()
        .map(|n| {
            let (name, input, spec) = match n {
                "int4" => ("int4 [1024,1023] pad 1 constant", int4(1024)?, pad1()),
                "int4big" => ("int4 [4096,4095] pad 1 constant", int4(4096)?, pad1()),
                "string" => (
                    "string [256,256] pad 2 edge",
                    Tensor::from_strings(
                        &[256, 256],
                        (0..65536).map(|i| format!("s{i}")).collect::<Vec<_>>(),
                    )
                    .map_err(|e| e.to_string())?,
                    PadSpec::new(vec![AxisPad::new(2, 2), AxisPad::new(2, 2)], Mode::Edge),
                ),
                "interior" => {
                    let ax = AxisPad {
                        begin: 1,
                        end: 1,
                        interior: 1,
                    };
                    (
                        "f32 [2048,2048] interior 1, pad 1, constant 7",
                        f32_tensor(&[2048, 2048]),
                        PadSpec::new(vec![ax, ax], Mode::Constant(Some(Scalar::from(7.0f32)))),
                    )
                }
                o => {
                    return Err(format!(
                        "unknown builtin {o} (int4, int4big, string, interior, all)"
                    ))
                }
            };
            Ok(Job {
                name: name.into(),
                input,
                spec,
                check: Check::Reference,
                out: None,
            })
        })
        .collect()
}

fn run_cmd(a: &Args) -> Res<Vec<Job>> {
    let path = a.get("--input").ok_or("--input is required")?;
    let file = NpyFile::open(path).map_err(|e| e.to_string())?;
    // An owned, heap-resident input (not the file mapping), as a framework would hold
    // it, in a buffer allocated like numpy's (huge-page advice when large).
    let input = match file.view().data() {
        ndpad::Data::Bytes(b) => {
            let mut v = buffer(b.len(), 0);
            v.copy_from_slice(b);
            Tensor::from_bytes(file.dtype(), file.shape(), v).map_err(|e| e.to_string())?
        }
        ndpad::Data::Strings(_) => file.into_tensor(),
    };
    let rank = input.shape().len();
    let begin = list_i64(a.get("--begin").unwrap_or(""))?;
    let end = list_i64(a.get("--end").unwrap_or(""))?;
    if begin.len() != rank || end.len() != rank {
        return Err(format!(
            "--begin/--end need {rank} values each (input shape {:?})",
            input.shape()
        ));
    }
    let mode = mode_of(
        a.get("--mode").unwrap_or("constant"),
        a.get("--value"),
        input.dtype(),
    )?;
    let mut spec = PadSpec::from_begin_end(&begin, &end, mode).map_err(|e| e.to_string())?;
    match a.get("--negative").unwrap_or("crop-first") {
        "crop-first" => {}
        "original-index" => spec = spec.with_negative(NegativePads::OriginalIndex),
        o => return Err(format!("unknown --negative {o}")),
    }
    Ok(vec![Job {
        name: a.get("--name").unwrap_or(path).to_string(),
        input,
        spec,
        check: Check::parse(a.get("--check"))?,
        out: a.get("--out").map(String::from),
    }])
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let a = Args(argv);
    if a.has("--no-huge-pages") {
        HUGE.store(false, std::sync::atomic::Ordering::Relaxed);
    }
    let go = || -> Res<Value> {
        let jobs = match a.0.first().map(String::as_str) {
            Some("run") => run_cmd(&a)?,
            Some("builtin") => builtin(a.get("--name").unwrap_or("all"))?,
            _ => {
                return Err(
                    "usage: ndpad-bench run --input x.npy --begin B,.. --end E,.. [--mode M] \
                     [--value V] [--negative crop-first|original-index] [--threads 1,2|scaling|all] \
                     [--reps N] [--cache cold,hot,repeat|--cold|--hot] [--out y.npy] [--name N] \
                     [--check outputs|reference|none] [--no-huge-pages] [--stream-min-bytes N]\n       ndpad-bench builtin --name int4|int4big|string|interior|all \
                     [timing options]"
                        .into(),
                )
            }
        };
        let threads = thread_list(a.get("--threads"))?;
        let caches = caches(&a)?;
        let reps = a.num("--reps", 7)?;
        let stream_min = a.num("--stream-min-bytes", PadOptions::default().stream_min_bytes)?;
        let mut out = Vec::new();
        for j in &jobs {
            out.push(bench(j, &threads, &caches, reps, stream_min)?);
        }
        Ok(if out.len() == 1 {
            out.remove(0)
        } else {
            Value::Array(out)
        })
    };
    match go() {
        Ok(v) => {
            println!("{v}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ndpad-bench: error: {e}");
            ExitCode::FAILURE
        }
    }
}
