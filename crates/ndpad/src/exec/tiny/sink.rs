//! Where a run of tiny planes is written ([`Sink`]): [`Direct`]ly into the output,
//! or [`Streamed`] around the cache through a stage in the first-level cache.

use crate::arch::{Cpu, LinesAhead, WriteAhead, LINE};
use crate::tune::TINY_PLANE_MAX;

/// A plane staged in the first-level cache on its way around the cache
/// ([`Streamed`]): at its offset within the output's 64-byte lines (under a
/// line), with room for what its last piece stores past it (under a line).
#[repr(C, align(64))]
pub(in crate::exec) struct TinyStage([u8; TINY_PLANE_MAX + 2 * LINE]);

impl TinyStage {
    pub(in crate::exec) fn new() -> Box<TinyStage> {
        Box::new(TinyStage([0; TINY_PLANE_MAX + 2 * LINE]))
    }
}

/// Where a run of whole planes, one after the other, is written: [`Direct`]ly into
/// the output, or [`Streamed`] around the cache.
pub(in crate::exec) trait Sink {
    /// Whether the planes go around the cache (their input is then read ahead:
    /// `TINY_READ_AHEAD`).
    const AROUND: bool;
    /// Where the next plane is written (at the slice's start; past it, room for what
    /// [`TinyPlanes::write`] stores beyond a plane).
    fn plane(&mut self) -> &mut [u8];
    /// The plane of `bytes` just written is done.
    fn done(&mut self, bytes: usize);
    /// The run is written.
    fn finish(self);
}

/// Planes written straight into the output, asking for its lines ahead as they go
/// where `ahead` is given.
pub(in crate::exec) struct Direct<'a> {
    out: &'a mut [u8],
    /// Where the next plane starts in `out`.
    at: usize,
    ahead: Option<LinesAhead>,
}

impl<'a> Direct<'a> {
    pub(in crate::exec) fn new(out: &'a mut [u8], ahead: Option<WriteAhead>) -> Direct<'a> {
        let ahead = ahead.map(|w| w.forward(out.as_ptr()));
        Direct { out, at: 0, ahead }
    }
}

impl Sink for Direct<'_> {
    const AROUND: bool = false;

    #[inline(always)]
    fn plane(&mut self) -> &mut [u8] {
        &mut self.out[self.at..]
    }

    /// Asks for the lines up to [`WRITE_AHEAD`](crate::tune::WRITE_AHEAD) bytes past
    /// the plane just written.
    #[inline(always)]
    fn done(&mut self, bytes: usize) {
        self.at += bytes;
        if let Some(a) = &mut self.ahead {
            a.reached(self.out.as_ptr().wrapping_add(self.at));
        }
    }

    fn finish(self) {}
}

/// Planes written around the cache: each into the stage, and the output lines it
/// completes out of it with non-temporal stores (the partial lines at the run's two
/// ends with ordinary ones), so that no output line is read into the cache first.
pub(in crate::exec) struct Streamed<'a> {
    out: &'a mut [u8],
    stage: &'a mut TinyStage,
    /// Where the next plane starts in `out`.
    at: usize,
    /// Where it starts in the stage: `at`'s offset within its line (what lies before
    /// it in the stage is the line's start).
    staged: usize,
    cpu: Cpu,
}

impl<'a> Streamed<'a> {
    pub(in crate::exec) fn new(
        out: &'a mut [u8],
        stage: &'a mut TinyStage,
        cpu: Cpu,
    ) -> Streamed<'a> {
        Streamed {
            staged: out.as_ptr() as usize % LINE,
            out,
            stage,
            at: 0,
            cpu,
        }
    }
}

impl Sink for Streamed<'_> {
    const AROUND: bool = true;

    #[inline(always)]
    fn plane(&mut self) -> &mut [u8] {
        &mut self.stage.0[self.staged..]
    }

    /// The whole lines the plane completes go out, and the partial one left moves to
    /// the stage's start.
    #[inline(always)]
    fn done(&mut self, bytes: usize) {
        let (at, staged) = (self.at, self.staged);
        let end = staged + bytes;
        let lines = end / LINE;
        // The stage's first byte is the output's byte `at - staged` (a line start):
        // before the run while the run's first line is staged.
        let mut first = 0;
        if lines > 0 && at < staged {
            // The run's first line: only its part from the run's start.
            let skip = staged - at;
            self.out[..LINE - skip].copy_from_slice(&self.stage.0[skip..LINE]);
            first = 1;
        }
        if lines > first {
            let to = at + first * LINE - staged;
            let dst = &mut self.out[to..to + (lines - first) * LINE];
            let src = &self.stage.0[first * LINE..lines * LINE];
            if !crate::arch::stream_copy_lines(dst, src, self.cpu) {
                dst.copy_from_slice(src);
            }
        }
        if lines > 0 {
            self.stage.0.copy_within(lines * LINE..end, 0);
        }
        self.at = at + bytes;
        self.staged = end - lines * LINE;
    }

    /// The partial line left goes out with ordinary stores, and the non-temporal
    /// stores are fenced.
    fn finish(self) {
        let (at, staged) = (self.at, self.staged);
        let skip = staged.saturating_sub(at);
        self.out[at + skip - staged..at].copy_from_slice(&self.stage.0[skip..staged]);
        crate::arch::fence();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run around the cache writes each plane's bytes in place, whatever the planes'
    /// size and the run's offset within a line, and nothing before or after the run:
    /// not the line before it or after it, nor what a plane's last piece stores past
    /// it into the stage.
    #[test]
    fn a_run_around_the_cache_writes_its_planes_in_place() {
        let cpu = crate::arch::Cpu::get();
        let mut stage = TinyStage::new();
        // Fewer under Miri (a byte a step: minutes).
        let (sizes, counts, offsets): (&[usize], &[usize], &[usize]) = match cfg!(miri) {
            true => (&[1, 63, 65, 324], &[1, 3], &[0, 17]),
            false => (&[1, 40, 63, 64, 65, 324, 4800], &[1, 2, 5], &[0, 17, 63]),
        };
        for &bytes in sizes {
            for &count in counts {
                for &offset in offsets {
                    let n = bytes * count;
                    let mut buf = vec![0xEEu8; offset + n + 2 * LINE];
                    let mut run = Streamed::new(&mut buf[offset..offset + n], &mut stage, cpu);
                    for k in 0..count {
                        let dst = run.plane();
                        // As far past the plane as a 64-byte piece stores.
                        for (i, b) in dst[..bytes + 63].iter_mut().enumerate() {
                            *b = if i < bytes { (k * 31 + i) as u8 } else { 0x55 };
                        }
                        run.done(bytes);
                    }
                    run.finish();
                    let case = format!("{count} planes of {bytes} bytes at {offset}");
                    assert!(buf[..offset].iter().all(|&b| b == 0xEE), "{case}: before");
                    assert!(
                        buf[offset + n..].iter().all(|&b| b == 0xEE),
                        "{case}: after"
                    );
                    for (j, &b) in buf[offset..offset + n].iter().enumerate() {
                        assert_eq!(b, ((j / bytes) * 31 + j % bytes) as u8, "{case}: byte {j}");
                    }
                }
            }
        }
    }
}
