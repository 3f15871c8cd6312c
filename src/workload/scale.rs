//! `scale`: reduce or enlarge a PPM image by an integer factor, the case of
//! the 2002 Sun paper "A Performance Comparison of read and mmap".
//!
//! The workload is given the whole file as one block (block size = file
//! size), parses the P6 header and scales the raster nearest-neighbour on
//! whole 3-byte pixels into a buffer it allocates:
//!
//! - **Reduction by k** keeps every k-th pixel of every k-th row, starting
//!   with the first: output pixel (x, y) is input pixel (k·x, k·y). The
//!   output is `floor(width / k) × floor(height / k)` (a partial group of
//!   fewer than k pixels at the right or bottom edge is dropped), but at
//!   least 1 × 1, so that a factor larger than the image still keeps its
//!   first pixel. Only every k-th row is read, which is why mmap's advantage
//!   grew with k in the paper: fewer pages are touched.
//! - **Enlargement by k** replicates each pixel into a k × k square:
//!   output pixel (x, y) is input pixel (x / k, y / k), and the output is
//!   `k·width × k·height`.
//! - A factor of 1 copies the image.
//!
//! With [`ScaleUnit::Byte`] the raster is scaled as the 2002 article's listing
//! indexed it: as if every byte were a pixel. Its source row is `width`
//! bytes (not `3·width`), so only the first third of the raster (`width ×
//! height` bytes) is read; reduction by k keeps byte `(k·y)·width + k·x` for
//! every `y < ceil(height / k)` and `x < ceil(width / k)` and stores it at
//! `y·stride + x` in a buffer of `stride × floor(height / k) × 3` bytes,
//! where `stride = floor(width / k)` (at least 1): when k does not divide the
//! width, the last byte of a row lands on the next row's first, which the
//! next row then overwrites, as in the listing. Enlargement by k stores byte
//! `y·width + x` at every `(k·y + i)·k·width + k·x + j` (`i, j < k`) of a
//! `k·width × k·height × 3` buffer. Unwritten bytes of the buffer are 0. The
//! output is that whole buffer, read as a `stride × floor(height / k)` (or
//! `k·width × k·height`) image.
//!
//! The checksum is the first 8 bytes (little-endian) of the BLAKE3 hash of
//! the output pixels, computed when asked for (after the timed loop), not
//! while scaling; it is 0 when nothing has been scaled.
//!
//! Data that is not a whole P6 image is not a panic: the workload keeps the
//! first [`PpmError`] and does nothing more; callers check [`ImageScaler::error`]
//! after the trial (the [`Workload`] trait has no error channel).

use std::fmt;
use std::str::FromStr;

use super::ppm::{parse_image, raster_len, PpmError};
use super::Workload;

/// How to scale: reduce or enlarge by a whole factor of at least 1.
///
/// On the command line a positive number reduces and a negative one
/// enlarges: `"2"` is `Reduce(2)`, `"-3"` is `Enlarge(3)`. `1` (or `-1`)
/// copies.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ScaleFactor {
    /// Keep every k-th pixel in each direction.
    Reduce(u32),
    /// Replicate each pixel k × k times.
    Enlarge(u32),
}

/// What the `scale` workload takes as one pixel.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum ScaleUnit {
    /// Whole 3-byte pixels (a correct nearest-neighbour scaling).
    #[default]
    Pixel,
    /// Single bytes, as the 2002 article's listing indexed them (see the module docs).
    Byte,
}

display_as_value_name!(ScaleUnit);

/// Why a string or a value is not a [`ScaleFactor`]. One-line messages.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScaleFactorError {
    /// A factor of 0.
    #[error("scale factor must be at least 1: use e.g. 2 to reduce by 2, or -2 to enlarge by 2")]
    Zero,
    /// Not a whole number, or too large.
    #[error("invalid scale factor {0:?}: use a whole number, e.g. 2 to reduce by 2, or -2 to enlarge by 2")]
    Invalid(String),
}

impl ScaleFactor {
    /// The factor k, whichever the direction.
    pub fn factor(self) -> u32 {
        match self {
            ScaleFactor::Reduce(k) | ScaleFactor::Enlarge(k) => k,
        }
    }

    /// The factor itself if it is valid (k at least 1).
    pub fn validate(self) -> Result<Self, ScaleFactorError> {
        if self.factor() == 0 {
            Err(ScaleFactorError::Zero)
        } else {
            Ok(self)
        }
    }

