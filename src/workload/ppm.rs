//! Binary PPM (P6) images: a header parser, a writer, and a generator of
//! deterministic test images, for the `scale` workload (the 2002 Sun case).
//!
//! The header follows the Netpbm format: the magic number `P6`, then the
//! width, the height and the maxval as ASCII decimal numbers separated by
//! whitespace (space, tab, CR or LF), then exactly one whitespace byte, then
//! the raster of `width × height` pixels of 3 bytes (R, G, B). A comment runs
//! from `#` to the next CR or LF and may appear anywhere whitespace may,
//! including right after the maxval (the byte that ends the header must then
//! still follow the comment, as the Netpbm specification says). Only maxval
//! 1 to 255 (one byte per sample) is supported. Bytes after the raster are
//! allowed and ignored (a PPM file may hold several images).

use std::io::{self, Write};

use rand::{Rng, SeedableRng};

/// What [`parse_header`] found in a valid P6 header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PpmHeader {
    /// Width in pixels (at least 1).
    pub width: u32,
    /// Height in pixels (at least 1).
    pub height: u32,
    /// The largest sample value (1 to 255).
    pub maxval: u16,
    /// Where the raster starts: the header's length in bytes.
    pub data_offset: usize,
}

/// Why some bytes are not a P6 image faultline can use. Every message is one
/// line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PpmError {
    /// The data does not start with the magic number `P6`.
    #[error("not a binary PPM (P6): the data starts with {found}")]
    NotP6 {
        /// What the data starts with instead, e.g. `P3 (plain PPM)`.
        found: String,
    },
    /// The data ends inside the header.
    #[error("truncated PPM header: the data ends before {expected}")]
    TruncatedHeader {
        /// The part of the header that is missing.
        expected: &'static str,
    },
    /// An unexpected byte in the header.
    #[error("malformed PPM header: expected {expected} at byte {offset}, found '{}'", .found.escape_ascii())]
    Malformed {
        /// What the header should have had there.
        expected: &'static str,
        /// Offset of the unexpected byte.
        offset: usize,
        /// The unexpected byte.
        found: u8,
    },
    /// A header number does not fit in 32 bits.
    #[error("PPM {field} is too large (more than {})", u32::MAX)]
    NumberTooLarge {
        /// `width`, `height` or `maxval`.
        field: &'static str,
    },
    /// The width or the height is 0.
    #[error("PPM image has no pixels: its size is {width}x{height}")]
    ZeroSize {
        /// The width in the header.
        width: u32,
        /// The height in the header.
        height: u32,
    },
    /// The maxval is 0 or above 65535, which no PPM may have.
    #[error("PPM maxval {0} is out of range: it must be 1 to 255")]
    BadMaxval(u32),
    /// The maxval is 256 to 65535: two bytes per sample.
    #[error("16-bit PPM (maxval {0}) is not supported: maxval must be 1 to 255")]
    SixteenBit(u32),
    /// The image's size in bytes does not fit in memory addresses (or, for
    /// a scaled image, its width or height does not fit in 32 bits, or its
    /// buffer could not be allocated).
    #[error("a {width}x{height} PPM image is too large for this machine")]
    TooLarge {
        /// Width in pixels.
        width: u64,
        /// Height in pixels.
        height: u64,
    },
    /// Fewer bytes follow the header than the raster needs.
    #[error("truncated PPM pixel data: a {width}x{height} image needs {needed} bytes, but {available} follow the header")]
    TruncatedPixels {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// Bytes the raster needs: width × height × 3.
        needed: u64,
        /// Bytes after the header.
        available: u64,
    },
    /// The `scale` workload was given a block that is not the whole file.
    #[error("scale needs the whole PPM file as one block, but got a block at offset {offset}: set the block size to the file size")]
    NotWholeFile {
        /// Offset of the block.
        offset: u64,
    },
}

