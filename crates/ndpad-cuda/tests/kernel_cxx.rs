//! The kernel text itself, without a GPU: each module's source is compiled by the
//! host's C++ compiler (CUDA's qualifiers defined away, the grid simulated by loops
//! over a small grid, so the grid-stride loop goes round many times) and run on random
//! pads, its bytes compared with the CPU kernel's. Skips where there is no `c++`.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use ndpad::{DType, Layout, Plan};
use ndpad_cuda::kernel::{gather_name, vector_name, Variant, PACK, UNPACK};
use ndpad_cuda::{GatherPlan, Launch, PARAM_WORDS, WIDTHS};
use proptest::prelude::*;

const HOST_PRELUDE: &str = r#"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
static inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return (unsigned int)(((unsigned long long)a * b) >> 32);
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
struct ndpad_dim3 { unsigned int x, y, z; };
static ndpad_dim3 blockIdx, blockDim, gridDim, threadIdx;
"#;

const HOST_MAIN: &str = r#"
typedef unsigned long long u64;
static u64 get(void) { u64 v; if (fread(&v, 8, 1, stdin) != 1) exit(2); return v; }
static void* take(u64 n) {
  void* p = aligned_alloc(16, (n + 16) / 16 * 16);
  if (n && fread(p, 1, n, stdin) != n) exit(3);
  return p;
}
int main(void) {
  const u64 grid = get(), block = get();
  gridDim.x = (unsigned)grid; blockDim.x = (unsigned)block;
  RUN
  return 0;
}
"#;

const GATHER_RUN: &str = r#"
  const u64 nmaps = get(), in_len = get(), out_len = get(), vector = get();
  ndpad_params p;
  if (fread(&p, 8, PARAM_WORDS, stdin) != PARAM_WORDS || sizeof p != 8 * PARAM_WORDS) exit(4);
  long long* maps = (long long*)take(8 * nmaps);
  void* in = take(in_len);
  void* out = aligned_alloc(16, (out_len + 16) / 16 * 16);
  for (u64 b = 0; b < grid; ++b)
    for (u64 t = 0; t < block; ++t) {
      blockIdx.x = (unsigned)b; threadIdx.x = (unsigned)t;
      if (vector) VECTOR((ELEM*)out, (const ELEM*)in, maps, p);
      else KERNEL((ELEM*)out, (const ELEM*)in, maps, p);
    }
  fwrite(out, 1, out_len, stdout);
"#;

const PACKED_RUN: &str = r#"
  const u64 pack = get(), n = get(), bits = get(), in_len = get(), out_len = get();
  unsigned char* in = (unsigned char*)take(in_len);
  unsigned char* out = (unsigned char*)calloc(out_len + 1, 1);
  for (u64 b = 0; b < grid; ++b)
    for (u64 t = 0; t < block; ++t) {
      blockIdx.x = (unsigned)b; threadIdx.x = (unsigned)t;
      if (pack) ndpad_pack(out, in, n, (unsigned)bits);
      else ndpad_unpack(out, in, n, (unsigned)bits);
    }
  fwrite(out, 1, out_len, stdout);
"#;

const GRID: u64 = 3;
const BLOCK: u64 = 7;

fn elem_type(width: usize) -> &'static str {
    match width {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        8 => "unsigned long long",
        _ => "ndpad_v16",
    }
}

/// The host programs, one per variant and index width (`true`: the gather's 64-bit
/// index path, forced with `-DNDPAD_INDEX32_MAX=0`), or why there are none.
type Programs = Vec<((Variant, bool), PathBuf)>;

fn programs() -> Result<&'static Programs, &'static str> {
    static PROGS: OnceLock<Result<Programs, String>> = OnceLock::new();
    PROGS
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ndpad-cuda-kernel-cxx");
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let mut variants: Vec<(Variant, bool)> = WIDTHS
                .iter()
                .flat_map(|&w| [(Variant::Gather(w), false), (Variant::Gather(w), true)])
                .collect();
            variants.push((Variant::Packed, false));
            variants
                .into_iter()
                .map(|(v, wide)| {
                    let run = match v {
                        Variant::Gather(w) => GATHER_RUN
                            .replace("KERNEL", &gather_name(w))
                            .replace("VECTOR", &vector_name(w))
                            .replace("PARAM_WORDS", &PARAM_WORDS.to_string())
                            .replace("ELEM", elem_type(w)),
                        Variant::Packed => PACKED_RUN.to_string(),
                    };
                    let text = format!(
                        "{HOST_PRELUDE}{}{}",
                        v.source().unwrap(),
                        HOST_MAIN.replace("RUN", &run)
                    );
                    let name = format!("{v:?}{}", if wide { "-index64" } else { "" })
                        .replace(['(', ')'], "");
                    let src = dir.join(format!("{name}.cpp"));
                    let exe = dir.join(name);
                    std::fs::write(&src, text).map_err(|e| e.to_string())?;
                    let mut cmd = Command::new("c++");
                    cmd.args(["-std=c++17", "-O1", "-fno-strict-aliasing", "-Wall", "-o"])
                        .arg(&exe)
                        .arg(&src);
                    if wide {
                        cmd.arg("-DNDPAD_INDEX32_MAX=0");
                    }
                    let out = cmd
                        .output()
                        .map_err(|e| format!("no host C++ compiler (c++): {e}"))?;
                    if !out.status.success() {
                        panic!(
                            "the kernel text does not compile as C++ ({}):\n{}",
                            src.display(),
                            String::from_utf8_lossy(&out.stderr)
                        );
                    }
                    Ok(((v, wide), exe))
                })
                .collect()
        })
        .as_ref()
        .map_err(|e| e.as_str())
}

