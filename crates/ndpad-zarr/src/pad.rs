//! A zarr array padded into another, chunk by chunk ([`pad`], [`pad_array`]).
//!
//! The output keeps the input's metadata (data type, chunk grid and chunk key
//! encoding, codecs, fill value, dimension names, attributes) with the padded shape,
//! and [`ZarrPadOptions::chunks`] as its chunk shape when given. Its chunks are
//! computed in parallel (rayon), each from only the input region it reads: per output
//! chunk, [`Plan::window`] with [`Source::Region`] gives that region, which is
//! assembled from the input chunks it overlaps (`feed.rs`): the first piece to
//! read a compressed input chunk decodes it whole and keeps for the pieces that read
//! it later only their parts (for a shift by the pads, slabs as thick as the pad at
//! the chunk's faces), never the decoded chunk; an input whose codecs read parts
//! (the `bytes` codec alone) is read part by part. A chunk whose window would read a
//! region larger than itself along an axis (a wrap pad whose chunk straddles the
//! seam reads both ends of the axis) is split there into pieces that each read no
//! more than their own extent. A chunk that comes out as nothing but the fill value
//! is not stored, as zarr allows. The output is written to a directory beside the
//! destination and moved into place only when every chunk is written and synced.
//! The threads take output chunks in C order, the next one as each finishes, write
//! each as soon as it is padded, and reuse their buffers.
//!
//! Memory is bounded by [`ZarrPadOptions::max_memory`] (see `Budget`): each thread
//! is counted its buffers at their largest (three output chunks and the largest of a
//! decoded input chunk with its encoding, an output chunk's encoding, or a pooled
//! output chunk), and the parts kept get the rest; fewer threads run where the
//! budget holds fewer (a budget too small for one thread is refused before any
//! work, [`ZarrError::ChunkOverBudget`] naming both numbers). Parts that do not fit
//! are not kept: their input chunk is decoded again, slower, never larger. Not
//! counted: the codecs' own state (a zstd context, a few MiB per thread), ~100 bytes
//! of bookkeeping per output chunk (its file's path, synced at the end), and what
//! the allocator keeps of freed memory (the library never tunes the allocator).
//! String arrays (variable-length) are read whole and padded in memory.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ndpad::{DType, Interrupt, PadError, PadOptions, PadSpec, Plan, Seg, Source, Tensor};
use ndpad::{TensorView, TensorViewMut};
use zarrs::array::{
    Array, ArrayBytes, ArrayMetadata, ArrayMetadataV3, ArrayToBytesCodecTraits,
    BytesRepresentation, CodecOptions, CodecTraits, FillValue,
};
use zarrs::metadata::v3::MetadataV3;
use zarrs::storage::ReadableStorageTraits;

use crate::feed::{Axes, Feed, Reader};
use crate::memory::{chunk_place, edge_chunk, embed, read_strings, ChunkPlace, NewArray};
use crate::node::{array_json, check_output, dtype_of, element_bytes};
use crate::stage::StagedDir;
use crate::{ZarrError, DEFAULT_MAX_CHUNKS};

/// The default memory budget of a pad ([`ZarrPadOptions::max_memory`]): 1 GiB, a
/// few windows of the CLI's out-of-core pads (256 MiB each).
pub const DEFAULT_MAX_MEMORY: u64 = 1 << 30;

/// How often the calling thread asks the interrupt while the workers pad.
const WATCH_MS: u64 = 10;

/// The parts kept get what a shift keeps at once and 1/this more: the threads'
/// chunks in flight overlap the steps, so a little more is live than one step holds.
const PARTS_EXTRA_DIV: u64 = 2;

/// The parts are given at most 1/this of the budget before a thread is dropped for
/// them: beyond that a thread's buffers are worth more than the decodes saved.
const PARTS_MAX_DIV: u64 = 2;

/// Parts are kept for pieces up to this many steps along the first axis ahead (a
/// shift reads each input chunk from the output chunks one step further along).
const HORIZON_STEPS: u64 = 2;

/// What a pad is doing, for [`Progress::Stage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Reading a string array whole and padding it in memory.
    Padding,
    /// Writing chunks of a tensor held in memory.
    Writing,
    /// Syncing the chunk files written.
    Syncing,
    /// Moving the staged output into place.
    Moving,
}

/// A progress report ([`ZarrPadOptions::progress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The output's chunks are padded now: this many in all.
    Chunks(u64),
    /// One more chunk is done.
    ChunkDone,
    /// A stage begins.
    Stage(Stage),
}

