//! `numpy.pad` semantics (the CLI's `--framework numpy`): `pad_width` per axis
//! (`(before, after)`, never negative; a single pair applies to every axis, as numpy
//! broadcasts it), modes constant / edge / reflect / symmetric / wrap, oversized
//! reflect / symmetric / wrap repeat the pattern ([`Oversize::Repeat`]), reflect on a
//! one-element axis copies it, and an empty axis cannot grow in a non-constant mode.
//! The default constant is numpy's `0` cast to the array's type: `0`, `false`, and the
//! string `"0"` (numpy pads a `U` array with `'0'`, an `S` array with `b'0'`). A rank-0
//! array is returned unchanged, whatever `pad_width` (numpy does the same).
//!
//! ```
//! use ndpad::{pad, Tensor, DType};
//! use ndpad_frontends::numpy::{NumpyPad, NumpyPadNode};
//! let x = Tensor::from_slice(&[3], &[1i64, 2, 3]).unwrap();
//! let node = NumpyPadNode::new(DType::Int64, "reflect", vec![(3, 0)]);
//! let r = NumpyPad.resolve(&node, x.shape()).unwrap();
//! assert_eq!(pad(x.view(), &r.spec).unwrap().to_vec::<i64>().unwrap(), vec![2, 3, 2, 1, 2, 3]);
//! ```

pub mod args;
pub mod odd;
pub mod stats;
#[cfg(test)]
mod testing;

pub use args::index_pairs;

use ndpad::{AxisPad, DType, Mode, NegativePads, Oversize, PadSpec, Scalar, SideConstants};

use crate::common::{
    check_non_negative, constant_only, infer_known, infer_named_known, parse_mode, resolve, Dim,
    ModeKind, PadValue, Resolved,
};
use crate::error::FrontendError;

/// `numpy.pad`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NumpyPad;

const MODES: &[(&str, ModeKind)] = &[
    ("constant", ModeKind::Constant),
    ("edge", ModeKind::Edge),
    ("reflect", ModeKind::Reflect),
    ("symmetric", ModeKind::Symmetric),
    ("wrap", ModeKind::Wrap),
];

const OP: &str = "numpy.pad";

/// A `numpy.pad` call.
#[derive(Clone, Debug, PartialEq)]
pub struct NumpyPadNode {
    /// Element type of the array.
    pub data_type: DType,
    /// `mode`.
    pub mode: String,
    /// `pad_width`: `(before, after)` per axis, or one pair for every axis.
    pub pad_width: Vec<(i64, i64)>,
    /// `constant_values` (constant mode only), `(before, after)` per axis or one pair
    /// for every axis, as `pad_width`; none: 0 cast to the type (`"0"` for strings).
    /// Sides of different values become [`PadSpec::sides`].
    pub constant_values: Vec<(PadValue, PadValue)>,
    /// Beyond numpy (ndpad's `interior=`): elements of the constant inserted between
    /// neighbours, one per axis or one for every axis (constant mode only); none: 0.
    pub interior: Vec<u64>,
    /// Beyond numpy (ndpad's `negative_pads=`): negative `pad_width` values crop, by
    /// this policy; `None`: numpy's rule, negative widths refused.
    pub negative_pads: Option<NegativePads>,
}

impl NumpyPadNode {
    /// A call without `constant_values`.
    pub fn new(data_type: DType, mode: &str, pad_width: Vec<(i64, i64)>) -> NumpyPadNode {
        NumpyPadNode {
            data_type,
            mode: mode.to_string(),
            pad_width,
            constant_values: Vec::new(),
            interior: Vec::new(),
            negative_pads: None,
        }
    }

    /// Sets ndpad's `interior=`: one count per axis, or one for every axis.
    pub fn interior(mut self, interior: Vec<u64>) -> NumpyPadNode {
        self.interior = interior;
        self
    }

    /// Sets ndpad's `negative_pads=`: negative widths crop, by `policy`.
    pub fn negative_pads(mut self, policy: NegativePads) -> NumpyPadNode {
        self.negative_pads = Some(policy);
        self
    }

    /// Sets `constant_values` to one value for every side.
    pub fn constant_values(mut self, value: impl Into<PadValue>) -> NumpyPadNode {
        let v = value.into();
        self.constant_values = vec![(v.clone(), v)];
        self
    }

