//! The hostile-input corpus (`testdata/hostile/manifest.json`, made by
//! `testdata/hostile/generate.py`): every malformed file, lying header, huge pad and
//! escaping path, run through the CLI under a 1 GiB address-space limit. Each must
//! be refused with exit code 1 (or give the stated result), a message naming the
//! problem, no panic, and no output left behind.

use std::path::{Path, PathBuf};
use std::time::Duration;

const MEMORY_LIMIT_KIB: u64 = 1 << 20;

fn hostile_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/hostile")
}

#[test]
fn hostile_corpus_is_refused_cleanly_within_a_memory_limit() {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(hostile_dir().join("manifest.json")).unwrap(),
    )
    .unwrap();
    let cases = manifest["files"].as_array().unwrap();
    assert!(cases.len() >= 80, "the corpus has {} cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let hostile = hostile_dir();
        let sub = |s: &str| {
            s.replace("{hostile}", hostile.to_str().unwrap())
                .replace("{tmp}", tmp.path().to_str().unwrap())
        };
        let args: Vec<String> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| sub(a.as_str().unwrap()))
            .collect();
        // `ulimit -v` bounds the address space: an attempt to allocate what a lying
        // header claims would fail (and show up as a crash) instead of swapping.
        let script = format!("ulimit -v {MEMORY_LIMIT_KIB} && exec \"$0\" \"$@\"");
        let out = assert_cmd::Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_ndpad"))
            .args(&args)
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_lowercase();
        let stdout = String::from_utf8_lossy(&out.stdout).to_lowercase();
        let mut problems = Vec::new();
        let want_exit = case["exit"].as_i64().unwrap() as i32;
        if out.status.code() != Some(want_exit) {
            problems.push(format!(
                "exit {:?}, expected {want_exit}",
                out.status.code()
            ));
        }
        if stderr.contains("panicked") {
            problems.push("panicked".to_string());
        }
        for (key, text) in [("stderr_contains", &stderr), ("stdout_contains", &stdout)] {
            if let Some(want) = case.get(key).and_then(|v| v.as_str()) {
                if !text.contains(&want.to_lowercase()) {
                    problems.push(format!("{key} {want:?} missing"));
                }
            }
        }
        for o in case["no_output"].as_array().unwrap() {
            if Path::new(&sub(o.as_str().unwrap())).exists() {
                problems.push(format!("left {} behind", o));
            }
        }
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        if !left.is_empty() {
            problems.push(format!("{} files left in the output directory", left.len()));
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{name}: {} (stderr: {})",
                problems.join("; "),
                stderr.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} hostile cases misbehaved:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