/// True for the whitespace bytes of the Netpbm formats.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// A position in the header being parsed.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips one comment, through the CR or LF that ends it.
    fn skip_comment(&mut self, next: &'static str) -> Result<(), PpmError> {
        debug_assert_eq!(self.peek(), Some(b'#'));
        match self.bytes[self.pos..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
        {
            Some(end) => {
                self.pos += end + 1;
                Ok(())
            }
            None => Err(PpmError::TruncatedHeader { expected: next }),
        }
    }

    /// Skips any whitespace and comments before the field `next`.
    fn skip_separators(&mut self, next: &'static str) -> Result<(), PpmError> {
        loop {
            match self.peek() {
                Some(b) if is_space(b) => self.pos += 1,
                Some(b'#') => self.skip_comment(next)?,
                _ => return Ok(()),
            }
        }
    }

    /// Reads the decimal number `field`, after any separators; `what` names
    /// it in messages.
    fn number(&mut self, field: &'static str, what: &'static str) -> Result<u32, PpmError> {
        self.skip_separators(what)?;
        match self.peek() {
            None => return Err(PpmError::TruncatedHeader { expected: what }),
            Some(b) if !b.is_ascii_digit() => {
                return Err(PpmError::Malformed {
                    expected: what,
                    offset: self.pos,
                    found: b,
                })
            }
            Some(_) => {}
        }
        let mut value: u32 = 0;
        while let Some(b) = self.peek().filter(u8::is_ascii_digit) {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u32::from(b - b'0')))
                .ok_or(PpmError::NumberTooLarge { field })?;
            self.pos += 1;
        }
        Ok(value)
    }

    /// Requires that the token just read is followed by a separator (or by
    /// the end of the data, reported as a truncation before `next`).
    fn end_of_token(&self, after: &'static str, next: &'static str) -> Result<(), PpmError> {
        match self.peek() {
            None => Err(PpmError::TruncatedHeader { expected: next }),
            Some(b) if is_space(b) || b == b'#' => Ok(()),
            Some(b) => Err(PpmError::Malformed {
                expected: after,
                offset: self.pos,
                found: b,
            }),
        }
    }
}

/// What data that is not a P6 image starts with, for [`PpmError::NotP6`].
fn describe_magic(bytes: &[u8]) -> String {
    let start = &bytes[..bytes.len().min(2)];
    let known = match start {
        b"P1" => "P1 (plain PBM)",
        b"P2" => "P2 (plain PGM)",
        b"P3" => "P3 (plain PPM)",
        b"P4" => "P4 (binary PBM)",
        b"P5" => "P5 (binary PGM)",
        b"P7" => "P7 (PAM)",
        _ => return format!("\"{}\"", start.escape_ascii()),
    };
    known.to_string()
}

/// Parses the header of a P6 image at the start of `bytes` and checks that
/// the whole raster follows it. Never panics, whatever the bytes.
pub fn parse_header(bytes: &[u8]) -> Result<PpmHeader, PpmError> {
    if bytes.len() < 2 {
        return if b"P6".starts_with(bytes) {
            Err(PpmError::TruncatedHeader {
                expected: "the magic number P6",
            })
        } else {
            Err(PpmError::NotP6 {
                found: describe_magic(bytes),
            })
        };
    }
    if &bytes[..2] != b"P6" {
        return Err(PpmError::NotP6 {
            found: describe_magic(bytes),
        });
    }
    let mut c = Cursor { bytes, pos: 2 };
    c.end_of_token("whitespace after the magic number P6", "the width")?;

    let width = c.number("width", "the width")?;
    c.end_of_token("whitespace after the width", "the height")?;
    let height = c.number("height", "the height")?;
    if width == 0 || height == 0 {
        return Err(PpmError::ZeroSize { width, height });
    }
    c.end_of_token("whitespace after the height", "the maxval")?;
    let maxval = c.number("maxval", "the maxval")?;
    match maxval {
        1..=255 => {}
        256..=65535 => return Err(PpmError::SixteenBit(maxval)),
        _ => return Err(PpmError::BadMaxval(maxval)),
    }

    // Comments may come between the maxval and the one whitespace byte that
    // ends the header; nothing else may.
    const LAST: &str = "one whitespace byte after the maxval";
    while c.peek() == Some(b'#') {
        c.skip_comment(LAST)?;
    }
    match c.peek() {
        None => return Err(PpmError::TruncatedHeader { expected: LAST }),
        Some(b) if is_space(b) => c.pos += 1,
        Some(b) => {
            return Err(PpmError::Malformed {
                expected: LAST,
                offset: c.pos,
                found: b,
            })
        }
    }

    let header = PpmHeader {
        width,
        height,
        maxval: maxval as u16,
        data_offset: c.pos,
    };
    let needed = raster_len(width, height)?;
    let available = bytes.len() - header.data_offset;
    if needed > available {
        return Err(PpmError::TruncatedPixels {
            width,
            height,
            needed: needed as u64,
            available: available as u64,
        });
    }
    Ok(header)
}

