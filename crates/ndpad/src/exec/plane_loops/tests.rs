//! The plane loops against slices written the plain way: every kind of ends,
//! directly and around the cache, at every offset within a line, and their
//! refusals.

#![allow(unsafe_code)]

use super::*;

/// Where outputs start within a 64-byte line: every offset (a sample under Miri,
/// which runs these loops some thousand times slower).
fn leads() -> impl Iterator<Item = usize> {
    (0..64).step_by(if cfg!(miri) { 9 } else { 1 })
}

/// Edges of rows of 24 bytes from input rows of 20 (the copy of input bytes 0..20
/// to 2..22): the first two bytes from input bytes 18, 19 (window a), the last two
/// the constant 7; window b holds the copy's bytes.
fn edges(ssse3: Ssse3) -> Edges {
    edges_for(ssse3, 20)
}

/// [`edges`] for input rows of `in_row` bytes (16 or more) and output rows of
/// `in_row + 4`: the left end as there, the right end's window the input row's last
/// 16 bytes.
fn edges_for(ssse3: Ssse3, in_row: usize) -> Edges {
    let none = Blend16::NONE;
    let blank = Blend16 {
        a: [none; 16],
        b: [none; 16],
        fill: [0; 16],
    };
    let (mut left, mut right) = (blank, blank);
    left.a[..2].copy_from_slice(&[14, 15]);
    for i in 2..16 {
        left.b[i] = i as u8 - 2;
    }
    for i in 0..14 {
        right.b[i] = i as u8 + 2;
    }
    right.fill[14..].copy_from_slice(&[7, 7]);
    Edges {
        ssse3,
        left: [4, 0],
        right: [in_row - 16; 2],
        left_blend: left,
        right_blend: right,
    }
}

fn plane<'a>(
    src: &'a [u8],
    rows: &'a RowMap,
    constant_row: &'a [u8],
    ends: Ends<'a>,
) -> CopyPlane<'a> {
    CopyPlane {
        src,
        base: 0,
        stride: 20,
        rows,
        range: 0..rows.rows().len(),
        in_row: 20,
        out_row: 24,
        constant_row,
        constant_period: constant_row.len(),
        copy: RowCopy {
            at: 2,
            from: 0,
            len: 20,
        },
        ends,
        jump: &[],
    }
}

/// `p` written with a staging buffer (around the cache where it streams) into an
/// output starting `lead` bytes into a line; the bytes around it are checked
/// untouched. Returns what was written.
fn staged_at(p: &CopyPlane<'_>, stage: &mut Stage, lead: usize) -> Vec<u8> {
    let n = p.range.len() * p.out_row;
    let mut buf = vec![0xAAu8; n + 128];
    let at = buf.as_ptr().align_offset(64) + lead;
    assert!(copy_plane(p, Some(stage), Cpu::get(), &mut buf[at..at + n]));
    crate::arch::fence();
    assert!(buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0xAA));
    buf[at..at + n].to_vec()
}

/// Planes whose input spans `READ_AHEAD_PLANE_MIN` bytes or more, in rows of
/// `READ_AHEAD_ROW_MIN` or more, take the staged loop that prefetches ahead (its own
/// copy of the loop): written whole or in parts (a thread's share), staged or not,
/// they are the same, and the prefetches past the input's end change nothing.
#[test]
fn copy_plane_reading_ahead() {
    const ROW: usize = 260;
    let src: Vec<u8> = (0..1001 * ROW).map(|i| (i % 251) as u8).collect();
    let rows = RowMap::new(
        (0..512u32)
            .map(|k| match k % 4 {
                0 => 1000,
                1 => RowMap::CONSTANT,
                _ => k * 7 % 1001,
            })
            .collect(),
    );
    let Some(ssse3) = Cpu::get().ssse3() else {
        return;
    };
    let e = edges(ssse3);
    let (constant_row, open_fill) = ([9u8; ROW + 4], [9u8; ROW]);
    let planes = [
        wide_plane(&src, &rows, &constant_row, (ROW, 2), Ends::Blend(&e)),
        wide_plane(&src, &rows, &constant_row, (ROW, 2), Ends::Constant),
        wide_plane(&src, &rows, &open_fill, (ROW, 0), Ends::Open),
    ];
    let mut stage = Stage::new();
    for whole in planes {
        assert!(whole.reads_ahead() && whole.streams(), "{:?}", whole.ends);
        let len = 512 * whole.out_row;
        let mut want = vec![0xAAu8; len];
        assert!(copy_plane(&whole, None, Cpu::get(), &mut want));
        assert_eq!(want[whole.out_row..2 * whole.out_row], *whole.constant_row);
        for (range, lead) in [(0..512, 0), (0..512, 37), (100..400, 5), (450..512, 63)] {
            let part = CopyPlane {
                range: range.clone(),
                ..whole
            };
            let got = staged_at(&part, &mut stage, lead);
            let w = &want[range.start * whole.out_row..range.end * whole.out_row];
            assert_eq!(got, w, "{:?} {range:?} lead {lead}", whole.ends);
        }
    }
    // Shorter rows, or a smaller plane, keep the loop without.
    let short = plane(&src, &rows, &constant_row[..24], Ends::Constant);
    assert!(short.plane_in() >= READ_AHEAD_PLANE_MIN && !short.reads_ahead());
    let few = RowMap::new(vec![0, 1, 2]);
    let small = wide_plane(&src, &few, &constant_row, (ROW, 2), Ends::Constant);
    assert!(small.in_row >= READ_AHEAD_ROW_MIN && !small.reads_ahead());
}

