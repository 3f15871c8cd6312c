//! Options of the `stdio`, `preadv` and `uring` methods (and `--fadvise`), carried by each
//! [`crate::plan::Case`]. A method's own options are set (`Some`) on its
//! cases and absent (`None`) on every other method's, as the mmap options are.
use serde::{Deserialize, Serialize};

/// stdio's buffer when `--stdio-buffer` is not given: glibc's BUFSIZ.
pub const DEFAULT_STDIO_BUFFER: u64 = 8 << 10;

/// Options of the methods that have them beyond the block size.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct IoOptions {
    /// `stdio`: the buffered reader's capacity in bytes.
    #[serde(default)]
    pub stdio_buffer: Option<u64>,
    /// `preadv`: blocks per call.
    #[serde(default)]
    pub iov: Option<u32>,
    /// `uring`, `uring-direct`: reads in flight.
    #[serde(default)]
    pub depth: Option<u32>,
    /// `uring`, `uring-direct`: whether the buffers are registered with the ring.
    #[serde(default)]
    pub registered: Option<bool>,
    /// `read`, `pread`, `preadv`, `stdio`, `uring`: the posix_fadvise() hint
    /// given in setup (`--fadvise`); absent: none given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fadvise: Option<super::Fadvise>,
}

/// An option given as off, on, or both (`--uring-registered off,on`).
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
pub enum Switch {
    /// Off.
    Off,
    /// On.
    On,
}

impl Switch {
    /// Whether it is on.
    pub fn on(self) -> bool {
        self == Switch::On
    }
}
