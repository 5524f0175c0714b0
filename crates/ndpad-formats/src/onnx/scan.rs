//! A pass over the protobuf wire format, before decoding, that counts the messages
//! and strings the decoder would allocate and refuses inputs over the limits. A few
//! bytes on the wire can become a few hundred bytes of decoded structs; counting
//! first bounds that amplification.

use crate::error::FormatError;

/// Limits on what a protobuf input may make the decoder allocate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProtoLimits {
    /// Most nested messages (nodes, attributes, tensors, value infos, dims, ...).
    pub max_messages: u64,
    /// Most length-delimited strings and byte fields (names, node inputs,
    /// `string_data` entries, ...).
    pub max_strings: u64,
}

impl Default for ProtoLimits {
    /// One million messages and sixteen million strings.
    fn default() -> Self {
        ProtoLimits {
            max_messages: 1 << 20,
            max_strings: 1 << 24,
        }
    }
}

/// The message types whose fields the scan descends into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Model,
    Graph,
    Node,
    Attribute,
    Tensor,
    Sparse,
    ValueInfo,
    Type,
    TypeTensor,
    Shape,
    /// A message counted but not descended into (its fields are scalars and strings).
    Leaf,
}

/// The declared message type of field `field` of `kind`, if it is a message.
fn child(kind: Kind, field: u64) -> Option<Kind> {
    use Kind::*;
    Some(match (kind, field) {
        (Model, 7) => Graph,
        (Model, 8) => Leaf,
        (Graph, 1) => Node,
        (Graph, 5) => Tensor,
        (Graph, 11..=13) => ValueInfo,
        (Graph, 15) => Sparse,
        (Node, 5) => Attribute,
        (Attribute, 5 | 10) => Tensor,
        (Tensor, 3 | 13) => Leaf,
        (Sparse, 1 | 2) => Tensor,
        (ValueInfo, 2) => Type,
        (Type, 1) => TypeTensor,
        (TypeTensor, 2) => Shape,
        (Shape, 1) => Leaf,
        _ => return None,
    })
}

/// Whether field `field` of `kind` is a declared string or bytes field.
fn is_string(kind: Kind, field: u64) -> bool {
    use Kind::*;
    matches!(
        (kind, field),
        (Model, 2..=4 | 6)
            | (Graph, 2 | 10)
            | (Node, 1..=4 | 6..=8)
            | (Attribute, 1 | 4 | 9 | 13 | 21)
            | (Tensor, 6 | 8 | 9 | 12)
            | (ValueInfo, 1 | 3)
            | (Type, 6)
    )
}

struct Scan<'a> {
    message: &'static str,
    limits: &'a ProtoLimits,
    messages: u64,
    strings: u64,
}

fn varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7F) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

impl Scan<'_> {
    fn err(&self, reason: String) -> FormatError {
        FormatError::Protobuf {
            message: self.message,
            reason,
        }
    }

    fn walk(&mut self, buf: &[u8], kind: Kind, at: usize) -> Result<(), FormatError> {
        let mut pos = 0usize;
        while pos < buf.len() {
            let start = pos;
            let tag = varint(buf, &mut pos)
                .ok_or_else(|| self.err(format!("bad field tag at byte {}", at + start)))?;
            let field = tag >> 3;
            if field == 0 {
                return Err(self.err(format!("field number 0 at byte {}", at + start)));
            }
            let skip = |n: usize, pos: &mut usize| -> Option<()> {
                *pos = pos.checked_add(n).filter(|&p| p <= buf.len())?;
                Some(())
            };
            let ok = match tag & 7 {
                0 => varint(buf, &mut pos).map(|_| ()),
                1 => skip(8, &mut pos),
                5 => skip(4, &mut pos),
                2 => {
                    let len = varint(buf, &mut pos).and_then(|l| usize::try_from(l).ok());
                    let body_at = pos;
                    match len.and_then(|l| skip(l, &mut pos).map(|()| l)) {
                        None => None,
                        Some(l) => {
                            if let Some(k) = child(kind, field) {
                                bump(
                                    &mut self.messages,
                                    self.limits.max_messages,
                                    "number of protobuf messages",
                                )?;
                                if k != Kind::Leaf {
                                    let body = buf.get(body_at..body_at + l).unwrap_or(&[]);
                                    self.walk(body, k, at + body_at)?;
                                }
                            } else if is_string(kind, field) {
                                bump(
                                    &mut self.strings,
                                    self.limits.max_strings,
                                    "number of protobuf strings",
                                )?;
                            }
                            Some(())
                        }
                    }
                }
                wt => {
                    return Err(self.err(format!(
                        "field {field} at byte {} has wire type {wt}, which ONNX does not use",
                        at + start
                    )))
                }
            };
            if ok.is_none() {
                return Err(self.err(format!(
                    "field {field} at byte {} runs past the end of its message ({} bytes): the input is truncated or corrupt",
                    at + start,
                    buf.len()
                )));
            }
        }
        Ok(())
    }
}

/// Checks `buf`, a message of type `kind`, against `limits`.
pub(crate) fn check(
    buf: &[u8],
    kind: Kind,
    message: &'static str,
    limits: &ProtoLimits,
) -> Result<(), FormatError> {
    Scan {
        message,
        limits,
        messages: 0,
        strings: 0,
    }
    .walk(buf, kind, 0)
}

/// Counts one more of `what`, failing past `limit`.
fn bump(count: &mut u64, limit: u64, what: &'static str) -> Result<(), FormatError> {
    *count += 1;
    if *count > limit {
        return Err(FormatError::Limit {
            what,
            value: *count,
            limit,
        });
    }
    Ok(())
}

/// Checks `bytes` against `limits` (see [`check`]), then decodes them as `M`.
pub(crate) fn decode<M: prost::Message + Default>(
    bytes: &[u8],
    kind: Kind,
    message: &'static str,
    limits: &ProtoLimits,
) -> Result<M, FormatError> {
    check(bytes, kind, message, limits)?;
    M::decode(bytes).map_err(|e| FormatError::Protobuf {
        message,
        reason: e.to_string(),
    })
}
