//! Words for `--profile`: the "Where the cycles go" section (one compact line
//! per profiled case, then the line of what profiling cost, shared by the
//! terminal table, the Markdown and the HTML report), and the short clause a
//! verdict cites. Every share is read from the case's [`ProfileSummary`],
//! every cost from [`crate::analysis::profile_cost`]; nothing is computed here
//! but rounding.
use crate::measure::profile::{Category, ProfileMode};
use crate::report::groups::groups;
use crate::results::{CaseResult, ProfileCost, ProfileSummary, RunCost, RunResults, TargetVerdict};
use crate::stats::RatioEstimate;

/// What the section is called.
pub(crate) const TITLE: &str = "Where the cycles go";

/// Categories shown by name on a line, at most; the rest are summed.
const SHOWN: usize = 5;
/// A category below this mean share is summed into "rest" rather than named.
const SMALLEST_NAMED: f64 = 0.02;

/// A share as a whole percentage.
pub(crate) fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

/// `62% ±3` (the half-width of the 95% CI, in points), or `62%` without a CI.
fn share_cell(s: &crate::stats::Summary) -> String {
    match s.ci95 {
        Some((lo, hi)) => format!("{} ±{:.0}", percent(s.mean), (hi - lo) / 2.0 * 100.0),
        None => percent(s.mean),
    }
}

/// The line under the section's title: how the samples were taken.
pub(crate) fn legend(results: &RunResults) -> Option<String> {
    let p = results.settings.profile.as_ref()?;
    let mut text = format!(
        "cpu-clock samples of each trial's main loop at {} Hz, {}: each category's share of a \
         trial's samples, mean over the trials ±95% CI (points), then the samples and trials behind it",
        p.request.frequency_hz, p.request.mode
    );
    if let Some(note) = &p.note {
        text.push_str(&format!(". {}", note.trim_start_matches("profile: ")));
    }
    Some(text)
}

/// The compact shares of a profile: the largest categories by name, then the
/// rest summed, e.g. `copy to user 62% ±3, page-cache lookup 14% ±1, rest 24%`.
pub(crate) fn shares_text(p: &ProfileSummary) -> String {
    let mut parts = Vec::new();
    let mut rest = 0.0;
    for (i, s) in p.shares.iter().enumerate() {
        if i < SHOWN && s.share.mean >= SMALLEST_NAMED {
            parts.push(format!("{} {}", s.category, share_cell(&s.share)));
        } else {
            rest += s.share.mean;
        }
    }
    if rest > 0.0 {
        parts.push(format!("rest {}", percent(rest)));
    }
    parts.join(", ")
}

/// The line of one case.
fn line(heading: &str, case: &CaseResult, p: &ProfileSummary) -> String {
    let mut text = format!(
        "{heading}: {}: {} ({} samples in {} trial{}",
        case.label,
        shares_text(p),
        p.samples,
        p.trials,
        if p.trials == 1 { "" } else { "s" }
    );
    if p.mode == ProfileMode::UserOnly {
        text.push_str(", user time only");
    }
    if p.lost > 0 {
        text.push_str(&format!(", {} lost", p.lost));
    }
    if p.unnamed > 0 {
        text.push_str(&format!(
            ", {} with an unnamed leaf frame, counted as other",
            p.unnamed
        ));
    }
    if let Some(cost) = case.summary.as_ref().and_then(|s| s.profile_cost.as_ref()) {
        text.push_str(&format!("; {}", case_cost_words(cost)));
    }
    text.push(')');
    text
}

/// One line per profiled case, in the table's group order.
pub(crate) fn profile_lines(results: &RunResults) -> Vec<String> {
    let mut lines = Vec::new();
    for group in groups(results) {
        for case in group.cases {
            if let Some(p) = case.summary.as_ref().and_then(|s| s.profile.as_ref()) {
                lines.push(line(&group.heading, case, p));
            }
        }
    }
    lines
}

/// The section's lines: [`profile_lines`], then [`cost_line`]; empty when
/// no case was profiled.
pub(crate) fn section_lines(results: &RunResults) -> Vec<String> {
    let mut lines = profile_lines(results);
    if !lines.is_empty() {
        lines.extend(cost_line(results));
    }
    lines
}

/// `+0.4` or `−4.0` (a true minus sign).
fn signed(points: f64) -> String {
    let text = format!("{points:+.1}");
    text.replacen('-', "\u{2212}", 1)
}

/// `−1.8% [−4.0, +0.4]`: a ratio's change with its 95% CI.
fn change_with_ci(r: &RatioEstimate) -> String {
    format!(
        "{}% [{}, {}]",
        signed((r.ratio - 1.0) * 100.0),
        signed((r.ci95_low - 1.0) * 100.0),
        signed((r.ci95_high - 1.0) * 100.0)
    )
}

