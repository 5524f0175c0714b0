//! Everything that touches the CUDA driver and NVRTC (through cudarc, loaded at run
//! time): the only module of the crate with `unsafe` code.

use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DriverError,
    LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys, Ptx};
use ndpad::{PadSpec, Plan, Tensor, TensorView};

use crate::error::CudaError;
use crate::gather::{check_len, GatherPlan, Launch};
use crate::kernel::{grid, Variant, BLOCK, PACK, UNPACK};

/// Checks that the CUDA driver and NVRTC libraries can be loaded, without touching a
/// device: cudarc panics on the first call when they cannot, so every entry point
/// asks this first.
///
/// # Errors
/// [`CudaError::NoDriver`] or [`CudaError::NoNvrtc`], naming the libraries tried.
pub fn probe() -> Result<(), CudaError> {
    // SAFETY: `is_culib_present` only tries `dlopen` on the driver's library names
    // (running the library's initializers, as any CUDA program does) and drops it.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(CudaError::NoDriver {
            tried: tried("cuda"),
        });
    }
    // SAFETY: as above, for NVRTC's library names.
    if !unsafe { nvrtc_sys::is_culib_present() } {
        return Err(CudaError::NoNvrtc {
            tried: tried("nvrtc"),
        });
    }
    Ok(())
}

fn at_least(which: &'static str, got: usize, expected: usize) -> Result<(), CudaError> {
    if got < expected {
        return Err(CudaError::BufferSize {
            which,
            got,
            expected,
        });
    }
    Ok(())
}

fn tried(lib: &str) -> String {
    let mut names = cudarc::get_lib_name_candidates(lib);
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names.join(", ")
}

fn driver(what: &'static str) -> impl Fn(DriverError) -> CudaError {
    move |e| CudaError::Driver {
        what,
        message: e.to_string(),
    }
}

/// Runs `f`, turning a panic inside cudarc into [`CudaError::Panicked`].
fn guarded<T>(
    what: &'static str,
    f: impl FnOnce() -> Result<T, CudaError>,
) -> Result<T, CudaError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let message = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "(no message)".into());
        Err(CudaError::Panicked { what, message })
    })
}

/// A [`GatherPlan`] with its index maps on the device, uploaded once and reused by
/// every call with that plan (the plan travels with its maps, so they always match).
#[derive(Debug)]
pub struct DeviceMaps {
    plan: GatherPlan,
    maps: CudaSlice<i64>,
}

/// A CUDA device with the kernels compiled so far (one module per [`Variant`],
/// compiled by NVRTC on first use).
#[derive(Debug)]
pub struct CudaPadder {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    arch: String,
    sms: u32,
    modules: Mutex<HashMap<Variant, Vec<CudaFunction>>>,
}

impl DeviceMaps {
    /// The plan the maps are of.
    pub fn plan(&self) -> &GatherPlan {
        &self.plan
    }
}

impl CudaPadder {
    /// Opens device `ordinal`.
    ///
    /// # Errors
    /// [`CudaError::NoDriver`] / [`CudaError::NoNvrtc`] where the libraries are
    /// missing, [`CudaError::NoDevice`] for an ordinal the driver does not have,
    /// [`CudaError::Driver`] when the driver fails.
    pub fn new(ordinal: usize) -> Result<CudaPadder, CudaError> {
        probe()?;
        guarded("opening the device", || {
            let count = CudaContext::device_count().map_err(driver("counting devices"))?;
            if ordinal >= count.max(0) as usize {
                return Err(CudaError::NoDevice { ordinal, count });
            }
            let ctx = CudaContext::new(ordinal).map_err(driver("creating a context"))?;
            let stream = ctx.new_stream().map_err(driver("creating a stream"))?;
            let name = ctx.name().map_err(driver("reading the device name"))?;
            let (major, minor) = ctx
                .compute_capability()
                .map_err(driver("reading the compute capability"))?;
            let sms = ctx
                .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .map_err(driver("reading the multiprocessor count"))?;
            Ok(CudaPadder {
                ctx,
                stream,
                name,
                arch: format!("sm_{major}{minor}"),
                sms: sms.max(1) as u32,
                modules: Mutex::new(HashMap::new()),
            })
        })
    }

