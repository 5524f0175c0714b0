//! Pads a zarr array by the same width on every side and prints the report:
//! `zarr_pad IN OUT MODE PAD [THREADS] [MAX_MEMORY]` (modes: constant, edge, reflect,
//! symmetric, wrap).

use ndpad::{AxisPad, Mode, PadSpec};
use ndpad_zarr::{ZarrArray, ZarrPadOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        return Err("usage: zarr_pad IN OUT MODE PAD [THREADS] [MAX_MEMORY]".into());
    }
    let input = ZarrArray::open(args[1].as_ref())?;
    let mode = match args[3].as_str() {
        "constant" => Mode::Constant(None),
        "edge" => Mode::Edge,
        "reflect" => Mode::Reflect,
        "symmetric" => Mode::Symmetric,
        "wrap" => Mode::Wrap,
        m => return Err(format!("mode {m:?}").into()),
    };
    let p: i64 = args[4].parse()?;
    let spec = PadSpec::new(vec![AxisPad::new(p, p); input.shape().len()], mode);
    let opts = ZarrPadOptions {
        threads: args.get(5).map_or(Ok(0), |t| t.parse())?,
        max_memory: args.get(6).map(|m| m.parse()).transpose()?,
        ..ZarrPadOptions::default()
    };
    let start = std::time::Instant::now();
    let report = ndpad_zarr::pad_array(&input, args[2].as_ref(), &spec, &opts)?;
    println!("{report:?} in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