/// One case's cost, for its line: `profiling cost: throughput −1.8% [−4.0,
/// +0.4], 3 pairs`.
fn case_cost_words(cost: &ProfileCost) -> String {
    match &cost.throughput_ratio {
        Some(r) => format!(
            "profiling cost: throughput {}, {} pairs",
            change_with_ci(r),
            cost.pairs
        ),
        None => format!(
            "profiling cost: {} pair{}, too few for a CI",
            cost.pairs,
            if cost.pairs == 1 { "" } else { "s" }
        ),
    }
}

/// The run's line: `profiling cost: throughput −1.8% [−4.0, +0.4] over 3
/// pairs per case, 2 warm cases (6 pairs); CPU time per byte +2.0% [+1.1,
/// +2.9]; target ≤ 5%: met`, or why it was not measured; `None` without
/// `--profile`.
pub(crate) fn cost_line(results: &RunResults) -> Option<String> {
    let cost = match results.statistics.profile_cost.as_ref()? {
        RunCost::NotMeasured { why } => {
            return Some(format!("profiling cost: not measured ({why})"))
        }
        RunCost::Measured(cost) => cost,
    };
    let (fewest, most) = cost.pairs_per_case;
    let per_case = if fewest == most {
        format!("{most}")
    } else {
        format!("{fewest}\u{2013}{most}")
    };
    let n = cost.cases.len();
    let cases = match cost.scope.as_str() {
        "warm" => format!("{n} warm case{}", if n == 1 { "" } else { "s" }),
        _ => format!("{n} case{}, none warm", if n == 1 { "" } else { "s" }),
    };
    let Some(throughput) = &cost.throughput_ratio else {
        return Some(format!(
            "profiling cost: {} pair{} over {cases}, too few for a CI (--profile-control 2 or more)",
            cost.pairs,
            if cost.pairs == 1 { "" } else { "s" }
        ));
    };
    let mut text = format!(
        "profiling cost: throughput {} over {per_case} pairs per case, {cases} ({} pairs)",
        change_with_ci(throughput),
        cost.pairs
    );
    if let Some(cpu) = &cost.cpu_per_byte_ratio {
        text.push_str(&format!("; CPU time per byte {}", change_with_ci(cpu)));
    }
    let verdict = match cost.target_verdict {
        TargetVerdict::Met => "met",
        TargetVerdict::Missed => "missed",
        TargetVerdict::Undecided => "undecided (the CI spans it)",
    };
    text.push_str(&format!(
        "; target \u{2264} {}%: {verdict}",
        percent(cost.target).trim_end_matches('%')
    ));
    Some(text)
}

/// The categories a verdict names for one side: its largest, and each of
/// the telling ones (copies, faults, page cache, syscalls, TLB) at 10% or more.
fn telling(p: &ProfileSummary) -> Vec<(Category, f64)> {
    use Category::*;
    let mut named: Vec<(Category, f64)> = p
        .shares
        .iter()
        .filter(|s| {
            s.share.mean >= 0.10
                && matches!(
                    s.category,
                    CopyToUser
                        | CopyFromUser
                        | UserMemcpy
                        | PageFault
                        | PageCache
                        | Syscall
                        | Tlb
                        | Readahead
                        | Workload
                )
        })
        .map(|s| (s.category, s.share.mean))
        .take(3)
        .collect();
    if let Some(top) = p.top() {
        if !named.iter().any(|(c, _)| *c == top.category) {
            named.insert(0, (top.category, top.share.mean));
        }
    }
    named
}

/// What one side spends its time on: `58% copying to user` or `31% in page
/// faults and 52% in user memcpy`.
fn side_words(p: &ProfileSummary) -> String {
    let words: Vec<String> = telling(p)
        .into_iter()
        .map(|(c, share)| format!("{} {}", percent(share), doing(c)))
        .collect();
    match words.len() {
        0 => "no category above 10%".to_string(),
        1 => words[0].clone(),
        n => format!("{} and {}", words[..n - 1].join(", "), words[n - 1]),
    }
}

/// A category as what the CPU was doing.
fn doing(c: Category) -> &'static str {
    match c {
        Category::CopyToUser => "copying to user",
        Category::CopyFromUser => "copying from user",
        Category::PageFault => "in page faults",
        Category::PageCache => "in page-cache lookup",
        Category::Readahead => "in readahead and block I/O",
        Category::Syscall => "in syscall entry/exit",
        Category::Tlb => "in TLB flushes",
        Category::UserMemcpy => "in user memcpy",
        Category::Workload => "in the workload",
        Category::OtherKernel => "elsewhere in the kernel",
        Category::OtherUser => "elsewhere in user space",
    }
}