/// A row stored around the cache is the row, at any alignment and width (16-byte
/// aligned multiples of 16 take the non-temporal stores).
#[test]
fn rows_stored_around_the_cache() {
    fn check<const W: usize>() {
        let v: [u8; W] = std::array::from_fn(|i| i as u8 + 1);
        let mut buf = vec![0u8; W + 64];
        for at in 0..32 {
            let base = buf.as_ptr().align_offset(16) + at;
            buf.fill(0);
            crate::arch::store_around_cache(&mut buf[base..base + W], &v);
            crate::arch::fence();
            assert_eq!(buf[base..base + W], v, "{W} at {at}");
            assert!(buf[..base].iter().chain(&buf[base + W..]).all(|&b| b == 0));
        }
    }
    check::<8>();
    check::<16>();
    check::<32>();
    check::<64>();
}

/// A plane of input rows of `row` bytes, each copied whole to `copy_at` in an
/// output row as long as `constant_row`.
fn wide_plane<'a>(
    src: &'a [u8],
    rows: &'a RowMap,
    constant_row: &'a [u8],
    (row, copy_at): (usize, usize),
    ends: Ends<'a>,
) -> CopyPlane<'a> {
    CopyPlane {
        stride: row,
        in_row: row,
        out_row: constant_row.len(),
        copy: RowCopy {
            at: copy_at,
            from: 0,
            len: row,
        },
        ..plane(src, rows, constant_row, ends)
    }
}

