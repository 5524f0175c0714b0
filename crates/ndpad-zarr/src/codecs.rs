//! The codecs that meet hostile chunk bytes, registered with zarrs in place of its own
//! (zarrs takes runtime-registered codecs before its built-in ones):
//!
//! - `gzip` and `zstd` decode into at most the size the codec chain expects of them
//!   (a chunk's bytes, or the bound of the next codec's encoding), so a 32 KB chunk
//!   cannot decode to a gigabyte before the size check (zarrs' own decoders read to
//!   the end, or allocate what a zstd frame header claims). Encoding is zarrs'.
//! - `blosc` refuses a chunk whose header declares more than that size (zarrs
//!   allocates what it declares), then decodes with zarrs.
//! - `sharding_indexed` checks a shard's index before zarrs reads chunks through it:
//!   every entry is the empty marker or an `offset + size` (without overflow) inside
//!   the shard (zarrs adds them unchecked and panics, #27 item 3).
//! - `vlen-utf8` (string arrays) checks a chunk's layout before zarrs decodes it: the
//!   element count of its header, and every element's length inside the chunk (zarrs
//!   slices with them unchecked and panics).
//!
//! A chunk whose decoded size its codecs do not bound (strings) decodes into at most
//! [`variable_chunk_limit`] bytes ([`MAX_VARIABLE_CHUNK_BYTES`] unless lowered).

use std::borrow::Cow;
use std::io::Read;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Once};

use zarrs::array::codec::api::{register_codec_v3, CodecRuntimePluginV3};
use zarrs::array::codec::api::{PartialDecoderCapability, PartialEncoderCapability};
use zarrs::array::codec::{
    BloscCodec, GzipCodec, ShardingCodec, ShardingCodecConfiguration, VlenUtf8Codec, ZstdCodec,
};
use zarrs::array::{
    ArrayBytes, ArrayBytesDecodeIntoTarget, ArrayBytesRaw, ArrayCodecTraits,
    ArrayToBytesCodecTraits, BytesRepresentation, BytesToBytesCodecTraits, Codec, CodecError,
    CodecMetadataOptions, CodecOptions, CodecTraits, CodecTraitsV3, DataType, FillValue,
    RecommendedConcurrency,
};
use zarrs::metadata::Configuration;
use zarrs::plugin::{ExtensionName, PluginCreateError, ZarrVersion};

/// Registers the codecs of this module with zarrs (once per process). Every entry
/// point of this crate that opens an array calls it.
pub fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for kind in [Kind::Gzip, Kind::Zstd, Kind::Blosc] {
            let _ = register_codec_v3(CodecRuntimePluginV3::new(
                move |name| name == kind.name(),
                move |meta| {
                    let inner = match kind {
                        Kind::Gzip => <GzipCodec as CodecTraitsV3>::create(meta)?,
                        Kind::Zstd => <ZstdCodec as CodecTraitsV3>::create(meta)?,
                        Kind::Blosc => <BloscCodec as CodecTraitsV3>::create(meta)?,
                    };
                    let Codec::BytesToBytes(inner) = inner else {
                        return Err(PluginCreateError::Other(format!(
                            "{} is not a bytes-to-bytes codec",
                            kind.name()
                        )));
                    };
                    Ok(Codec::BytesToBytes(Arc::new(Bounded { kind, inner })))
                },
            ));
        }
        let _ = register_codec_v3(CodecRuntimePluginV3::new(
            |name| name == "sharding_indexed",
            |meta| {
                let conf: ShardingCodecConfiguration = meta.to_typed_configuration()?;
                let ShardingCodecConfiguration::V1(v1) = &conf else {
                    return Err(PluginCreateError::Other(
                        "this sharding_indexed configuration is unsupported".into(),
                    ));
                };
                let subchunk_shape = v1.chunk_shape.clone();
                let sharding = Arc::new(ShardingCodec::new_with_configuration(&conf)?);
                Ok(Codec::ArrayToBytes(Arc::new(Checked {
                    inner: sharding.clone(),
                    check: Check::ShardIndex {
                        sharding,
                        subchunk_shape,
                    },
                })))
            },
        ));
        let _ = register_codec_v3(CodecRuntimePluginV3::new(
            |name| name == "vlen-utf8",
            |meta| {
                let Codec::ArrayToBytes(inner) = <VlenUtf8Codec as CodecTraitsV3>::create(meta)?
                else {
                    return Err(PluginCreateError::Other(
                        "vlen-utf8 is not an array-to-bytes codec".into(),
                    ));
                };
                Ok(Codec::ArrayToBytes(Arc::new(Checked {
                    inner,
                    check: Check::Vlen,
                })))
            },
        ));
    });
}

