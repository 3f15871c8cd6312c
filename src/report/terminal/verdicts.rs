//! Verdicts for the terminal: one line each when it fits the layout's
//! width, else wrapped at spaces (never cut, never without its reason),
//! with the ratio, its 95% CI and the single strongest reason, e.g.
//! `seq 16 KiB sum, warm: mmap 1.42x faster than read [1.38–1.46]; syscall cost dominates`.
//!
//! The reason is the clause [`crate::report::verdict::explain`] picks when one of its
//! rules fires, else the counter on which the two cases differ most, as
//! `name X vs Y unit (other vs baseline)`. Counters that mean nothing for
//! the case (device reads of a warm, fully cached read) are left out. The
//! full comparison of every counter is [`crate::report::verdict::verdict_line`]
//! (`--verbose`, and the reports).
use anstyle::{AnsiColor, Style};

use crate::report::terminal::{width, wrap};
use crate::report::units::sig3;
use crate::report::verdict::{explain, Side};
use crate::results::{CaseSummary, ComparisonResult, RunResults};
use crate::stats::Verdict;

/// The style of a verdict word: green for faster, red for slower, yellow
/// for within noise, magenta for unsettled.
pub fn verdict_style(verdict: Verdict) -> Style {
    let color = match verdict {
        Verdict::Faster => AnsiColor::Green,
        Verdict::Slower => AnsiColor::Red,
        Verdict::WithinNoise => AnsiColor::Yellow,
        Verdict::Unsettled => AnsiColor::Magenta,
    };
    Style::new().fg_color(Some(color.into())).bold()
}

