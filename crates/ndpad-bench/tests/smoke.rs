//! Runs the `ndpad-bench` binary on tiny inputs and checks its JSON.

use std::process::Command;

use ndpad::Tensor;
use ndpad_formats::npy::{read_npy, write_npy};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ndpad-bench"))
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn run_writes_the_padded_output_and_timings() {
    let dir = std::env::temp_dir().join(format!("ndpad-bench-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let x = Tensor::from_slice(&[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    std::fs::write(dir.join("x.npy"), write_npy(&x.view()).unwrap()).unwrap();
    let out = bin()
        .args(["run", "--input", "x.npy", "--begin", "0,1", "--end", "1,1"])
        .args([
            "--mode",
            "reflect",
            "--threads",
            "1,2",
            "--reps",
            "2",
            "--hot",
        ])
        .args(["--out", "y.npy", "--check", "reference"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let v = json(&out);
    assert_eq!(v["out_shape"], serde_json::json!([3, 5]));
    assert_eq!(v["moved_bytes"], 24 + 60);
    let kinds: Vec<_> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_string(),
                r["threads"].as_u64().unwrap(),
            )
        })
        .collect();
    // copy, copy_nt (non-temporal stores), pad_into, pad_with (reused outputs),
    // pad_with_new (the pool emptied) and the fresh output's floor, at 1 and 2 threads.
    assert_eq!(kinds.len(), 12);
    assert!(kinds.contains(&("copy_nt".into(), 2)));
    assert!(v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "pad_into")
        .all(|r| r["ratio_vs_nt_copy"].as_f64().is_some_and(|x| x > 0.0)));
    assert!(kinds.contains(&("pad_with".into(), 2)));
    assert!(kinds.contains(&("pad_with_new".into(), 1)));
    assert!(kinds.contains(&("fresh_fill".into(), 1)));
    let y = read_npy(&std::fs::read(dir.join("y.npy")).unwrap()).unwrap();
    assert_eq!(
        y.to_vec::<f32>().unwrap(),
        vec![2.0, 1.0, 2.0, 3.0, 2.0, 5.0, 4.0, 5.0, 6.0, 5.0, 2.0, 1.0, 2.0, 3.0, 2.0]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn builtin_rows_match_the_reference() {
    let out = bin()
        .args([
            "builtin",
            "--name",
            "all",
            "--reps",
            "1",
            "--threads",
            "1,2",
            "--cold",
        ])
        .env("NDPAD_BENCH_EVICT_MIB", "4")
        .output()
        .unwrap();
    let v = json(&out);
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["check"] == "reference"));
}

/// `--check` says what the outputs were checked against, in the JSON; an unknown
/// value is refused, naming it and the choices.
#[test]
fn check_choices() {
    let dir = std::env::temp_dir().join(format!("ndpad-bench-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let x = Tensor::from_slice(&[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    std::fs::write(dir.join("x.npy"), write_npy(&x.view()).unwrap()).unwrap();
    let run = |check: Option<&str>| {
        let mut c = bin();
        c.args(["run", "--input", "x.npy", "--begin", "0,1", "--end", "1,1"])
            .args(["--reps", "1", "--hot", "--threads", "1"])
            .current_dir(&dir);
        if let Some(k) = check {
            c.args(["--check", k]);
        }
        c.output().unwrap()
    };
    assert_eq!(json(&run(None))["check"], "outputs");
    assert_eq!(json(&run(Some("none")))["check"], "none");
    let out = run(Some("all"));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.contains("unknown --check all (outputs, reference, none)"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_fail() {
    let out = bin()
        .args(["run", "--input", "/nonexistent.npy"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nonexistent"));
}

#[test]
fn repeat_cache_and_stream_threshold() {
    // Back to back, every output around the cache: still checked (a difference
    // exits with status 1), the state and the threshold in the JSON.
    let out = bin()
        .args([
            "builtin",
            "--name",
            "interior",
            "--reps",
            "2",
            "--threads",
            "1",
        ])
        .args(["--cache", "repeat", "--stream-min-bytes", "0"])
        .output()
        .unwrap();
    let v = json(&out);
    assert_eq!(v["stream_min_bytes"], 0);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 6);
    assert!(results.iter().all(|r| r["cache"] == "repeat"));
    let out = bin()
        .args(["builtin", "--name", "int4", "--cache", "warm"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown cache state warm"));
}