/// The most bytes a chunk of variable-sized elements (strings) decodes to, where its
/// codecs bound nothing: 1 GiB, far above the chunks zarr libraries write (a few MiB)
/// and far below what would exhaust memory when a few threads decode at once.
/// [`limit_variable_chunks`] lowers it for the process.
pub const MAX_VARIABLE_CHUNK_BYTES: u64 = 1 << 30;

static VARIABLE_LIMIT: AtomicU64 = AtomicU64::new(MAX_VARIABLE_CHUNK_BYTES);

/// Lowers the most bytes a chunk of strings decodes to, for this process, to `bytes`
/// (never raises it above [`MAX_VARIABLE_CHUNK_BYTES`]): the fuzz target's smaller
/// bound.
pub fn limit_variable_chunks(bytes: u64) {
    VARIABLE_LIMIT.fetch_min(bytes, Ordering::Relaxed);
}

/// The most bytes a chunk of strings decodes to now.
pub fn variable_chunk_limit() -> u64 {
    VARIABLE_LIMIT.load(Ordering::Relaxed)
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Gzip,
    Zstd,
    Blosc,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Gzip => "gzip",
            Kind::Zstd => "zstd",
            Kind::Blosc => "blosc",
        }
    }
}

/// Refuses a blosc chunk whose header (its `nbytes`, bytes 4..8, little-endian, in
/// blosc 1 and 2 alike) declares more than `limit` decoded bytes: zarrs allocates
/// what the header says before decompressing.
///
/// # Errors
/// A message naming the declared size and the limit.
pub fn check_blosc_header(encoded: &[u8], limit: u64) -> Result<(), String> {
    let Some(&[a, b, c, d]) = encoded.get(4..8) else {
        return Ok(()); // Too short for a header: zarrs refuses it.
    };
    let declared = u64::from(u32::from_le_bytes([a, b, c, d]));
    if declared > limit {
        return Err(format!(
            "a blosc chunk declares {declared} decoded bytes, more than its expected {limit} bytes (a decompression bomb or a corrupt chunk)"
        ));
    }
    Ok(())
}

/// zarrs' gzip, zstd or blosc codec with a decoder bounded by the expected size.
#[derive(Debug)]
struct Bounded {
    kind: Kind,
    inner: Arc<dyn BytesToBytesCodecTraits>,
}

/// The name and configuration of the wrapped codec (`inner`), and no partial reads or
/// writes: every chunk (or shard) is decoded whole, through the checks of the wrapper.
macro_rules! whole_chunk_wrapper {
    ($wrapper:ty) => {
        impl ExtensionName for $wrapper {
            fn name(&self, version: ZarrVersion) -> Option<Cow<'static, str>> {
                self.inner.name(version)
            }
        }

        impl CodecTraits for $wrapper {
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }
            fn configuration(
                &self,
                version: ZarrVersion,
                options: &CodecMetadataOptions,
            ) -> Option<Configuration> {
                self.inner.configuration(version, options)
            }
            fn partial_decoder_capability(&self) -> PartialDecoderCapability {
                PartialDecoderCapability {
                    partial_read: false,
                    partial_decode: false,
                }
            }
            fn partial_encoder_capability(&self) -> PartialEncoderCapability {
                PartialEncoderCapability {
                    partial_encode: false,
                }
            }
        }
    };
}

whole_chunk_wrapper!(Bounded);

/// Decodes `encoded` (gzip or zstd) into at most `limit` bytes.
///
/// # Errors
/// A message naming the codec and the limit when the data decodes to more, or when
/// it is not valid gzip / zstd.
pub fn decode_bounded(gzip: bool, encoded: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    let name = if gzip { "gzip" } else { "zstd" };
    let too_large = || {
        format!("a {name} chunk decodes to more than its expected {limit} bytes (a decompression bomb or a corrupt chunk)")
    };
    let cap = usize::try_from(limit).map_err(|_| too_large())?;
    // Up to RESERVE_MAX, a buffer of the expected size is reserved up front; a larger
    // limit (an upper bound, such as MAX_VARIABLE_CHUNK_BYTES) grows as data arrives.
    const RESERVE_MAX: usize = 256 << 20;
    if gzip || cap > RESERVE_MAX {
        // Reading one byte past the limit at most.
        let mut out = Vec::with_capacity(cap.min(RESERVE_MAX));
        let read = if gzip {
            flate2::bufread::GzDecoder::new(encoded)
                .take(limit.saturating_add(1))
                .read_to_end(&mut out)
        } else {
            zstd::stream::read::Decoder::with_buffer(encoded)
                .and_then(|d| d.take(limit.saturating_add(1)).read_to_end(&mut out))
        };
        read.map_err(|e| format!("{name}: {e}"))?;
        if out.len() > cap {
            return Err(too_large());
        }
        Ok(out)
    } else {
        // Into a buffer of the expected size, not of what a frame header declares;
        // concatenated frames and frames without a declared size decode too.
        zstd::bulk::decompress(encoded, cap).map_err(|e| {
            let text = e.to_string();
            if text.contains("too small") {
                too_large()
            } else {
                format!("{name}: {text}")
            }
        })
    }
}

