//! Workloads: what a trial does with each block a method delivers.
//!
//! Every workload folds the bytes it claims to touch into a checksum, so the
//! compiler cannot skip the reads and so that methods can be checked against
//! each other. Adding a workload is one file (the workload and its [`Spec`]) plus one
//! line in the registry ([`WorkloadKind`]).
//!
//! Read workloads consume the blocks a read method delivers; the one write
//! workload, [`Fill`], produces the blocks a write method writes. The plan
//! pairs read methods with read workloads and write methods with `fill` only.
mod digest;
mod fill;
pub mod ppm;
mod scale;
mod sum;
mod touch;

pub use digest::{Digest, DigestAlgorithm};
pub use fill::{fill, fill_pattern, pattern_byte, pattern_word, Fill, FillContent};
pub use ppm::{PpmError, PpmHeader};
pub use scale::{ImageScaler, ScaleFactor, ScaleFactorError, ScaleUnit};
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
    /// Says that a mixed case's write of `len` bytes at `offset` has ended
    /// (`--read-share`): the bytes a write stores are the method's, not the
    /// workload's, so nothing is folded into the checksum; the latency
    /// wrapper ends the operation here.
    #[inline]
    fn wrote(&mut self, offset: u64, len: usize) {
        let _ = (offset, len);
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

/// What a trial builds a workload with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkloadConfig {
    /// The system's page size (`touch` steps by it).
    pub page_size: usize,
    /// What `fill` writes (default: the pattern).
    pub fill: Option<FillContent>,
    /// `scale`'s factor (default: reduce by 2).
    pub scale: Option<ScaleFactor>,
    /// What `scale` takes as a pixel (default: whole pixels).
    pub unit: Option<ScaleUnit>,
}

/// What faultline knows about a workload, declared once in its own file.
pub struct Spec {
    /// It produces bytes for write methods, rather than consuming what read
    /// methods deliver.
    pub writes: bool,
    /// The combined checksum of blocks consumed apart equals the checksum of
    /// the same blocks consumed by one workload in any order (a wrapping
    /// sum), so `--thread-mode split` can check it.
    pub order_independent: bool,
    /// Builds a fresh workload for one trial.
    pub build: fn(&WorkloadConfig) -> Box<dyn Workload>,
}

registry! {
    /// The registry of workloads, by command-line name: one line per workload.
    pub enum WorkloadKind => Spec, default Sum {
        /// Read one byte of each page of each block (one per block when blocks
        /// are smaller than a page): the least that forces the access.
        Touch => touch::TOUCH,
        /// Add up every byte: bound by memory bandwidth.
        Sum => sum::SUM,
        /// MD5 digest of the blocks in the order delivered (the 2004 case).
        Md5 => digest::MD5,
        /// SHA-256 digest of the blocks in the order delivered.
        Sha256 => digest::SHA256,
        /// BLAKE3 digest of the blocks in the order delivered (one thread).
        Blake3 => digest::BLAKE3,
        /// For write methods: produce each block (zeros or a pattern, chosen
        /// with `--fill`); the checksum is the sum of the bytes written.
        Fill => fill::FILL,
        /// Reduce or enlarge a PPM image by `--factor` (the 2002 case); the
        /// whole file is one block.
        Scale => scale::SCALE,
    }
}

impl WorkloadKind {
    /// Whether the workload produces bytes for write methods (see [`Spec::writes`]).
    pub fn writes(self) -> bool {
        self.spec().writes
    }

    /// Whether threads may split its blocks (see [`Spec::order_independent`]).
    pub fn order_independent(self) -> bool {
        self.spec().order_independent
    }

    /// Builds a fresh workload for one trial.
    pub fn build(self, config: &WorkloadConfig) -> Box<dyn Workload> {
        (self.spec().build)(config)
    }
}