    /// The size of a `width × height` image scaled by this factor, or
    /// [`PpmError::TooLarge`] if a side does not fit in 32 bits. See the
    /// module documentation for the rounding. A factor of 0 is taken as 1.
    pub fn output_size(self, width: u32, height: u32) -> Result<(u32, u32), PpmError> {
        let k = self.factor().max(1);
        match self {
            ScaleFactor::Reduce(_) => Ok(((width / k).max(1), (height / k).max(1))),
            ScaleFactor::Enlarge(_) => match (width.checked_mul(k), height.checked_mul(k)) {
                (Some(w), Some(h)) => Ok((w, h)),
                _ => Err(PpmError::TooLarge {
                    width: u64::from(width) * u64::from(k),
                    height: u64::from(height) * u64::from(k),
                }),
            },
        }
    }
}

impl FromStr for ScaleFactor {
    type Err = ScaleFactorError;

    /// `"k"` reduces by k, `"-k"` enlarges by k.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || ScaleFactorError::Invalid(s.to_string());
        let t = s.trim();
        let (enlarge, digits) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid());
        }
        let k: u32 = digits.parse().map_err(|_| invalid())?;
        let factor = if enlarge {
            ScaleFactor::Enlarge(k)
        } else {
            ScaleFactor::Reduce(k)
        };
        factor.validate()
    }
}

impl fmt::Display for ScaleFactor {
    /// The command-line form: `"k"` to reduce, `"-k"` to enlarge.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScaleFactor::Reduce(k) => write!(f, "{k}"),
            ScaleFactor::Enlarge(k) => write!(f, "-{k}"),
        }
    }
}

/// `scale`.
pub(super) const SCALE: super::Spec = super::Spec {
    writes: false,
    order_independent: false,
    build: |c| {
        let factor = c.scale.unwrap_or(ScaleFactor::Reduce(2));
        Box::new(ImageScaler::with_unit(factor, c.unit.unwrap_or_default()))
    },
};

/// Scales the PPM image it is given as one block; see the module docs.
#[derive(Debug)]
pub struct ImageScaler {
    factor: ScaleFactor,
    unit: ScaleUnit,
    /// The scaled pixels, row by row; meaningful only when `size` is set.
    output: Vec<u8>,
    /// Width and height of `output`, once an image has been scaled.
    size: Option<(u32, u32)>,
    /// The first error, after which the workload does nothing.
    error: Option<PpmError>,
}

impl ImageScaler {
    /// A workload scaling by `factor`.
    ///
    /// # Panics
    /// If the factor is 0 (a [`ScaleFactor`] parsed from a string never is).
    pub fn new(factor: ScaleFactor) -> Self {
        ImageScaler::with_unit(factor, ScaleUnit::Pixel)
    }

    /// A workload scaling by `factor`, taking `unit` as one pixel.
    ///
    /// # Panics
    /// If the factor is 0 (a [`ScaleFactor`] parsed from a string never is).
    pub fn with_unit(factor: ScaleFactor, unit: ScaleUnit) -> Self {
        if let Err(e) = factor.validate() {
            panic!("{e}");
        }
        ImageScaler {
            factor,
            unit,
            output: Vec::new(),
            size: None,
            error: None,
        }
    }

    /// The factor this workload scales by.
    pub fn factor(&self) -> ScaleFactor {
        self.factor
    }

    /// The scaled image: width, height and pixels (3 bytes each, row by
    /// row), ready for [`super::ppm::write_ppm`]. `None` until an image has
    /// been scaled, or after an error.
    pub fn output(&self) -> Option<(u32, u32, &[u8])> {
        match (self.size, &self.error) {
            (Some((w, h)), None) => Some((w, h, &self.output)),
            _ => None,
        }
    }

    /// The first error met: data that was not a whole P6 image, or a block
    /// that was not the whole file. Callers check it after the trial.
    pub fn error(&self) -> Option<&PpmError> {
        self.error.as_ref()
    }