/// A plane written through the staging buffer (where the CPU has AVX2) equals
/// the plane written directly, wherever the output starts within a line; planes
/// whose rows leave bytes unwritten, or too short, are not staged.
#[test]
fn copy_plane_streamed_equals_direct() {
    let src: Vec<u8> = (0..60).collect();
    let constant_row = [9u8; 24];
    let rows = RowMap::new(
        (0..512)
            .map(|k| [2, RowMap::CONSTANT, 0, 1][k % 4])
            .collect(),
    );
    let Some(ssse3) = Cpu::get().ssse3() else {
        return;
    };
    let e = edges(ssse3);
    let mut p = plane(&src, &rows, &constant_row, Ends::Blend(&e));
    assert!(p.streams());
    let len = 512 * 24;
    let mut want = vec![0xAAu8; len];
    assert!(copy_plane(&p, None, Cpu::get(), &mut want));
    let mut stage = Stage::new();
    for lead in leads() {
        let mut buf = vec![0xAAu8; len + 128];
        let at = buf.as_ptr().align_offset(64) + lead;
        assert!(copy_plane(
            &p,
            Some(&mut stage),
            Cpu::get(),
            &mut buf[at..at + len]
        ));
        assert_eq!(buf[at..at + len], want[..], "lead {lead}");
        assert!(buf[..at].iter().chain(&buf[at + len..]).all(|&b| b == 0xAA));
    }
    // Lines to prefetch (hints: the output is the same): fewer than the rows, and
    // more (the surplus prefetched as the plane starts).
    let lines: Vec<usize> = (0..600).map(|k| src.as_ptr() as usize + k * 64).collect();
    for n in [0, 5, 504, 505, 600] {
        p.jump = &lines[..n];
        let mut buf = vec![0xAAu8; len];
        assert!(copy_plane(&p, Some(&mut stage), Cpu::get(), &mut buf));
        assert_eq!(buf, want, "{n} lines ahead");
    }
    p.jump = &[];
    // The constant before and after the copy, directly and staged.
    let constant_ends = plane(&src, &rows, &constant_row, Ends::Constant);
    assert!(constant_ends.streams());
    let mut direct = vec![0xAAu8; len];
    assert!(copy_plane(&constant_ends, None, Cpu::get(), &mut direct));
    let mut row1 = vec![9u8, 9];
    row1.extend(20..40);
    row1.extend([9, 9]);
    assert_eq!(direct[72..96], row1[..]);
    let mut buf = vec![0xAAu8; len + 64];
    assert!(copy_plane(
        &constant_ends,
        Some(&mut stage),
        Cpu::get(),
        &mut buf[5..5 + len]
    ));
    assert_eq!(buf[5..5 + len], direct[..]);
    // Rows longer than STAGE_ROW_MAX: their whole lines inside the copy straight
    // from the input; with the constant around the copy, or nothing (the bytes
    // around it then untouched).
    let long_src: Vec<u8> = (0..3 * 2100).map(|i| (i % 251) as u8).collect();
    let long_fill = vec![7u8; 2110];
    let long_rows = RowMap::new(vec![2, RowMap::CONSTANT, 0, 1]);
    for ends in [Ends::Constant, Ends::Open] {
        let long = wide_plane(&long_src, &long_rows, &long_fill, (2100, 5), ends);
        let n = 4 * 2110;
        let mut want = vec![0xAAu8; n];
        assert!(copy_plane(&long, None, Cpu::get(), &mut want));
        assert_eq!(want[2110 * 3 + 5..2110 * 4 - 5], long_src[2100..4200]);
        for lead in leads() {
            let mut buf = vec![0xAAu8; n + 128];
            let at = buf.as_ptr().align_offset(64) + lead;
            assert!(copy_plane(
                &long,
                Some(&mut stage),
                Cpu::get(),
                &mut buf[at..at + n]
            ));
            assert_eq!(buf[at..at + n], want[..], "{ends:?} lead {lead}");
            assert!(buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0xAA));
        }
    }
    // Single elements around the copy, one by one (`copy_plane_singles`): each row's
    // first two bytes from its input bytes 10 and 11 (one 2-byte element), its
    // last two from 0 and 1; the same with or without streaming (short rows are
    // never staged).
    let singles = Singles {
        size: 2,
        at: vec![(0, 10), (22, 0)],
    };
    let pk = plane(&src, &rows, &constant_row, Ends::Open);
    let mut direct = vec![0xAAu8; len];
    assert!(copy_plane_singles(
        &pk,
        &singles,
        false,
        Cpu::get(),
        &mut direct
    ));
    let mut row1 = vec![30u8, 31];
    row1.extend(20..40);
    row1.extend([20, 21]);
    assert_eq!(direct[72..96], row1[..]);
    assert_eq!(direct[24..48], constant_row[..]);
    let mut buf = vec![0xAAu8; len + 64];
    assert!(copy_plane_singles(
        &pk,
        &singles,
        true,
        Cpu::get(),
        &mut buf[7..7 + len]
    ));
    assert_eq!(buf[7..7 + len], direct[..]);
    // Long rows: their whole lines inside the copy around the cache, at every
    // offset; elements outside a row, of a size without a loop, or ends other
    // than `Open` are refused, nothing written.
    let long_singles = Singles {
        size: 4,
        at: vec![(0, 8), (2104, 100)],
    };
    let mut long = wide_plane(
        &long_src,
        &long_rows,
        &long_fill[..2108],
        (2100, 4),
        Ends::Open,
    );
    let n = 4 * 2108;
    let mut want = vec![0xAAu8; n];
    assert!(copy_plane_singles(
        &long,
        &long_singles,
        false,
        Cpu::get(),
        &mut want
    ));
    assert_eq!(want[..4], long_src[4200 + 8..4200 + 12]);
    assert_eq!(want[4..2104], long_src[4200..6300]);
    assert_eq!(want[2104..2108], long_src[4200 + 100..4200 + 104]);
    assert_eq!(want[2108..4216], long_fill[..2108]);
    for lead in leads() {
        let mut buf = vec![0xAAu8; n + 128];
        let at = buf.as_ptr().align_offset(64) + lead;
        assert!(copy_plane_singles(
            &long,
            &long_singles,
            true,
            Cpu::get(),
            &mut buf[at..at + n]
        ));
        assert_eq!(buf[at..at + n], want[..], "singles lead {lead}");
        assert!(buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0xAA));
    }
    let bads = [(4, (2105, 0)), (4, (0, 2097)), (5, (0, 0))];
    for (size, at) in bads {
        let bad = Singles { size, at: vec![at] };
        let mut buf = vec![0xAAu8; n];
        assert!(!copy_plane_singles(&long, &bad, true, Cpu::get(), &mut buf));
        assert!(buf.iter().all(|&b| b == 0xAA));
    }
    long.ends = Ends::Constant;
    let mut buf = vec![0xAAu8; n];
    assert!(!copy_plane_singles(
        &long,
        &long_singles,
        true,
        Cpu::get(),
        &mut buf
    ));
    assert!(buf.iter().all(|&b| b == 0xAA));
    // A copy that leaves bytes between it and the blends, no blends around a
    // partial copy, a plane under STAGE_PLANE_MIN bytes: written directly.
    p.copy.at = 17;
    assert!(!p.streams());
    let mut p = plane(&src, &rows, &constant_row, Ends::Open);
    assert!(!p.streams());
    let short = RowMap::new(vec![0; 42]);
    (p.rows, p.range, p.copy.at, p.copy.len, p.out_row) = (&short, 0..42, 0, 20, 20);
    assert!(!p.streams());
}

