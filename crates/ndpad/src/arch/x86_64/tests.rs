//! Tests of the x86_64 code: the non-temporal movers (and where they go line by
//! line) against plain copies, and the seams.

use super::*;

/// The CPUs whose movers the tests compare: this one, this one without AVX-512F
/// (the 32-byte movers, where it has it), and none of the features.
fn cpus() -> [Cpu; 3] {
    [Cpu::get(), Cpu::get().without("avx512"), Cpu::BASELINE]
}

/// Every line mover (64-byte, 32-byte, 16-byte stores) copies every byte, at
/// several line counts, straight and reading ahead.
#[test]
fn stream_lines_every_width() {
    #[repr(C, align(64))]
    struct Lines([u8; 64 * 5]);
    let src: Vec<u8> = (0..64 * 5).map(|i| (i * 7 + 3) as u8).collect();
    for lines in 0..=5 {
        let movers = cpus()
            .map(Cpu::avx)
            .into_iter()
            .flat_map(|a| [(a, false), (a, true)]);
        for (avx, ahead) in movers {
            let mut d = Lines([0; 64 * 5]);
            let (s, o) = (src.as_ptr(), d.0.as_mut_ptr());
            // SAFETY: `src` and `d` hold 5 lines, `d` is 64-byte aligned.
            unsafe {
                match (avx, ahead) {
                    (Some(a), false) => stream_lines(s, o, lines, a),
                    (Some(a), true) => stream_lines_ahead(s, o, lines, a),
                    (None, _) => stream_lines_sse2(s, o, lines),
                }
            }
            fence();
            assert_eq!(&d.0[..64 * lines], &src[..64 * lines]);
            assert!(d.0[64 * lines..].iter().all(|&b| b == 0));
        }
    }
}

/// A seam moved over a half-line at every start it may have: as the portable
/// version places it word by word, and as written out by hand at two starts;
/// `stream_seamed` stores the same bytes.
#[test]
fn seamed_places_the_seam_by_words() {
    let Some(avx2) = Cpu::get().avx2() else {
        return;
    };
    #[repr(C, align(32))]
    struct Half([u8; 32]);
    let a: [u8; 32] = std::array::from_fn(|i| i as u8);
    let seam = Seam::new(
        std::array::from_fn(|i| 100 + i as u8),
        std::array::from_fn(|i| 200 + i as u8),
    );
    for e in -Seam::REACH..=Seam::REACH {
        // SAFETY: `a` holds 32 bytes, `e` is within the reach; `d` is 32 bytes,
        // 32-byte aligned.
        let (got, want, stored) = unsafe {
            let mut d = Half([0; 32]);
            stream_seamed(a.as_ptr(), seam, e, d.0.as_mut_ptr(), avx2);
            fence();
            (
                seamed(a.as_ptr(), seam, e, avx2),
                crate::arch::generic::seamed_words(a.as_ptr(), seam, e),
                d.0,
            )
        };
        assert_eq!(got, want, "e {e}");
        assert_eq!(stored, want, "e {e}");
        if e == 2 {
            assert_eq!(got[..8], a[..8]);
            assert_eq!(got[8..], seam.0[..24]);
        }
        if e == -3 {
            assert_eq!(got[..20], seam.0[12..]);
            assert_eq!(got[20..], a[20..]);
        }
    }
}

/// Elements of each width interleaved with the constant, either first, over every
/// line given; a start off a line boundary, a source not half the length, or a
/// width that does not tile a 16-byte register, is refused untouched.
#[test]
fn stream_interleaved_each_width() {
    #[repr(C, align(64))]
    struct Lines([u8; 64 * 3]);
    fn check<const N: usize>() {
        let src: Vec<u8> = (0..96).map(|i| (i * 7 + 3) as u8).collect();
        let c: [u8; N] = std::array::from_fn(|i| 200 + i as u8);
        for constant_first in [false, true] {
            let mut d = Lines([0; 64 * 3]);
            assert!(stream_interleaved(&mut d.0, &src, &c, constant_first));
            fence();
            let want: Vec<u8> = src
                .chunks(N)
                .flat_map(|s| match constant_first {
                    false => [s, &c[..]].concat(),
                    true => [&c[..], s].concat(),
                })
                .collect();
            assert_eq!(d.0[..], want[..], "N {N}, constant first {constant_first}");
        }
        let mut d = Lines([0; 64 * 3]);
        assert!(!stream_interleaved(&mut d.0[1..129], &src[..64], &c, false));
        assert!(!stream_interleaved(&mut d.0[..128], &src[..63], &c, false));
        assert!(d.0.iter().all(|&b| b == 0));
    }
    check::<1>();
    check::<2>();
    check::<4>();
    check::<8>();
    check::<16>();
    let mut d = Lines([0; 64 * 3]);
    assert!(!stream_interleaved(
        &mut d.0[..192],
        &[0u8; 96],
        &[1u8; 3],
        false
    ));
}

/// The constant line fills every line given, with AVX and without; a start off a
/// line boundary, or a length not of whole lines, is refused untouched.
#[test]
fn stream_fill_lines_both_widths() {
    #[repr(C, align(64))]
    struct Lines([u8; 64 * 5]);
    let line: [u8; 64] = std::array::from_fn(|i| (i * 7 + 3) as u8);
    for cpu in [Cpu::get(), Cpu::BASELINE] {
        for lines in 0..=5 {
            let mut d = Lines([0; 64 * 5]);
            assert!(stream_fill_lines(&mut d.0[..64 * lines], &line, cpu));
            fence();
            assert!(d.0[..64 * lines].chunks(64).all(|l| l == line));
            assert!(d.0[64 * lines..].iter().all(|&b| b == 0));
        }
        let mut d = Lines([0; 64 * 5]);
        assert!(!stream_fill_lines(&mut d.0[1..129], &line, cpu));
        assert!(!stream_fill_lines(&mut d.0[..100], &line, cpu));
        assert!(d.0.iter().all(|&b| b == 0));
    }
}

