//! The entry points of the executor: the methods of [`Plan`] that run it ([`Plan::pad`],
//! [`Plan::execute`], [`Plan::execute_strided`]), which check the input, the output
//! and the output limit against the plan, allocate the output where they make it,
//! and call [`run`] / [`run_strided`]. Here rather than in `plan`, so that the plan
//! stays plain data that knows nothing of the executor.

use crate::dtype::{DType, Layout};
use crate::error::PadError;
use crate::options::{KernelName, OutputMemory, PadOptions};
use crate::os::PooledBuffer;
use crate::plan::Plan;
use crate::strings::{Span, Strings};
use crate::tensor::{Data, DataMut, Tensor, TensorView, TensorViewMut};

use super::{faces, gather, pad_spans, run, run_strided};

impl Plan {
    /// Runs the plan into a newly allocated tensor, each element written once. An
    /// output of a fixed-width or packed type under 32 MiB (`tune::FRESH_MIN_BYTES`)
    /// is allocated uninitialized and written whole ([`OutputMemory::Written`]: reused
    /// heap memory is not cleared first); a larger one takes its pages from the output
    /// pool ([`crate::PooledBuffer`]: an earlier output's pages, already faulted in,
    /// or new zero pages that the writing threads fault in), given back when the
    /// tensor is dropped. One the pool cannot map is a zeroed allocation (straight
    /// from the OS, untouched), rows of a zero constant left to the zero pages
    /// ([`OutputMemory::Zeroed`]). A string tensor's spans are allocated
    /// uninitialized and written whole.
    ///
    /// # Errors
    /// As [`pad_with`](crate::pad_with), and [`PadError::InputMismatch`] when `input` does not match
    /// the plan.
    pub fn pad(&self, input: TensorView<'_>, opts: &PadOptions) -> Result<Tensor, PadError> {
        let bytes = self.output_bytes();
        let memory = match (self.dtype.layout(), input.data()) {
            (Layout::Bytes(_) | Layout::Packed(_), Data::Bytes(src))
                if bytes >= PooledBuffer::MIN_BYTES =>
            {
                self.check_input(&input)?;
                self.check_limit(&input, opts)?;
                // Starting where the input starts in its cache line: long copies then
                // move between equally aligned addresses.
                let line_offset = src.as_ptr() as usize % 64;
                if let Some(mut buf) = PooledBuffer::with_line_offset(bytes, line_offset) {
                    let opts = PadOptions {
                        output_memory: buf.memory(),
                        ..opts.clone()
                    };
                    run(
                        self,
                        input.data(),
                        &mut DataMut::Bytes(buf.as_mut_slice()),
                        &opts,
                    )?;
                    return Tensor::from_owned_bytes(self.dtype, self.output_shape(), buf.into());
                }
                OutputMemory::Zeroed
            }
            (Layout::Bytes(_) | Layout::Packed(_), _) if bytes < crate::tune::FRESH_MIN_BYTES => {
                OutputMemory::Written
            }
            // Spans written whole, none set first.
            (Layout::Strings, _) => OutputMemory::Written,
            _ => OutputMemory::Zeroed,
        };
        let opts = PadOptions {
            output_memory: memory,
            ..opts.clone()
        };
        Ok(self.pad_reporting(input, &opts)?.0)
    }