/// The progress callback: called from the padding threads.
pub type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// How a zarr array is padded.
#[derive(Clone)]
pub struct ZarrPadOptions {
    /// Threads: 0 = rayon's global pool.
    pub threads: usize,
    /// The output's chunk shape; `None`: the input's (a regular grid), or for a new
    /// array ([`crate::write_tensor`]) [`crate::default_chunks`].
    pub chunks: Option<Vec<u64>>,
    /// The most chunks of the input (counting those inside shards) and of the output.
    pub max_chunks: u64,
    /// The memory budget in bytes (`None`: [`DEFAULT_MAX_MEMORY`]): the threads'
    /// chunks in flight (fewer threads run where it holds fewer) and the parts of
    /// decoded input chunks kept for later chunks. A budget too small for one
    /// thread's chunks is refused ([`ZarrError::ChunkOverBudget`]).
    pub max_memory: Option<u64>,
    /// Refuse outputs larger than this many bytes (the whole padded array).
    pub max_output_bytes: Option<u64>,
    /// The most a string array read whole may take (its strings at 24 bytes each,
    /// then their text); `None`: the memory budget.
    pub max_whole_bytes: Option<u64>,
    /// Asked between chunks (and between parts of an in-memory pad): `true` stops the
    /// pad with [`ZarrError::Interrupted`], the staged output removed.
    pub interrupt: Option<Interrupt>,
    /// Told of the progress.
    pub progress: Option<ProgressFn>,
}

impl Default for ZarrPadOptions {
    fn default() -> Self {
        ZarrPadOptions {
            threads: 0,
            chunks: None,
            max_chunks: DEFAULT_MAX_CHUNKS,
            max_memory: None,
            max_output_bytes: None,
            max_whole_bytes: None,
            interrupt: None,
            progress: None,
        }
    }
}

impl std::fmt::Debug for ZarrPadOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZarrPadOptions")
            .field("threads", &self.threads)
            .field("chunks", &self.chunks)
            .field("max_chunks", &self.max_chunks)
            .field("max_memory", &self.max_memory)
            .field("max_output_bytes", &self.max_output_bytes)
            .field("max_whole_bytes", &self.max_whole_bytes)
            .field("interrupt", &self.interrupt)
            .field("progress", &self.progress.as_ref().map(|_| ".."))
            .finish()
    }
}

impl ZarrPadOptions {
    /// The memory budget.
    pub fn budget(&self) -> u64 {
        self.max_memory.unwrap_or(DEFAULT_MAX_MEMORY)
    }

    pub(crate) fn run(&self) -> Run {
        Run {
            interrupt: self.interrupt.clone(),
            progress: self.progress.clone(),
            asked: AtomicBool::new(false),
        }
    }

    /// The chunk shape given, checked (every extent at least 1, `rank` of them).
    pub(crate) fn chunk_shape(&self, rank: usize) -> Result<Option<Vec<u64>>, ZarrError> {
        let Some(c) = &self.chunks else {
            return Ok(None);
        };
        if let Some(&extent) = c.iter().find(|&&x| x < 1) {
            return Err(ZarrError::ChunkExtentZero { extent });
        }
        if c.len() != rank {
            return Err(ZarrError::ChunksRank {
                chunks: c.clone(),
                rank,
            });
        }
        Ok(Some(c.clone()))
    }

    /// The kernel's options for a pad in memory.
    pub(crate) fn pad_options(&self, max_output_bytes: Option<u64>) -> PadOptions {
        PadOptions {
            threads: self.threads,
            max_output_bytes,
            interrupt: self.interrupt.clone(),
            ..PadOptions::default()
        }
    }
}

/// The interrupt and the progress callback of one pad.
pub(crate) struct Run {
    interrupt: Option<Interrupt>,
    progress: Option<ProgressFn>,
    /// The interrupt asked to stop once: the answer stands (an interrupt that runs
    /// signal handlers answers `true` once per signal).
    asked: AtomicBool,
}

impl Run {
    pub(crate) fn interrupted(&self) -> bool {
        if self.asked.load(Ordering::Relaxed) {
            return true;
        }
        let now = self.interrupt.as_ref().is_some_and(Interrupt::requested);
        if now {
            self.asked.store(true, Ordering::Relaxed);
        }
        now
    }

    pub(crate) fn check(&self) -> Result<(), ZarrError> {
        if self.interrupted() {
            return Err(ZarrError::Interrupted);
        }
        Ok(())
    }

    pub(crate) fn tell(&self, p: Progress) {
        if let Some(f) = &self.progress {
            f(p);
        }
    }

    pub(crate) fn stage(&self, s: Stage) {
        self.tell(Progress::Stage(s));
    }
}

