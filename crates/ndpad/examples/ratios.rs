//! Prints, for every benchmark workload, ndpad's speed as a ratio to a plain memory
//! copy of the same number of bytes measured in the same run (1 thread and all
//! threads; into a fresh output and into a reused one).
//!
//! `cargo run --release -p ndpad --example ratios [-- --scale N --reps N]`

#[path = "../benches/workloads.rs"]
mod workloads;

use std::time::{Duration, Instant};

use ndpad::{pad_into, pad_with, DType, PadOptions, Plan, Tensor, TensorViewMut};

fn best<F: FnMut()>(reps: usize, mut f: F) -> Duration {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let scale = arg("--scale", 1);
    let reps = arg("--reps", 7);
    let threads = rayon::current_num_threads();
    println!("threads available: {threads}; best of {reps}; ratio = copy time / pad time (same bytes moved)");
    println!(
        "{:<26} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "workload", "MB moved", "1t-into", "1t-new", "Nt-into", "Nt-new"
    );
    let filter = std::env::args()
        .skip_while(|a| a != "--only")
        .nth(1)
        .unwrap_or_default();
    for w in workloads::workloads(scale, &filter) {
        let plan = Plan::new(w.input.dtype(), w.input.shape(), &w.spec).unwrap();
        let out_bytes = plan.output_bytes();
        let moved = workloads::traffic(&w, out_bytes, plan.output_numel()).max(1);
        // The copy baseline: memcpy of half the traffic (it reads and writes it).
        let half = moved / 2;
        let src = vec![1u8; half];
        let mut dst = vec![0u8; half];
        let copy = best(reps, || dst.copy_from_slice(std::hint::black_box(&src)));
        let one = PadOptions::single_threaded();
        let all = PadOptions::default();
        let mut ratios = Vec::new();
        if std::env::var_os("NDPAD_PROFILE_INTO").is_some() {
            let mut out = vec![0u8; out_bytes];
            for _ in 0..reps {
                let mut v =
                    TensorViewMut::from_bytes(w.input.dtype(), plan.output_shape(), &mut out)
                        .unwrap();
                pad_into(w.input.view(), &w.spec, &mut v, &one).unwrap();
            }
            continue;
        }
        for opts in [&one, &all] {
            let into = if w.input.dtype() == DType::String {
                let mut out = ndpad::Strings::filled(plan.output_numel(), "").unwrap();
                best(reps, || {
                    let mut v = TensorViewMut::from_strings(plan.output_shape(), &mut out).unwrap();
                    pad_into(w.input.view(), &w.spec, &mut v, opts).unwrap();
                })
            } else {
                let mut out = vec![0u8; out_bytes];
                best(reps, || {
                    let mut v =
                        TensorViewMut::from_bytes(w.input.dtype(), plan.output_shape(), &mut out)
                            .unwrap();
                    pad_into(w.input.view(), &w.spec, &mut v, opts).unwrap();
                })
            };
            let fresh = best(reps, || {
                let t: Tensor = pad_with(w.input.view(), &w.spec, opts).unwrap();
                std::hint::black_box(t);
            });
            ratios.push(copy.as_secs_f64() / into.as_secs_f64());
            ratios.push(copy.as_secs_f64() / fresh.as_secs_f64());
        }
        println!(
            "{:<26} {:>9.1} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
            w.name,
            moved as f64 / 1e6,
            ratios[0],
            ratios[1],
            ratios[2],
            ratios[3]
        );
    }
}