#[test]
fn copy_plane_rows_and_limits() {
    let src: Vec<u8> = (0..60).collect();
    let constant_row = [9u8; 24];
    let rows = RowMap::new(vec![2, RowMap::CONSTANT, 0]);
    // Without edges: the copy alone, the bytes around it untouched.
    let mut out = [0xAAu8; 72];
    assert!(copy_plane(
        &plane(&src, &rows, &constant_row, Ends::Open),
        None,
        Cpu::get(),
        &mut out
    ));
    let row = |r: u8, left: [u8; 2], right: [u8; 2]| {
        let mut v = left.to_vec();
        v.extend(r * 20..r * 20 + 20);
        v.extend(right);
        v
    };
    assert_eq!(out[..24], row(2, [0xAA; 2], [0xAA; 2])[..]);
    assert_eq!(out[24..48], constant_row);
    assert_eq!(out[48..], row(0, [0xAA; 2], [0xAA; 2])[..]);
    let Some(ssse3) = Cpu::get().ssse3() else {
        return;
    };
    let e = edges(ssse3);
    let mut out = [0xAAu8; 72];
    assert!(copy_plane(
        &plane(&src, &rows, &constant_row, Ends::Blend(&e)),
        None,
        Cpu::get(),
        &mut out
    ));
    assert_eq!(out[..24], row(2, [58, 59], [7, 7])[..]);
    assert_eq!(out[24..48], constant_row);
    assert_eq!(out[48..], row(0, [18, 19], [7, 7])[..]);
    // Every read or write that would leave its slice is refused, nothing written.
    let past_input = RowMap::new(vec![3]);
    let mut bad = vec![plane(&src, &past_input, &constant_row, Ends::Open)];
    let mut p = plane(&src, &rows, &constant_row, Ends::Open);
    p.base = 1;
    bad.push(p);
    let mut p = plane(&src, &rows, &constant_row, Ends::Open);
    p.stride = usize::MAX / 2;
    bad.push(p);
    let mut p = plane(&src, &rows, &constant_row, Ends::Open);
    p.copy.len = 21;
    bad.push(p);
    let mut p = plane(&src, &rows, &constant_row, Ends::Open);
    p.copy.at = 5;
    bad.push(p);
    bad.push(plane(&src, &rows, &constant_row[..23], Ends::Open));
    let mut far = e;
    far.right[1] = 5;
    bad.push(plane(&src, &rows, &constant_row, Ends::Blend(&far)));
    let mut huge = e;
    huge.left[0] = usize::MAX;
    bad.push(plane(&src, &rows, &constant_row, Ends::Blend(&huge)));
    let narrow = [9u8; 12];
    let mut p = plane(&src, &rows, &narrow, Ends::Blend(&e));
    (p.out_row, p.copy.at, p.copy.len) = (12, 0, 12);
    bad.push(p);
    for (k, p) in bad.iter().enumerate() {
        let mut out = [0xAAu8; 72];
        let len = p.range.len() * p.out_row;
        assert!(
            !copy_plane(p, None, Cpu::get(), &mut out[..len]),
            "case {k}"
        );
        assert_eq!(out, [0xAA; 72], "case {k}");
    }
    let mut short = [0xAAu8; 71];
    assert!(!copy_plane(
        &plane(&src, &rows, &constant_row, Ends::Open),
        None,
        Cpu::get(),
        &mut short
    ));
}