    /// The device's name, as the driver gives it.
    pub fn device_name(&self) -> &str {
        &self.name
    }

    /// The stream every call runs on (allocate device buffers for
    /// [`CudaPadder::pad_device`] on it).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The architecture the kernels are compiled for (`sm_90` on an H100).
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// Pads a host tensor on the device: plans, uploads, runs, copies back.
    ///
    /// # Errors
    /// Every error of [`Plan::new`], [`GatherPlan::new`] and [`CudaPadder::pad_device`].
    pub fn pad(&self, input: TensorView<'_>, spec: &PadSpec) -> Result<Tensor, CudaError> {
        let plan = Plan::new(input.dtype(), input.shape(), spec)?;
        let gp = GatherPlan::new(&plan)?;
        let bytes = match input.data() {
            ndpad::Data::Bytes(b) => b,
            ndpad::Data::Strings(_) => {
                return Err(CudaError::UnsupportedType {
                    dtype: input.dtype(),
                    reason: "strings are not fixed-width bytes",
                })
            }
        };
        let out = self.pad_bytes(&gp, bytes, Launch::default())?;
        Ok(Tensor::from_bytes(gp.dtype(), gp.output_shape(), out)?)
    }

    /// Pads the bytes of a host tensor as `gp` says, on the device, as `launch` says
    /// (kernel element width and kernel; `Launch::default()` chooses).
    ///
    /// # Errors
    /// [`CudaError::BufferSize`] when `input` is not of the plan's size, and every
    /// error of [`CudaPadder::pad_device`].
    pub fn pad_bytes(
        &self,
        gp: &GatherPlan,
        input: &[u8],
        launch: Launch,
    ) -> Result<Vec<u8>, CudaError> {
        check_len("input", input.len(), gp.input_bytes())?;
        if gp.output_numel() == 0 {
            return Ok(Vec::new());
        }
        guarded("padding", || {
            let s = &self.stream;
            let maps = self.upload_unguarded(gp)?;
            // An empty input (a constant pad of an empty axis) is never read.
            let d_in = s
                .clone_htod(if input.is_empty() { &[0u8][..] } else { input })
                .map_err(driver("copying the input to the device"))?;
            let mut d_out = self.alloc(gp.output_bytes())?;
            self.run(&maps, &d_in, &mut d_out, launch)?;
            let mut out = s
                .clone_dtoh(&d_out)
                .map_err(driver("copying the output to the host"))?;
            s.synchronize().map_err(driver("waiting for the copy"))?;
            out.truncate(gp.output_bytes());
            Ok(out)
        })
    }

    /// Uploads the index maps of `gp` (once per plan; reuse them for every call).
    ///
    /// # Errors
    /// [`CudaError::Driver`] when the device memory cannot be had.
    pub fn upload(&self, gp: &GatherPlan) -> Result<DeviceMaps, CudaError> {
        guarded("uploading the index maps", || {
            let maps = self.upload_unguarded(gp)?;
            // Ready for any stream (`pad_device_ptr_on`), not only this padder's.
            self.stream
                .synchronize()
                .map_err(driver("copying the index maps to the device"))?;
            Ok(maps)
        })
    }

    fn upload_unguarded(&self, gp: &GatherPlan) -> Result<DeviceMaps, CudaError> {
        let s = &self.stream;
        let up = driver("copying the index maps to the device");
        // Never an empty allocation: the kernel reads no map when there are none.
        let maps = s
            .clone_htod(if gp.maps().is_empty() {
                &[-1i64][..]
            } else {
                gp.maps()
            })
            .map_err(&up)?;
        Ok(DeviceMaps {
            plan: gp.clone(),
            maps,
        })
    }

    fn alloc(&self, bytes: usize) -> Result<CudaSlice<u8>, CudaError> {
        // Never an empty allocation (the driver refuses them); an empty buffer is
        // never read or written.
        // SAFETY: the buffer is written whole by the kernels before it is read.
        unsafe { self.stream.alloc::<u8>(bytes.max(1)) }.map_err(driver("allocating device memory"))
    }