/// Parses a P6 image: its header and exactly its raster (`width × height × 3`
/// bytes, without any bytes that follow).
pub fn parse_image(bytes: &[u8]) -> Result<(PpmHeader, &[u8]), PpmError> {
    let header = parse_header(bytes)?;
    // parse_header checked that this fits and that the bytes are there.
    let len = raster_len(header.width, header.height)?;
    Ok((header, &bytes[header.data_offset..header.data_offset + len]))
}

/// `width × height × 3` in bytes, if it fits in memory addresses.
pub(crate) fn raster_len(width: u32, height: u32) -> Result<usize, PpmError> {
    usize::try_from(width)
        .ok()
        .zip(usize::try_from(height).ok())
        .and_then(|(w, h)| w.checked_mul(h)?.checked_mul(3))
        .ok_or(PpmError::TooLarge {
            width: width.into(),
            height: height.into(),
        })
}

/// The header [`write_ppm`] and [`generate`] write: maxval 255.
fn header_text(width: u32, height: u32) -> String {
    format!("P6\n{width} {height}\n255\n")
}

/// Writes a P6 image with maxval 255. `pixels` holds `width × height` pixels
/// of 3 bytes, row by row. Fails with [`io::ErrorKind::InvalidInput`] when
/// the width or the height is 0, or when `pixels` has the wrong length.
pub fn write_ppm(out: &mut impl Write, width: u32, height: u32, pixels: &[u8]) -> io::Result<()> {
    let invalid = |msg: String| io::Error::new(io::ErrorKind::InvalidInput, msg);
    if width == 0 || height == 0 {
        return Err(invalid(format!(
            "cannot write a {width}x{height} PPM image: it has no pixels"
        )));
    }
    let needed = raster_len(width, height).map_err(|e| invalid(e.to_string()))?;
    if pixels.len() != needed {
        return Err(invalid(format!(
            "a {width}x{height} PPM image needs {needed} bytes of pixels, got {}",
            pixels.len()
        )));
    }
    out.write_all(header_text(width, height).as_bytes())?;
    out.write_all(pixels)
}

