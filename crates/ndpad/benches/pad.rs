//! `cargo bench -p ndpad`: every workload of `workloads.rs`, each beside a plain
//! memory copy of the same number of bytes, measured in the same run. Criterion
//! reports throughput over the bytes moved (input read + output written) for both, so
//! their ratio is ndpad's speed relative to a copy.
//!
//! `NDPAD_BENCH_SCALE=4` divides the large workloads by 4; `NDPAD_BENCH_ONLY=narrow`
//! keeps the workloads whose name contains the text.

mod workloads;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndpad::{pad_into, pad_with, PadOptions, Plan, TensorViewMut};

fn bench(c: &mut Criterion) {
    let scale = std::env::var("NDPAD_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let only = std::env::var("NDPAD_BENCH_ONLY").unwrap_or_default();
    for w in workloads::workloads(scale, &only) {
        let plan = Plan::new(w.input.dtype(), w.input.shape(), &w.spec).unwrap();
        let moved = workloads::traffic(&w, plan.output_bytes(), plan.output_numel()).max(2);
        let mut group = c.benchmark_group(w.name);
        group
            .sample_size(10)
            .throughput(Throughput::Bytes(moved as u64));
        let src = vec![1u8; moved / 2];
        let mut dst = vec![0u8; moved / 2];
        group.bench_function("copy", |b| {
            b.iter(|| dst.copy_from_slice(std::hint::black_box(&src)))
        });
        for (label, opts) in [
            ("1 thread", PadOptions::single_threaded()),
            ("all threads", PadOptions::default()),
        ] {
            if let Some(bytes) = w.input.bytes().map(|_| plan.output_bytes()) {
                let mut out = vec![0u8; bytes];
                group.bench_function(BenchmarkId::new("pad_into", label), |b| {
                    b.iter(|| {
                        let mut v = TensorViewMut::from_bytes(
                            w.input.dtype(),
                            plan.output_shape(),
                            &mut out,
                        )
                        .unwrap();
                        pad_into(w.input.view(), &w.spec, &mut v, &opts).unwrap();
                    })
                });
            }
            group.bench_function(BenchmarkId::new("pad_with (fresh output)", label), |b| {
                b.iter(|| pad_with(w.input.view(), &w.spec, &opts).unwrap())
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