    /// Parses `file` and scales it into `self.output`.
    fn scale(&mut self, file: &[u8]) -> Result<(u32, u32), PpmError> {
        let (header, pixels) = parse_image(file)?;
        let (width, height) = (header.width, header.height);
        if self.unit == ScaleUnit::Byte {
            return self.scale_bytes(width, height, pixels);
        }
        let (out_width, out_height) = self.factor.output_size(width, height)?;
        let out_len = raster_len(out_width, out_height)?;
        let too_large = PpmError::TooLarge {
            width: out_width.into(),
            height: out_height.into(),
        };

        let out = &mut self.output;
        out.clear();
        out.try_reserve_exact(out_len).map_err(|_| too_large)?;
        let k = self.factor.factor() as usize;
        let row = width as usize * 3;
        match self.factor {
            ScaleFactor::Reduce(_) => {
                for src_row in pixels
                    .chunks_exact(row)
                    .step_by(k)
                    .take(out_height as usize)
                {
                    for pixel in src_row.chunks_exact(3).step_by(k).take(out_width as usize) {
                        out.extend_from_slice(pixel);
                    }
                }
            }
            ScaleFactor::Enlarge(_) => {
                let out_row = out_width as usize * 3;
                for src_row in pixels.chunks_exact(row) {
                    let start = out.len();
                    for pixel in src_row.chunks_exact(3) {
                        for _ in 0..k {
                            out.extend_from_slice(pixel);
                        }
                    }
                    for _ in 1..k {
                        out.extend_from_within(start..start + out_row);
                    }
                }
            }
        }
        debug_assert_eq!(out.len(), out_len);
        Ok((out_width, out_height))
    }
}

impl ImageScaler {
    /// The listing's byte-as-pixel scaling of `pixels` (see the module docs).
    fn scale_bytes(
        &mut self,
        width: u32,
        height: u32,
        pixels: &[u8],
    ) -> Result<(u32, u32), PpmError> {
        let k = self.factor.factor().max(1);
        let (out_width, out_height) = match self.factor {
            ScaleFactor::Reduce(_) => ((width / k).max(1), (height / k).max(1)),
            ScaleFactor::Enlarge(_) => self.factor.output_size(width, height)?,
        };
        let out_len = raster_len(out_width, out_height)?;
        let out = &mut self.output;
        out.clear();
        out.try_reserve_exact(out_len)
            .map_err(|_| PpmError::TooLarge {
                width: out_width.into(),
                height: out_height.into(),
            })?;
        out.resize(out_len, 0);
        let (w, h, k) = (width as usize, height as usize, k as usize);
        // The first width × height bytes of the raster, `width` bytes a row.
        let grid = &pixels[..w * h];
        match self.factor {
            ScaleFactor::Reduce(_) => {
                let stride = out_width as usize;
                for (y, row) in grid.chunks_exact(w).step_by(k).enumerate() {
                    let dest = &mut out[y * stride..];
                    for (x, &b) in row.iter().step_by(k).enumerate() {
                        dest[x] = b;
                    }
                }
            }
            ScaleFactor::Enlarge(_) => {
                let stride = out_width as usize;
                for (y, row) in grid.chunks_exact(w).enumerate() {
                    for i in 0..k {
                        let dest = &mut out[(k * y + i) * stride..];
                        for (x, &b) in row.iter().enumerate() {
                            dest[k * x..k * x + k].fill(b);
                        }
                    }
                }
            }
        }
        Ok((out_width, out_height))
    }
}

impl Workload for ImageScaler {
    fn consume(&mut self, offset: u64, data: &[u8]) {
        if self.error.is_some() {
            return;
        }
        let result = if offset != 0 {
            Err(PpmError::NotWholeFile { offset })
        } else {
            self.scale(data)
        };
        match result {
            Ok(size) => self.size = Some(size),
            Err(e) => {
                self.size = None;
                self.error = Some(e);
            }
        }
    }

    fn error(&self) -> Option<String> {
        self.error.as_ref().map(|e| format!("scale: {e}"))
    }

    fn scaled_image(&self) -> Option<(u32, u32, &[u8])> {
        self.output()
    }