    /// Pads device buffer `input` into device buffer `output` as `maps`'s plan says
    /// (both as stored: packed types two or four elements a byte), launched as
    /// `launch` says (`Launch::default()`: the widest kernel element the buffers'
    /// alignment and the unit allow, 16 bytes a thread where the output allows). Packed types are
    /// widened to one byte per element in device scratch memory, gathered, and packed
    /// again.
    ///
    /// # Errors
    /// [`CudaError::BufferSize`] for buffers smaller than the plan's input and output
    /// (larger ones are fine: only the first bytes are read and written); [`CudaError::BadWidth`]
    /// for a width the buffers or the unit do not allow; [`CudaError::Unaligned`] for a buffer not
    /// aligned to the element; [`CudaError::Compile`] and
    /// [`CudaError::Driver`] from NVRTC and the driver.
    pub fn pad_device(
        &self,
        maps: &DeviceMaps,
        input: &CudaSlice<u8>,
        output: &mut CudaSlice<u8>,
        launch: Launch,
    ) -> Result<(), CudaError> {
        let gp = &maps.plan;
        at_least("input", input.len(), gp.input_bytes())?;
        at_least("output", output.len(), gp.output_bytes())?;
        if gp.output_numel() == 0 {
            return Ok(());
        }
        guarded("padding", || self.run(maps, input, output, launch))
    }

    fn run(
        &self,
        maps: &DeviceMaps,
        input: &CudaSlice<u8>,
        output: &mut CudaSlice<u8>,
        launch: Launch,
    ) -> Result<(), CudaError> {
        let s = &self.stream;
        let (in_ptr, _sync_in) = input.device_ptr(s);
        let (out_ptr, _sync_out) = output.device_ptr_mut(s);
        self.run_ptrs(maps, in_ptr, out_ptr, launch)
    }

    /// Pads from device address `input` to device address `output` (a framework's
    /// tensors, through DLPack): as [`CudaPadder::pad_device`], on this padder's
    /// stream, waiting for it before returning.
    ///
    /// # Safety
    /// `input` must be the address of device memory of this padder's device (its
    /// primary context, as PyTorch, CuPy and JAX use), with at least
    /// [`GatherPlan::input_bytes`] readable bytes; `output` of at least
    /// [`GatherPlan::output_bytes`] writable bytes not overlapping the input; and no
    /// other work may write the input or use the output until this returns (finish the
    /// framework's stream first).
    ///
    /// # Errors
    /// As [`CudaPadder::pad_device`].
    pub unsafe fn pad_device_ptr(
        &self,
        maps: &DeviceMaps,
        input: u64,
        output: u64,
        launch: Launch,
    ) -> Result<(), CudaError> {
        let gp = &maps.plan;
        if gp.output_numel() == 0 {
            return Ok(());
        }
        guarded("padding", || self.run_ptrs(maps, input, output, launch))
    }

    /// Pads from device address `input` to device address `output` as
    /// [`CudaPadder::pad_device_ptr`] does, queued on `stream`, a stream of this
    /// device's primary context (a framework's current stream: PyTorch's, CuPy's;
    /// 0 for the legacy default stream), without waiting for it: work queued on that
    /// stream after this call sees the output. Packed types wait for their scratch
    /// kernels before returning.
    ///
    /// # Safety
    /// As [`CudaPadder::pad_device_ptr`], except that the input and output need only be
    /// ready and left alone in `stream`'s order; `stream` must be a live stream of
    /// this device's primary context until the queued work has run.
    ///
    /// # Errors
    /// As [`CudaPadder::pad_device`].
    pub unsafe fn pad_device_ptr_on(
        &self,
        maps: &DeviceMaps,
        input: u64,
        output: u64,
        stream: u64,
        launch: Launch,
    ) -> Result<(), CudaError> {
        if maps.plan.output_numel() == 0 {
            return Ok(());
        }
        guarded("padding", || {
            // SAFETY: the caller vouches that `stream` is a live stream of this
            // context; the wrapper does not destroy it when dropped.
            let s = unsafe {
                self.ctx
                    .wrap_borrowed_stream(stream as cudarc::driver::sys::CUstream)
            };
            self.run_on(&s, maps, input, output, launch)
        })
    }