    /// [`Plan::pad`] with `opts` as given (tests choose how the output is written),
    /// and the row kernel that wrote the rows. The output of a fixed-width type (a
    /// string tensor's spans) is allocated uninitialized unless `opts` says
    /// [`OutputMemory::Zeroed`].
    #[doc(hidden)]
    pub fn pad_reporting(
        &self,
        input: TensorView<'_>,
        opts: &PadOptions,
    ) -> Result<(Tensor, Option<KernelName>), PadError> {
        self.check_input(&input)?;
        self.check_limit(&input, opts)?;
        let no_memory = || PadError::OutOfMemory {
            shape: self.output_shape().to_vec(),
            bytes: self.output_bytes(),
        };
        let (bytes, name) = match input.dtype().layout() {
            Layout::Strings => {
                let written = opts.output_memory != OutputMemory::Zeroed;
                match (input.data(), &self.tile) {
                    (Data::Strings(src), None) if written && self.out_numel > 0 => {
                        return self.pad_strings(src, opts);
                    }
                    // Zeroed spans (the empty string's), for a tiled plan too, which
                    // pads its tile into a buffer of its own and repeats it.
                    _ => {}
                }
                let mut s = Strings::filled(self.output_numel(), "")?;
                let name = run(self, input.data(), &mut DataMut::Strings(&mut s), opts)?;
                return Ok((Tensor::from_strings(self.output_shape(), s)?, name));
            }
            Layout::Bytes(_) | Layout::Packed(_) if opts.output_memory != OutputMemory::Zeroed => {
                // Written whole by the kernel: no clearing pass first.
                let mut name = None;
                let b = crate::os::written_vec(self.output_bytes(), |b| {
                    name = run(self, input.data(), &mut DataMut::Bytes(b), opts)?;
                    Ok::<(), PadError>(())
                })
                .ok_or_else(no_memory)??;
                (b, name)
            }
            _ => {
                // Zeroed by the allocator: a large buffer comes untouched from the OS, and
                // the writing threads fault its (huge) pages in as they first write them.
                let mut b = crate::os::output_buffer(self.output_bytes()).ok_or_else(no_memory)?;
                let name = run(self, input.data(), &mut DataMut::Bytes(&mut b), opts)?;
                (b, name)
            }
        };
        Ok((
            Tensor::from_bytes(input.dtype(), self.output_shape(), bytes)?,
            name,
        ))
    }

    /// [`Plan::pad_reporting`] of a string tensor `src` (an untiled plan, a non-empty
    /// output, [`OutputMemory::Written`]): the output's spans are allocated unset and
    /// each written once.
    fn pad_strings(
        &self,
        src: &Strings,
        opts: &PadOptions,
    ) -> Result<(Tensor, Option<KernelName>), PadError> {
        let mut text = String::new();
        let mut name = None;
        let spans = crate::os::written_vec(self.out_numel, |spans| {
            name = Some(pad_spans(self, src, &mut text, spans, opts)?);
            Ok::<(), PadError>(())
        })
        .ok_or_else(|| PadError::OutOfMemory {
            shape: self.output_shape().to_vec(),
            bytes: self.out_numel.saturating_mul(size_of::<Span>()),
        })??;
        let mut s = Strings { text, spans };
        faces::fill(self, &mut DataMut::Strings(&mut s));
        Ok((Tensor::from_strings(self.output_shape(), s)?, name))
    }

    fn check_input(&self, input: &TensorView<'_>) -> Result<(), PadError> {
        if input.dtype() != self.dtype || input.shape() != self.in_shape {
            return Err(PadError::InputMismatch {
                expected: describe(self.dtype, &self.in_shape),
                got: describe(input.dtype(), input.shape()),
            });
        }
        Ok(())
    }

    /// Runs the plan: pads `input` (of the plan's type and shape) into `output` (of
    /// the plan's output shape).
    ///
    /// # Errors
    /// [`PadError::InputMismatch`] / [`PadError::OutputMismatch`] when `input` /
    /// `output` does not match the plan.
    pub fn execute(
        &self,
        input: TensorView<'_>,
        output: &mut TensorViewMut<'_>,
        opts: &PadOptions,
    ) -> Result<(), PadError> {
        self.check_input(&input)?;
        if output.dtype() != self.dtype || output.shape() != self.out_shape {
            return Err(PadError::OutputMismatch {
                expected: describe(self.dtype, &self.out_shape),
                got: describe(output.dtype(), output.shape()),
            });
        }
        run(self, input.data(), output.data_mut(), opts)?;
        Ok(())
    }