    /// Sets `constant_values` per side: `(before, after)` per axis, or one pair for
    /// every axis.
    pub fn constant_values_per_side(mut self, values: Vec<(PadValue, PadValue)>) -> NumpyPadNode {
        self.constant_values = values;
        self
    }
}

/// numpy.pad's index modes on elements seen as opaque bytes (any numpy dtype: records,
/// object pointers, ...): the type the kernel moves them as, the shape it sees, the pad.
#[derive(Clone, Debug, PartialEq)]
pub struct BytesPad {
    /// The word type (see [`word_type`]).
    pub dtype: DType,
    /// The array's shape, with an unpadded last axis of words when an element is more
    /// than one word.
    pub shape: Vec<usize>,
    /// The pad, on `shape`.
    pub spec: PadSpec,
}

/// The element type the kernel moves elements of `itemsize` bytes as, and how many of
/// them make one element: the widest of 16, 8, 4, 2, 1 bytes that divides `itemsize`.
///
/// # Errors
/// [`FrontendError::EmptyElements`] for `itemsize` 0.
pub fn word_type(itemsize: usize) -> Result<(DType, usize), FrontendError> {
    let (dtype, width) = match itemsize {
        0 => return Err(FrontendError::EmptyElements { op: OP.into() }),
        n if n % 16 == 0 => (DType::Complex128, 16),
        n if n % 8 == 0 => (DType::Uint64, 8),
        n if n % 4 == 0 => (DType::Uint32, 4),
        n if n % 2 == 0 => (DType::Uint16, 2),
        _ => (DType::Uint8, 1),
    };
    Ok((dtype, itemsize / width))
}

/// `list` broadcast as numpy broadcasts `pad_width` and `constant_values`: one item
/// (a `(before, after)` pair, or `unit`) for every axis of `rank`, or one per axis.
fn per_axis<T: Clone>(
    name: &'static str,
    list: &[T],
    rank: usize,
) -> Result<Vec<T>, FrontendError> {
    per_axis_of(name, list, rank, ("(before, after) pair", "one pair"))
}

/// [`per_axis`], the error naming the item as `(each, one)`: "one {each} per axis of
/// rank {rank}, or {one} for all".
fn per_axis_of<T: Clone>(
    name: &'static str,
    list: &[T],
    rank: usize,
    (each, one): (&str, &str),
) -> Result<Vec<T>, FrontendError> {
    match list.len() {
        1 => Ok(vec![list[0].clone(); rank]),
        n if n == rank => Ok(list.to_vec()),
        n => Err(FrontendError::PadsLength {
            op: OP.into(),
            name,
            expected: rank,
            got: n,
            why: format!("one {each} per axis of rank {rank}, or {one} for all"),
        }),
    }
}

/// The constant the kernel writes, the most common of `values` (one per side: `before,
/// after` of each axis in turn), and the sides holding another, written after it
/// ([`PadSpec::sides`]; none where every side holds the same).
fn most_common(values: Vec<Scalar>) -> (Option<Scalar>, Vec<SideConstants>) {
    let common = values
        .iter()
        .max_by_key(|v| values.iter().filter(|w| w == v).count())
        .cloned();
    if values.iter().all(|v| Some(v) == common.as_ref()) {
        return (common, Vec::new());
    }
    let own = |v: &Scalar| Some(v).filter(|v| Some(*v) != common.as_ref()).cloned();
    let sides = values.chunks(2).map(|p| [own(&p[0]), own(&p[1])]).collect();
    (common, sides)
}

fn negative(axis: usize, side: &str, value: i64) -> FrontendError {
    FrontendError::NegativePad {
        op: OP.into(),
        name: "pad_width",
        index: axis,
        value,
        side: format!(" ({side})"),
    }
}