/// `stream_copy` copies any alignment and length at or over its minimum, and
/// declines shorter or mismatched ones.
#[test]
fn stream_copy_any_alignment() {
    let src: Vec<u8> = (0..1000).map(|i| (i * 13 + 1) as u8).collect();
    for cpu in cpus() {
        for off in [0, 1, 17, 63] {
            let mut dst = vec![0u8; 1000];
            let d = &mut dst[off..];
            assert!(stream_copy(d, &src[off..], 200, cpu));
            assert_eq!(&dst[off..], &src[off..]);
            assert!(!stream_copy(&mut dst[..100], &src[..100], 200, cpu));
            assert!(!stream_copy(&mut dst[..300], &src[..299], 200, cpu));
        }
    }
}

/// Copies of whole blocks of pages (a line of each page in turn) and more, on AMD
/// and elsewhere, the destination at several distances after the source within a
/// page (line by line below `PAGE_ALIAS_BYTES`, and within a line before, on
/// AMD): every byte in its place, whatever the alignment, from bytes that never
/// repeat at a page's distance.
#[test]
fn stream_copy_by_pages() {
    let block = PAGE * STREAM_PAGES;
    let (n, behinds): (usize, &[usize]) = match cfg!(miri) {
        true => (block + 200, &[0, PAGE_ALIAS_BYTES]),
        false => (
            3 * block + 1000,
            &[0, 64, PAGE_ALIAS_BYTES, PAGE - 64, PAGE - 16],
        ),
    };
    let src: Vec<u8> = (0..n as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut buf = vec![0u8; 2 * n + 3 * PAGE];
    let base = buf.as_ptr().align_offset(PAGE);
    // The source from a page boundary, the destination `behind` bytes past a later one.
    let (head, tail) = buf[base..].split_at_mut(n.next_multiple_of(PAGE));
    head[..n].copy_from_slice(&src);
    for len in [block, block + 64 * 3 + 5, n - 63] {
        for off in [0, 1, 63] {
            for (&behind, cpu) in behinds.iter().flat_map(|b| cpus().map(|c| (b, c))) {
                for amd in [false, true] {
                    let d = &mut tail[behind + off..behind + len];
                    d.fill(0);
                    assert!(stream_copy(d, &head[off..len], 64, Cpu { amd, ..cpu }));
                    assert!(d[..] == src[off..len], "{len}, {off}, {behind}, {amd}");
                }
            }
        }
    }
}

/// On AMD line by line under `PAGE_ALIAS_BYTES` after the source and within a line
/// before it, a page at a time between; elsewhere always a page at a time.
#[test]
fn line_by_line_where_pages_would_wait_on_their_stores() {
    let s = 7 * PAGE + 300;
    for amd in [false, true] {
        let cpu = Cpu {
            amd,
            ..Cpu::BASELINE
        };
        let at = |past: usize| line_by_line(cpu, s + past, s);
        for past in [
            0,
            1,
            PAGE_ALIAS_BYTES - 1,
            PAGE - LINE + 1,
            PAGE - 1,
            PAGE + 16,
        ] {
            assert_eq!(at(past), amd, "{past}");
        }
        for past in [PAGE_ALIAS_BYTES, PAGE / 2, PAGE - LINE] {
            assert!(!at(past), "{past}");
        }
    }
}

/// `transpose_square` writes each column of a square of 1-, 2-, 4- and 8-byte
/// elements as a row, rows and columns apart in memory, and touches nothing else;
/// other widths and rows that do not fit are refused, nothing written.
#[test]
fn squares_are_transposed() {
    fn each<const W: usize>() {
        let n = 16 / W;
        let (apart, step) = (16 + 3 * W, 16 + 5);
        let src: Vec<u8> = (0..apart * n).map(|i| (i * 13 + 7) as u8).collect();
        let mut dst = vec![0xAAu8; step * n];
        assert!(transpose_square::<W>(&src, apart, &mut dst, step));
        for j in 0..n {
            for i in 0..n {
                let (a, b) = (i * apart + j * W, j * step + i * W);
                assert_eq!(dst[b..b + W], src[a..a + W], "W {W}: row {i}, column {j}");
            }
            assert!(dst[j * step + 16..(j + 1) * step]
                .iter()
                .all(|&b| b == 0xAA));
        }
        // A row short on either side: refused, nothing written.
        let mut short = vec![0xAAu8; step * (n - 1) + 15];
        assert!(!transpose_square::<W>(&src, apart, &mut short, step));
        let mut untouched = vec![0xAAu8; step * n];
        assert!(!transpose_square::<W>(
            &src[..apart * (n - 1) + 15],
            apart,
            &mut untouched,
            step
        ));
        assert!(short.iter().chain(&untouched).all(|&b| b == 0xAA));
    }
    each::<1>();
    each::<2>();
    each::<4>();
    each::<8>();
    assert!(!transpose_square::<16>(&[0; 16], 16, &mut [0; 16], 16));
}
