//! `ndpad onnx-test`: directories in the ONNX backend-test layout.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use ndpad::PadOptions;
use ndpad_formats::onnx::Model;

use crate::args::OnnxTestCmd;
use crate::compare::difference;
use crate::failure::{CmdResult, Failure};
use crate::info::{load_model, print_lines};
use crate::model::{check_declared, Runner};
use crate::progress::Progress;
use crate::tensor_io::{io_text, pad_options, read_tensor_file};

/// What the arguments name.
enum Item {
    /// A data set of a test directory.
    DataSet { test: PathBuf, set: PathBuf },
    /// An argument that could not be used as a test directory.
    Error { path: PathBuf, message: String },
    /// A plain file (e.g. `generate.py` from a shell glob).
    Skip { path: PathBuf },
}

/// The outcome of one data set.
enum Outcome {
    Pass,
    Fail(String),
    Error(String),
}

/// The number after `prefix` in a file name (`input_12.pb` -> 12), for sorting.
fn index_of(name: &str, prefix: &str, suffix: &str) -> Option<u64> {
    name.strip_prefix(prefix)?
        .strip_suffix(suffix)?
        .parse()
        .ok()
}

/// Entries of `dir` named `prefix<N><suffix>`, sorted by N.
fn numbered(dir: &Path, prefix: &str, suffix: &str, dirs: bool) -> Result<Vec<PathBuf>, String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {}", dir.display(), io_text(&e)))?;
    let mut found = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| format!("{}: {}", dir.display(), io_text(&e)))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(n) = index_of(name, prefix, suffix) else {
            continue;
        };
        if entry.path().is_dir() == dirs {
            found.push((n, entry.path()));
        }
    }
    found.sort();
    Ok(found.into_iter().map(|(_, p)| p).collect())
}

fn data_sets(test: &Path, items: &mut Vec<Item>) {
    match numbered(test, "test_data_set_", "", true) {
        Ok(sets) if sets.is_empty() => items.push(Item::Error {
            path: test.to_path_buf(),
            message: "no test_data_set_* directory".into(),
        }),
        Ok(sets) => items.extend(sets.into_iter().map(|set| Item::DataSet {
            test: test.to_path_buf(),
            set,
        })),
        Err(message) => items.push(Item::Error {
            path: test.to_path_buf(),
            message,
        }),
    }
}

fn discover(dirs: &[PathBuf]) -> Vec<Item> {
    let mut items = Vec::new();
    for dir in dirs {
        match std::fs::metadata(dir) {
            Err(e) => items.push(Item::Error {
                path: dir.clone(),
                message: io_text(&e),
            }),
            Ok(m) if !m.is_dir() => items.push(Item::Skip { path: dir.clone() }),
            Ok(_) if dir.join("model.onnx").is_file() => data_sets(dir, &mut items),
            Ok(_) => {
                // A directory of test directories.
                let mut subs: Vec<PathBuf> = match std::fs::read_dir(dir) {
                    Ok(rd) => rd
                        .filter_map(Result::ok)
                        .map(|e| e.path())
                        .filter(|p| p.join("model.onnx").is_file())
                        .collect(),
                    Err(e) => {
                        items.push(Item::Error {
                            path: dir.clone(),
                            message: io_text(&e),
                        });
                        continue;
                    }
                };
                subs.sort();
                if subs.is_empty() {
                    items.push(Item::Error {
                        path: dir.clone(),
                        message: "no model.onnx here, nor in its subdirectories".into(),
                    });
                }
                for s in subs {
                    data_sets(&s, &mut items);
                }
            }
        }
    }
    items
}

