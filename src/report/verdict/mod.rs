//! Verdict lines: each comparison in one sentence, with the counters behind it.
//!
//! A line names the ratio the statistics computed and its 95% CI, then the
//! evidence from the two cases' summaries (always `other vs baseline`), then
//! at most one explanatory clause chosen by small data-driven rules
//! ([`explain`]). With `--profile`, the line ends by citing where each
//! side's main loop spent its CPU time (its telling categories' shares).
//! Nothing is computed here beyond inverting a ratio and comparing counters
//! that are already in the results.
use super::units::{num, opt_num, ratio};
use crate::plan::Metric;
use crate::stats::analysis::CaseSummary;
use crate::stats::Verdict;
use crate::stats::{CaseResult, ComparisonResult, RunResults};

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

/// One line per comparison, in the order of the results, e.g.
/// `seq 16 KiB sum, warm: mmap is 1.42x faster than read [95% CI 1.38–1.46] — sys 0.05 vs 0.31 ms/MiB, ...`.
pub fn verdict_lines(results: &RunResults) -> Vec<String> {
    results
        .comparisons
        .iter()
        .map(|c| verdict_line(c, results))
        .collect()
}

/// The line of one comparison (see [`verdict_lines`]).
pub fn verdict_line(cmp: &ComparisonResult, results: &RunResults) -> String {
    let other = find_case(results, cmp.other);
    let baseline = find_case(results, cmp.baseline);
    let other_label = label_of(other, cmp.other);
    let base_label = label_of(baseline, cmp.baseline);
    let r = &cmp.throughput_ratio;
    let mut line = format!("{}: ", cmp.group);
    match cmp.verdict {
        Verdict::Faster => line.push_str(&format!(
            "{other_label} is {}x faster than {base_label} [95% CI {}–{}]",
            ratio(r.ratio),
            ratio(r.ci95_low),
            ratio(r.ci95_high)
        )),
        // Inverted, so that the number reads as "how many times slower":
        // the CI's ends swap under 1/x.
        Verdict::Slower => line.push_str(&format!(
            "{other_label} is {}x slower than {base_label} [95% CI {}–{}]",
            ratio(1.0 / r.ratio),
            ratio(1.0 / r.ci95_high),
            ratio(1.0 / r.ci95_low)
        )),
        Verdict::WithinNoise => line.push_str(&format!(
            "{other_label} and {base_label} are within noise (ratio {} [{}–{}])",
            ratio(r.ratio),
            ratio(r.ci95_low),
            ratio(r.ci95_high)
        )),
        Verdict::Unsettled => line.push_str(&format!(
            "{other_label} against {base_label} is unsettled: {} (ratio {} [{}–{}])",
            crate::stats::busy::unsettled_words(cmp.interfered_share),
            ratio(r.ratio),
            ratio(r.ci95_low),
            ratio(r.ci95_high)
        )),
    }
    // A fresh write target has nothing to read, so device reads during its
    // trials are other activity on the device (the counters are device-wide):
    // they are left out of the evidence and the rules.
    let fresh_write = other.is_some_and(|c| c.case.target == Some(crate::plan::Target::Fresh));
    let without_reads = |s: &CaseSummary| CaseSummary {
        read_amplification: None,
        device_reads_per_mib: None,
        device_read_request_bytes: None,
        ..s.clone()
    };
    let summaries = (
        other.and_then(|c| c.summary.as_ref()),
        baseline.and_then(|c| c.summary.as_ref()),
    );
    let stripped = match summaries {
        (Some(o), Some(b)) if fresh_write => Some((without_reads(o), without_reads(b))),
        _ => None,
    };
    let summaries = match &stripped {
        Some((o, b)) => (Some(o), Some(b)),
        None => summaries,
    };
    match summaries {
        (Some(o), Some(b)) => {
            line.push_str(" — ");
            line.push_str(&evidence(o, b));
            let other_side = Side {
                label: &other_label,
                summary: o,
            };
            let base_side = Side {
                label: &base_label,
                summary: b,
            };
            let clause = match cmp.verdict {
                Verdict::Faster => explain(other_side, base_side, results.settings.metric),
                Verdict::Slower => explain(base_side, other_side, results.settings.metric),
                Verdict::WithinNoise | Verdict::Unsettled => None,
            };
            if let Some(clause) = clause {
                line.push_str("; ");
                line.push_str(&clause);
            }
            if let (Some(op), Some(bp)) = (&o.profile, &b.profile) {
                line.push_str("; ");
                line.push_str(&super::sections::profile::verdict_clause(
                    (&base_label, bp),
                    (&other_label, op),
                ));
            }
        }
        (o, _) => {
            let missing = if o.is_none() {
                &other_label
            } else {
                &base_label
            };
            line.push_str(&format!(" — no counters: {missing} has no summary"));
        }
    }
    line
}

