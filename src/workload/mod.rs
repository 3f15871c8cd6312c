//! Workloads: what a trial does with each block a method delivers.
//!
//! Every workload folds the bytes it claims to touch into a checksum, so the
//! compiler cannot skip the reads and so that methods can be checked against
//! each other. Adding a workload is one file plus a line in [`WorkloadKind`].
//!
//! Read workloads consume the blocks a read method delivers; the one write
//! workload, [`Fill`], produces the blocks a write method writes. The plan
//! pairs read methods with read workloads and write methods with `fill` only.
use serde::{Deserialize, Serialize};

mod digest;
mod fill;
pub mod ppm;
mod scale;
mod sum;
mod touch;

pub use digest::{Digest, DigestAlgorithm};
pub use fill::{fill, fill_pattern, pattern_byte, pattern_word, Fill, FillContent};
pub use ppm::{PpmError, PpmHeader};
pub use scale::{Scale, ScaleFactor, ScaleFactorError, ScaleUnit};
pub use sum::{sum_bytes, Sum};
pub use touch::Touch;

/// What a trial does with the bytes of each block.
pub trait Workload {
    /// Consumes one block: `offset` is its place in the file, `data` its bytes
    /// (in the method's buffer, or in place in a mapping).
    fn consume(&mut self, offset: u64, data: &[u8]);
    /// Produces one block for a write method: fills `out` with the bytes that
    /// belong at `offset` and folds them into the checksum. Only write
    /// workloads ([`WorkloadKind::writes`]) produce; the plan never gives a
    /// read workload to a write method, so reaching this default is a bug.
    fn produce(&mut self, offset: u64, out: &mut [u8]) {
        let _ = (offset, out);
        unreachable!("a read workload was asked to produce bytes for a write method")
    }
    /// The checksum of everything consumed so far.
    fn checksum(&self) -> u64;
    /// The first error the workload met, as one line (the trial then
    /// fails): only `scale` can meet one (data that is not a whole PPM image).
    fn error(&self) -> Option<String> {
        None
    }
    /// The scaled image (width, height, pixels) of the `scale` workload;
    /// `None` for the others.
    fn scaled_image(&self) -> Option<(u32, u32, &[u8])> {
        None
    }
}

/// The registry of workloads, by command-line name.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadKind {
    /// Read one byte of each page of each block (one per block when blocks
    /// are smaller than a page): the least that forces the access.
    Touch,
    /// Add up every byte: bound by memory bandwidth.
    Sum,
    /// MD5 digest of the blocks in the order delivered (the 2004 case).
    Md5,
    /// SHA-256 digest of the blocks in the order delivered.
    Sha256,
    /// BLAKE3 digest of the blocks in the order delivered (one thread).
    Blake3,
    /// For write methods: produce each block (zeros or a pattern, chosen
    /// with `--fill`); the checksum is the sum of the bytes written.
    Fill,
    /// Reduce or enlarge a PPM image by `--factor` (the 2002 case); the
    /// whole file is one block.
    Scale,
}

impl WorkloadKind {
    /// The name used on the command line and in exports.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Touch => "touch",
            WorkloadKind::Sum => "sum",
            WorkloadKind::Md5 => "md5",
            WorkloadKind::Sha256 => "sha256",
            WorkloadKind::Blake3 => "blake3",
            WorkloadKind::Fill => "fill",
            WorkloadKind::Scale => "scale",
        }
    }

    /// Whether the workload produces bytes for write methods (rather than
    /// consuming what read methods deliver).
    pub fn writes(self) -> bool {
        matches!(self, WorkloadKind::Fill)
    }

    /// Builds a fresh workload for one trial; `fill` is the content of the
    /// `fill` workload (ignored by the others).
    /// `scale` scales by `scale` (by 2 when `None`), taking `unit` as a
    /// pixel (whole pixels when `None`).
    pub fn build_scaled(
        self,
        page_size: usize,
        fill: Option<FillContent>,
        scale: Option<ScaleFactor>,
        unit: Option<ScaleUnit>,
    ) -> Box<dyn Workload> {
        match self {
            WorkloadKind::Scale => Box::new(Scale::with_unit(
                scale.unwrap_or(ScaleFactor::Reduce(2)),
                unit.unwrap_or_default(),
            )),
            other => other.build(page_size, fill),
        }
    }

    /// Whether the combined checksum of blocks consumed apart equals the
    /// checksum of the same blocks consumed by one workload in any order
    /// (a wrapping sum: `touch`, `sum`): so `--thread-mode split` can check it.
    pub fn order_independent(self) -> bool {
        matches!(self, WorkloadKind::Touch | WorkloadKind::Sum)
    }

    /// Builds a fresh workload for one trial (`scale` by 2; see [`Self::build_scaled`]).
    pub fn build(self, page_size: usize, fill: Option<FillContent>) -> Box<dyn Workload> {
        match self {
            WorkloadKind::Touch => Box::new(Touch::new(page_size)),
            WorkloadKind::Sum => Box::new(Sum::default()),
            WorkloadKind::Md5 => Box::new(Digest::new(DigestAlgorithm::Md5)),
            WorkloadKind::Sha256 => Box::new(Digest::new(DigestAlgorithm::Sha256)),
            WorkloadKind::Blake3 => Box::new(Digest::new(DigestAlgorithm::Blake3)),
            WorkloadKind::Fill => Box::new(Fill::new(fill.unwrap_or_default())),
            WorkloadKind::Scale => Box::new(Scale::new(ScaleFactor::Reduce(2))),
        }
    }
}

display_as_value_name!(WorkloadKind);
