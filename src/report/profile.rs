//! Words for `--profile`: the "Where the cycles go" section (one compact line
//! per profiled case, shared by the terminal table, the Markdown and the HTML
//! report), and the short clause a verdict cites. Every share is read from
//! the case's [`ProfileSummary`]; nothing is computed here but rounding.
use super::groups::groups;
use crate::measure::profile::{Category, ProfileMode};
use crate::stats::profile::ProfileSummary;
use crate::stats::{CaseResult, RunResults};

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
        results.cases[0].summary.as_mut().unwrap().profile = Some(p);
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