/// A whole P6 file (maxval 255) of `width × height` pseudo-random pixels.
/// The same arguments give the same bytes on every machine (ChaCha8 seeded
/// with `seed`).
///
/// # Panics
/// If the width or the height is 0, or the image does not fit in memory.
pub fn generate(width: u32, height: u32, seed: u64) -> Vec<u8> {
    assert!(
        width > 0 && height > 0,
        "a {width}x{height} PPM image has no pixels"
    );
    let header = header_text(width, height);
    let pixels = raster_len(width, height).unwrap_or_else(|e| panic!("{e}"));
    let mut file = Vec::with_capacity(header.len() + pixels);
    file.extend_from_slice(header.as_bytes());
    file.resize(header.len() + pixels, 0);
    rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut file[header.len()..]);
    file
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn header(bytes: &[u8]) -> Result<PpmHeader, PpmError> {
        parse_header(bytes)
    }

    /// A header followed by enough zero pixels for `width × height`.
    fn with_pixels(head: &str, width: usize, height: usize) -> Vec<u8> {
        let mut v = head.as_bytes().to_vec();
        v.resize(v.len() + width * height * 3, 0);
        v
    }

    #[test]
    fn parses_a_plain_header() {
        let file = with_pixels("P6\n3 2\n255\n", 3, 2);
        assert_eq!(
            header(&file),
            Ok(PpmHeader {
                width: 3,
                height: 2,
                maxval: 255,
                data_offset: 11
            })
        );
    }

    #[test]
    fn any_whitespace_and_comments_between_fields() {
        let head = "P6# made by hand\r\n \t3\t#w\n#another\r\r2 \n\n # maxval next\n100#c\n\n";
        let file = with_pixels(head, 3, 2);
        assert_eq!(
            header(&file),
            Ok(PpmHeader {
                width: 3,
                height: 2,
                maxval: 100,
                data_offset: head.len()
            })
        );
    }

    #[test]
    fn exactly_one_whitespace_byte_ends_the_header() {
        // The raster may start with bytes that look like whitespace.
        let mut file = b"P6 1 1 255\n".to_vec();
        file.extend_from_slice(b"\n \t");
        let h = header(&file).unwrap();
        assert_eq!(h.data_offset, 11);
        let (_, pixels) = parse_image(&file).unwrap();
        assert_eq!(pixels, b"\n \t");
        // A comment after the whitespace would be pixel data, not a comment.
        let file = b"P6 1 1 255 #ab";
        assert_eq!(parse_image(file).unwrap().1, b"#ab");
    }

    #[test]
    fn trailing_bytes_after_the_raster_are_ignored() {
        let mut file = with_pixels("P6 2 1 7 ", 2, 1);
        file.extend_from_slice(b"P6 next image");
        let (h, pixels) = parse_image(&file).unwrap();
        assert_eq!((h.width, h.height, h.maxval), (2, 1, 7));
        assert_eq!(pixels.len(), 6);
    }

    #[test]
    fn wrong_magic() {
        for (bytes, found) in [
            (&b"P3\n1 1\n255\n0 0 0\n"[..], "P3 (plain PPM)"),
            (b"P5\n1 1\n255\n\0", "P5 (binary PGM)"),
            (b"P1", "P1 (plain PBM)"),
            (b"\x89PNG\r\n", "\"\\x89P\""),
            (b"GIF89a", "\"GI\""),
            (b"p6 1 1 255 abc", "\"p6\""),
            (b"X", "\"X\""),
        ] {
            let err = header(bytes).unwrap_err();
            assert_eq!(
                err,
                PpmError::NotP6 {
                    found: found.to_string()
                },
                "{bytes:?}"
            );
            assert!(
                err.to_string().starts_with("not a binary PPM (P6)"),
                "{err}"
            );
        }
    }

    #[test]
    fn truncated_headers() {
        for (bytes, expected) in [
            (&b""[..], "the magic number P6"),
            (b"P", "the magic number P6"),
            (b"P6", "the width"),
            (b"P6 \n", "the width"),
            (b"P6 # a comment that never ends", "the width"),
            (b"P6 12", "the height"),
            (b"P6 12 ", "the height"),
            (b"P6 12 7", "the maxval"),
            (b"P6 12 7\n#", "the maxval"),
            (b"P6 12 7 255", "one whitespace byte after the maxval"),
            (
                b"P6 12 7 255#comment",
                "one whitespace byte after the maxval",
            ),
            (
                b"P6 12 7 255#comment\n",
                "one whitespace byte after the maxval",
            ),
        ] {
            assert_eq!(
                header(bytes),
                Err(PpmError::TruncatedHeader { expected }),
                "{:?}",
                bytes.escape_ascii().to_string()
            );
        }
    }

    #[test]
    fn malformed_headers() {
        for (bytes, expected, offset, found) in [
            (
                &b"P6x 1 1 255 "[..],
                "whitespace after the magic number P6",
                2,
                b'x',
            ),
            (b"P6 -1 1 255 ", "the width", 3, b'-'),
            (b"P6 +1 1 255 ", "the width", 3, b'+'),
            (b"P6 1a 1 255 ", "whitespace after the width", 4, b'a'),
            (b"P6 1 x 255 ", "the height", 5, b'x'),
            (b"P6 1 1. 255 ", "whitespace after the height", 6, b'.'),
            (
                b"P6 1 1 25x ",
                "one whitespace byte after the maxval",
                9,
                b'x',
            ),
            (
                b"P6 1 1 255\x00abc",
                "one whitespace byte after the maxval",
                10,
                0,
            ),
            (b"P6 1 1 #c\n\x0b255 ", "the maxval", 10, 0x0b),
        ] {
            assert_eq!(
                header(bytes),
                Err(PpmError::Malformed {
                    expected,
                    offset,
                    found
                })
            );
        }
    }

    #[test]
    fn maxval_range() {
        assert_eq!(header(b"P6 1 1 0 abc"), Err(PpmError::BadMaxval(0)));
        assert_eq!(header(b"P6 1 1 65536 abc"), Err(PpmError::BadMaxval(65536)));
        assert_eq!(header(b"P6 1 1 256 abcdef"), Err(PpmError::SixteenBit(256)));
        let err = header(b"P6 1 1 65535 abcdef").unwrap_err();
        assert_eq!(err, PpmError::SixteenBit(65535));
        assert!(err.to_string().contains("16-bit PPM"), "{err}");
        assert!(err.to_string().contains("not supported"), "{err}");
        assert_eq!(header(b"P6 1 1 1 abc").unwrap().maxval, 1);
        assert_eq!(header(b"P6 1 1 00255 abc").unwrap().maxval, 255);
    }

    #[test]
    fn zero_width_or_height() {
        assert_eq!(
            header(b"P6 0 5 255 "),
            Err(PpmError::ZeroSize {
                width: 0,
                height: 5
            })
        );
        assert_eq!(
            header(b"P6 5 0 255 "),
            Err(PpmError::ZeroSize {
                width: 5,
                height: 0
            })
        );
    }

    #[test]
    fn numbers_too_large_for_32_bits() {
        assert_eq!(
            header(b"P6 4294967296 1 255 "),
            Err(PpmError::NumberTooLarge { field: "width" })
        );
        assert_eq!(
            header(b"P6 1 99999999999999999999 255 "),
            Err(PpmError::NumberTooLarge { field: "height" })
        );
        assert_eq!(
            header(b"P6 1 1 4294967296 "),
            Err(PpmError::NumberTooLarge { field: "maxval" })
        );
    }

    #[test]
    fn raster_size_overflow_is_checked() {
        let err = header(b"P6 4294967295 4294967295 255 ").unwrap_err();
        if usize::BITS == 64 {
            // 3 × (2^32 - 1)^2 does not fit in 64 bits.
            assert_eq!(
                err,
                PpmError::TooLarge {
                    width: 4294967295,
                    height: 4294967295
                }
            );
        }
        // One that fits in 64 bits is simply truncated.
        assert_eq!(
            header(b"P6 100000 100000 255 \x01\x02"),
            Err(PpmError::TruncatedPixels {
                width: 100000,
                height: 100000,
                needed: 30_000_000_000,
                available: 2
            })
        );
    }

    #[test]
    fn truncated_pixel_data() {
        let mut file = with_pixels("P6 4 3 255\n", 4, 3);
        file.pop();
        assert_eq!(
            header(&file),
            Err(PpmError::TruncatedPixels {
                width: 4,
                height: 3,
                needed: 36,
                available: 35
            })
        );
        assert_eq!(
            header(b"P6 4 3 255\n"),
            Err(PpmError::TruncatedPixels {
                width: 4,
                height: 3,
                needed: 36,
                available: 0
            })
        );
    }

    #[test]
    fn messages_are_one_line() {
        let errors = [
            header(b"P3").unwrap_err(),
            header(b"P6 1").unwrap_err(),
            header(b"P6 1\n1\n255\n\n").unwrap_err(),
            header(b"P6 1 1 255\x00").unwrap_err(),
            header(b"P6 0 1 255 ").unwrap_err(),
            header(b"P6 1 1 0 ").unwrap_err(),
            header(b"P6 1 1 1000 ").unwrap_err(),
            header(b"P6 1 1 99999999999 ").unwrap_err(),
            header(b"P6 1 2 255 ").unwrap_err(),
            PpmError::TooLarge {
                width: 1,
                height: 2,
            },
            PpmError::NotWholeFile { offset: 4096 },
        ];
        for e in errors {
            let msg = e.to_string();
            assert!(!msg.contains('\n') && !msg.contains('\r'), "{msg:?}");
        }
    }

    #[test]
    fn write_then_parse() {
        let pixels: Vec<u8> = (0..5 * 4 * 3).map(|i| i as u8).collect();
        let mut out = Vec::new();
        write_ppm(&mut out, 5, 4, &pixels).unwrap();
        assert!(out.starts_with(b"P6\n5 4\n255\n"));
        let (h, raster) = parse_image(&out).unwrap();
        assert_eq!((h.width, h.height, h.maxval), (5, 4, 255));
        assert_eq!(raster, &pixels[..]);
    }

    #[test]
    fn write_rejects_bad_sizes() {
        let mut out = Vec::new();
        let kind = |r: io::Result<()>| r.unwrap_err().kind();
        assert_eq!(
            kind(write_ppm(&mut out, 0, 1, &[])),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(write_ppm(&mut out, 2, 1, &[0; 5])),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(write_ppm(&mut out, 2, 1, &[0; 7])),
            io::ErrorKind::InvalidInput
        );
        assert!(out.is_empty(), "nothing written on error");
    }

    #[test]
    fn generate_is_deterministic_and_valid() {
        let a = generate(37, 23, 1);
        assert_eq!(a, generate(37, 23, 1));
        assert_ne!(a, generate(37, 23, 2));
        let (h, pixels) = parse_image(&a).unwrap();
        assert_eq!(
            h,
            PpmHeader {
                width: 37,
                height: 23,
                maxval: 255,
                data_offset: 13
            }
        );
        assert_eq!(a.len(), 13 + 37 * 23 * 3);
        // Pseudo-random, not constant.
        let distinct: std::collections::HashSet<u8> = pixels.iter().copied().collect();
        assert!(distinct.len() > 200);
    }

    /// A valid header with arbitrary separators, and its expected parse.
    fn valid_header() -> impl Strategy<Value = (Vec<u8>, PpmHeader)> {
        let sep = prop::collection::vec(
            prop_oneof![
                Just(" ".to_string()),
                Just("\t".to_string()),
                Just("\r".to_string()),
                Just("\n".to_string()),
                "#[ -~]{0,8}[\r\n]",
            ],
            1..4,
        );
        (
            1u32..40,
            1u32..40,
            1u16..=255,
            sep.clone(),
            sep.clone(),
            sep.clone(),
            sep,
        )
            .prop_map(|(w, h, maxval, s1, s2, s3, s4)| {
                // A comment may follow the maxval, then one whitespace byte.
                let after_maxval: String =
                    s4.iter().filter(|s| s.starts_with('#')).cloned().collect();
                let head = format!(
                    "P6{}{w}{}{h}{}{maxval}{after_maxval}\n",
                    s1.concat(),
                    s2.concat(),
                    s3.concat()
                );
                let mut file = head.clone().into_bytes();
                file.resize(file.len() + (w * h * 3) as usize, 0xee);
                let expected = PpmHeader {
                    width: w,
                    height: h,
                    maxval,
                    data_offset: head.len(),
                };
                (file, expected)
            })
    }

    /// A change to some bytes of a file.
    #[derive(Clone, Debug)]
    enum Mutation {
        Set(usize, u8),
        Insert(usize, u8),
        Remove(usize),
        Truncate(usize),
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        prop_oneof![
            (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
            (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Insert(i, b)),
            any::<usize>().prop_map(Mutation::Remove),
            any::<usize>().prop_map(Mutation::Truncate),
        ]
    }

    fn apply(file: &mut Vec<u8>, m: &Mutation) {
        // Mostly hit the header: it is where the parser looks.
        let span = file.len().clamp(1, 64);
        match *m {
            Mutation::Set(i, b) if !file.is_empty() => {
                let i = i % span.min(file.len());
                file[i] = b;
            }
            Mutation::Insert(i, b) => file.insert(i % (span.min(file.len()) + 1), b),
            Mutation::Remove(i) if !file.is_empty() => {
                file.remove(i % span.min(file.len()));
            }
            Mutation::Truncate(i) => file.truncate(i % (file.len() + 1)),
            _ => {}
        }
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..128)) {
            let _ = parse_header(&bytes);
            let _ = parse_image(&bytes);
        }

        #[test]
        fn never_panics_on_arbitrary_bytes_after_the_magic(
            rest in prop::collection::vec(prop_oneof![
                any::<u8>(),
                Just(b' '),
                Just(b'\n'),
                Just(b'#'),
                b'0'..=b'9',
            ], 0..64)
        ) {
            let mut bytes = b"P6".to_vec();
            bytes.extend_from_slice(&rest);
            if let Ok((h, pixels)) = parse_image(&bytes) {
                prop_assert!((1..=255).contains(&h.maxval));
                prop_assert_eq!(pixels.len(), (h.width * h.height * 3) as usize);
            }
        }

        #[test]
        fn parses_valid_headers((file, expected) in valid_header()) {
            prop_assert_eq!(parse_header(&file), Ok(expected));
        }

        #[test]
        fn never_panics_on_mutated_headers(
            (file, _) in valid_header(),
            mutations in prop::collection::vec(mutation(), 1..6),
        ) {
            let mut file = file;
            for m in &mutations {
                apply(&mut file, m);
            }
            if let Ok(h) = parse_header(&file) {
                // Whatever it accepts is self-consistent.
                prop_assert!(h.width > 0 && h.height > 0 && (1..=255).contains(&h.maxval));
                let needed = h.width as usize * h.height as usize * 3;
                prop_assert!(h.data_offset + needed <= file.len());
                prop_assert!(is_space(file[h.data_offset - 1]));
            }
        }
    }
}
