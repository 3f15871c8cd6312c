//! Page-cache states: what a trial asks the cache to be in, and when a
//! measured residency counts as that state. Reaching a state is the runner's
//! work ([`crate::runner::cache`]).
use serde::{Deserialize, Serialize};

/// The page-cache state a trial starts in.
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
pub enum CacheState {
    /// Evicted, then read whole: every page resident.
    #[default]
    Warm,
    /// fsync, then evicted (posix_fadvise DONTNEED, or drop_caches).
    Cold,
    /// Left as it is; only measured.
    AsIs,
}

/// How a warm file is brought into the cache. It decides the folio sizes the
/// kernel uses, and so the number of faults an mmap trial takes.
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
pub enum WarmBy {
    /// Large sequential reads (large folios on Linux 6.x).
    #[default]
    Seq,
    /// 4 KiB reads in random order, read-ahead off (small folios).
    Random,
    /// Rewritten with the same bytes (only for files faultline generated).
    Written,
}

/// Residency at or below which a file counts as cold.
pub const COLD_MAX: f64 = 0.01;
/// Residency at or above which a file counts as warm.
pub const WARM_MIN: f64 = 0.99;

/// Whether a measured residency is the state that was asked for.
pub fn reached(state: CacheState, residency: f64) -> bool {
    match state {
        CacheState::Warm => residency >= WARM_MIN,
        CacheState::Cold => residency <= COLD_MAX,
        CacheState::AsIs => true,
    }
}

display_as_value_name!(CacheState, WarmBy);