impl BytesToBytesCodecTraits for Bounded {
    fn into_dyn(self: Arc<Self>) -> Arc<dyn BytesToBytesCodecTraits> {
        self as Arc<dyn BytesToBytesCodecTraits>
    }
    fn recommended_concurrency(
        &self,
        decoded_representation: &BytesRepresentation,
    ) -> Result<RecommendedConcurrency, CodecError> {
        self.inner.recommended_concurrency(decoded_representation)
    }
    fn encoded_representation(
        &self,
        decoded_representation: &BytesRepresentation,
    ) -> BytesRepresentation {
        self.inner.encoded_representation(decoded_representation)
    }
    fn encode<'a>(
        &self,
        decoded_value: ArrayBytesRaw<'a>,
        options: &CodecOptions,
    ) -> Result<ArrayBytesRaw<'a>, CodecError> {
        self.inner.encode(decoded_value, options)
    }
    fn decode<'a>(
        &self,
        encoded_value: ArrayBytesRaw<'a>,
        decoded_representation: &BytesRepresentation,
        options: &CodecOptions,
    ) -> Result<ArrayBytesRaw<'a>, CodecError> {
        let limit = decoded_representation
            .size()
            .unwrap_or_else(variable_chunk_limit);
        match self.kind {
            Kind::Blosc => {
                check_blosc_header(&encoded_value, limit).map_err(CodecError::Other)?;
                self.inner
                    .decode(encoded_value, decoded_representation, options)
            }
            Kind::Gzip | Kind::Zstd => {
                decode_bounded(matches!(self.kind, Kind::Gzip), &encoded_value, limit)
                    .map(Cow::Owned)
                    .map_err(CodecError::Other)
            }
        }
    }
}

/// An array-to-bytes codec of zarrs' whose encoded chunks are checked before zarrs
/// decodes them.
#[derive(Debug)]
struct Checked {
    inner: Arc<dyn ArrayToBytesCodecTraits>,
    check: Check,
}

/// What [`Checked`] checks.
#[derive(Debug)]
enum Check {
    /// Every shard's index (`sharding` is `inner`, typed).
    ShardIndex {
        sharding: Arc<ShardingCodec>,
        subchunk_shape: Vec<NonZeroU64>,
    },
    /// The layout of a `vlen-utf8` chunk ([`check_vlen`]).
    Vlen,
}

/// Checks that every entry of a decoded shard index (pairs of offset and size) is
/// the empty marker (`u64::MAX` twice) or lies inside a shard of `len` bytes.
///
/// # Errors
/// A message naming the entry, its offset and size, and the shard's length.
pub fn check_shard_index(index: &[u64], len: u64) -> Result<(), String> {
    for (i, e) in index.chunks(2).enumerate() {
        let &[offset, size] = e else {
            return Err(format!(
                "the shard index has an odd number ({}) of values",
                index.len()
            ));
        };
        if offset == u64::MAX && size == u64::MAX {
            continue;
        }
        if offset.checked_add(size).is_none_or(|end| end > len) {
            return Err(format!(
                "shard index entry {i}: offset {offset} + size {size} lies outside the shard's {len} bytes (a corrupt shard)"
            ));
        }
    }
    Ok(())
}

