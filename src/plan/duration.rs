//! Duration-bounded cases (`run --duration SECONDS`, and the `crotty2022`
//! preset): which cases can read for a fixed time rather than a fixed
//! number of blocks. Running them is the trial's work
//! ([`crate::trial::timed`]).
use crate::plan::Case;
use crate::workload::WorkloadKind;

/// Longest `--duration`, seconds (a day).
pub const MAX_DURATION_S: u32 = 86_400;

/// Why a case cannot run for a duration, as one line; `None` when it can
/// (or has no duration).
pub fn refusal(case: &Case) -> Option<String> {
    case.duration_s?;
    if case.method.writes() {
        return Some(format!(
            "--duration is for read methods (a timed trial reads for as long as it runs); {} writes",
            case.method
        ));
    }
    if case.workload != WorkloadKind::Touch {
        return Some(format!(
            "a duration-bounded trial runs the touch workload (its checksum is checked without \
             reading the file again), not {}; use --workload touch",
            case.workload
        ));
    }
    if case.latency || case.procs.is_some() {
        return Some("a duration-bounded trial takes neither --latency nor --procs".into());
    }
    if case.block_size == 0 {
        return Some("a duration-bounded trial needs a block size of at least 1 byte".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::pattern::Pattern;
    use crate::plan::CacheState;

    #[test]
    fn only_touch_reads_run_for_a_duration() {
        let mut case = Case::new(
            MethodKind::Mmap,
            Pattern::RandomReplace,
            4096,
            1 << 20,
            WorkloadKind::Sum,
            CacheState::Cold,
        );
        assert_eq!(refusal(&case), None, "no duration: nothing to refuse");
        case.duration_s = Some(2);
        assert!(refusal(&case).unwrap().contains("--workload touch"));
        case.workload = WorkloadKind::Touch;
        assert_eq!(refusal(&case), None);
        // A short last block is fine: the trial counts the bytes it replays.
        case.file_size += 1;
        assert_eq!(refusal(&case), None);
        case.latency = true;
        assert!(refusal(&case).unwrap().contains("--latency"));
        case.latency = false;
        case.method = MethodKind::Pwrite;
        assert!(refusal(&case).unwrap().contains("read methods"));
    }
}
