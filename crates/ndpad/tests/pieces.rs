//! Property tests of the windowed-padding layer: the pieces `split_axis` cuts an
//! output range into tile it, each reads an input hull within the limit (exactly
//! the hull `Plan::window` finds for it), and `file_order_boxes` tiles the output in
//! file order within the budget.

use std::ops::Range;

use ndpad::{
    file_order_boxes, output_shape, split_axis, AxisPad, Cut, DType, Mode, NegativePads, Oversize,
    PadSpec, Plan, Source,
};
use proptest::prelude::*;

/// A pad of rank 1-3: its input shape and spec (any mode, pads that crop, grow past
/// the input, or insert interior constants; some of them invalid).
fn pad() -> impl Strategy<Value = (Vec<usize>, PadSpec)> {
    let modes = vec![
        Mode::Constant(None),
        Mode::Edge,
        Mode::Reflect,
        Mode::Symmetric,
        Mode::Wrap,
    ];
    (1usize..=3)
        .prop_flat_map(move |rank| {
            (
                prop::collection::vec(0usize..=7, rank),
                prop::collection::vec((-5i64..=12, -5i64..=12, 0u64..=2), rank),
                prop::sample::select(modes.clone()),
                any::<bool>(),
            )
        })
        .prop_map(|(shape, pads, mode, crop_first)| {
            // Interior pads with constants only (else every pad would be refused).
            let interior = |i| if mode.is_constant() { i } else { 0 };
            let axes = pads
                .iter()
                .map(|&(begin, end, i)| AxisPad {
                    interior: interior(i),
                    ..AxisPad::new(begin, end)
                })
                .collect();
            let negative = if crop_first {
                NegativePads::CropFirst
            } else {
                NegativePads::OriginalIndex
            };
            let spec = PadSpec::new(axes, mode)
                .with_oversize(Oversize::Repeat)
                .with_negative(negative);
            (shape, spec)
        })
}

/// The hull `Plan::window` finds for the box that is `out` on `axis` and the first
/// coordinate on the others (`None` where another axis has no output at all).
fn window_hull(
    shape: &[usize],
    spec: &PadSpec,
    out_shape: &[usize],
    axis: usize,
    out: &Range<usize>,
) -> Option<Range<usize>> {
    if out_shape.contains(&0) {
        return None;
    }
    let mut b: Vec<Range<usize>> = vec![0..1; shape.len()];
    b[axis] = out.clone();
    let w = Plan::window(DType::Uint8, shape, spec, &b, Source::Region).unwrap();
    Some(w.input[axis].clone())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn pieces_tile_the_range_and_read_within_the_limit(
        (shape, spec) in pad(),
        pick in any::<(u16, u16, u16)>(),
        limit in 0usize..=12,
    ) {
        let Ok(out_shape) = output_shape(&shape, &spec) else {
            prop_assert!(split_axis(&shape, &spec, 0, 0..0, limit, Cut::Hull).is_err());
            return Ok(());
        };
        let axis = usize::from(pick.0) % shape.len();
        let n = out_shape[axis];
        let (a, b) = (usize::from(pick.1) % (n + 1), usize::from(pick.2) % (n + 1));
        let range = a.min(b)..a.max(b);
        let cap = limit.max(1);
        for cut in [Cut::Runs, Cut::Hull] {
            let pieces = split_axis(&shape, &spec, axis, range.clone(), limit, cut).unwrap();
            // In order, end to end, over the whole range; one empty piece for none.
            prop_assert_eq!(pieces[0].out.start, range.start);
            prop_assert_eq!(pieces[pieces.len() - 1].out.end, range.end);
            for w in pieces.windows(2) {
                prop_assert_eq!(w[0].out.end, w[1].out.start);
            }
            let empty = range.is_empty();
            prop_assert!(pieces.iter().all(|p| p.out.is_empty() == empty));
            prop_assert!(!empty || pieces.len() == 1);
            for p in &pieces {
                prop_assert!(p.reads.len() <= cap, "{:?} {:?} reads over {}", cut, p, cap);
                prop_assert!(p.reads.end <= shape[axis]);
                if cut == Cut::Runs {
                    prop_assert!(p.out.len() <= cap);
                    prop_assert!(p.reads.len() <= p.out.len());
                }
                if !empty {
                    if let Some(h) = window_hull(&shape, &spec, &out_shape, axis, &p.out) {
                        prop_assert_eq!(&p.reads, &h, "{:?} {:?}", cut, p);
                    }
                }
            }
            // Hull cuts only where it must: no two neighbours read within the limit.
            if cut == Cut::Hull {
                for w in pieces.windows(2) {
                    let (x, y) = (&w[0].reads, &w[1].reads);
                    let joined = match (x.is_empty(), y.is_empty()) {
                        (true, _) => y.clone(),
                        (_, true) => x.clone(),
                        _ => x.start.min(y.start)..x.end.max(y.end),
                    };
                    prop_assert!(joined.len() > cap, "{:?} could be one piece", w);
                }
            }
        }
    }

    #[test]
    fn file_order_boxes_tile_the_output_within_the_budget(
        (shape, spec) in pad(),
        width in 1usize..=4,
        budget in 0usize..=200,
    ) {
        let Ok(out_shape) = output_shape(&shape, &spec) else {
            prop_assert!(file_order_boxes(&shape, &spec, width, budget).is_err());
            return Ok(());
        };
        let boxes = file_order_boxes(&shape, &spec, width, budget).unwrap();
        // File order: each box starts where the one before it ends, in C order, so
        // together they are the output's elements one after the other.
        let total: usize = out_shape.iter().product();
        let mut next = 0usize;
        for b in boxes {
            let elems: usize = b.iter().map(Range::len).product();
            let first = b.iter().zip(&out_shape).fold(0, |at, (r, &n)| at * n + r.start);
            prop_assert_eq!(first, next, "{:?}", b);
            next += elems;
            // Within the budget, or one element where not even that fits.
            prop_assert!(elems * width <= budget.max(width), "{:?}", b);
            // On the axes it does not take whole, a box reads no more than itself.
            let w = Plan::window(DType::Uint8, &shape, &spec, &b, Source::Region).unwrap();
            for (a, r) in b.iter().enumerate().filter(|(a, r)| r.len() != out_shape[*a]) {
                prop_assert!(w.input[a].len() <= r.len(), "{:?} reads {:?}", b, w.input);
            }
        }
        prop_assert_eq!(next, total);
    }
}
