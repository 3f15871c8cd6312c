//! The rules that explain a verdict: small data-driven rules over the two
//! cases' counters (sync time, read amplification, device requests, major
//! and minor faults, syscalls, setup), each firing only when its cost is
//! far apart on the two sides and large enough to matter; the first that
//! fires names the cost that made the slower side slower ([`explain`]).
//! The thresholds are named constants, so the rules read as they are
//! documented.
use crate::plan::Metric;
use crate::report::units::{num, opt_num};
use crate::results::CaseSummary;

/// How many times more of a cost the slower side must pay for a rule to blame it.
pub const FAR: f64 = 3.0;

/// The least difference in syscalls or faults per MiB a rule takes as real.
pub const MIN_PER_MIB: f64 = 1.0;

/// Read amplification a side needs, and how many times the other side's,
/// before the amplification rule fires.
pub const AMPLIFICATION: (f64, f64) = (1.5, 2.0);

/// The share of the time difference that setup and teardown must explain.
pub const SETUP_SHARE: f64 = 0.5;

/// The trial's own storage reads per byte delivered the slower side needs
/// before the device-wide request counters may explain a verdict: below it,
/// most of what the device did was not the trial's.
pub const OWN_READS_FOR_DEVICE: f64 = 0.5;

/// One side of a comparison as the rules see it.
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    /// The method label, e.g. `mmap(populate=map)`.
    pub label: &'a str,
    /// Its summary.
    pub summary: &'a CaseSummary,
}

/// Mean sync time, ns (0 when the summary has none).
pub(crate) fn sync_mean(s: &CaseSummary) -> f64 {
    s.sync_ns.as_ref().map_or(0.0, |s| s.mean)
}

