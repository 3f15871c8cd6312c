//! Workloads: what a trial does with each block a method delivers.
//!
//! Every workload folds the bytes it claims to touch into a checksum, so the
//! compiler cannot skip the reads and so that methods can be checked against
//! each other. Adding a workload is one file plus a line in [`WorkloadKind`].
use serde::{Deserialize, Serialize};

mod digest;
pub mod ppm;
mod scale;
mod sum;
mod touch;

pub use digest::{Digest, DigestAlgorithm};
pub use ppm::{PpmError, PpmHeader};
pub use scale::{Scale, ScaleFactor, ScaleFactorError};
pub use sum::{sum_bytes, Sum};
pub use touch::Touch;

/// What a trial does with the bytes of each block.
pub trait Workload {
    /// Consumes one block: `offset` is its place in the file, `data` its bytes
    /// (in the method's buffer, or in place in a mapping).
    fn consume(&mut self, offset: u64, data: &[u8]);
    /// The checksum of everything consumed so far.
    fn checksum(&self) -> u64;
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
        }
    }

    /// Builds a fresh workload for one trial.
    pub fn build(self, page_size: usize) -> Box<dyn Workload> {
        match self {
            WorkloadKind::Touch => Box::new(Touch::new(page_size)),
            WorkloadKind::Sum => Box::new(Sum::default()),
            WorkloadKind::Md5 => Box::new(Digest::new(DigestAlgorithm::Md5)),
            WorkloadKind::Sha256 => Box::new(Digest::new(DigestAlgorithm::Sha256)),
            WorkloadKind::Blake3 => Box::new(Digest::new(DigestAlgorithm::Blake3)),
        }
    }
}

display_as_value_name!(WorkloadKind);
