//! Page-cache control: bringing a file into the state a case asks for.
use serde::{Deserialize, Serialize};

/// The page-cache state a trial starts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum CacheState {
    /// Evicted, then read whole: every page resident.
    Warm,
    /// fsync, then evicted (posix_fadvise DONTNEED, or drop_caches).
    Cold,
    /// Left as it is; only measured.
    AsIs,
}

/// How a warm file is brought into the cache. It decides the folio sizes the
/// kernel uses, and so the number of faults an mmap trial takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum)]
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

macro_rules! display_kebab {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let v = clap::ValueEnum::to_possible_value(self).expect("no skipped variants");
                f.write_str(v.get_name())
            }
        }
    )*};
}
display_kebab!(CacheState, WarmBy);