    /// Runs the plan on an input whose axes are laid out with the byte `strides` (one
    /// per input axis, none negative but on axes of one element), `src` holding its
    /// bytes from its first element to the end of its last. Rows in C order
    /// ([`Plan::strided_rows`]: a slice of a larger array) are read where they lie;
    /// other layouts (a step on the last axis, a transpose) are gathered a box of the
    /// output at a time, the box's reads in the cache while it is padded, or whole
    /// where the input is that small, or the plan a window's (its spec not kept).
    ///
    /// # Errors
    /// [`PadError::InputMismatch`] for a negative stride, a type other than a
    /// fixed-width one, or `src` shorter than the strides reach;
    /// [`PadError::OutputMismatch`] as [`Plan::execute`].
    pub fn execute_strided(
        &self,
        src: &[u8],
        strides: &[isize],
        output: &mut TensorViewMut<'_>,
        opts: &PadOptions,
    ) -> Result<(), PadError> {
        let mismatch = |got: String| PadError::InputMismatch {
            expected: format!(
                "{}, fixed-width elements with non-negative byte strides",
                describe(self.dtype, &self.in_shape),
            ),
            got,
        };
        let (Layout::Bytes(w), true) = (self.dtype.layout(), strides.len() == self.in_shape.len())
        else {
            return Err(mismatch(format!("byte strides {strides:?}")));
        };
        let steps: Vec<usize> = strides
            .iter()
            .zip(&self.in_shape)
            .map(|(&s, &n)| match (n, self.in_numel) {
                // Nothing is read along an axis of one element, nor at all from an
                // empty input: no stride matters.
                (0 | 1, _) | (_, 0) => Ok(0),
                _ => usize::try_from(s),
            })
            .collect::<Result<_, _>>()
            .map_err(|_| mismatch(format!("byte strides {strides:?}")))?;
        // The bytes the strides reach: the last element's offset plus the element.
        let reach = match self.in_numel {
            0 => Some(0),
            _ => self
                .in_shape
                .iter()
                .zip(&steps)
                .try_fold(w, |at, (&n, &s)| at.checked_add(s.checked_mul(n - 1)?)),
        }
        .ok_or_else(|| mismatch(format!("byte strides {strides:?} out of range")))?;
        if src.len() < reach {
            return Err(mismatch(format!(
                "{} bytes where the strides reach {reach}",
                src.len()
            )));
        }
        if output.dtype() != self.dtype || output.shape() != self.out_shape {
            return Err(PadError::OutputMismatch {
                expected: describe(self.dtype, &self.out_shape),
                got: describe(output.dtype(), output.shape()),
            });
        }
        let src = &src[..reach];
        if let Some(mut outer) = self.strided_rows(strides) {
            if self.in_numel == 0 {
                outer.iter_mut().for_each(|s| *s = 0);
            }
            run_strided(self, src, &outer, output.data_mut(), opts)?;
            return Ok(());
        }
        let DataMut::Bytes(out) = output.data_mut() else {
            return Err(mismatch("a tensor of strings".into()));
        };
        let src = gather::Strided {
            bytes: src,
            strides: &steps,
            w,
        };
        gather::run_gathered(self, src, out, opts)
    }

    /// Fails when the output exceeds `opts.max_output_bytes`.
    fn check_limit(&self, input: &TensorView<'_>, opts: &PadOptions) -> Result<(), PadError> {
        let Some(limit) = opts.max_output_bytes else {
            return Ok(());
        };
        let n = self.out_numel as u128;
        let bytes = match (self.dtype.layout(), input.data()) {
            // A span per element, the input's text and the constants'.
            (Layout::Strings, data) => {
                let text = match data {
                    Data::Strings(s) => s.text_len(),
                    Data::Bytes(_) => 0,
                };
                let constants = std::iter::once(&self.value)
                    .chain(self.faces.iter().map(|f| &f.value))
                    .map(|v| v.as_str().map_or(0, str::len) as u128)
                    .sum::<u128>();
                n * std::mem::size_of::<Span>() as u128 + text as u128 + constants
            }
            _ => self.output_bytes() as u128,
        };
        if bytes > limit as u128 {
            return Err(PadError::OutputTooLarge {
                shape: self.out_shape.clone(),
                bytes,
                limit,
            });
        }
        Ok(())
    }
}

/// A tensor's type and shape, for messages.
fn describe(d: DType, s: &[usize]) -> String {
    format!("{d} of shape {s:?}")
}