/// Crops written around the cache line by line straight from the input (where the
/// CPU has AVX2), lines within a row and lines joining two, equal the planes written
/// directly, for rows of one line and more, in any order, wherever the output starts
/// within a line; rows of the constant, shorter than a line, longer than
/// `STAGE_ROW_MAX`, or less than a line from the input's ends take the other loops,
/// with the same result.
#[test]
fn copy_plane_joined_equals_direct() {
    let mut stage = Stage::new();
    let widths: &[usize] = if cfg!(miri) {
        &[64, 100]
    } else {
        &[63, 64, 65, 100, 208, 3000]
    };
    for &w in widths {
        let in_row = w + 8;
        // Planes of 130 rows: at least STAGE_PLANE_MIN bytes at every width.
        let src: Vec<u8> = (0..132 * in_row).map(|i| (i % 251) as u8).collect();
        let constant_row = vec![9u8; w];
        let mut constant: Vec<u32> = (1..=130).collect();
        constant[1] = RowMap::CONSTANT;
        let maps = [
            (1..=130).collect::<Vec<u32>>(),
            (0..130).map(|k| k * 37 % 130 + 1).collect(),
            (0..130).collect(),
            constant,
        ];
        for (m, map) in maps.into_iter().enumerate() {
            let rows = RowMap::new(map);
            let p = CopyPlane {
                stride: in_row,
                in_row,
                out_row: w,
                copy: RowCopy {
                    at: 0,
                    from: 4,
                    len: w,
                },
                ..plane(&src, &rows, &constant_row, Ends::Open)
            };
            let joins = (64..=STAGE_ROW_MAX).contains(&w) && m < 2;
            assert_eq!(p.joins(), joins, "width {w}, map {m}");
            let len = 130 * w;
            let mut want = vec![0xAAu8; len];
            assert!(copy_plane(&p, None, Cpu::get(), &mut want));
            for lead in leads().step_by(if w > 1000 { 7 } else { 1 }) {
                let got = staged_at(&p, &mut stage, lead);
                assert_eq!(got, want, "width {w}, map {m}, lead {lead}");
            }
            // A thread's share of the plane: its rows 3..100.
            let part = CopyPlane { range: 3..100, ..p };
            let got = staged_at(&part, &mut stage, 17);
            assert_eq!(got, want[3 * w..100 * w], "width {w}, map {m}, rows 3..100");
        }
    }
}

/// The joined loop's margins exactly: rows whose copies start a line after the
/// input's start and end a line before its end are joined (and read nothing
/// outside it: Miri checks), one byte less on either side and they are not; a plane
/// part under `STAGE_PLANE_MIN` bytes, or of no rows, is not either.
#[test]
fn copy_plane_joined_at_its_margins() {
    let (w, in_row, from) = (100usize, 112usize, 4usize);
    let rows = RowMap::new((0..100).collect());
    let constant_row = vec![9u8; w];
    let mut stage = Stage::new();
    // `at(first) = base + from`, `at(last) + w + 64 = base + 99 * in_row + from + w + 64`.
    for (base, short) in [(60, 0), (59, 0), (60, 1)] {
        let len = base + 99 * in_row + from + w + 64 - short;
        let src: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let p = CopyPlane {
            base,
            stride: in_row,
            in_row,
            out_row: w,
            copy: RowCopy {
                at: 0,
                from,
                len: w,
            },
            ..plane(&src, &rows, &constant_row, Ends::Open)
        };
        assert_eq!(
            p.joins(),
            base == 60 && short == 0,
            "base {base}, short {short}"
        );
        let mut want = vec![0u8; 100 * w];
        assert!(copy_plane(&p, None, Cpu::get(), &mut want));
        let got = staged_at(&p, &mut stage, 0);
        assert_eq!(got, want, "base {base}, short {short}");
        for range in [0..0, 10..90] {
            let part = CopyPlane { range, ..p };
            assert!(!part.joins());
        }
    }
}