    fn run_ptrs(
        &self,
        maps: &DeviceMaps,
        input: u64,
        output: u64,
        launch: Launch,
    ) -> Result<(), CudaError> {
        self.run_on(&self.stream, maps, input, output, launch)?;
        self.stream
            .synchronize()
            .map_err(driver("running the gather"))
    }

    /// Queues the pad on `s` (waiting only where packed types need scratch memory).
    fn run_on(
        &self,
        s: &Arc<CudaStream>,
        maps: &DeviceMaps,
        input: u64,
        output: u64,
        launch: Launch,
    ) -> Result<(), CudaError> {
        let gp = &maps.plan;
        match gp.packed_bits() {
            None => self.gather(s, maps, input, output, launch),
            Some(bits) => {
                let mut wide_in = self.alloc(gp.input_numel() as usize)?;
                let mut wide_out = self.alloc(gp.output_numel() as usize)?;
                let (wide_in_ptr, _sync_wi) = wide_in.device_ptr_mut(s);
                let (wide_out_ptr, _sync_wo) = wide_out.device_ptr_mut(s);
                self.packed(s, UNPACK, input, wide_in_ptr, gp.input_numel(), bits)?;
                self.gather(s, maps, wide_in_ptr, wide_out_ptr, launch)?;
                self.packed(s, PACK, wide_out_ptr, output, gp.output_numel(), bits)?;
                // The scratch buffers are freed when this returns.
                s.synchronize()
                    .map_err(driver("running the packed kernels"))
            }
        }
    }