/// `text` in `style` when `styled`, else as it is.
pub fn paint(text: &str, style: Style, styled: bool) -> String {
    if styled {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

/// `line` with the first occurrence of its verdict's words (`faster than`,
/// `slower than`, `within noise`, `unsettled`) in the verdict's colour.
pub fn paint_verdict_word(line: &str, verdict: Verdict) -> String {
    let word = match verdict {
        Verdict::Faster => "faster than",
        Verdict::Slower => "slower than",
        Verdict::WithinNoise => "within noise",
        Verdict::Unsettled => "unsettled",
    };
    line.replacen(word, &paint(word, verdict_style(verdict), true), 1)
}

/// One line per comparison, each at most `max` columns (see the module
/// documentation); with `styled`, the verdict words carry ANSI colours
/// (which do not count towards the width).
pub fn short_verdict_lines(results: &RunResults, max: usize, styled: bool) -> Vec<String> {
    results
        .comparisons
        .iter()
        .map(|c| short_verdict_line(c, results, max, styled))
        .collect()
}

/// The line of one comparison (see [`short_verdict_lines`]).
pub fn short_verdict_line(
    cmp: &ComparisonResult,
    results: &RunResults,
    max: usize,
    styled: bool,
) -> String {
    let case = |id| results.case(id);
    let (other, base) = (case(cmp.other), case(cmp.baseline));
    let other_label = other.map_or_else(|| format!("case #{}", cmp.other), |c| c.label.clone());
    let base_label = base.map_or_else(|| format!("case #{}", cmp.baseline), |c| c.label.clone());
    let r = &cmp.throughput_ratio;
    let (word, ratio, low, high) = match cmp.verdict {
        Verdict::Faster => ("faster than", r.ratio, r.ci95_low, r.ci95_high),
        Verdict::Slower => (
            "slower than",
            1.0 / r.ratio,
            1.0 / r.ci95_high,
            1.0 / r.ci95_low,
        ),
        Verdict::WithinNoise => ("within noise of", r.ratio, r.ci95_low, r.ci95_high),
        Verdict::Unsettled => ("unsettled against", r.ratio, r.ci95_low, r.ci95_high),
    };
    let head_plain = format!(
        "{}: {other_label} {ratio:.2}x {word} {base_label} [{low:.2}–{high:.2}]",
        cmp.group
    );
    let head = |styled: bool| {
        format!(
            "{}: {other_label} {ratio:.2}x {} {base_label} [{low:.2}–{high:.2}]",
            cmp.group,
            paint(word, verdict_style(cmp.verdict), styled)
        )
    };
    let summaries = (
        other.and_then(|c| c.summary.as_ref()),
        base.and_then(|c| c.summary.as_ref()),
    );
    // The longest reason that fits beside the verdict; when none does (a
    // long group at 80 columns), the shortest, on the lines after it: the
    // line is wrapped, never cut, and keeps its reason.
    let room = max.saturating_sub(width(&head_plain));
    let candidates = match summaries {
        (Some(o), Some(b)) => {
            let fresh_write =
                other.is_some_and(|c| c.case.target == Some(crate::plan::Target::Fresh));
            reasons(
                cmp,
                results,
                (&other_label, o),
                (&base_label, b),
                fresh_write,
            )
            .into_iter()
            .map(|r| format!("; {r}"))
            .collect::<Vec<_>>()
        }
        _ => Vec::new(),
    };
    let reason = candidates
        .iter()
        .find(|r| width(r) <= room)
        .or(candidates.iter().min_by_key(|r| width(r)))
        .cloned()
        .unwrap_or_default();
    // With --profile, where each side spent its time, in the default
    // output too (the reason a method wins).
    let profile = match (summaries, cmp.verdict) {
        (_, Verdict::WithinNoise) => String::new(),
        ((Some(o), Some(b)), _) => match (&o.profile, &b.profile) {
            (Some(op), Some(bp)) => format!(
                "; {}",
                crate::report::sections::profile::verdict_clause(
                    (&base_label, bp),
                    (&other_label, op)
                )
            ),
            _ => String::new(),
        },
        _ => String::new(),
    };
    let line = format!("{}{reason}{profile}", head(styled));
    if width(&line) <= max {
        return line;
    }
    wrap(&line, max).join("\n")
}

/// The candidate reasons, strongest and longest first: the explaining
/// clause, the same cut at its first `:` or ` (`, then the counter that
/// differs most, labelled.
fn reasons(
    cmp: &ComparisonResult,
    results: &RunResults,
    (other_label, other): (&str, &CaseSummary),
    (base_label, base): (&str, &CaseSummary),
    fresh_write: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let o = Side {
        label: other_label,
        summary: other,
    };
    let b = Side {
        label: base_label,
        summary: base,
    };
    let clause = match cmp.verdict {
        Verdict::Faster => explain(o, b, results.settings.metric),
        Verdict::Slower => explain(b, o, results.settings.metric),
        Verdict::WithinNoise => return out,
        Verdict::Unsettled => {
            out.push(crate::analysis::busy::unsettled_words(cmp.interfered_share));
            out.push(format!(
                "machine busy: {:.0}% of its paired runs interfered",
                cmp.interfered_share * 100.0
            ));
            return out;
        }
    };
    let counter = strongest_counter(other, base, fresh_write, cmp.verdict == Verdict::Faster)
        .map(|(name, x, y)| format!("{name}: {other_label} {x}, {base_label} {y}"));
    if let Some(clause) = clause {
        let short = clause
            .split([':', '('])
            .next()
            .unwrap_or(&clause)
            .trim()
            .to_string();
        out.push(clause);
        // The rule's name with the counter that shows it, else the name alone.
        if let Some(counter) = &counter {
            out.push(format!("{short}; {counter}"));
        }
        out.push(short);
    }
    if let Some(counter) = counter {
        out.push(counter);
    }
    out
}

/// The counter on which `other` and `baseline` differ most (by the ratio
/// of the larger to the smaller) in the winner's favour (the winner pays
/// less of it: `other` when `other_won`), as its name with unit and the two
/// values, other's first; `None` when every counter is about equal or
/// favours the loser (a counter the loser does better on explains nothing). Device reads count only when either side read
/// from the device (a warm read has none to compare), and never for a
/// fresh write target (the device counters are device-wide).
pub fn strongest_counter(
    other: &CaseSummary,
    base: &CaseSummary,
    fresh_write: bool,
    other_won: bool,
) -> Option<(&'static str, String, String)> {
    let (o, b) = (&other.per_mib, &base.per_mib);
    let sync = |s: &CaseSummary| s.sync_ns.as_ref().map_or(0.0, |x| x.mean / 1e6);
    let mut counters: Vec<(&'static str, f64, f64, f64)> = vec![
        ("sys ms/MiB", o.sys_ms, b.sys_ms, 0.005),
        ("faults/MiB", o.minflt + o.majflt, b.minflt + b.majflt, 1.0),
        ("syscalls/MiB", o.syscalls, b.syscalls, 1.0),
    ];
    if sync(other) > 0.0 || sync(base) > 0.0 {
        counters.push(("sync ms", sync(other), sync(base), 0.01));
    }
    if o.majflt > 0.0 || b.majflt > 0.0 {
        counters.push(("major faults/MiB", o.majflt, b.majflt, 1.0));
    }
    if !fresh_write {
        if let (Some(x), Some(y)) = (other.read_amplification, base.read_amplification) {
            if x >= 0.01 || y >= 0.01 {
                counters.push(("device bytes read/B", x, y, 0.01));
            }
        }
    }
    counters
        .into_iter()
        // A difference smaller than the floor is noise, not a reason.
        .filter(|(_, x, y, floor)| (x - y).abs() >= *floor)
        // Only a cost the winner pays less of.
        .filter(|(_, x, y, _)| if other_won { x < y } else { y < x })
        .map(|(name, x, y, floor)| {
            let strength = ((x.max(y) + floor) / (x.min(y) + floor)).ln();
            (strength, name, x, y)
        })
        .filter(|(strength, ..)| *strength > 0.2)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, name, x, y)| (name, sig3(x), sig3(y)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn one_line_with_ratio_ci_and_the_strongest_reason() {
        let results = fixtures::results();
        let lines = short_verdict_lines(&results, 100, false);
        assert_eq!(
            lines,
            ["seq 16 KiB sum, warm: mmap 1.42x faster than read [1.38–1.46]; syscall cost dominates"]
        );
        // Device reads of 0 vs 0 B/B say nothing and are never the reason.
        let counter = strongest_counter(
            results.cases[1].summary.as_ref().unwrap(),
            results.cases[0].summary.as_ref().unwrap(),
            false,
            true,
        )
        .unwrap();
        assert_eq!(
            counter,
            ("syscalls/MiB", "0".to_string(), "64.0".to_string())
        );
        // Had read won, mmap's fewer syscalls would favour the loser: not a
        // reason. Only a counter read pays less of may be cited (its faults).
        let counter = strongest_counter(
            results.cases[1].summary.as_ref().unwrap(),
            results.cases[0].summary.as_ref().unwrap(),
            false,
            false,
        );
        assert_eq!(
            counter,
            Some(("faults/MiB", "16.0".to_string(), "0".to_string()))
        );
    }

    #[test]
    fn never_longer_than_the_width_and_colour_only_when_asked() {
        let mut results = fixtures::results();
        results.comparisons[0].group = "a very long group label ".repeat(6);
        for max in [40, 80, 100] {
            for verdict in short_verdict_lines(&results, max, false) {
                for line in verdict.lines() {
                    assert!(width(line) <= max, "{max}: {line}");
                }
                // Wrapped, not cut: the group and the reason are whole.
                assert!(!verdict.contains('…'), "{max}: {verdict}");
                let words: Vec<&str> = verdict.split_whitespace().collect();
                assert_eq!(
                    words.join(" ").matches("a very long group label").count(),
                    6
                );
                assert!(
                    words.join(" ").contains("syscall cost dominates"),
                    "{max}: {verdict}"
                );
            }
        }
        let plain = short_verdict_lines(&fixtures::results(), 100, false);
        assert!(!plain[0].contains('\u{1b}'));
        let styled = short_verdict_lines(&fixtures::results(), 100, true);
        assert!(
            styled[0].contains("\u{1b}[1m\u{1b}[32mfaster than"),
            "{:?}",
            styled[0]
        );
    }

    #[test]
    fn a_profiled_verdict_says_where_each_side_spent_its_time_without_verbose() {
        let results = fixtures::profiled_results();
        for max in [80, 100] {
            let verdict = &short_verdict_lines(&results, max, false)[0];
            let joined = verdict.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                joined.contains("profile: read spends 60% copying to user"),
                "{verdict}"
            );
            assert!(verdict.lines().all(|l| width(l) <= max), "{verdict}");
        }
    }

    #[test]
    fn without_a_rule_the_counter_is_labelled_other_vs_baseline() {
        let mut results = fixtures::results();
        // Same syscalls: no rule fires. The faults differ most, but mmap,
        // the winner, takes more of them: the counter cited is the one in
        // its favour, its sys time.
        let s = results.cases[1].summary.as_mut().unwrap();
        s.per_mib.syscalls = 64.0;
        let line = &short_verdict_lines(&results, 100, false)[0];
        assert!(
            line.ends_with("; sys ms/MiB: mmap 0.05, read 0.31"),
            "{line}"
        );
        // No counter in the winner's favour: no reason at all.
        let s = results.cases[1].summary.as_mut().unwrap();
        s.per_mib.sys_ms = 0.31;
        let line = &short_verdict_lines(&results, 100, false)[0];
        assert!(line.ends_with("[1.38–1.46]"), "{line}");
    }
}