/// A plane of `rows` with blended ends ([`edges_for`]) of `w`-byte output rows, from
/// input rows of `w - 4` bytes that start `base` bytes into `src`.
fn blended_plane<'a>(
    src: &'a [u8],
    rows: &'a RowMap,
    constant_row: &'a [u8],
    base: usize,
    e: &'a Edges,
) -> CopyPlane<'a> {
    let (w, in_row) = (constant_row.len(), constant_row.len() - 4);
    CopyPlane {
        base,
        stride: in_row,
        in_row,
        out_row: w,
        copy: RowCopy {
            at: 2,
            from: 0,
            len: in_row,
        },
        ..plane(src, rows, constant_row, Ends::Blend(e))
    }
}

/// Rows with blended ends written around the cache half-line by half-line, straight
/// from the input and, where a half-line holds (part of) the boundary between two
/// rows, that seam moved into place in registers (where the CPU has AVX2), equal the
/// planes written directly: rows of a line and more in whole words, in any order,
/// rows of the constant among them, wherever the output starts within a line, whole
/// or a thread's part; rows shorter than a line or not whole words, longer than
/// `STAGE_ROW_MAX`, all of the constant, or outputs starting off a word take the
/// other loops, with the same result.
#[test]
fn copy_plane_seamed_equals_direct() {
    let Some(ssse3) = Cpu::get().ssse3() else {
        return;
    };
    let mut stage = Stage::new();
    let widths: &[usize] = if cfg!(miri) {
        &[64, 100]
    } else {
        &[60, 64, 66, 68, 100, 136, 248, 472, 2048, 2052]
    };
    for &w in widths {
        let in_row = w - 4;
        let e = edges_for(ssse3, in_row);
        // Planes of 130 rows (at least STAGE_PLANE_MIN bytes at every width), a line
        // from either end of the input.
        let src: Vec<u8> = (0..130 * in_row + 128).map(|i| (i % 251) as u8).collect();
        let constant_row: Vec<u8> = (0..w).map(|i| (i * 7 + 200) as u8).collect();
        let mut constant: Vec<u32> = (0..130).collect();
        constant[1] = RowMap::CONSTANT;
        let mut constant_ends = constant.clone();
        for k in [0, 1, 127, 128, 129] {
            constant_ends[k] = RowMap::CONSTANT;
        }
        // The first 70 rows the constant: a thread's part may hold only those.
        let constant_head: Vec<u32> = (0..130)
            .map(|k| if k < 70 { RowMap::CONSTANT } else { k })
            .collect();
        let maps = [
            (0..130).collect::<Vec<u32>>(),
            (0..130).map(|k| k * 37 % 130).collect(),
            constant,
            constant_ends,
            constant_head,
            vec![RowMap::CONSTANT; 130],
        ];
        for (m, map) in maps.into_iter().enumerate() {
            let rows = RowMap::new(map);
            let p = blended_plane(&src, &rows, &constant_row, 64, &e);
            let seams = (64..=STAGE_ROW_MAX).contains(&w) && w % 4 == 0 && m < 5;
            let mut want = vec![0xAAu8; 130 * w];
            assert!(copy_plane(&p, None, Cpu::get(), &mut want));
            for lead in leads() {
                let at = std::ptr::without_provenance(64 + lead);
                assert_eq!(
                    p.seams(at),
                    seams && lead % 4 == 0,
                    "width {w}, lead {lead}"
                );
                let got = staged_at(&p, &mut stage, lead);
                assert_eq!(got, want, "width {w}, map {m}, lead {lead}");
            }
            // A thread's share of the plane: its rows 3..100, and 0..70 (all of the
            // constant in the fifth map; a part of STAGE_PLANE_MIN bytes from rows
            // of 118 bytes).
            for range in [3..100, 0..70] {
                let part = CopyPlane {
                    range: range.clone(),
                    ..p
                };
                for lead in [0, 20, 36] {
                    let got = staged_at(&part, &mut stage, lead);
                    let rows = &want[range.start * w..range.end * w];
                    assert_eq!(got, rows, "width {w}, map {m}, rows {range:?}, lead {lead}");
                }
            }
        }
    }
}

