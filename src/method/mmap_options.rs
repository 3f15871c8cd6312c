//! The options of the mapping methods (pre-faulting, the madvise() hint,
//! MAP_SHARED or MAP_PRIVATE): a leaf every method that maps a file reads,
//! so that none of them imports another method's file for them.
use serde::{Deserialize, Serialize};

/// How the mapping is pre-faulted during setup.
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
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Populate {
    /// Fault pages on first access.
    #[default]
    None,
    /// MAP_POPULATE at mmap() time (errors are hidden by the kernel).
    Map,
    /// MADV_POPULATE_READ after mmap() (Linux 5.14; errors are reported).
    Madvise,
}

/// The madvise() hint given to the mapping during setup.
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
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Advice {
    /// No advice (MADV_NORMAL).
    #[default]
    Normal,
    /// MADV_SEQUENTIAL: aggressive read-ahead.
    Sequential,
    /// MADV_RANDOM: no read-around on faults.
    Random,
    /// MADV_WILLNEED: start reading the whole range now.
    Willneed,
    /// MADV_HUGEPAGE: ask for transparent huge pages.
    Hugepage,
}

/// MAP_SHARED or MAP_PRIVATE.
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
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Share {
    /// MAP_SHARED.
    #[default]
    Shared,
    /// MAP_PRIVATE (read-only, so no page is ever copied).
    Private,
}

/// The options of the mapping methods.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct MmapOptions {
    /// Pre-faulting.
    pub populate: Populate,
    /// madvise() hint.
    pub advice: Advice,
    /// Sharing.
    pub share: Share,
}