/// What a pad did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PadReport {
    /// The output's shape.
    pub shape: Vec<usize>,
    /// Its element type.
    pub dtype: DType,
    /// Its chunk shape.
    pub chunk_shape: Vec<u64>,
    /// Its chunks.
    pub chunks: u64,
    /// The chunks not stored: nothing but the fill value.
    pub chunks_skipped: u64,
    /// The threads that padded (fewer than asked where the budget holds fewer
    /// threads' chunks).
    pub threads: usize,
    /// The input chunks decoded (counting each decoding again of one; 0 where the
    /// input's parts are read without decoding whole chunks).
    pub input_decodes: u64,
    /// The most bytes of decoded input chunks' parts kept at once for later pieces.
    pub parts_peak_bytes: u64,
    /// What the budget counted for each thread (its buffers at their largest).
    pub per_thread_bytes: u64,
}

/// A zarr v3 array of a type ndpad pads, opened for reading (its chunks through the
/// bounded store and codecs of [`crate::open`]).
pub struct ZarrArray {
    path: PathBuf,
    array: Arc<Array<dyn ReadableStorageTraits>>,
    json: serde_json::Value,
    meta: ArrayMetadataV3,
    dtype: DType,
    shape: Vec<usize>,
}

impl std::fmt::Debug for ZarrArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZarrArray")
            .field("path", &self.path)
            .field("dtype", &self.dtype)
            .field("shape", &self.shape)
            .finish_non_exhaustive()
    }
}