/// The seamed loop's margins exactly: rows that start a line after the input's start
/// and end a line before its end are seamed (and read nothing outside it: Miri
/// checks), one byte less on either side and they are not.
#[test]
fn copy_plane_seamed_at_its_margins() {
    let Some(ssse3) = Cpu::get().ssse3() else {
        return;
    };
    let (w, in_row) = (100usize, 96usize);
    let e = edges_for(ssse3, in_row);
    let rows = RowMap::new((0..100).collect());
    let constant_row = vec![9u8; w];
    let mut stage = Stage::new();
    for (base, short) in [(64, 0), (63, 0), (64, 1)] {
        let len = base + 100 * in_row + 64 - short;
        let src: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let p = blended_plane(&src, &rows, &constant_row, base, &e);
        let at = std::ptr::without_provenance(64);
        assert_eq!(
            p.seams(at),
            base == 64 && short == 0,
            "base {base}, short {short}"
        );
        let mut want = vec![0u8; 100 * w];
        assert!(copy_plane(&p, None, Cpu::get(), &mut want));
        for lead in [0, 4, 60] {
            let got = staged_at(&p, &mut stage, lead);
            assert_eq!(got, want, "base {base}, short {short}, lead {lead}");
        }
    }
}

/// Long rows of one copy between runs of the constant, their whole lines streamed
/// (where the CPU has AVX2) from the constant row, the input, or both joined, equal
/// the planes written directly: copies starting and ending anywhere in a line, in
/// the rows' first or last partial line, rows of the constant among them, rows read
/// from either end of the input (where a joined line would read beyond it: ordinary
/// stores there, and Miri checks nothing is read outside), whole or a thread's
/// part; copies under two lines and rows up to `STAGE_ROW_MAX` take the other loops.
#[test]
fn copy_plane_framed_equals_direct() {
    let mut stage = Stage::new();
    // (output row, copy at, copy length)
    let cases: &[(usize, usize, usize)] = if cfg!(miri) {
        &[(2100, 70, 1000), (2101, 1, 2099)]
    } else {
        &[
            (2100, 70, 1000),
            (2100, 0, 2100),
            (2100, 1, 2099),
            (2100, 63, 1981),
            (2100, 64, 128),
            (2100, 64, 127),
            (2049, 2, 2047),
            (3001, 700, 1600),
            (3000, 700, 1600),
            (4100, 1000, 3000),
            (2048, 100, 1000),
        ]
    };
    for &(w, at, len) in cases {
        for from in [0, 5] {
            let in_row = from + len + 3;
            let src: Vec<u8> = (0..12 * in_row).map(|i| (i % 251) as u8).collect();
            // The constant of 3 bytes (its lines read from the row's first 256 bytes)
            // at even widths, bytes that never repeat at odd ones.
            let (constant_row, period): (Vec<u8>, usize) = match w % 2 {
                0 => ((0..w).map(|i| [200, 201, 202][i % 3]).collect(), 192),
                _ => ((0..w).map(|i| (i * 7 + 200) as u8).collect(), w),
            };
            let mut constant: Vec<u32> = (0..12).collect();
            constant[1] = RowMap::CONSTANT;
            constant[11] = RowMap::CONSTANT;
            let maps = [
                (0..12).collect::<Vec<u32>>(),
                (0..12).map(|k| 11 - k).collect(),
                constant,
                vec![RowMap::CONSTANT; 12],
            ];
            for (m, map) in maps.into_iter().enumerate() {
                let rows = RowMap::new(map);
                let p = CopyPlane {
                    stride: in_row,
                    in_row,
                    out_row: w,
                    copy: RowCopy { at, from, len },
                    constant_period: period,
                    ..plane(&src, &rows, &constant_row, Ends::Constant)
                };
                assert_eq!(p.frames(), w > STAGE_ROW_MAX && len >= 128, "width {w}");
                let mut want = vec![0xAAu8; 12 * w];
                assert!(copy_plane(&p, None, Cpu::get(), &mut want));
                let what = format!("width {w}, copy {at}+{len} from {from}, map {m}");
                for lead in leads().step_by(if cfg!(miri) { 1 } else { 3 }) {
                    let got = staged_at(&p, &mut stage, lead);
                    assert_eq!(got, want, "{what}, lead {lead}");
                }
                let part = CopyPlane { range: 2..7, ..p };
                let got = staged_at(&part, &mut stage, 9);
                assert_eq!(got, want[2 * w..7 * w], "{what}, rows 2..7");
            }
        }
    }
}
