//! Threads of a case (`--threads N --thread-mode split|replicate`): how many,
//! how they share the work, and which cases cannot run on threads. Running
//! them is the trial's work ([`crate::trial::threads`]).
use serde::{Deserialize, Serialize};

use crate::plan::Case;

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

/// Why a case cannot run on threads, as one line; `None` when it can.
pub fn refusal(case: &Case) -> Option<String> {
    let t = case.threads?;
    if case.method.writes() {
        return Some(format!(
            "--threads is for read methods; {} writes (one writer per file)",
            case.method
        ));
    }
    if case.latency {
        return Some("--latency records one thread's operations; not with --threads".into());
    }
    if t.mode == ThreadMode::Split && !case.workload.order_independent() {
        return Some(format!(
            "--thread-mode split needs a workload whose checksum does not depend on the order \
             (touch or sum); {} would give each thread a partial result: use --thread-mode replicate",
            case.workload
        ));
    }
    // A timed trial's threads are workers with streams of their own; the
    // thread mode does not apply to them.
    let splits = t.mode == ThreadMode::Split && case.duration_s.is_none();
    if splits && case.pattern == crate::pattern::Pattern::Chase {
        return Some(
            "--pattern chase is one dependent walk and cannot be split between threads; \
             use --thread-mode replicate (every thread walks it)"
                .into(),
        );
    }
    let blocks = case.file_size.div_ceil(case.block_size.max(1));
    if t.mode == ThreadMode::Split && blocks > u64::from(u32::MAX) {
        return Some(format!(
            "--thread-mode split lists each thread's blocks, and {blocks} blocks is too many; \
             use a larger --block"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_refuses_more_blocks_than_u32_indices_hold() {
        let mut case = crate::studies::read_case(
            crate::method::MethodKind::Read,
            crate::pattern::Pattern::Seq,
            1,
            5 << 30,
            crate::workload::WorkloadKind::Touch,
            super::super::CacheState::Warm,
        );
        case.threads = Some(Threads {
            count: 2,
            mode: ThreadMode::Split,
        });
        let why = refusal(&case).expect("5 GiB of 1-byte blocks do not fit u32 indices");
        assert!(why.contains("5368709120 blocks is too many"), "{why}");
        case.threads = Some(Threads {
            count: 2,
            mode: ThreadMode::Replicate,
        });
        assert_eq!(refusal(&case), None, "replicate threads list nothing");
        case.block_size = 4096;
        case.threads = Some(Threads {
            count: 2,
            mode: ThreadMode::Split,
        });
        assert_eq!(refusal(&case), None);
    }
}
