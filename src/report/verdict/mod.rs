//! Verdict lines: each comparison in one sentence, with the counters behind it.
//!
//! A line names the ratio the statistics computed and its 95% CI, then the
//! evidence from the two cases' summaries (always `other vs baseline`), then
//! at most one explanatory clause chosen by small data-driven rules
//! ([`explain`]). With `--profile`, the line ends by citing where each
//! side's main loop spent its CPU time (its telling categories' shares).
//! Nothing is computed here beyond inverting a ratio and comparing counters
//! that are already in the results.
mod explain;

pub(crate) use explain::sync_mean;
pub use explain::{
    explain, Side, AMPLIFICATION, FAR, MIN_PER_MIB, OWN_READS_FOR_DEVICE, SETUP_SHARE,
};

use super::units::{num, opt_num, ratio};
use crate::results::{CaseResult, CaseSummary, ComparisonResult, RunResults};
use crate::stats::Verdict;

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
            crate::analysis::busy::unsettled_words(cmp.interfered_share),
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
    use crate::plan::Metric;
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
        fixtures::retime(&mut slow, fast.time_ns.mean + 10e6);
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
}