/// The counters behind a comparison, `other vs baseline`: sync ms when
/// either side syncs, sys ms/MiB, faults/MiB (minor + major), major
/// faults/MiB when either side has any, syscalls/MiB and device bytes read
/// per byte delivered when either side knows it.
pub fn evidence(other: &CaseSummary, baseline: &CaseSummary) -> String {
    let (o, b) = (&other.per_mib, &baseline.per_mib);
    let mut parts = Vec::new();
    let (o_sync, b_sync) = (sync_mean(other), sync_mean(baseline));
    if o_sync > 0.0 || b_sync > 0.0 {
        parts.push(format!(
            "sync {} vs {} ms",
            num(o_sync / 1e6, 2),
            num(b_sync / 1e6, 2)
        ));
    }
    parts.extend([
        format!("sys {} vs {} ms/MiB", num(o.sys_ms, 2), num(b.sys_ms, 2)),
        format!(
            "faults {} vs {} /MiB",
            num(o.minflt + o.majflt, 1),
            num(b.minflt + b.majflt, 1)
        ),
    ]);
    if o.majflt > 0.0 || b.majflt > 0.0 {
        parts.push(format!(
            "major faults {} vs {} /MiB",
            num(o.majflt, 1),
            num(b.majflt, 1)
        ));
    }
    parts.push(format!(
        "syscalls {} vs {} /MiB",
        num(o.syscalls, 0),
        num(b.syscalls, 0)
    ));
    if other.read_amplification.is_some() || baseline.read_amplification.is_some() {
        // Older results counted vmstat pgpgin here and did not say so.
        let own = other.read_bytes_source.is_some() || baseline.read_bytes_source.is_some();
        parts.push(format!(
            "{} {} vs {} B/B",
            if own {
                "own storage reads"
            } else {
                "device reads"
            },
            opt_num(other.read_amplification, 2),
            opt_num(baseline.read_amplification, 2)
        ));
    }
    if other.device_reads_per_mib.is_some() || baseline.device_reads_per_mib.is_some() {
        let kib = |x: &CaseSummary| x.device_read_request_bytes.map(|b| b / 1024.0);
        parts.push(format!(
            "device-wide requests {} vs {} /MiB ({} vs {} KiB each)",
            opt_num(other.device_reads_per_mib, 1),
            opt_num(baseline.device_reads_per_mib, 1),
            opt_num(kib(other), 0),
            opt_num(kib(baseline), 0)
        ));
    }
    parts.join(", ")
}

