//! Prefetching across planes: the next plane's first input rows that the hardware
//! prefetcher cannot foresee (the jump lines).

use super::plane_loops::RowMap;
use crate::tune::{GAP_MIN, GAP_PLANE_MAX, JUMP_LINES, JUMP_NEAR, JUMP_ROWS};

use super::elem::Elem;
use super::Exec;

impl<T: Elem> Exec<'_, T> {
    /// The jump lines of the plane whose input starts at `next`: the lines of its first
    /// input rows that lie far from the last input row of the plane starting at `cur`
    /// (wrap padding starts each plane with its last rows, a large crop skips rows, and
    /// the hardware prefetcher cannot foresee such a jump). Called as the plane at
    /// `cur` starts, a plane ahead; the lines go into `jump` (their count is returned)
    /// for the plane's writer to prefetch ([`super::plane_loops::CopyPlane::jump`]).
    ///
    /// Where the rows are cropped, so that the next plane's input starts more than
    /// [`GAP_MIN`] bytes after this one's ends, the hardware prefetcher loses the
    /// stream at every plane: the whole next plane (at most [`GAP_PLANE_MAX`] bytes) is
    /// prefetched instead, at once, row by row, into the second-level cache
    /// (`arch::read_ahead`; 0 is returned).
    #[inline(always)]
    pub(super) fn jump_lines(
        &self,
        cur: usize,
        next: usize,
        stride: usize,
        jump: &mut [usize; JUMP_LINES],
    ) -> usize {
        let elem = std::mem::size_of::<T>();
        let near = JUMP_NEAR / elem.max(1);
        let end = cur + self.setup.planes.map.last().map_or(0, |r| r as usize + 1) * stride;
        let map = self.setup.planes.map.rows();
        // Where the next plane's input, read in order, starts after a gap (a crop of
        // the rows: no row there continues the stream), every row of it is prefetched,
        // up to the line budget.
        let low = map
            .iter()
            .take(JUMP_ROWS)
            .filter(|&&s| s != RowMap::CONSTANT)
            .map(|&s| next + s as usize * stride)
            .min();
        let gap = low.is_some_and(|o| o > end.saturating_add(GAP_MIN / elem.max(1)))
            && map.len().saturating_mul(self.in_row).saturating_mul(elem) <= GAP_PLANE_MAX;
        let (rows, near, budget) = match gap {
            true => (map.len(), 0, GAP_PLANE_MAX / 64),
            false => (JUMP_ROWS, near, JUMP_LINES),
        };
        let mut lines = 0;
        for &s in map.iter().take(rows) {
            let off = next + s as usize * stride;
            if s == RowMap::CONSTANT || off.abs_diff(end) <= near {
                continue;
            }
            let start = (self.src.as_ptr() as usize).wrapping_add(off * elem);
            let mut line = start & !63;
            while line < start.wrapping_add(self.in_row * elem) && lines < budget {
                match (gap, jump.get_mut(lines)) {
                    (true, _) => crate::arch::read_ahead(line as *const u8),
                    (false, Some(a)) => *a = line,
                    // `budget` is `jump`'s length here.
                    (false, None) => break,
                }
                line += 64;
                lines += 1;
            }
        }
        if gap {
            0
        } else {
            lines
        }
    }
}