/// Checks the layout of a `vlen-utf8` chunk of `elements` strings: a little-endian
/// `u32` count equal to `elements`, then each element as a `u32` length and that many
/// bytes, all inside `bytes` (trailing bytes are ignored, as zarrs ignores them).
///
/// # Errors
/// A message naming what does not fit.
pub fn check_vlen(bytes: &[u8], elements: u64) -> Result<(), String> {
    let word = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if u32::try_from(elements).is_err() {
        return Err(format!(
            "a chunk of {elements} strings has more than the 2^32 - 1 a vlen-utf8 chunk can hold"
        ));
    }
    let Some(count) = word(0) else {
        return Err(format!(
            "a vlen-utf8 chunk of {} bytes is too short for its header",
            bytes.len()
        ));
    };
    if u64::from(count) != elements {
        return Err(format!(
            "a vlen-utf8 chunk declares {count} strings; its chunk holds {elements}"
        ));
    }
    let mut at: usize = 4;
    for i in 0..elements {
        let len = word(at).and_then(|n| usize::try_from(n).ok());
        let end = len.and_then(|n| at.checked_add(4)?.checked_add(n));
        match end {
            Some(end) if end <= bytes.len() => at = end,
            _ => {
                return Err(format!(
                    "string {i} of a vlen-utf8 chunk runs past its end ({} bytes: a corrupt chunk)",
                    bytes.len()
                ))
            }
        }
    }
    Ok(())
}

impl Checked {
    fn check(
        &self,
        bytes: &[u8],
        shape: &[NonZeroU64],
        options: &CodecOptions,
    ) -> Result<(), CodecError> {
        match &self.check {
            Check::ShardIndex {
                sharding,
                subchunk_shape,
            } => {
                if shape.len() != subchunk_shape.len() {
                    return Err(CodecError::Other(format!(
                        "the sharding codec's chunk shape has {} axes; the shard has {}",
                        subchunk_shape.len(),
                        shape.len()
                    )));
                }
                let per_shard = shape
                    .iter()
                    .zip(subchunk_shape)
                    .map(|(s, c)| {
                        if s.get() % c.get() == 0 {
                            NonZeroU64::new(s.get() / c.get())
                        } else {
                            None
                        }
                    })
                    .collect::<Option<Vec<NonZeroU64>>>()
                    .ok_or_else(|| {
                        CodecError::Other(format!(
                            "the sharding codec's chunk shape {subchunk_shape:?} does not divide the shard shape {shape:?}"
                        ))
                    })?;
                let index = sharding.decode_index(bytes, &per_shard, options)?;
                check_shard_index(&index, bytes.len() as u64).map_err(CodecError::Other)
            }
            Check::Vlen => {
                let elements = shape
                    .iter()
                    .try_fold(1u64, |n, d| n.checked_mul(d.get()))
                    .unwrap_or(u64::MAX);
                check_vlen(bytes, elements).map_err(CodecError::Other)
            }
        }
    }
}

// Chunks and shards are decoded whole (through `decode`, which checks them).
whole_chunk_wrapper!(Checked);

impl ArrayCodecTraits for Checked {
    fn recommended_concurrency(
        &self,
        shape: &[NonZeroU64],
        data_type: &DataType,
    ) -> Result<RecommendedConcurrency, CodecError> {
        self.inner.recommended_concurrency(shape, data_type)
    }
}