fn run_set(model: &Model, set: &Path, opts: &PadOptions) -> Outcome {
    let g = &model.graph;
    let inits: Vec<&str> = g.initializers.iter().map(|t| t.name.as_str()).collect();
    let graph_inputs: Vec<_> = g
        .inputs
        .iter()
        .filter(|v| !inits.contains(&v.name.as_str()))
        .collect();
    let inputs = match numbered(set, "input_", ".pb", false) {
        Ok(i) => i,
        Err(e) => return Outcome::Error(e),
    };
    let outputs = match numbered(set, "output_", ".pb", false) {
        Ok(o) => o,
        Err(e) => return Outcome::Error(e),
    };
    if inputs.len() != graph_inputs.len() {
        return Outcome::Error(format!(
            "{} input_*.pb files for the model's {} graph inputs",
            inputs.len(),
            graph_inputs.len()
        ));
    }
    if outputs.len() != g.outputs.len() {
        return Outcome::Error(format!(
            "{} output_*.pb files for the model's {} graph outputs",
            outputs.len(),
            g.outputs.len()
        ));
    }
    let mut feeds = HashMap::new();
    for (path, info) in inputs.iter().zip(&graph_inputs) {
        let loaded = match read_tensor_file(path, None) {
            Ok(l) => l,
            Err(f) => return Outcome::Error(f.message),
        };
        if let Err(e) = check_declared(&info.name, info, &loaded.view()) {
            return Outcome::Error(format!("{}: {e}", path.display()));
        }
        feeds.insert(info.name.clone(), Rc::new(loaded));
    }
    let runner = Runner {
        model,
        opts: opts.clone(),
    };
    let env = match runner.run(feeds) {
        Ok(env) => env,
        Err(e) => return Outcome::Error(e),
    };
    for (k, (path, info)) in outputs.iter().zip(&g.outputs).enumerate() {
        let expected = match read_tensor_file(path, None) {
            Ok(l) => l,
            Err(f) => return Outcome::Error(f.message),
        };
        let Some(got) = env.get(&info.name) else {
            return Outcome::Error(format!(
                "graph output {:?} is not computed by any node",
                info.name
            ));
        };
        if let Some(d) = difference(&expected.view(), &got.view()) {
            return Outcome::Fail(format!("output {k} {:?}: {d}", info.name));
        }
    }
    Outcome::Pass
}

/// `ndpad onnx-test`.
pub fn onnx_test(cmd: &OnnxTestCmd) -> CmdResult {
    let items = discover(&cmd.dirs);
    let opts = pad_options(&cmd.exec);
    let sets = items
        .iter()
        .filter(|i| matches!(i, Item::DataSet { .. }))
        .count();
    let progress = Progress::bar(sets as u64, "onnx-test");
    let (mut pass, mut fail, mut error, mut skip) = (0usize, 0usize, 0usize, 0usize);
    let mut models: HashMap<PathBuf, Result<Model, String>> = HashMap::new();
    for item in &items {
        crate::interrupt::check()?;
        let line = match item {
            Item::Skip { path } => {
                skip += 1;
                format!("SKIP {}: not a directory", path.display())
            }
            Item::Error { path, message } => {
                error += 1;
                format!("ERROR {}: {message}", path.display())
            }
            Item::DataSet { test, set } => {
                let model = models.entry(test.clone()).or_insert_with(|| {
                    load_model(&test.join("model.onnx")).map_err(|f: Failure| f.message)
                });
                let outcome = match model {
                    Ok(m) => run_set(m, set, &opts),
                    Err(e) => Outcome::Error(e.clone()),
                };
                progress.inc();
                match outcome {
                    Outcome::Pass => {
                        pass += 1;
                        format!("PASS {}", set.display())
                    }
                    Outcome::Fail(m) => {
                        fail += 1;
                        format!("FAIL {}: {m}", set.display())
                    }
                    Outcome::Error(m) => {
                        error += 1;
                        format!("ERROR {}: {m}", set.display())
                    }
                }
            }
        };
        progress.suspend(|| print_lines(&[line]))?;
    }
    progress.finish();
    let mut summary = format!("{pass} passed, {fail} failed, {error} errors");
    if skip > 0 {
        summary.push_str(&format!(", {skip} skipped"));
    }
    if sets == 0 {
        summary.push_str(" (no data sets found)");
    }
    print_lines(&[summary])?;
    Ok(if fail == 0 && error == 0 && sets > 0 {
        0
    } else {
        crate::failure::REJECTED
    })
}
