//! Threads of a case (`--threads N --thread-mode split|replicate`): how many,
//! how they share the work, and which cases cannot run on threads. Running
//! them is the trial's work ([`crate::trial::threads`]).
use serde::{Deserialize, Serialize};

/// Most threads a trial may run.
pub const MAX_THREADS: u32 = 1024;

/// How the threads of a trial share the work.
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
pub enum ThreadMode {
    /// The threads share the blocks: each takes one contiguous chunk of the order.
    #[default]
    Split,
    /// Each thread runs the whole workload on its own.
    Replicate,
}

display_as_value_name!(ThreadMode);

/// Threads of a case: how many, and how they share the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Threads {
    /// Number of threads (at least 2; one thread is the plain trial).
    pub count: u32,
    /// How they share the work.
    pub mode: ThreadMode,
}
