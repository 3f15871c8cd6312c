//! Why a case cannot run, as one line each: the combinations of paced load
//! ([`super::pace`]) or threads ([`super::threads`]) with the rest of a case
//! that a trial refuses. Apart from those value types, so that [`Case`]
//! can hold them without a circle.
use super::threads::ThreadMode;
use super::Case;

/// Why a paced case cannot run, as one line; `None` when it can (or is not paced).
pub fn paced(case: &Case) -> Option<String> {
    case.pace?;
    let other = [
        ("--threads", case.threads.is_some()),
        ("--procs", case.procs.is_some()),
        ("--duration", case.duration_s.is_some()),
    ];
    other.iter().find(|(_, given)| *given).map(|(flag, _)| {
        format!(
            "--rate and --think-time pace one thread's main loop; not with {flag} \
             (run the paced cases apart)"
        )
    })
}

/// Why a case cannot run on threads, as one line; `None` when it can.
pub fn threaded(case: &Case) -> Option<String> {
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
    use crate::plan::Threads;

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
        let why = threaded(&case).expect("5 GiB of 1-byte blocks do not fit u32 indices");
        assert!(why.contains("5368709120 blocks is too many"), "{why}");
        case.threads = Some(Threads {
            count: 2,
            mode: ThreadMode::Replicate,
        });
        assert_eq!(threaded(&case), None, "replicate threads list nothing");
        case.block_size = 4096;
        case.threads = Some(Threads {
            count: 2,
            mode: ThreadMode::Split,
        });
        assert_eq!(threaded(&case), None);
    }
}