impl ZarrArray {
    /// Opens the zarr v3 array at `path`.
    ///
    /// # Errors
    /// Not a zarr v3 array ([`ZarrError::NotAnArray`]), metadata refused, a type
    /// ndpad does not pad ([`ZarrError::UnsupportedType`]).
    pub fn open(path: &Path) -> Result<ZarrArray, ZarrError> {
        let json = array_json(path)?;
        let at = |e| ZarrError::At {
            path: path.to_path_buf(),
            source: Box::new(e),
        };
        let array = Arc::new(crate::open(path, &json).map_err(at)?);
        let ArrayMetadata::V3(meta) = array.metadata().clone() else {
            return Err(ZarrError::NotAnArray {
                path: path.to_path_buf(),
                reason: crate::NotArray::NoMetadata,
            });
        };
        let name = meta.data_type.name().to_string();
        let dtype = dtype_of(&name).ok_or_else(|| ZarrError::UnsupportedType {
            path: path.to_path_buf(),
            name,
        })?;
        let shape = meta
            .shape
            .iter()
            .map(|&d| {
                usize::try_from(d).map_err(|_| ZarrError::ExtentTooLarge {
                    path: path.to_path_buf(),
                    extent: d,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ZarrArray {
            path: path.to_path_buf(),
            array,
            json,
            meta,
            dtype,
            shape,
        })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its element type as ndpad pads it (dates and times: `Int64`).
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Its zarr data type's name.
    pub fn type_name(&self) -> &str {
        self.meta.data_type.name()
    }

    /// Its shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Its metadata, as written.
    pub fn json(&self) -> &serde_json::Value {
        &self.json
    }

    pub(crate) fn array(&self) -> &Array<dyn ReadableStorageTraits> {
        &self.array
    }

    pub(crate) fn at(&self, e: ZarrError) -> ZarrError {
        ZarrError::At {
            path: self.path.clone(),
            source: Box::new(e),
        }
    }

    pub(crate) fn zarrs(&self, e: impl std::error::Error + Send + Sync + 'static) -> ZarrError {
        ZarrError::Zarrs {
            path: self.path.clone(),
            source: Box::new(e),
        }
    }

    /// Its chunk grid, chunk shape and decoded chunk bytes, refused where the chunks
    /// (counting those inside its shards) are more than `max_chunks` or one is larger
    /// than `budget`.
    pub(crate) fn chunks(
        &self,
        max_chunks: u64,
        budget: u64,
    ) -> Result<(Vec<u64>, Vec<u64>, u64), ZarrError> {
        let width = element_bytes(self.dtype);
        let in_grid: Vec<u64> = self.array.chunk_grid_shape().to_vec();
        let in_chunk: Vec<u64> = self
            .array
            .chunk_shape(&vec![0; in_grid.len()])
            .map_err(|e| self.zarrs(e))?
            .iter()
            .map(|n| n.get())
            .collect();
        let codecs = self.json.get("codecs").unwrap_or(&serde_json::Value::Null);
        let in_count = crate::chunk_count(&in_grid).map_err(|e| self.at(e))?;
        let in_inner = crate::subchunks(codecs, &in_chunk).map_err(|e| self.at(e))?;
        crate::check_chunks("input", &in_grid, in_count, in_inner, max_chunks)
            .map_err(|e| self.at(e))?;
        let bytes = in_chunk
            .iter()
            .try_fold(width as u64, |n, &d| n.checked_mul(d));
        let in_chunk_bytes =
            bytes
                .filter(|&b| b <= budget)
                .ok_or_else(|| ZarrError::ChunkOverBudget {
                    path: self.path.clone(),
                    which: "its chunks",
                    shape: in_chunk.clone(),
                    bytes,
                    dtype: self.dtype,
                    limit: budget,
                })?;
        Ok((in_grid, in_chunk, in_chunk_bytes))
    }
}

/// Pads the zarr v3 array at `input` into a new zarr v3 array at `output` (staged
/// beside it, moved into place when complete; an existing array or empty directory
/// there is replaced, anything else refused).
///
/// # Errors
/// Whatever is wrong with the input, the output or the pad, each naming the value and
/// the limit ([`ZarrError`]); [`ZarrError::Interrupted`] when the interrupt asked.
pub fn pad(
    input: &Path,
    output: &Path,
    spec: &PadSpec,
    opts: &ZarrPadOptions,
) -> Result<PadReport, ZarrError> {
    pad_array(&ZarrArray::open(input)?, output, spec, opts)
}

/// [`pad`] of an array already opened (to resolve a front end's pad against its
/// type and shape first).
///
/// # Errors
/// As [`pad`].
pub fn pad_array(
    input: &ZarrArray,
    output: &Path,
    spec: &PadSpec,
    opts: &ZarrPadOptions,
) -> Result<PadReport, ZarrError> {
    crate::memory::little_endian_only()?;
    let out_err = |e| ZarrError::At {
        path: output.to_path_buf(),
        source: Box::new(e),
    };
    let out_pad = |source| ZarrError::Pad {
        path: output.to_path_buf(),
        source,
    };
    let chunks = opts.chunk_shape(input.shape.len())?;
    check_output(Some(&input.path), output)?;
    let dtype = input.dtype;
    let out_shape = ndpad::output_shape(&input.shape, spec).map_err(|source| ZarrError::Pad {
        path: input.path.clone(),
        source,
    })?;
    let width = element_bytes(dtype);
    if let Some(limit) = opts.max_output_bytes {
        let total: u128 = out_shape
            .iter()
            .fold(width as u128, |n, &d| n.saturating_mul(d as u128));
        if total > u128::from(limit) {
            return Err(out_pad(PadError::OutputTooLarge {
                shape: out_shape,
                bytes: total,
                limit,
            }));
        }
    }
    // The output's metadata: the input's zarr.json as written (so that its codecs,
    // fill value, attributes read back as they were), with the padded shape and the
    // chunk grid asked for.
    let mut json = input.json.clone();
    json["shape"] = serde_json::json!(out_shape);
    let chunk_shape = match chunks {
        Some(c) => {
            json["chunk_grid"] = serde_json::json!({
                "name": "regular",
                "configuration": { "chunk_shape": c },
            });
            c
        }
        None => regular_chunks(&input.path, &input.meta.chunk_grid)?,
    };
    let budget = opts.budget();
    let bytes = chunk_shape
        .iter()
        .try_fold(width as u64, |n, &d| n.checked_mul(d));
    let chunk_bytes = bytes
        .filter(|&b| b <= budget && usize::try_from(b).is_ok())
        .ok_or_else(|| ZarrError::ChunkOverBudget {
            path: output.to_path_buf(),
            which: "a chunk",
            shape: chunk_shape.clone(),
            bytes,
            dtype,
            limit: budget,
        })?;

    // The work, bounded before any is done: the input's chunks (counting those
    // inside its shards; every one may be read) and the output's, checked (a count
    // reaching 2^64 is an error, never a wrapped 0), and a decoded input chunk within
    // the budget.
    let (in_grid, in_chunk, in_chunk_bytes) = input.chunks(opts.max_chunks, budget)?;
    let codecs_json = json.get("codecs").unwrap_or(&serde_json::Value::Null);
    let out_shape_u64: Vec<u64> = out_shape.iter().map(|&d| d as u64).collect();
    let (grid, count) = crate::chunk_grid(&out_shape_u64, &chunk_shape).map_err(out_err)?;
    let out_inner = crate::subchunks(codecs_json, &chunk_shape).map_err(out_err)?;
    crate::check_chunks("output", &grid, count, out_inner, opts.max_chunks).map_err(out_err)?;
    let run = opts.run();
    if dtype == DType::String {
        // Strings are read whole and padded in memory.
        run.stage(Stage::Padding);
        let whole_limit = opts.max_whole_bytes.unwrap_or(budget);
        let strings = read_strings(input, &in_grid, whole_limit, &run)?;
        let whole =
            Tensor::from_strings(&input.shape, strings).map_err(|source| ZarrError::Pad {
                path: input.path.clone(),
                source,
            })?;
        let padded = ndpad::pad_with(
            whole.view(),
            spec,
            &opts.pad_options(opts.max_output_bytes.or(Some(whole_limit))),
        )
        .map_err(|e| match e {
            PadError::Interrupted => ZarrError::Interrupted,
            e => out_pad(e),
        })?;
        drop(whole);
        let new = NewArray {
            output: output.to_path_buf(),
            json,
            chunk_shape,
            grid,
            count,
            chunk_bytes,
        };
        return new.write(&padded, opts);
    }

    // The budget, split between the threads' buffers and the parts of decoded input
    // chunks kept for later pieces (see `Budget`).
    let threads = match opts.threads {
        0 => rayon::current_num_threads(),
        n => n,
    };
    let array = input.array();
    let in_shape_nz = array
        .chunk_shape(&vec![0; in_grid.len()])
        .map_err(|e| input.zarrs(e))?;
    let in_encoded = encoded_bound(
        array
            .codecs()
            .encoded_representation(&in_shape_nz, array.data_type(), array.fill_value()),
        in_chunk_bytes,
    );
    let partial = reads_parts(input);
    let decode = if partial {
        0
    } else {
        in_chunk_bytes.saturating_add(in_encoded)
    };
    let out_encoded = out_encoded_bound(&json, &chunk_shape, chunk_bytes);
    let axes = Axes::new(
        dtype,
        &input.shape,
        spec,
        &out_shape,
        &chunk_shape,
        &grid,
        &in_chunk,
        &in_grid,
    )
    .map_err(out_pad)?;
    let wanted = if partial { 0 } else { axes.parts_wanted(width) };
    let Some(plan) = Budget::new(budget, chunk_bytes, decode, out_encoded, wanted, threads) else {
        return Err(ZarrError::ChunkOverBudget {
            path: output.to_path_buf(),
            which: "a chunk (with the buffers a thread pads it in)",
            bytes: Some(Budget::per_thread(chunk_bytes, decode, out_encoded)),
            shape: chunk_shape,
            dtype,
            limit: budget,
        });
    };
    let run_threads = plan.threads;
    // Parts are kept for the pieces up to HORIZON_STEPS steps along the first axis ahead of
    // the next chunk to start (a shift by the pads reads each input chunk from the
    // output chunks one step further along each axis), and for those started.
    let step = grid.iter().skip(1).fold(1u64, |n, &d| n.saturating_mul(d));
    let horizon = step
        .saturating_mul(HORIZON_STEPS)
        .saturating_add(run_threads as u64);
    let feed = Feed::new(input, &axes, width, partial, plan.parts, horizon, count);

    let staged = StagedDir::new(output)?;
    let out = staged.create_array(&json)?;
    let kernel_opts = PadOptions {
        threads: 1,
        max_output_bytes: None,
        interrupt: opts.interrupt.clone(),
        ..PadOptions::default()
    };
    let pool = Pool::new(run_threads);
    let job = Job {
        pool: &pool,
        input,
        feed: &feed,
        axes: &axes,
        spec,
        opts: &kernel_opts,
        width,
    };
    if out.chunk_grid_shape() != grid.as_slice() {
        return Err(ZarrError::GridMismatch {
            path: output.to_path_buf(),
            zarrs: out.chunk_grid_shape().to_vec(),
            grid,
            chunks: chunk_shape,
        });
    }
    let fill: &FillValue = out.fill_value();
    let codec_opts = CodecOptions::default().with_store_empty_chunks(true);
    let direct = direct_chunks(&json);
    run.tell(Progress::Chunks(count));
    let skipped = AtomicU64::new(0);
    let one = |i: u64| -> Result<(), ZarrError> {
        let ChunkPlace { idx, bx, full } = chunk_place(&out, &grid, i)?;
        let in_chunk = |e| ZarrError::Chunk {
            index: idx.clone(),
            source: Box::new(e),
        };
        let bytes = job.pad_box(i, &bx).map_err(in_chunk)?;
        let box_shape: Vec<usize> = bx.iter().map(Range::len).collect();
        let bytes = if box_shape == full {
            bytes
        } else {
            // An edge chunk: the part outside the array holds the fill value.
            let buf = edge_chunk(
                pool.take(0),
                fill.as_ne_bytes(),
                &full,
                &bytes,
                &box_shape,
                width,
            )
            .map_err(|e| in_chunk(Job::pad_error(e)))?;
            pool.give(bytes);
            buf
        };
        if fill.equals_all(&bytes) {
            skipped.fetch_add(1, Ordering::Relaxed);
        } else {
            staged
                .write_chunk(
                    &out,
                    &idx,
                    ArrayBytes::new_flen(&bytes[..]),
                    &codec_opts,
                    direct,
                )
                .map_err(in_chunk)?;
        }
        pool.give(bytes);
        run.tell(Progress::ChunkDone);
        Ok(())
    };
    // The chunks in C order, each thread taking the next one as it finishes its
    // last: the threads work on neighbouring chunks, which read the same input
    // chunks (decoded once, the parts the later ones read kept), and none waits for
    // another but while an input chunk it reads is being decoded.
    let stop = AtomicBool::new(false);
    let first_error: Mutex<Option<ZarrError>> = Mutex::new(None);
    let finished = AtomicUsize::new(0);
    let worker = || {
        while !stop.load(Ordering::Relaxed) {
            // Interrupted: no further chunk starts (the staged output is removed as
            // its guard drops).
            if run.interrupted() {
                stop.store(true, Ordering::Relaxed);
                break;
            }
            let Some(started) = feed.start() else {
                break;
            };
            let done = one(started.chunk);
            feed.finish(started);
            if let Err(e) = done {
                stop.store(true, Ordering::Relaxed);
                if let Ok(mut f) = first_error.lock() {
                    f.get_or_insert(e);
                }
            }
        }
        finished.fetch_add(1, Ordering::Relaxed);
    };
    // The calling thread asks the interrupt too, every few milliseconds while the
    // workers pad: an interrupt that runs the host's signal handlers (Python's) can
    // do so on its main thread only.
    let watch = |workers: usize| {
        if rayon::current_thread_index().is_some() {
            // Called from inside a pool: the workers' own questions suffice.
            return;
        }
        while finished.load(Ordering::Relaxed) < workers && !stop.load(Ordering::Relaxed) {
            if run.interrupted() {
                stop.store(true, Ordering::Relaxed);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(WATCH_MS));
        }
    };
    if opts.threads == 0 && run_threads == threads {
        rayon::in_place_scope(|s| {
            s.spawn_broadcast(|_, _| worker());
            watch(rayon::current_num_threads());
        });
    } else {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(run_threads)
            .build()
            .map_err(|source| ZarrError::Threads {
                threads: run_threads,
                source,
            })?;
        pool.in_place_scope(|s| {
            s.spawn_broadcast(|_, _| worker());
            watch(run_threads);
        });
    }
    let result = match first_error.lock().map(|mut f| f.take()) {
        Ok(None) => Ok(()),
        Ok(Some(e)) => Err(e),
        Err(_) => Err(ZarrError::Panicked),
    };
    run.check()?;
    result.map_err(|e| match e {
        ZarrError::Chunk { source, .. } if matches!(*source, ZarrError::Interrupted) => {
            ZarrError::Interrupted
        }
        e => out_err(e),
    })?;
    drop(out);
    staged.finish(&run)?;
    let (input_decodes, parts_peak_bytes) = feed.stats();
    Ok(PadReport {
        shape: out_shape,
        dtype,
        chunk_shape,
        chunks: count,
        chunks_skipped: skipped.into_inner(),
        threads: run_threads,
        input_decodes,
        parts_peak_bytes,
        per_thread_bytes: plan.per_thread,
    })
}

/// True where the chunk files are written directly (no storage transformer).
pub(crate) fn direct_chunks(json: &serde_json::Value) -> bool {
    json.get("storage_transformers")
        .and_then(|v| v.as_array())
        .is_none_or(Vec::is_empty)
}

/// Runs `run` (which splits itself with rayon) on `threads` threads (0: rayon's
/// global pool).
pub(crate) fn on_threads<R: Send>(
    threads: usize,
    run: impl FnOnce() -> R + Send,
) -> Result<R, ZarrError> {
    if threads == 0 {
        return Ok(run());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| ZarrError::Threads { threads, source })?;
    Ok(pool.install(run))
}

/// The chunk shape of a regular chunk grid.
fn regular_chunks(path: &Path, grid: &MetadataV3) -> Result<Vec<u64>, ZarrError> {
    if grid.name() != "regular" {
        return Err(ZarrError::IrregularGrid {
            path: path.to_path_buf(),
            name: grid.name().to_string(),
        });
    }
    let meta = |m: String| ZarrError::At {
        path: path.to_path_buf(),
        source: Box::new(ZarrError::Metadata(m)),
    };
    let conf: serde_json::Value = grid
        .to_configuration()
        .map_err(|e| meta(format!("chunk grid: {e}")))?;
    conf.get("chunk_shape")
        .and_then(|v| v.as_array())
        .and_then(|a| {
            a.iter()
                .map(serde_json::Value::as_u64)
                .collect::<Option<Vec<u64>>>()
        })
        .ok_or_else(|| meta("chunk grid: no chunk_shape".into()))
}

/// What padding a box of the output needs.
struct Job<'a> {
    input: &'a ZarrArray,
    /// The input regions, from decoded input chunks and the parts kept of them.
    feed: &'a Feed<'a>,
    axes: &'a Axes,
    spec: &'a PadSpec,
    opts: &'a PadOptions,
    width: usize,
    pool: &'a Pool,
}

impl Job<'_> {
    fn pad_error(e: PadError) -> ZarrError {
        match e {
            PadError::Interrupted => ZarrError::Interrupted,
            e => ZarrError::Codec(Box::new(e)),
        }
    }

    /// Output chunk `chunk` (its box `bx`), as C-order bytes.
    fn pad_box(&self, chunk: u64, bx: &[Range<usize>]) -> Result<Vec<u8>, ZarrError> {
        let pieces = self.axes.pieces(chunk);
        if let [(piece, _)] = pieces.as_slice() {
            if piece.as_slice() == bx {
                return self.pad_piece((chunk, 0), bx);
            }
        }
        let box_shape: Vec<usize> = bx.iter().map(Range::len).collect();
        // Every byte is written: the pieces cover the box.
        let mut buf = self
            .pool
            .take(box_shape.iter().product::<usize>() * self.width);
        for (p, (sub, _)) in pieces.iter().enumerate() {
            let bytes = self.pad_piece((chunk, p as u64), sub)?;
            let sub_shape: Vec<usize> = sub.iter().map(Range::len).collect();
            let at: Vec<usize> = sub.iter().zip(bx).map(|(s, b)| s.start - b.start).collect();
            embed(&mut buf, &box_shape, &bytes, &sub_shape, &at, self.width)
                .map_err(Self::pad_error)?;
            self.pool.give(bytes);
        }
        Ok(buf)
    }

    /// One piece (reader `r`, box `bx`) from the input region its window reads.
    fn pad_piece(&self, r: Reader, bx: &[Range<usize>]) -> Result<Vec<u8>, ZarrError> {
        let dtype = self.input.dtype;
        let window = Plan::window(dtype, &self.input.shape, self.spec, bx, Source::Region)
            .map_err(Self::pad_error)?;
        let region = if window.input.iter().any(Range::is_empty) && !window.input.is_empty() {
            Vec::new()
        } else {
            let n = window.input.iter().map(Range::len).product::<usize>() * self.width;
            // Every byte is written: the input chunks cover the region.
            let mut region = self.pool.take(n);
            self.feed.read(r, &window.input, &mut region)?;
            region
        };
        if is_identity(&window.plan) {
            // The box lies inside the array: the region read is the box itself.
            return Ok(region);
        }
        let view = TensorView::from_bytes(dtype, window.plan.input_shape(), &region)
            .map_err(Self::pad_error)?;
        let n = window.plan.output_bytes();
        let mut buf = self.pool.take(n);
        let mut dst = TensorViewMut::from_bytes(dtype, window.plan.output_shape(), &mut buf)
            .map_err(Self::pad_error)?;
        window
            .plan
            .execute(view, &mut dst, self.opts)
            .map_err(Self::pad_error)?;
        self.pool.give(region);
        Ok(buf)
    }
}

/// Byte buffers of finished chunks, used again for the next ones: a buffer of tens of
/// megabytes taken fresh from the kernel costs as much to fault in as to fill.
struct Pool {
    bufs: Mutex<Vec<Vec<u8>>>,
    max: usize,
}

impl Pool {
    /// A pool keeping at most `max` buffers.
    fn new(max: usize) -> Pool {
        Pool {
            bufs: Mutex::new(Vec::new()),
            max,
        }
    }

    /// A buffer of `n` bytes (of unspecified values).
    fn take(&self, n: usize) -> Vec<u8> {
        let mut buf = self
            .bufs
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_default();
        buf.truncate(n);
        // Never more capacity than asked: the budget counts each buffer at its size.
        buf.reserve_exact(n - buf.len());
        buf.resize(n, 0);
        buf
    }

    /// Keeps `buf` for later (at most `max` buffers).
    fn give(&self, buf: Vec<u8>) {
        if let Ok(mut p) = self.bufs.lock() {
            if p.len() < self.max && buf.capacity() > 0 {
                p.push(buf);
            }
        }
    }
}

/// How a pad's memory budget is spent. Each thread holds, at its largest, three
/// buffers of an output chunk (the chunk being assembled from its pieces, the input
/// region a piece reads, the piece padded; the region is no larger than the chunk:
/// wider reads are split) and one more, the largest of: a decoded input chunk with
/// its encoded bytes (while an input chunk is decoded, all of it, to take a part),
/// an output chunk's encoding, or an output chunk idle in the pool of buffers
/// (which keeps one per thread). The rest holds the parts of decoded input chunks
/// kept for the pieces that read them later. Those get what a shift by the pads
/// keeps at once ([`Axes::parts_wanted`], and half as much again; at most half the
/// budget) where one thread's buffers leave that: fewer threads run rather than take
/// it, as a part not kept costs decoding its whole input chunk again. Threads beyond
/// what the budget holds are never started, so they allocate nothing. Not counted:
/// the codecs' own state (a zstd context, a few MiB a thread) and the allocator's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Budget {
    /// The threads that run.
    threads: usize,
    /// What each is counted.
    per_thread: u64,
    /// The bytes of parts kept.
    parts: u64,
}

impl Budget {
    /// A thread's buffers: output chunks of `out` bytes, decoding an input chunk
    /// `decode` bytes (decoded and encoded; 0 where parts are read directly), an
    /// output chunk's encoding at most `encoded`.
    fn per_thread(out: u64, decode: u64, encoded: u64) -> u64 {
        out.saturating_mul(3)
            .saturating_add(decode.max(out).max(encoded))
    }