    /// The first 8 bytes (little-endian) of the BLAKE3 hash of the output
    /// pixels; 0 when nothing has been scaled.
    fn checksum(&self) -> u64 {
        match self.output() {
            Some((_, _, pixels)) => {
                let hash = blake3::hash(pixels);
                let mut first = [0u8; 8];
                first.copy_from_slice(&hash.as_bytes()[..8]);
                u64::from_le_bytes(first)
            }
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::ppm::{generate, parse_image, write_ppm};

    /// Straightforward nearest-neighbour scaling, one output pixel at a time.
    fn reference(
        width: u32,
        height: u32,
        pixels: &[u8],
        factor: ScaleFactor,
    ) -> (u32, u32, Vec<u8>) {
        let (w, h) = (width as usize, height as usize);
        let k = factor.factor() as usize;
        let enlarge = matches!(factor, ScaleFactor::Enlarge(_));
        let (ow, oh) = if enlarge {
            (w * k, h * k)
        } else {
            ((w / k).max(1), (h / k).max(1))
        };
        let mut out = vec![0u8; ow * oh * 3];
        for y in 0..oh {
            for x in 0..ow {
                let (sx, sy) = if enlarge {
                    (x / k, y / k)
                } else {
                    (x * k, y * k)
                };
                let from = (sy * w + sx) * 3;
                let to = (y * ow + x) * 3;
                out[to..to + 3].copy_from_slice(&pixels[from..from + 3]);
            }
        }
        (ow as u32, oh as u32, out)
    }

    fn scaled(file: &[u8], factor: ScaleFactor) -> ImageScaler {
        let mut s = ImageScaler::new(factor);
        s.consume(0, file);
        assert_eq!(s.error(), None);
        s
    }

    const FACTORS: [ScaleFactor; 8] = [
        ScaleFactor::Reduce(1),
        ScaleFactor::Reduce(2),
        ScaleFactor::Reduce(3),
        ScaleFactor::Reduce(4),
        ScaleFactor::Reduce(8),
        ScaleFactor::Enlarge(1),
        ScaleFactor::Enlarge(2),
        ScaleFactor::Enlarge(3),
    ];

    fn matches_reference(width: u32, height: u32) {
        let file = generate(width, height, 42);
        let (_, pixels) = parse_image(&file).unwrap();
        for factor in FACTORS {
            let s = scaled(&file, factor);
            let (w, h, out) = s.output().unwrap();
            let (rw, rh, expected) = reference(width, height, pixels, factor);
            assert_eq!((w, h), (rw, rh), "size for {factor}");
            assert!(
                out == &expected[..],
                "pixels for {factor} on {width}x{height}"
            );
        }
    }

    #[test]
    fn matches_reference_on_37x23() {
        matches_reference(37, 23);
    }

    #[test]
    fn matches_reference_on_1280x1024() {
        matches_reference(1280, 1024);
    }

    /// An independent test oracle for the 2002 listing's indexing, written
    /// from its index arithmetic alone (not its code): source byte
    /// `i*width + j`, destination `(i/k)*stride + j/k` (reduce) or
    /// `(i*k + a)*k*width + j*k + b` (enlarge), into a zeroed buffer of
    /// `dest_w * dest_h * 3` bytes.
    fn listing(width: u32, height: u32, pixels: &[u8], factor: ScaleFactor) -> (u32, u32, Vec<u8>) {
        let (w, h) = (width as usize, height as usize);
        let k = factor.factor() as usize;
        match factor {
            ScaleFactor::Reduce(_) => {
                let (dw, dh) = ((w / k).max(1), (h / k).max(1));
                let stride = dw;
                let mut dest = vec![0u8; dw * dh * 3];
                let mut i = 0;
                while i < h {
                    let mut j = 0;
                    while j < w {
                        dest[(i / k) * stride + (j / k)] = pixels[i * w + j];
                        j += k;
                    }
                    i += k;
                }
                (dw as u32, dh as u32, dest)
            }
            ScaleFactor::Enlarge(_) => {
                let stride = k * w;
                let mut dest = vec![0u8; w * k * h * k * 3];
                for i in 0..h {
                    for j in 0..w {
                        for a in 0..k {
                            for b in 0..k {
                                dest[(i * k + a) * stride + j * k + b] = pixels[i * w + j];
                            }
                        }
                    }
                }
                ((w * k) as u32, (h * k) as u32, dest)
            }
        }
    }

    #[test]
    fn byte_unit_matches_the_listing_on_tiny_images() {
        for (width, height) in [(7, 5), (8, 8), (37, 23), (2, 9), (80, 64)] {
            let file = generate(width, height, 11);
            let (_, pixels) = parse_image(&file).unwrap();
            for factor in FACTORS {
                let mut s = ImageScaler::with_unit(factor, ScaleUnit::Byte);
                s.consume(0, &file);
                assert_eq!(s.error(), None);
                let (w, h, out) = s.output().unwrap();
                let (lw, lh, expected) = listing(width, height, pixels, factor);
                assert_eq!((w, h), (lw, lh), "size for {factor} on {width}x{height}");
                assert!(
                    out == &expected[..],
                    "bytes for {factor} on {width}x{height}"
                );
                let hash = blake3::hash(&expected);
                assert_eq!(
                    s.checksum(),
                    u64::from_le_bytes(hash.as_bytes()[..8].try_into().unwrap())
                );
            }
        }
    }

    #[test]
    fn byte_unit_reads_only_the_first_third_of_the_raster() {
        // 6 x 4 image, reduce by 2: the listing reads bytes 0, 2, 4 of rows 0
        // and 2 of a 6-byte-wide grid, i.e. raster bytes 0, 2, 4, 12, 14, 16.
        let file = generate(6, 4, 3);
        let (_, pixels) = parse_image(&file).unwrap();
        let mut s = ImageScaler::with_unit(ScaleFactor::Reduce(2), ScaleUnit::Byte);
        s.consume(0, &file);
        let (w, h, out) = s.output().unwrap();
        assert_eq!((w, h), (3, 2));
        let picked: Vec<u8> = [0, 2, 4, 12, 14, 16].iter().map(|&i| pixels[i]).collect();
        assert_eq!(&out[..6], &picked[..]);
        assert!(out[6..].iter().all(|&b| b == 0));
        // Changing a byte past the first third changes nothing.
        let mut other = file.clone();
        let last = other.len() - 1;
        other[last] ^= 0xff;
        let mut t = ImageScaler::with_unit(ScaleFactor::Reduce(2), ScaleUnit::Byte);
        t.consume(0, &other);
        assert_eq!(s.checksum(), t.checksum());
        // The pixel unit differs.
        assert_ne!(
            s.checksum(),
            scaled(&file, ScaleFactor::Reduce(2)).checksum()
        );
    }

    #[test]
    fn output_sizes_round_down_but_keep_one_pixel() {
        let file = generate(37, 23, 1);
        let size = |f| {
            let s = scaled(&file, f);
            let (w, h, _) = s.output().unwrap();
            (w, h)
        };
        assert_eq!(size(ScaleFactor::Reduce(1)), (37, 23));
        assert_eq!(size(ScaleFactor::Reduce(2)), (18, 11));
        assert_eq!(size(ScaleFactor::Reduce(8)), (4, 2));
        assert_eq!(size(ScaleFactor::Reduce(30)), (1, 1));
        assert_eq!(size(ScaleFactor::Reduce(1000)), (1, 1));
        assert_eq!(size(ScaleFactor::Enlarge(3)), (111, 69));
        // 1280 x 1024, the paper's image.
        assert_eq!(
            ScaleFactor::Reduce(3).output_size(1280, 1024),
            Ok((426, 341))
        );
        assert_eq!(
            ScaleFactor::Reduce(8).output_size(1280, 1024),
            Ok((160, 128))
        );
    }

    #[test]
    fn a_factor_larger_than_the_image_keeps_the_first_pixel() {
        let file = generate(5, 3, 9);
        let (_, pixels) = parse_image(&file).unwrap();
        let s = scaled(&file, ScaleFactor::Reduce(64));
        assert_eq!(s.output(), Some((1, 1, &pixels[..3])));
    }

    #[test]
    fn round_trip_through_write_ppm() {
        let file = generate(37, 23, 5);
        for factor in FACTORS {
            let s = scaled(&file, factor);
            let (w, h, pixels) = s.output().unwrap();
            let mut written = Vec::new();
            write_ppm(&mut written, w, h, pixels).unwrap();
            let (header, parsed) = parse_image(&written).unwrap();
            assert_eq!((header.width, header.height, header.maxval), (w, h, 255));
            assert_eq!(parsed, pixels);
        }
    }

    #[test]
    fn checksum_is_blake3_of_the_output() {
        let file = generate(37, 23, 5);
        let s = scaled(&file, ScaleFactor::Reduce(2));
        let (_, _, pixels) = s.output().unwrap();
        let hash = blake3::hash(pixels);
        assert_eq!(
            s.checksum(),
            u64::from_le_bytes(hash.as_bytes()[..8].try_into().unwrap())
        );
        assert_ne!(
            s.checksum(),
            scaled(&file, ScaleFactor::Reduce(3)).checksum()
        );
        // Same image, same factor, same checksum; the seed changes it.
        assert_eq!(
            s.checksum(),
            scaled(&file, ScaleFactor::Reduce(2)).checksum()
        );
        assert_ne!(
            s.checksum(),
            scaled(&generate(37, 23, 6), ScaleFactor::Reduce(2)).checksum()
        );
        assert_eq!(
            ImageScaler::new(ScaleFactor::Reduce(2)).checksum(),
            0,
            "nothing scaled"
        );
    }

    #[test]
    fn a_second_whole_file_replaces_the_first() {
        let mut s = ImageScaler::new(ScaleFactor::Reduce(2));
        s.consume(0, &generate(8, 8, 1));
        s.consume(0, &generate(4, 6, 2));
        assert_eq!(
            s.output().map(|(w, h, p)| (w, h, p.len())),
            Some((2, 3, 18))
        );
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let good = generate(6, 4, 3);
        type IsExpected = fn(&PpmError) -> bool;
        let cases: [(&[u8], IsExpected); 5] = [
            (b"", |e| matches!(e, PpmError::TruncatedHeader { .. })),
            (b"P3 1 1 255 0 0 0", |e| matches!(e, PpmError::NotP6 { .. })),
            (b"P6 1 1 65535 \0\0\0\0\0\0", |e| {
                matches!(e, PpmError::SixteenBit(65535))
            }),
            (&good[..good.len() - 1], |e| {
                matches!(
                    e,
                    PpmError::TruncatedPixels {
                        needed: 72,
                        available: 71,
                        ..
                    }
                )
            }),
            (b"P6 0 1 255 ", |e| matches!(e, PpmError::ZeroSize { .. })),
        ];
        for (data, expected) in cases {
            let mut s = ImageScaler::new(ScaleFactor::Reduce(2));
            s.consume(0, data);
            let err = s.error().expect("an error");
            assert!(expected(err), "{err}");
            assert_eq!(s.output(), None);
            assert_eq!(s.checksum(), 0);
        }
    }

    #[test]
    fn a_block_that_is_not_the_whole_file_is_an_error() {
        let file = generate(64, 64, 1);
        let mut s = ImageScaler::new(ScaleFactor::Reduce(2));
        // As a method would deliver it with a 4 KiB block size.
        for (i, block) in file.chunks(4096).enumerate() {
            s.consume(i as u64 * 4096, block);
        }
        // The first block fails first; later blocks do not replace the error.
        assert!(matches!(s.error(), Some(PpmError::TruncatedPixels { .. })));
        let mut s = ImageScaler::new(ScaleFactor::Reduce(2));
        s.consume(4096, &file);
        assert_eq!(s.error(), Some(&PpmError::NotWholeFile { offset: 4096 }));
        // An error sticks: a good file afterwards changes nothing.
        s.consume(0, &file);
        assert_eq!(s.output(), None);
    }

    #[test]
    fn enlarging_past_32_bits_is_an_error() {
        let file = generate(70_000, 1, 1);
        let mut s = ImageScaler::new(ScaleFactor::Enlarge(70_000));
        s.consume(0, &file);
        assert_eq!(
            s.error(),
            Some(&PpmError::TooLarge {
                width: 4_900_000_000,
                height: 70_000
            })
        );
    }

    #[test]
    fn parses_factors() {
        let parse = |s: &str| s.parse::<ScaleFactor>();
        assert_eq!(parse("2"), Ok(ScaleFactor::Reduce(2)));
        assert_eq!(parse("8"), Ok(ScaleFactor::Reduce(8)));
        assert_eq!(parse("+3"), Ok(ScaleFactor::Reduce(3)));
        assert_eq!(parse(" 4 "), Ok(ScaleFactor::Reduce(4)));
        assert_eq!(parse("1"), Ok(ScaleFactor::Reduce(1)));
        assert_eq!(parse("-2"), Ok(ScaleFactor::Enlarge(2)));
        assert_eq!(parse("-1"), Ok(ScaleFactor::Enlarge(1)));
        assert_eq!(parse("0"), Err(ScaleFactorError::Zero));
        assert_eq!(parse("-0"), Err(ScaleFactorError::Zero));
        for bad in [
            "",
            "-",
            "+",
            "x",
            "2x",
            "1.5",
            "--2",
            "-+2",
            "+-2",
            "4294967296",
            "- 2",
        ] {
            assert_eq!(
                parse(bad),
                Err(ScaleFactorError::Invalid(bad.to_string())),
                "{bad:?}"
            );
        }
        for f in FACTORS {
            assert_eq!(parse(&f.to_string()), Ok(f));
        }
        assert_eq!(
            ScaleFactor::Enlarge(0).validate(),
            Err(ScaleFactorError::Zero)
        );
        assert!(!ScaleFactorError::Zero.to_string().contains('\n'));
    }

    #[test]
    #[should_panic(expected = "at least 1")]
    fn a_zero_factor_is_refused_at_construction() {
        let _ = ImageScaler::new(ScaleFactor::Reduce(0));
    }
}