impl NumpyPad {
    /// The modes the kernel computes (index maps: constant, edge, reflect, symmetric,
    /// wrap), by numpy's names; 'constant' first.
    pub fn index_modes() -> impl Iterator<Item = &'static str> {
        MODES.iter().map(|&(name, _)| name)
    }

    /// Translates `node` on an array of `shape` and computes the output shape.
    ///
    /// # Errors
    /// Unknown mode, negative `pad_width`, a `pad_width` of neither one nor rank pairs,
    /// `constant_values` with a non-constant mode (numpy: "unsupported keyword
    /// arguments") or of another type, and the core's shape errors (an empty axis grown
    /// in a non-constant mode). Rank 0 is no error: the spec has no axes and the array
    /// comes back unchanged.
    pub fn resolve(&self, node: &NumpyPadNode, shape: &[usize]) -> Result<Resolved, FrontendError> {
        let spec = self.translate(node, shape.len())?;
        resolve(OP, shape, spec)
    }

    /// The output shape for an array whose extents may be unknown (`None`).
    ///
    /// # Errors
    /// As [`NumpyPad::resolve`].
    pub fn infer_shape(
        &self,
        node: &NumpyPadNode,
        shape: &[Option<usize>],
    ) -> Result<Vec<Option<usize>>, FrontendError> {
        let spec = self.translate(node, shape.len())?;
        infer_known(OP, shape, &spec)
    }

    /// [`NumpyPad::infer_shape`] on extents that may be names: a name survives where
    /// its axis is not padded (see [`Dim`]).
    ///
    /// # Errors
    /// As [`NumpyPad::infer_shape`].
    pub fn output_dims(
        &self,
        node: &NumpyPadNode,
        shape: &[Dim],
    ) -> Result<Vec<Dim>, FrontendError> {
        let spec = self.translate(node, shape.len())?;
        infer_named_known(OP, shape, &spec)
    }

    /// An index pad of elements of `itemsize` opaque bytes on an array of `shape`:
    /// `pads` one per axis (numpy's widths after broadcasting, interior padding
    /// allowed); `mode` constant, edge, reflect, symmetric or wrap, repeated when wider
    /// than the axis; `values` the constants' bytes (constant mode): none (zeros), one
    /// for every side, or one per side (`before, after` of each axis in turn, numpy's
    /// `constant_values` broadcast), the most common of them the mode's constant and
    /// the others the sides' ([`PadSpec::sides`]); `negative` the policy for negative
    /// pads (`None`: the core refuses them).
    ///
    /// # Errors
    /// [`FrontendError::EmptyElements`], an unknown mode, a `pads` of another length
    /// than `shape`, [`FrontendError::ConstantBytes`] for a constant of other than
    /// `itemsize` bytes, [`FrontendError::PadsLength`] for `values` of neither 0, 1 nor
    /// two per axis, and [`FrontendError::WordConstant`] for a constant that is not
    /// one kernel word repeated where an element is several words (pad such elements'
    /// indices instead). The shape is checked where the spec is planned.
    pub fn resolve_bytes(
        &self,
        itemsize: usize,
        shape: &[usize],
        mut pads: Vec<AxisPad>,
        mode: &str,
        values: &[&[u8]],
        negative: Option<NegativePads>,
    ) -> Result<BytesPad, FrontendError> {
        let (dtype, words) = word_type(itemsize)?;
        let kind = parse_mode(OP, mode, MODES)?;
        if pads.len() != shape.len() {
            return Err(FrontendError::PadsLength {
                op: OP.into(),
                name: "pad_width",
                expected: shape.len(),
                got: pads.len(),
                why: format!("one pad per axis of rank {}", shape.len()),
            });
        }
        let (mode, sides) = match kind {
            ModeKind::Constant => self.constants(itemsize, dtype, shape.len(), values)?,
            kind => (kind.into_mode(None), Vec::new()),
        };
        let mut shape = shape.to_vec();
        let mut sides = sides;
        if words > 1 {
            pads.push(AxisPad::new(0, 0));
            shape.push(words);
            if !sides.is_empty() {
                sides.push([None, None]);
            }
        }
        let mut spec = PadSpec::new(pads, mode)
            .with_oversize(Oversize::Repeat)
            .with_sides(sides);
        if let Some(policy) = negative {
            spec = spec.with_negative(policy);
        }
        Ok(BytesPad { dtype, shape, spec })
    }

    /// The constant mode and the sides' constants of [`NumpyPad::resolve_bytes`].
    fn constants(
        &self,
        itemsize: usize,
        dtype: DType,
        rank: usize,
        values: &[&[u8]],
    ) -> Result<(Mode, Vec<SideConstants>), FrontendError> {
        if !matches!(values.len(), 0 | 1) && values.len() != 2 * rank {
            return Err(FrontendError::PadsLength {
                op: OP.into(),
                name: "constant_values",
                expected: 2 * rank,
                got: values.len(),
                why: format!("one value, or one per side of rank {rank}"),
            });
        }
        let width = dtype.byte_len(1).unwrap_or(1);
        let scalar = |v: &[u8]| -> Result<Scalar, FrontendError> {
            if v.len() != itemsize {
                return Err(FrontendError::ConstantBytes {
                    op: OP.into(),
                    got: v.len(),
                    itemsize,
                });
            }
            if v.chunks(width).any(|w| w != &v[..width]) {
                return Err(FrontendError::WordConstant {
                    op: OP.into(),
                    itemsize,
                    word: width,
                });
            }
            let mut word = [0u8; 16];
            word[..width].copy_from_slice(&v[..width]);
            Scalar::from_bits(dtype, u128::from_le_bytes(word)).map_err(|source| {
                FrontendError::Value {
                    op: OP.into(),
                    name: "constant_values",
                    source: Box::new(source),
                }
            })
        };
        let all: Vec<Scalar> = values.iter().map(|v| scalar(v)).collect::<Result<_, _>>()?;
        let (common, sides) = match all.len() {
            0 | 1 => (all.into_iter().next(), Vec::new()),
            _ => most_common(all),
        };
        Ok((Mode::Constant(common), sides))
    }

    fn translate(&self, node: &NumpyPadNode, rank: usize) -> Result<PadSpec, FrontendError> {
        let kind = parse_mode(OP, &node.mode, MODES)?;
        if node.negative_pads.is_none() {
            for (axis, &(b, e)) in node.pad_width.iter().enumerate() {
                check_non_negative(OP, "pad_width", &[b])
                    .map_err(|_| negative(axis, "before", b))?;
                check_non_negative(OP, "pad_width", &[e])
                    .map_err(|_| negative(axis, "after", e))?;
            }
        }
        // numpy returns a 0-d array unchanged, whatever pad_width.
        let widths = match rank {
            0 => Vec::new(),
            _ => per_axis("pad_width", &node.pad_width, rank)?,
        };
        let interior = match (rank, node.interior.len()) {
            (0, _) | (_, 0) => vec![0; rank],
            _ => per_axis_of("interior", &node.interior, rank, ("count", "one"))?,
        };
        if kind != ModeKind::Constant && interior.iter().any(|&n| n > 0) {
            return Err(FrontendError::ValueWithMode {
                op: OP.into(),
                name: "interior",
                mode: kind.name(),
            });
        }
        // Broadcast as pad_width is; every value checked against the mode and the
        // type, also a single one where no axis takes it.
        let pairs = match node.constant_values.len() {
            0 => Vec::new(),
            1 => per_axis("constant_values", &node.constant_values, rank.max(1))?,
            _ => per_axis("constant_values", &node.constant_values, rank)?,
        };
        let mut values = Vec::with_capacity(2 * pairs.len());
        for (b, a) in &pairs {
            for v in [b, a] {
                values.push(
                    constant_only(OP, "constant_values", kind, Some(v), node.data_type)?
                        .unwrap_or_else(|| Scalar::zero(node.data_type)),
                );
            }
        }
        values.truncate(2 * rank);
        // numpy's default constant is 0 cast to the type: '0' for strings.
        let (value, sides) = match (values.is_empty(), kind, node.data_type) {
            (true, ModeKind::Constant, DType::String) => (Some(Scalar::string("0")), Vec::new()),
            (true, _, _) => (None, Vec::new()),
            (false, _, _) => most_common(values),
        };
        let axes = widths
            .iter()
            .zip(&interior)
            .map(|(&(begin, end), &interior)| AxisPad {
                begin,
                end,
                interior,
            })
            .collect();
        Ok(PadSpec::new(axes, kind.into_mode(value))
            .with_sides(sides)
            .with_negative(node.negative_pads.unwrap_or(NegativePads::CropFirst))
            .with_oversize(Oversize::Repeat))
    }
}