/// Mean sync time, ns (0 when the summary has none).
fn sync_mean(s: &CaseSummary) -> f64 {
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
///    [`crate::stats::analysis::own_read_bytes`]);
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
    let time_gap = slower.summary.time_ns.mean - faster.summary.time_ns.mean;
    // Kernel CPU explains the gap only when it is a large share of it.
    let sys_gap = slower.summary.sys_ns.mean - faster.summary.sys_ns.mean;
    let more_sys = s.sys_ms > f.sys_ms && time_gap > 0.0 && sys_gap >= SETUP_SHARE * time_gap;

    if metric == Metric::Total {
        let sync_gap = sync_mean(slower.summary) - sync_mean(faster.summary);
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
        time_gap > 0.0 && cpu(slower.summary) - cpu(faster.summary) < SETUP_SHARE * time_gap;
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
        let fixed_gap = fixed(slower.summary) - fixed(faster.summary);
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

/// One line per failed trial: `case <label> (<group>), run N: <reason>`.
pub fn failure_lines(results: &RunResults) -> Vec<String> {
    results
        .failures
        .iter()
        .map(|f| {
            let case = find_case(results, f.case);
            let label = label_of(case, f.case);
            let group = case.map_or_else(|| "unknown group".to_string(), |c| c.case.group_label());
            let run = if f.warmup { "warm-up run" } else { "run" };
            format!("case {label} ({group}), {run} {}: {}", f.run, f.reason)
        })
        .collect()
}

/// The run's warnings, as raised.
pub fn warning_lines(results: &RunResults) -> Vec<String> {
    results.warnings.clone()
}

fn find_case(results: &RunResults, id: usize) -> Option<&CaseResult> {
    results.case(id)
}

fn label_of(case: Option<&CaseResult>, id: usize) -> String {
    case.map_or_else(|| format!("case #{id}"), |c| c.label.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crate::stats::analysis::PerMib;
    use crate::stats::RatioEstimate;

    fn ratio_estimate(ratio: f64, low: f64, high: f64) -> RatioEstimate {
        RatioEstimate {
            ratio,
            ci95_low: low,
            ci95_high: high,
            pairs: 3,
        }
    }

    #[test]
    fn faster_reads_as_in_the_example() {
        let lines = verdict_lines(&fixtures::results());
        assert_eq!(
            lines,
            vec![
                "seq 16 KiB sum, warm: mmap is 1.42x faster than read [95% CI 1.38–1.46] \
                 — sys 0.05 vs 0.31 ms/MiB, faults 16.0 vs 0.0 /MiB, syscalls 0 vs 64 /MiB, \
                 device reads 0.00 vs 0.00 B/B; syscall cost dominates"
                    .to_string()
            ]
        );
    }

    #[test]
    fn a_profiled_verdict_cites_where_each_side_spent_its_time() {
        let lines = verdict_lines(&fixtures::profiled_results());
        assert!(
            lines[0].ends_with(
                "syscall cost dominates; profile: read spends 60% copying to user, 15% in syscall \
                 entry/exit and 10% in page-cache lookup; mmap 55% in user memcpy and 30% in page faults"
            ),
            "{}",
            lines[0]
        );
        // Only when both sides were profiled.
        let mut one = fixtures::profiled_results();
        one.cases[1].summary.as_mut().unwrap().profile = None;
        assert!(!verdict_lines(&one)[0].contains("profile"));
    }

    #[test]
    fn slower_inverts_the_ratio_and_swaps_the_ci() {
        let mut results = fixtures::results();
        results.comparisons[0].throughput_ratio = ratio_estimate(0.5, 0.4, 0.625);
        results.comparisons[0].verdict = Verdict::Slower;
        let line = &verdict_lines(&results)[0];
        assert!(
            line.starts_with(
                "seq 16 KiB sum, warm: mmap is 2.00x slower than read [95% CI 1.60–2.50] — "
            ),
            "{line}"
        );
        // Evidence stays `other vs baseline`.
        assert!(line.contains("sys 0.05 vs 0.31 ms/MiB"), "{line}");
        // read is the faster side here and takes far fewer faults, while
        // mmap (slower) spends less sys time: no rule blames faults.
        assert!(!line.contains("dominates"), "{line}");
    }

    #[test]
    fn within_noise_names_both_and_the_plain_ratio() {
        let mut results = fixtures::results();
        results.comparisons[0].throughput_ratio = ratio_estimate(1.02, 0.97, 1.07);
        results.comparisons[0].verdict = Verdict::WithinNoise;
        let line = &verdict_lines(&results)[0];
        assert!(
            line.starts_with(
                "seq 16 KiB sum, warm: mmap and read are within noise (ratio 1.02 [0.97–1.07]) — sys"
            ),
            "{line}"
        );
        assert!(!line.contains(';'), "no clause for noise: {line}");
    }

    #[test]
    fn evidence_shows_major_faults_only_when_present_and_dashes_for_missing() {
        let mut other = fixtures::case_summary(fixtures::mmap_per_mib(), None);
        let baseline = fixtures::case_summary(fixtures::read_per_mib(), Some(1.0));
        let e = evidence(&other, &baseline);
        assert!(!e.contains("major"), "{e}");
        assert!(e.contains("device reads - vs 1.00 B/B"), "{e}");

        other.per_mib.majflt = 0.5;
        let e = evidence(&other, &baseline);
        assert!(e.contains("faults 16.5 vs 0.0 /MiB"), "{e}");
        assert!(e.contains("major faults 0.5 vs 0.0 /MiB"), "{e}");

        let neither = fixtures::case_summary(fixtures::read_per_mib(), None);
        let e = evidence(&neither, &neither);
        assert!(!e.contains("device"), "{e}");
    }

    #[test]
    fn sync_is_evidence_and_blamed_when_it_is_most_of_the_gap() {
        let mut slow = fixtures::case_summary(fixtures::read_per_mib(), None);
        let fast = fixtures::case_summary(fixtures::read_per_mib(), None);
        slow.time_ns.mean = fast.time_ns.mean + 10e6;
        slow.sync_ns = Some(fixtures::summary(8e6, 0.0, None));
        let e = evidence(&slow, &fast);
        assert!(e.starts_with("sync 8.00 vs 0.00 ms, sys"), "{e}");
        assert!(!evidence(&fast, &fast).contains("sync"));
        let side = |label, summary| Side { label, summary };
        assert_eq!(
            explain(
                side("write", &fast),
                side("mmap-write(sync=end)", &slow),
                Metric::Total
            ),
            Some("sync dominates (8.00 ms more sync; 10.00 ms slower in all)".to_string())
        );
        assert_eq!(
            explain(
                side("write", &fast),
                side("mmap-write(sync=end)", &slow),
                Metric::Loop
            ),
            None,
            "the loop metric leaves sync out"
        );
    }

    #[test]
    fn fresh_write_comparisons_leave_device_reads_out() {
        let mut results = fixtures::results();
        for case in &mut results.cases {
            let label = case.label.clone();
            case.case = fixtures::case(crate::method::MethodKind::Pwrite);
            case.label = label;
        }
        let line = &verdict_lines(&results)[0];
        assert!(!line.contains("device reads"), "{line}");
        assert!(line.contains("syscalls"), "{line}");
    }

    #[test]
    fn a_missing_summary_is_said_not_guessed() {
        let mut results = fixtures::results();
        results.cases[0].summary = None;
        let line = &verdict_lines(&results)[0];
        assert!(
            line.ends_with(" — no counters: read has no summary"),
            "{line}"
        );
        results.comparisons[0].baseline = 99;
        let line = &verdict_lines(&results)[0];
        assert!(line.contains("than case #99"), "{line}");
    }

    /// `slow` made `time_ms` slower than `fast`, `sys_ms` of it in the kernel.
    fn slowed(mut slow: CaseSummary, fast: &CaseSummary, time_ms: f64, sys_ms: f64) -> CaseSummary {
        slow.time_ns.mean = fast.time_ns.mean + time_ms * 1e6;
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
        slow.time_ns.mean *= 2.0; // waiting: same CPU time, twice the wall time
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
        slow.time_ns.mean = fast.time_ns.mean + 1.0e6;
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
    fn failures_and_warnings_pass_through() {
        let mut results = fixtures::results();
        results.failures[1].warmup = true;
        assert_eq!(
            failure_lines(&results),
            vec![
                "case mmap-copy (seq 16 KiB sum, warm), run 0: killed by SIGBUS".to_string(),
                "case mmap-copy (seq 16 KiB sum, warm), warm-up run 1: killed by SIGBUS"
                    .to_string(),
            ]
        );
        assert_eq!(warning_lines(&results), results.warnings);
    }

    #[test]
    fn device_request_counts_explain_a_cold_random_gap() {
        let mut slow = fixtures::case_summary(fixtures::read_per_mib(), Some(1.0));
        slow.device_reads_per_mib = Some(256.0);
        slow.device_read_request_bytes = Some(4096.0);
        slow.time_ns.mean *= 2.0; // waiting: same CPU time, twice the wall time
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
        slow.time_ns.mean = fast.time_ns.mean + 4.0e8;
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
        slow.read_bytes_source = Some(crate::stats::analysis::OWN_BYTES_SOURCE.into());
        let mut fast = fast;
        fast.device_reads_per_mib = Some(0.0);
        slow.time_ns.mean *= 1.5;
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