fn program(v: Variant, wide: bool) -> &'static Path {
    &programs()
        .unwrap()
        .iter()
        .find(|(k, _)| *k == (v, wide))
        .unwrap()
        .1
}

fn run(exe: &Path, header: &[u64], blobs: &[&[u8]]) -> Vec<u8> {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut bytes: Vec<u8> = [GRID, BLOCK]
        .iter()
        .chain(header)
        .flat_map(|v| v.to_le_bytes())
        .collect();
    for b in blobs {
        bytes.extend_from_slice(b);
    }
    stdin.write_all(&bytes).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{} failed: {:?}",
        exe.display(),
        out.status
    );
    out.stdout
}

/// The compiled gather at `width` on working-layout bytes, with the 64-bit index
/// path forced (`wide`), and 16-byte stores where `vector`.
fn gather(gp: &GatherPlan, width: usize, wide: bool, vector: bool, input: &[u8]) -> Vec<u8> {
    let args = gp.args(width).unwrap();
    let params: Vec<u8> = gp
        .params(&args)
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let maps: Vec<u8> = gp.maps().iter().flat_map(|v| v.to_le_bytes()).collect();
    run(
        program(Variant::Gather(width), wide),
        &[
            gp.maps().len() as u64,
            input.len() as u64,
            args.total * width as u64,
            u64::from(vector),
        ],
        &[&params, &maps, input],
    )
}

fn packed(kernel: &str, n: u64, bits: u32, input: &[u8]) -> Vec<u8> {
    let pack = kernel == PACK;
    let out_len = if pack {
        n.div_ceil(u64::from(8 / bits))
    } else {
        n
    };
    run(
        program(Variant::Packed, false),
        &[
            u64::from(pack),
            n,
            u64::from(bits),
            input.len() as u64,
            out_len,
        ],
        &[input],
    )
}

/// The device pipeline, each kernel the compiled text: unpack, gather, pack.
fn pad(gp: &GatherPlan, launch: Launch, wide: bool, input: &[u8]) -> Vec<u8> {
    let (width, vector) = (launch.width.unwrap(), launch.vector.unwrap());
    match gp.packed_bits() {
        None => gather(gp, width, wide, vector, input),
        Some(bits) => {
            let wide_index = wide;
            let wide = packed(UNPACK, gp.input_numel(), bits, input);
            let out = gather(gp, width, wide_index, vector, &wide);
            packed(PACK, gp.output_numel(), bits, &out)
        }
    }
}

#[test]
fn compiled_kernel_text_matches_the_cpu_kernel() {
    if let Err(why) = programs() {
        eprintln!("skipped: {why}");
        return;
    }
    common::run(1000, |c| {
        let Some(want) = common::cpu(c) else {
            return Ok(());
        };
        let gp = GatherPlan::new(&Plan::new(c.dtype, &c.shape, &c.spec).unwrap()).unwrap();
        if gp.output_numel() == 0 {
            return Ok(());
        }
        for w in common::widths(&gp) {
            for (index64, vector) in [(false, false), (true, false), (false, true), (true, true)] {
                let launch = Launch {
                    width: Some(w),
                    vector: Some(vector),
                };
                let got = pad(&gp, launch, index64, &c.input);
                prop_assert_eq!(&got, &want, "{:?} index64 {}: {:?}", launch, index64, c);
            }
        }
        Ok(())
    });
}

#[test]
fn compiled_packing_matches_the_core() {
    if let Err(why) = programs() {
        eprintln!("skipped: {why}");
        return;
    }
    for dtype in DType::ALL {
        let Layout::Packed(bits) = dtype.layout() else {
            continue;
        };
        for n in [1usize, 2, 3, 5, 8, 29, 64, 65] {
            let mut bytes: Vec<u8> = (0..dtype.byte_len(n).unwrap())
                .map(|i| (i * 73 + 5) as u8)
                .collect();
            ndpad::packed::clear_unused_bits(&mut bytes, bits, n);
            let wide = packed(UNPACK, n as u64, bits, &bytes);
            assert_eq!(wide, ndpad::packed::unpack(&bytes, bits, n).unwrap());
            assert_eq!(packed(PACK, n as u64, bits, &wide), bytes, "{dtype} n={n}");
        }
    }
}