    /// The split of `budget` for at most `threads` threads, the parts wanting
    /// `parts_wanted` bytes; `None` where one thread's buffers do not fit.
    fn new(
        budget: u64,
        out: u64,
        decode: u64,
        encoded: u64,
        parts_wanted: u64,
        threads: usize,
    ) -> Option<Budget> {
        let per_thread = Self::per_thread(out, decode, encoded).max(1);
        if per_thread > budget {
            return None;
        }
        let parts_least = parts_wanted
            .saturating_add(parts_wanted / PARTS_EXTRA_DIV)
            .min(budget / PARTS_MAX_DIV)
            .min(budget - per_thread);
        let fit = usize::try_from((budget - parts_least) / per_thread).unwrap_or(usize::MAX);
        let threads = threads.min(fit).max(1);
        Some(Budget {
            threads,
            per_thread,
            parts: budget - per_thread * threads as u64,
        })
    }
}

/// What a chunk of `bytes` bytes decoded encodes to at most (`repr`, from the
/// codecs), or `bytes` where the codecs bound nothing.
fn encoded_bound(repr: Result<BytesRepresentation, zarrs::array::CodecError>, bytes: u64) -> u64 {
    match repr {
        Ok(BytesRepresentation::FixedSize(n) | BytesRepresentation::BoundedSize(n)) => n,
        _ => bytes,
    }
}

/// What an output chunk of `shape` (`bytes` decoded) of the array of metadata
/// `json` encodes to at most.
fn out_encoded_bound(json: &serde_json::Value, shape: &[u64], bytes: u64) -> u64 {
    let Ok(meta) = crate::array_metadata(json) else {
        return bytes;
    };
    let store = Arc::new(zarrs::storage::store::MemoryStore::new());
    let Ok(array) = Array::new_with_metadata(store, "/", ArrayMetadata::V3(meta)) else {
        return bytes;
    };
    let nz: Option<Vec<std::num::NonZeroU64>> = shape
        .iter()
        .map(|&d| std::num::NonZeroU64::new(d))
        .collect();
    match nz {
        Some(nz) => encoded_bound(
            array
                .codecs()
                .encoded_representation(&nz, array.data_type(), array.fill_value()),
            bytes,
        ),
        None => bytes,
    }
}

/// True where `input`'s codecs read a part of a chunk without decoding all of it
/// (the `bytes` codec, with `transpose` or none before it; no storage transformer):
/// its parts are read directly, nothing kept.
fn reads_parts(input: &ZarrArray) -> bool {
    let c = input.array().codecs().partial_decoder_capability();
    c.partial_read && c.partial_decode && direct_chunks(&input.json)
}

/// True for a plan whose output is its input (every axis one copy of the whole
/// input extent, in order).
fn is_identity(plan: &Plan) -> bool {
    plan.axes()
        .iter()
        .all(|ax| matches!(ax.segs.as_slice(), [Seg::Copy { src: 0, len }] if *len == ax.dim))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_holds_fewer_threads_and_refuses_none() {
        // 64 MiB output chunks, 128 MiB decoding: 320 MiB a thread; the parts want
        // 124 MiB (186 with the extra): 1 GiB holds two threads of 16, the parts the
        // rest.
        let mib = 1u64 << 20;
        let b = Budget::new(1 << 30, 64 * mib, 128 * mib, 65 * mib, 124 * mib, 16).unwrap();
        assert_eq!(b.per_thread, 320 * mib);
        assert_eq!(b.threads, 2);
        assert_eq!(b.parts, (1 << 30) - 640 * mib);
        // Never more threads than asked, never fewer than one.
        assert_eq!(Budget::new(1 << 40, mib, 0, mib, 0, 3).unwrap().threads, 3);
        // Parts that want more than half the budget get half: 16 MiB holds two threads.
        assert_eq!(
            Budget::new(16 * mib, mib, 0, mib, 100 * mib, 8)
                .unwrap()
                .threads,
            2
        );
        // One thread's buffers over the budget: refused.
        assert_eq!(Budget::new(319 * mib, 64 * mib, 128 * mib, 0, 0, 1), None);
    }
}