    fn gather(
        &self,
        s: &Arc<CudaStream>,
        maps: &DeviceMaps,
        in_ptr: u64,
        out_ptr: u64,
        launch: Launch,
    ) -> Result<(), CudaError> {
        let gp = &maps.plan;
        // Element-aligned buffers (a misaligned load faults the whole context).
        let elem = gp.elem_bytes() as u64;
        if let Some(&address) = [in_ptr, out_ptr].iter().find(|a| !a.is_multiple_of(elem)) {
            return Err(CudaError::Unaligned {
                address,
                align: elem,
            });
        }
        let widest = gp.widest(in_ptr, out_ptr);
        let width = launch.width.unwrap_or(widest);
        if width > widest {
            return Err(CudaError::BadWidth {
                width,
                elem: gp.elem_bytes(),
            });
        }
        let args = gp.args(width)?;
        let lanes = launch.lanes(width, out_ptr)?;
        let f = self.function(Variant::Gather(width), usize::from(lanes > 1))?;
        let params = gp.params(&args);
        let (maps_ptr, _sync_m) = maps.maps.device_ptr(s);
        let cfg = LaunchConfig {
            // One thread per chunk of `lanes` kernel elements at a time.
            grid_dim: (grid(args.total.div_ceil(lanes as u64), self.sms), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut builder = s.launch_builder(&f);
        builder
            .arg(&out_ptr)
            .arg(&in_ptr)
            .arg(&maps_ptr)
            .arg(&params);
        // SAFETY: the arguments match the kernels' signature in `kernel.rs` (device
        // pointers are passed as their 64-bit addresses, the parameters as the
        // `ndpad_params` words): `out` holds `total` kernel elements and `in` the
        // plan's input (buffers checked by `pad_device`, allocated so by `pad_bytes`
        // and by `run_on` for the packed types' scratch, promised by the callers of
        // `pad_device_ptr` and `pad_device_ptr_on`), the tables are those of `gp`
        // (`DeviceMaps` carries its plan) and every table entry and body offset is -1
        // or an input offset in units below the input's unit count
        // (`GatherPlan::new`); both addresses are multiples of the element (checked
        // above) and `width` divides both (`widest`, or no wider than it), and the
        // vector kernel (16-byte stores) is taken only for an output address that is
        // a multiple of 16 (`Launch::lanes`).
        unsafe { builder.launch(cfg) }.map_err(driver("launching the gather"))?;
        Ok(())
    }

    fn packed(
        &self,
        s: &Arc<CudaStream>,
        kernel: &str,
        in_ptr: u64,
        out_ptr: u64,
        n: u64,
        bits: u32,
    ) -> Result<(), CudaError> {
        let index = usize::from(kernel == PACK);
        let f = self.function(Variant::Packed, index)?;
        let items = if kernel == PACK {
            n.div_ceil(u64::from(8 / bits))
        } else {
            n
        };
        let cfg = LaunchConfig {
            grid_dim: (grid(items, self.sms), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = s.launch_builder(&f);
        launch.arg(&out_ptr).arg(&in_ptr).arg(&n).arg(&bits);
        // SAFETY: the arguments match `ndpad_unpack` / `ndpad_pack` in `kernel.rs`:
        // unpacking reads ceil(n * bits / 8) bytes and writes `n`; packing reads `n`
        // and writes ceil(n * bits / 8); the callers size the buffers so.
        unsafe { launch.launch(cfg) }.map_err(driver("launching a packed kernel"))?;
        Ok(())
    }

    /// Kernel `index` of `variant`'s module, compiling it on first use.
    fn function(&self, variant: Variant, index: usize) -> Result<CudaFunction, CudaError> {
        let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(fs) = modules.get(&variant) {
            return Ok(fs[index].clone());
        }
        let src = variant.source()?;
        let names = variant.kernels();
        let image = compile(&src, &names[0], &self.arch)?;
        let module = self
            .ctx
            .load_module(Ptx::from_binary(image))
            .map_err(driver("loading a compiled kernel"))?;
        let fs = names
            .iter()
            .map(|n| module.load_function(n))
            .collect::<Result<Vec<_>, _>>()
            .map_err(driver("finding a compiled kernel"))?;
        let f = fs[index].clone();
        modules.insert(variant, fs);
        Ok(f)
    }
}

/// Compiles `src` with NVRTC to a CUBIN for `arch` (a real architecture, so the
/// driver need not JIT PTX that a newer NVRTC may have written for a newer ISA).
fn compile(src: &str, kernel: &str, arch: &str) -> Result<Vec<u8>, CudaError> {
    let fail = |log: String| CudaError::Compile {
        kernel: kernel.to_string(),
        arch: arch.to_string(),
        log,
    };
    let c_src = CString::new(src).map_err(|e| fail(e.to_string()))?;
    let prog = nvrtc::create_program(&c_src, None).map_err(|e| fail(format!("{e:?}")))?;
    let opts = [
        format!("--gpu-architecture={arch}"),
        "-std=c++17".to_string(),
    ];
    // SAFETY: `prog` is a live program; the options are NUL-free strings.
    let compiled = unsafe { nvrtc::compile_program(prog, &opts) };
    let result = match compiled {
        Err(e) => {
            // SAFETY: `prog` is live; the log is NUL-terminated by NVRTC.
            let log = unsafe { nvrtc::get_program_log(prog) }
                .map(|l| {
                    let bytes: Vec<u8> = l.iter().map(|&c| c as u8).collect();
                    CStr::from_bytes_until_nul(&bytes)
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default()
                })
                .unwrap_or_default();
            Err(fail(format!("{e:?}: {log}")))
        }
        Ok(()) => cubin(prog).map_err(|e| fail(format!("reading the CUBIN: {e:?}"))),
    };
    // SAFETY: `prog` is live and not used after this.
    let _ = unsafe { nvrtc::destroy_program(prog) };
    result
}

fn cubin(prog: nvrtc_sys::nvrtcProgram) -> Result<Vec<u8>, nvrtc::NvrtcError> {
    let mut size = 0usize;
    // SAFETY: `prog` is a compiled program; `size` is a valid out-pointer.
    unsafe { nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size) }.result()?;
    let mut image = vec![0u8; size];
    // SAFETY: `image` holds the `size` bytes NVRTC said the CUBIN has.
    unsafe { nvrtc_sys::nvrtcGetCUBIN(prog, image.as_mut_ptr().cast()) }.result()?;
    Ok(image)
}
