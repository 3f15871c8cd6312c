//! What a write trial writes into: a fresh file, or one written over.
use serde::{Deserialize, Serialize};

/// What a write trial writes into.
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
pub enum Target {
    /// A new, empty file: `write` and `pwrite` grow it, `mmap-write` sizes it
    /// in its setup. The cache state does not apply (there is nothing to cache).
    #[default]
    Fresh,
    /// An existing file of the full size, already allocated, written over in place.
    Overwrite,
}

display_as_value_name!(Target);