/// One short clause saying which cost the counters blame, or `None` when no
/// rule fires. The device rules (read amplification and device requests)
/// apply only when the slower side's extra CPU time is under
/// [`SETUP_SHARE`] of the time gap, that is when it waited for the device.
/// The first rule that fires wins:
///
/// 0. sync: with the `total` metric, the difference in mean sync time
///    (fsync, fdatasync, msync, measured directly) explains at least
///    [`SETUP_SHARE`] of the difference in mean time;
/// 1. read amplification: the slower side's own process reads more than
///    [`AMPLIFICATION`]`.0` storage bytes per byte and more than
///    [`AMPLIFICATION`]`.1` times the faster side's (its own accounting,
///    [`crate::analysis::case_summary::own_read_bytes`]);
/// 2. device requests: the slower side's own process read at least
///    [`OWN_READS_FOR_DEVICE`] bytes per byte (so that the device-wide
///    counters are mostly its own), and the device served [`FAR`] times the
///    faster side's read requests per MiB, and at least [`MIN_PER_MIB`] more
///    (smaller requests: no read-around, or read-ahead defeated);
/// 2. major faults: the slower side takes [`FAR`] times the faster side's
///    major faults per MiB, and at least [`MIN_PER_MIB`] more;
/// 3. page faults: the same for all faults, and the slower side's extra
///    sys time accounts for at least [`SETUP_SHARE`] of the time gap;
/// 4. syscalls: the faster side issues a [`FAR`]th of the slower side's
///    syscalls per MiB or fewer, at least [`MIN_PER_MIB`] fewer, and the
///    slower side's extra sys time accounts for at least [`SETUP_SHARE`]
///    of the time gap (a side that waited on the device is not explained by
///    its syscalls);
/// 5. setup: with the `total` metric, the difference in mean setup +
///    teardown explains at least [`SETUP_SHARE`] of the difference in mean time.
pub fn explain(faster: Side<'_>, slower: Side<'_>, metric: Metric) -> Option<String> {
    let (f, s) = (&faster.summary.per_mib, &slower.summary.per_mib);
    let far_more = |slow: f64, fast: f64| slow >= FAR * fast && slow - fast >= MIN_PER_MIB;
    // The faster side's per-trial times over the slower side's bytes.
    let k = crate::analysis::case_summary::work_scale(faster.summary, slower.summary);
    let time_gap = slower.summary.time_ns.mean - k * faster.summary.time_ns.mean;
    // Kernel CPU explains the gap only when it is a large share of it.
    let sys_gap = slower.summary.sys_ns.mean - k * faster.summary.sys_ns.mean;
    let more_sys = s.sys_ms > f.sys_ms && time_gap > 0.0 && sys_gap >= SETUP_SHARE * time_gap;

    if metric == Metric::Total {
        let sync_gap = sync_mean(slower.summary) - k * sync_mean(faster.summary);
        if time_gap > 0.0 && sync_gap >= SETUP_SHARE * time_gap {
            return Some(format!(
                "sync dominates ({} ms more sync; {} ms slower in all)",
                num(sync_gap / 1e6, 2),
                num(time_gap / 1e6, 2)
            ));
        }
    }

    // The device explains a gap only when the slower side spent it waiting,
    // not computing: its extra CPU time is under half the gap. (Stray device
    // reads in a CPU-bound comparison, such as a warm cache partly reclaimed,
    // are then left to the fault and syscall rules.)
    let cpu = |x: &CaseSummary| x.user_ns.mean + x.sys_ns.mean;
    let waited =
        time_gap > 0.0 && cpu(slower.summary) - k * cpu(faster.summary) < SETUP_SHARE * time_gap;
    if let (true, Some(amp), Some(other_amp)) = (
        waited,
        slower.summary.read_amplification,
        faster.summary.read_amplification,
    ) {
        let (least, times) = AMPLIFICATION;
        if amp > least && amp > times * other_amp {
            return Some(format!(
                "read amplification: {} reads {}× the bytes it asked for from storage (its own reads, rusage; readahead?)",
                slower.label,
                num(amp, 1)
            ));
        }
    }
    // Device-wide counters explain nothing unless the slower side's own
    // process did read from storage (another process's reads are not its).
    let own_reads = slower
        .summary
        .read_amplification
        .is_some_and(|a| a >= OWN_READS_FOR_DEVICE);
    if let (true, true, Some(slow_requests), Some(fast_requests)) = (
        waited,
        own_reads,
        slower.summary.device_reads_per_mib,
        faster.summary.device_reads_per_mib,
    ) {
        if far_more(slow_requests, fast_requests) {
            let kib = |x: &CaseSummary| opt_num(x.device_read_request_bytes.map(|b| b / 1024.0), 0);
            if fast_requests <= 0.0 {
                return Some(format!(
                    "device reads dominate: {} makes {} device reads per MiB ({} KiB each, device-wide) where {} makes none",
                    slower.label,
                    num(slow_requests, 1),
                    kib(slower.summary),
                    faster.label
                ));
            }
            return Some(format!(
                "device request count dominates: {} makes {}× as many device reads ({} KiB each against {} KiB, device-wide)",
                slower.label,
                num(slow_requests / fast_requests, 0),
                kib(slower.summary),
                kib(faster.summary)
            ));
        }
    }
    if far_more(s.majflt, f.majflt) {
        return Some(format!(
            "major faults dominate: {} waits for the device on faults",
            slower.label
        ));
    }
    if far_more(s.minflt + s.majflt, f.minflt + f.majflt) && more_sys {
        return Some("page-fault cost dominates".to_string());
    }
    if far_more(s.syscalls, f.syscalls) && more_sys {
        return Some("syscall cost dominates".to_string());
    }
    if metric == Metric::Total {
        let fixed = |x: &CaseSummary| x.setup_ns.mean + x.teardown_ns.mean;
        let fixed_gap = fixed(slower.summary) - k * fixed(faster.summary);
        if time_gap > 0.0 && fixed_gap >= SETUP_SHARE * time_gap {
            return Some(format!(
                "setup and teardown dominate ({} ms of {} ms difference)",
                num(fixed_gap / 1e6, 2),
                num(time_gap / 1e6, 2)
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crate::fixtures::retime;
    use crate::report::verdict::evidence;
    use crate::results::PerMib;

    /// Multiplies a summary's mean time by `factor`, the bytes kept.
    fn stretch(s: &mut CaseSummary, factor: f64) {
        retime(s, s.time_ns.mean * factor);
    }

    /// `slow` made `time_ms` slower than `fast`, `sys_ms` of it in the kernel.
    fn slowed(mut slow: CaseSummary, fast: &CaseSummary, time_ms: f64, sys_ms: f64) -> CaseSummary {
        retime(&mut slow, fast.time_ns.mean + time_ms * 1e6);
        slow.sys_ns.mean = fast.sys_ns.mean + sys_ms * 1e6;
        slow
    }

    fn side<'a>(label: &'a str, s: &'a CaseSummary) -> Side<'a> {
        Side { label, summary: s }
    }

    fn per_mib(minflt: f64, majflt: f64, syscalls: f64, sys_ms: f64) -> PerMib {
        PerMib {
            minflt,
            majflt,
            syscalls,
            sys_ms,
            ..PerMib::default()
        }
    }

    /// Trials that repeat their pass to a shortest time take as long on
    /// both sides; the faster side moved more bytes in it. The gap is read
    /// over the same bytes, so the counters still explain it.
    #[test]
    fn sides_that_moved_different_bytes_a_trial_are_compared_over_the_same_bytes() {
        let mut fast = fixtures::case_summary(per_mib(16.0, 0.0, 0.0, 0.05), None);
        let mut slow = fixtures::case_summary(per_mib(0.0, 0.0, 64.0, 0.31), None);
        let trial_ns = 40e6;
        retime(&mut slow, trial_ns);
        fast.time_ns.mean = trial_ns;
        fast.throughput_bps.mean = 2.0 * slow.throughput_bps.mean;
        fast.sys_ns.mean = 2e6;
        slow.sys_ns.mean = 30e6;
        assert!((crate::analysis::case_summary::work_scale(&fast, &slow) - 0.5).abs() < 1e-9);
        let clause = explain(side("mmap", &fast), side("read", &slow), Metric::Loop);
        assert_eq!(clause.as_deref(), Some("syscall cost dominates"));
    }

    #[test]
    fn syscall_rule_needs_far_fewer_syscalls_and_less_sys_time() {
        let fast = fixtures::case_summary(per_mib(16.0, 0.0, 0.0, 0.05), None);
        let slow = fixtures::case_summary(per_mib(0.0, 0.0, 64.0, 0.31), None);
        let slow = slowed(slow, &fast, 100.0, 80.0);
        let clause = explain(side("mmap", &fast), side("read", &slow), Metric::Loop);
        assert_eq!(clause.as_deref(), Some("syscall cost dominates"));
        // Far more syscalls and sys time, but the gap is mostly elsewhere
        // (waiting on the device): the syscalls do not explain it.
        let waited = slowed(slow.clone(), &fast, 1000.0, 80.0);
        assert_eq!(
            explain(side("mmap", &fast), side("read", &waited), Metric::Loop),
            None
        );

        // Less sys time on the slower side: syscalls are not what costs.
        let slow_cheap = fixtures::case_summary(per_mib(0.0, 0.0, 64.0, 0.01), None);
        assert_eq!(
            explain(side("mmap", &fast), side("read", &slow_cheap), Metric::Loop),
            None
        );
        // Only twice the syscalls: not far enough.
        let fast_some = fixtures::case_summary(per_mib(0.0, 0.0, 32.0, 0.05), None);
        assert_eq!(
            explain(side("a", &fast_some), side("b", &slow), Metric::Loop),
            None
        );
        // A tiny absolute difference does not count either.
        let a = fixtures::case_summary(per_mib(0.0, 0.0, 0.0, 0.05), None);
        let b = fixtures::case_summary(per_mib(0.0, 0.0, 0.5, 0.31), None);
        assert_eq!(explain(side("a", &a), side("b", &b), Metric::Loop), None);
    }

    #[test]
    fn fault_rule_needs_far_more_faults_and_more_sys_time() {
        let fast = fixtures::case_summary(per_mib(0.0, 0.0, 64.0, 0.1), None);
        let slow = fixtures::case_summary(per_mib(256.0, 0.0, 0.0, 0.4), None);
        let slow = slowed(slow, &fast, 100.0, 60.0);
        let clause = explain(side("read", &fast), side("mmap", &slow), Metric::Loop);
        assert_eq!(clause.as_deref(), Some("page-fault cost dominates"));
        // The same counters with the extra time spent in user space.
        let user_bound = slowed(slow.clone(), &fast, 100.0, 20.0);
        assert_eq!(
            explain(side("read", &fast), side("mmap", &user_bound), Metric::Loop),
            None
        );

        let slow_cheap = fixtures::case_summary(per_mib(256.0, 0.0, 0.0, 0.05), None);
        assert_eq!(
            explain(side("read", &fast), side("mmap", &slow_cheap), Metric::Loop),
            None
        );
        let fast_faulty = fixtures::case_summary(per_mib(128.0, 0.0, 64.0, 0.1), None);
        assert_eq!(
            explain(
                side("read", &fast_faulty),
                side("mmap", &slow),
                Metric::Loop
            ),
            None
        );
    }

    #[test]
    fn major_fault_rule_names_the_slower_side() {
        let fast = fixtures::case_summary(per_mib(0.0, 0.0, 64.0, 0.1), None);
        let slow = fixtures::case_summary(per_mib(16.0, 8.0, 0.0, 0.05), None);
        let clause = explain(side("read", &fast), side("mmap", &slow), Metric::Loop).unwrap();
        assert_eq!(
            clause,
            "major faults dominate: mmap waits for the device on faults"
        );
    }

    #[test]
    fn amplification_rule_fires_only_on_large_and_lopsided_amplification() {
        let fast = fixtures::case_summary(per_mib(0.0, 0.0, 64.0, 0.1), Some(1.0));
        let mut slow = fixtures::case_summary(per_mib(256.0, 4.0, 0.0, 0.4), Some(4.0));
        stretch(&mut slow, 2.0); // waiting: same CPU time, twice the wall time
        let clause = explain(
            side("read", &fast),
            side("mmap(advice=random)", &slow),
            Metric::Loop,
        );
        assert_eq!(
            clause.as_deref(),
            Some("read amplification: mmap(advice=random) reads 4.0× the bytes it asked for from storage (its own reads, rusage; readahead?)")
        );
        // 1.4 is not above 1.5; 3.0 is not above twice 2.0; unknown on one side is no evidence.
        for (s, f) in [
            (Some(1.4), Some(0.1)),
            (Some(3.0), Some(2.0)),
            (Some(4.0), None),
        ] {
            let fast = fixtures::case_summary(per_mib(0.0, 0.0, 64.0, 0.1), f);
            let slow = fixtures::case_summary(per_mib(256.0, 0.0, 0.0, 0.4), s);
            let slow = slowed(slow, &fast, 100.0, 60.0);
            let clause = explain(side("read", &fast), side("mmap", &slow), Metric::Loop);
            assert_eq!(
                clause.as_deref(),
                Some("page-fault cost dominates"),
                "{s:?} vs {f:?}"
            );
        }
    }

    #[test]
    fn setup_rule_applies_to_the_total_metric_only() {
        let fast = fixtures::case_summary(per_mib(0.0, 0.0, 64.0, 0.31), None);
        let mut slow = fixtures::case_summary(per_mib(0.0, 0.0, 0.0, 0.31), None);
        // 1 ms slower, of which 0.8 ms more setup.
        retime(&mut slow, fast.time_ns.mean + 1.0e6);
        slow.setup_ns.mean = fast.setup_ns.mean + 0.8e6;
        let clause = explain(side("read", &fast), side("mmap", &slow), Metric::Total);
        assert_eq!(
            clause.as_deref(),
            Some("setup and teardown dominate (0.80 ms of 1.00 ms difference)")
        );
        assert_eq!(
            explain(side("read", &fast), side("mmap", &slow), Metric::Loop),
            None
        );
        slow.setup_ns.mean = fast.setup_ns.mean + 0.2e6;
        assert_eq!(
            explain(side("read", &fast), side("mmap", &slow), Metric::Total),
            None
        );
    }

    #[test]
    fn device_request_counts_explain_a_cold_random_gap() {
        let mut slow = fixtures::case_summary(fixtures::read_per_mib(), Some(1.0));
        slow.device_reads_per_mib = Some(256.0);
        slow.device_read_request_bytes = Some(4096.0);
        stretch(&mut slow, 2.0); // waiting: same CPU time, twice the wall time
        let mut fast = fixtures::case_summary(fixtures::mmap_per_mib(), Some(1.0));
        fast.device_reads_per_mib = Some(8.0);
        fast.device_read_request_bytes = Some(131072.0);
        let clause = explain(
            Side {
                label: "mmap",
                summary: &fast,
            },
            Side {
                label: "read",
                summary: &slow,
            },
            Metric::Loop,
        )
        .unwrap();
        assert_eq!(
            clause,
            "device request count dominates: read makes 32× as many device reads (4 KiB each against 128 KiB, device-wide)"
        );
        assert!(evidence(&fast, &slow)
            .contains("device-wide requests 8.0 vs 256.0 /MiB (128 vs 4 KiB each)"));
        // A side that reads nothing from the device is said so, not divided by.
        let mut cached = fast.clone();
        cached.device_reads_per_mib = Some(0.0);
        let clause = explain(
            Side {
                label: "read",
                summary: &cached,
            },
            Side {
                label: "direct",
                summary: &slow,
            },
            Metric::Loop,
        )
        .unwrap();
        assert_eq!(
            clause,
            "device reads dominate: direct makes 256.0 device reads per MiB (4 KiB each, device-wide) where read makes none"
        );
        // Equal request counts: the rule stays silent.
        fast.device_reads_per_mib = Some(250.0);
        let clause = explain(
            Side {
                label: "mmap",
                summary: &fast,
            },
            Side {
                label: "read",
                summary: &slow,
            },
            Metric::Loop,
        );
        assert!(!clause.unwrap_or_default().starts_with("device request"));
    }

    #[test]
    fn device_rules_stay_silent_when_the_gap_is_cpu_time() {
        // A warm random 1-byte read(): a few stray device reads (a cache
        // partly reclaimed), but the extra time is all spent in the kernel.
        let mut fast = fixtures::case_summary(per_mib(0.0, 0.0, 0.0, 0.0), Some(0.0));
        let mut slow = fixtures::case_summary(per_mib(0.0, 0.0, 1000.0, 600.0), Some(0.33));
        slow.device_reads_per_mib = Some(63.0);
        fast.device_reads_per_mib = Some(0.0);
        retime(&mut slow, fast.time_ns.mean + 4.0e8);
        slow.sys_ns.mean = fast.sys_ns.mean + 3.9e8;
        let clause = explain(side("mmap", &fast), side("read", &slow), Metric::Loop);
        assert_eq!(clause.as_deref(), Some("syscall cost dominates"));
        // The gap spent waiting, but the trial's own process read only a
        // third of a byte per byte: the device-wide requests are mostly
        // someone else's and explain nothing.
        slow.sys_ns.mean = fast.sys_ns.mean;
        let clause = explain(side("mmap", &fast), side("read", &slow), Metric::Loop);
        assert!(
            !clause.clone().unwrap_or_default().starts_with("device"),
            "{clause:?}"
        );
        // When its own process did read from storage, they name the device.
        slow.read_amplification = Some(1.0);
        let clause = explain(side("mmap", &fast), side("read", &slow), Metric::Loop).unwrap();
        assert!(
            clause.starts_with("device reads dominate: read makes 63.0"),
            "{clause}"
        );
    }

    #[test]
    fn another_process_device_reads_are_not_cited_for_a_warm_trial() {
        // Warm: neither side's process read a byte from storage, while a
        // reader elsewhere kept the device busy during the slower side's
        // trials. The verdict must not blame the device.
        let fast = fixtures::case_summary(per_mib(0.0, 0.0, 64.0, 0.1), Some(0.0));
        let mut slow = fixtures::case_summary(per_mib(0.0, 0.0, 64.0, 0.1), Some(0.0));
        slow.device_reads_per_mib = Some(500.0);
        slow.device_wide_read_amplification = Some(0.2);
        slow.read_bytes_source = Some(crate::analysis::case_summary::OWN_BYTES_SOURCE.into());
        let mut fast = fast;
        fast.device_reads_per_mib = Some(0.0);
        stretch(&mut slow, 1.5);
        assert_eq!(
            explain(side("read", &fast), side("pread", &slow), Metric::Loop),
            None
        );
        let text = evidence(&slow, &fast);
        assert!(
            text.contains("own storage reads 0.00 vs 0.00 B/B"),
            "{text}"
        );
        assert!(
            text.contains("device-wide requests 500.0 vs 0.0 /MiB"),
            "{text}"
        );
    }
}