/// The clause a verdict cites when both sides were profiled, e.g.
/// `profile: read spends 58% copying to user; mmap 31% in page faults and 52% in user memcpy`.
pub(crate) fn verdict_clause(
    (base_label, base): (&str, &ProfileSummary),
    (other_label, other): (&str, &ProfileSummary),
) -> String {
    let user_only = if base.mode == ProfileMode::UserOnly || other.mode == ProfileMode::UserOnly {
        " (user time only)"
    } else {
        ""
    };
    format!(
        "profile{user_only}: {base_label} spends {}; {other_label} {}",
        side_words(base),
        side_words(other)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn one_line_per_profiled_case_with_its_largest_shares_and_samples() {
        let results = fixtures::profiled_results();
        let lines = profile_lines(&results);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            lines[0],
            "seq 16 KiB sum, warm; 1 GiB file: read: copy to user 60% ±2, syscall entry/exit 15% ±2, \
             other kernel 15% ±2, page-cache lookup 10% ±2 (3000 samples in 3 trials)"
        );
        assert!(
            lines[1].contains(": mmap: user memcpy 55% ±2, page faults 30% ±2"),
            "{}",
            lines[1]
        );
        assert!(profile_lines(&fixtures::results()).is_empty());
        let text = legend(&results).unwrap();
        assert!(text.contains("997 Hz, kernel+user"), "{text}");
        assert!(legend(&fixtures::results()).is_none());
    }

    #[test]
    fn the_cost_is_one_line_after_the_cases_and_each_cases_own_in_its_line() {
        use crate::analysis::profile_cost::TARGET;
        use crate::results::PooledCost;
        let ratio = |ratio, lo, hi, pairs| RatioEstimate {
            ratio,
            ci95_low: lo,
            ci95_high: hi,
            pairs,
        };
        let mut results = fixtures::profiled_results();
        assert_eq!(section_lines(&results).len(), 2, "no cost figures: no line");
        results.statistics.profile_cost = Some(RunCost::NotMeasured {
            why: "--profile-control 0".into(),
        });
        let lines = section_lines(&results);
        assert_eq!(
            lines[2],
            "profiling cost: not measured (--profile-control 0)"
        );
        results.statistics.profile_cost = Some(RunCost::Measured(PooledCost {
            scope: "warm".into(),
            cases: vec![0, 1],
            pairs: 6,
            pairs_per_case: (3, 3),
            throughput_ratio: Some(ratio(0.982, 0.960, 1.004, 6)),
            cpu_per_byte_ratio: Some(ratio(1.02, 1.011, 1.029, 6)),
            target: TARGET,
            target_verdict: TargetVerdict::Undecided,
        }));
        results.cases[0].summary.as_mut().unwrap().profile_cost = Some(ProfileCost {
            pairs: 3,
            throughput_ratio: Some(ratio(0.97, 0.9, 1.05, 3)),
            cpu_per_byte_ratio: None,
        });
        let lines = section_lines(&results);
        assert_eq!(
            lines[2],
            "profiling cost: throughput \u{2212}1.8% [\u{2212}4.0, +0.4] over 3 pairs per case, 2 warm cases \
             (6 pairs); CPU time per byte +2.0% [+1.1, +2.9]; target \u{2264} 5%: undecided (the CI spans it)"
        );
        assert!(
            lines[0].ends_with(
                "(3000 samples in 3 trials; profiling cost: throughput \u{2212}3.0% [\u{2212}10.0, +5.0], 3 pairs)"
            ),
            "{}",
            lines[0]
        );
        // The tables and the Markdown show it.
        assert!(crate::report::render_table(&results).contains("profiling cost: throughput"));
        assert!(
            crate::report::export::render_markdown(&results).contains("profiling cost: throughput")
        );
    }

    #[test]
    fn small_shares_are_summed_and_user_only_is_said() {
        let mut p = fixtures::profile_summary(&[
            (Category::Workload, 0.80),
            (Category::UserMemcpy, 0.15),
            (Category::OtherUser, 0.01),
            (Category::Syscall, 0.04),
        ]);
        p.mode = ProfileMode::UserOnly;
        p.shares[3].share.ci95 = None;
        assert_eq!(
            shares_text(&p),
            "workload 80% ±2, user memcpy 15% ±2, syscall entry/exit 4%, rest 1%"
        );
        let mut results = fixtures::profiled_results();
        results.cases[0].summary.as_mut().unwrap().profile = Some(Box::new(p));
        assert!(profile_lines(&results)[0].ends_with("in 3 trials, user time only)"));
        let p = results.cases[0]
            .summary
            .as_mut()
            .unwrap()
            .profile
            .as_mut()
            .unwrap();
        p.unnamed = 40;
        assert!(
            profile_lines(&results)[0]
                .ends_with("user time only, 40 with an unnamed leaf frame, counted as other)"),
            "{}",
            profile_lines(&results)[0]
        );
    }

    #[test]
    fn the_verdict_clause_names_the_telling_categories() {
        let results = fixtures::profiled_results();
        let p = |i: usize| {
            results.cases[i]
                .summary
                .as_ref()
                .unwrap()
                .profile
                .as_ref()
                .unwrap()
        };
        assert_eq!(
            verdict_clause(("read", p(0)), ("mmap", p(1))),
            "profile: read spends 60% copying to user, 15% in syscall entry/exit and 10% in page-cache lookup; \
             mmap 55% in user memcpy and 30% in page faults"
        );
    }
}