impl ArrayToBytesCodecTraits for Checked {
    fn into_dyn(self: Arc<Self>) -> Arc<dyn ArrayToBytesCodecTraits> {
        self as Arc<dyn ArrayToBytesCodecTraits>
    }
    fn encoded_representation(
        &self,
        shape: &[NonZeroU64],
        data_type: &DataType,
        fill_value: &FillValue,
    ) -> Result<BytesRepresentation, CodecError> {
        self.inner
            .encoded_representation(shape, data_type, fill_value)
    }
    fn encode<'a>(
        &self,
        bytes: ArrayBytes<'a>,
        shape: &[NonZeroU64],
        data_type: &DataType,
        fill_value: &FillValue,
        options: &CodecOptions,
    ) -> Result<ArrayBytesRaw<'a>, CodecError> {
        self.inner
            .encode(bytes, shape, data_type, fill_value, options)
    }
    fn decode<'a>(
        &self,
        bytes: ArrayBytesRaw<'a>,
        shape: &[NonZeroU64],
        data_type: &DataType,
        fill_value: &FillValue,
        options: &CodecOptions,
    ) -> Result<ArrayBytes<'a>, CodecError> {
        self.check(&bytes, shape, options)?;
        self.inner
            .decode(bytes, shape, data_type, fill_value, options)
    }
    fn decode_into(
        &self,
        bytes: ArrayBytesRaw<'_>,
        shape: &[NonZeroU64],
        data_type: &DataType,
        fill_value: &FillValue,
        output_target: ArrayBytesDecodeIntoTarget<'_>,
        options: &CodecOptions,
    ) -> Result<(), CodecError> {
        self.check(&bytes, shape, options)?;
        self.inner
            .decode_into(bytes, shape, data_type, fill_value, output_target, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_index_entries_must_lie_inside_the_shard() {
        assert_eq!(check_shard_index(&[u64::MAX, u64::MAX, 0, 8], 8), Ok(()));
        let e = check_shard_index(&[u64::MAX - 7, 16], 100).unwrap_err();
        assert_eq!(
            e,
            "shard index entry 0: offset 18446744073709551608 + size 16 lies outside the \
             shard's 100 bytes (a corrupt shard)"
        );
        assert!(check_shard_index(&[0, 8, 4, 8], 11)
            .unwrap_err()
            .contains("entry 1"));
        assert!(check_shard_index(&[u64::MAX, 0], 11).is_err());
    }

    #[test]
    fn vlen_chunks_hold_what_they_declare() {
        // Two strings, "ab" and "".
        let good = [2, 0, 0, 0, 2, 0, 0, 0, b'a', b'b', 0, 0, 0, 0];
        assert_eq!(check_vlen(&good, 2), Ok(()));
        assert_eq!(
            check_vlen(&good, 3).unwrap_err(),
            "a vlen-utf8 chunk declares 2 strings; its chunk holds 3"
        );
        assert_eq!(
            check_vlen(&good[..9], 2).unwrap_err(),
            "string 0 of a vlen-utf8 chunk runs past its end (9 bytes: a corrupt chunk)"
        );
        let mut huge = good;
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(check_vlen(&huge, 2).unwrap_err().contains("string 0"));
        assert!(check_vlen(&good[..10], 2).unwrap_err().contains("string 1"));
        assert!(check_vlen(&[1, 0], 1).unwrap_err().contains("too short"));
        assert!(check_vlen(&good, 1 << 32).unwrap_err().contains("2^32 - 1"));
    }

    #[test]
    fn blosc_headers_declare_at_most_the_expected_size() {
        let mut header = vec![2u8, 1, 0x11, 1];
        header.extend_from_slice(&(1u32 << 30).to_le_bytes());
        header.extend_from_slice(&[0; 8]);
        assert_eq!(
            check_blosc_header(&header, 4096).unwrap_err(),
            "a blosc chunk declares 1073741824 decoded bytes, more than its expected 4096 \
             bytes (a decompression bomb or a corrupt chunk)"
        );
        assert_eq!(check_blosc_header(&header, 1 << 30), Ok(()));
        assert_eq!(check_blosc_header(&[2, 1], 0), Ok(()));
    }

    #[test]
    fn decoders_stop_at_the_expected_size() {
        let big = vec![0u8; 1 << 20];
        let z = zstd::bulk::compress(&big, 3).unwrap();
        assert_eq!(decode_bounded(false, &z, 1 << 20).unwrap().len(), 1 << 20);
        assert_eq!(
            decode_bounded(false, &z, 4096).unwrap_err(),
            "a zstd chunk decodes to more than its expected 4096 bytes (a decompression \
             bomb or a corrupt chunk)"
        );
        // Frames without a declared size, and concatenated frames.
        let mut two = zstd::stream::encode_all(&big[..1000], 1).unwrap();
        two.extend(zstd::bulk::compress(&[7u8; 24], 1).unwrap());
        let out = decode_bounded(false, &two, 1024).unwrap();
        assert_eq!((out.len(), out[1023]), (1024, 7));
        assert!(decode_bounded(false, &two, 1023).is_err());
        let mut g = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut g, &big).unwrap();
        let g = g.finish().unwrap();
        assert_eq!(decode_bounded(true, &g, 1 << 20).unwrap().len(), 1 << 20);
        assert!(decode_bounded(true, &g, (1 << 20) - 1)
            .unwrap_err()
            .contains("gzip chunk decodes to more than its expected 1048575 bytes"));
        assert!(decode_bounded(true, b"not gzip", 10)
            .unwrap_err()
            .starts_with("gzip: "));
        // Limits over RESERVE_MAX (string chunks) stream, stopping at the limit.
        let frame = zstd::bulk::compress(&vec![0u8; 64 << 20], 1).unwrap();
        let four = frame.repeat(4);
        assert_eq!(
            decode_bounded(false, &four, 300 << 20).unwrap().len(),
            256 << 20
        );
        assert!(decode_bounded(false, &frame.repeat(5), 300 << 20)
            .unwrap_err()
            .contains("more than its expected 314572800 bytes"));
        assert!(decode_bounded(false, b"not zstd", 300 << 20)
            .unwrap_err()
            .starts_with("zstd: "));
    }
}
