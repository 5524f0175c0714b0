//! A stable-Rust fuzz driver for the same targets as `fuzz_targets/`: for machines
//! where cargo-fuzz (libFuzzer, nightly flags) cannot run. No coverage feedback: it
//! replays the seed corpus, then mutates corpus entries at random (bit flips,
//! interesting values, inserts, deletes, splices) for the given time.
//!
//! ```text
//! cargo run --release --example stable -- TARGET [--seconds N] [--seed S]
//!     [--corpus DIR]... [--artifacts DIR]
//! cargo run --release --example stable -- TARGET --replay FILE...
//! ```
//!
//! Exit status: 0 when nothing failed, 1 after a crash (the input is written to the
//! artifacts directory, default `fuzz/artifacts/TARGET/`), 2 on a usage error.

use std::panic;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const INTERESTING: [u64; 12] = [
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0xffff,
    0x7fff_ffff,
    0xffff_ffff,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
];

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, pool: &[Vec<u8>], max_len: usize) {
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        match rng.below(9) {
            0 if !input.is_empty() => {
                let i = rng.below(input.len());
                input[i] ^= 1 << rng.below(8);
            }
            1 if !input.is_empty() => {
                let i = rng.below(input.len());
                input[i] = rng.next() as u8;
            }
            2 if !input.is_empty() => {
                let v = INTERESTING[rng.below(INTERESTING.len())];
                let w = [1, 2, 4, 8][rng.below(4)];
                let i = rng.below(input.len());
                for (k, b) in v.to_le_bytes()[..w].iter().enumerate() {
                    if let Some(x) = input.get_mut(i + k) {
                        *x = *b;
                    }
                }
            }
            3 => {
                let i = rng.below(input.len() + 1);
                let n = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                input.splice(i..i, bytes);
            }
            4 if !input.is_empty() => {
                let i = rng.below(input.len());
                let n = 1 + rng.below((input.len() - i).min(32));
                input.drain(i..i + n);
            }
            5 if !input.is_empty() => {
                let i = rng.below(input.len());
                let n = 1 + rng.below((input.len() - i).min(32));
                let copy = input[i..i + n].to_vec();
                let j = rng.below(input.len() + 1);
                input.splice(j..j, copy);
            }
            6 if !pool.is_empty() => {
                let other = &pool[rng.below(pool.len())];
                if !other.is_empty() {
                    let i = rng.below(other.len());
                    let n = 1 + rng.below(other.len() - i);
                    let j = rng.below(input.len() + 1);
                    input.splice(j..j, other[i..i + n].iter().copied());
                }
            }
            7 if !input.is_empty() => {
                let n = rng.below(input.len());
                input.truncate(n);
            }
            _ => {
                let i = rng.below(input.len() + 1);
                let c = b"0123456789-,()[]{}' :<>|"[rng.below(24)];
                input.insert(i, c);
            }
        }
    }
    input.truncate(max_len);
}

fn load_dir(dir: &Path, out: &mut Vec<Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_file() {
            if let Ok(b) = std::fs::read(&p) {
                out.push(b);
            }
        }
    }
}

fn hash(data: &[u8]) -> u64 {
    // FNV-1a: a stable name for a crash file.
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn run_one(target: &str, data: &[u8]) -> Result<(), String> {
    panic::catch_unwind(|| ndpad_fuzz::run(target, data)).map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic".into())
    })
}

fn usage() -> ! {
    eprintln!(
        "usage: stable TARGET [--seconds N] [--seed S] [--max-len N] [--corpus DIR]... [--artifacts DIR]\n       stable TARGET --replay FILE...\ntargets: {}",
        ndpad_fuzz::TARGETS.join(", ")
    );
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(target) = args.first().cloned() else {
        usage()
    };
    if !ndpad_fuzz::TARGETS.contains(&target.as_str()) {
        usage();
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seconds = 10u64;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut max_len = 4096usize;
    let mut corpora: Vec<PathBuf> = Vec::new();
    let mut artifacts = here.join("artifacts").join(&target);
    let mut replay: Option<Vec<PathBuf>> = None;
    let mut it = args[1..].iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().unwrap_or_else(|| usage());
        match a.as_str() {
            "--seconds" => seconds = val().parse().unwrap_or_else(|_| usage()),
            "--seed" => seed = val().parse().unwrap_or_else(|_| usage()),
            "--max-len" => max_len = val().parse().unwrap_or_else(|_| usage()),
            "--corpus" => corpora.push(PathBuf::from(val())),
            "--artifacts" => artifacts = PathBuf::from(val()),
            "--replay" => {
                replay = Some(it.by_ref().map(PathBuf::from).collect());
                break;
            }
            _ => usage(),
        }
    }
    // Quiet panics: the driver reports them itself.
    panic::set_hook(Box::new(|_| {}));

    if let Some(files) = replay {
        let mut failed = 0;
        for f in &files {
            let data = std::fs::read(f).unwrap_or_else(|e| {
                eprintln!("{}: {e}", f.display());
                std::process::exit(2)
            });
            if let Err(msg) = run_one(&target, &data) {
                eprintln!("CRASH {}: {msg}", f.display());
                failed += 1;
            }
        }
        println!(
            "{target}: replayed {} inputs, {failed} crashed",
            files.len()
        );
        std::process::exit(i32::from(failed > 0));
    }

    if corpora.is_empty() {
        corpora.push(here.join("corpus").join(&target));
    }
    let mut pool = Vec::new();
    for c in &corpora {
        load_dir(c, &mut pool);
    }
    let seeds = pool.len();
    let mut rng = Rng(seed | 1);
    let start = Instant::now();
    let deadline = Duration::from_secs(seconds);
    let mut execs: u64 = 0;
    let mut queue: Vec<Vec<u8>> = pool.clone();
    loop {
        let input = if let Some(s) = queue.pop() {
            s
        } else {
            if start.elapsed() >= deadline {
                break;
            }
            let mut x = if pool.is_empty() || rng.below(16) == 0 {
                let n = rng.below(256);
                (0..n).map(|_| rng.next() as u8).collect()
            } else {
                pool[rng.below(pool.len())].clone()
            };
            mutate(&mut rng, &mut x, &pool, max_len);
            x
        };
        execs += 1;
        if let Err(msg) = run_one(&target, &input) {
            let _ = std::fs::create_dir_all(&artifacts);
            let path = artifacts.join(format!("crash-{:016x}", hash(&input)));
            let _ = std::fs::write(&path, &input);
            eprintln!(
                "CRASH in {target} after {execs} execs: {msg}\ninput written to {}",
                path.display()
            );
            std::process::exit(1);
        }
        // Keep a bounded, changing pool of mutants to mutate further.
        if rng.below(32) == 0 {
            if pool.len() < seeds + 4096 {
                pool.push(input);
            } else {
                let i = seeds + rng.below(pool.len() - seeds);
                pool[i] = input;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{target}: {execs} execs in {secs:.1}s ({:.0}/s), {seeds} seeds, no crash",
        execs as f64 / secs.max(1e-9)
    );
}
