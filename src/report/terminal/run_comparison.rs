//! Runs side by side (`faultline compare`, `run --baseline`, the HTML report
//! of several exports): each run labelled by its host, kernel and date, each
//! case's throughput per run with its change against the first run, and each
//! comparison's ratio per run with the ratio of ratios. The statistics come
//! from [`crate::stats::across`]; this only formats them.
use crate::analysis::across::fleet::Fleet;
use crate::plan::size_heading;
use crate::report::terminal::verdicts::{paint, verdict_style};
use crate::report::terminal::{fit, width};
use crate::report::units::{percent, sig3, ThroughputUnit};
use crate::results::RunResults;
use crate::stats::{RatioEstimate, Verdict};

/// The letter naming run `i` (A, B, …, Z, then 27, 28, …).
pub fn run_letter(i: usize) -> String {
    if i < 26 {
        ((b'A' + i as u8) as char).to_string()
    } else {
        (i + 1).to_string()
    }
}

/// `host, kernel release, date` from a run's recorded environment; what was
/// not recorded says so.
pub fn run_label(results: &RunResults) -> String {
    let env = &results.environment;
    let kernel = env.kernel.split_whitespace().next().unwrap_or("kernel ?");
    format!(
        "{}, Linux {kernel}, {}, faultline {}",
        env.hostname.as_deref().unwrap_or("host not recorded"),
        env.captured_at.as_deref().unwrap_or("date not recorded"),
        env.faultline_version
    )
}

/// A change as criterion prints it: `+3.1%, within noise` or
/// `−12% [−15, −9], slower` (the CI in percent, ends rounded).
pub fn change_text(est: &RatioEstimate, verdict: Verdict, styled: bool) -> String {
    let word = match verdict {
        Verdict::Faster => "faster",
        Verdict::Slower => "slower",
        Verdict::WithinNoise => "within noise",
        Verdict::Unsettled => "unsettled",
    };
    let word = paint(word, verdict_style(verdict), styled);
    match verdict {
        // A CI that contains 1 says nothing more than the word.
        Verdict::WithinNoise if est.verdict() == Verdict::WithinNoise => {
            format!("{}, {word}", percent(est.ratio - 1.0))
        }
        _ => {
            // CI ends in whole percent (one decimal under 1%).
            let end = |x: f64| {
                let p = (x - 1.0) * 100.0;
                let d = if p.abs() < 1.0 { 1 } else { 0 };
                let body = format!("{:.d$}", p.abs());
                let sign = if p < 0.0 { "−" } else { "+" };
                format!("{sign}{body}")
            };
            format!(
                "{} [{}, {}], {word}",
                percent(est.ratio - 1.0),
                end(est.ci95_low),
                end(est.ci95_high)
            )
        }
    }
}

/// A ratio with its CI: `1.17x [1.10–1.25]`.
pub fn ratio_text(est: &RatioEstimate) -> String {
    format!(
        "{:.2}x [{:.2}–{:.2}]",
        est.ratio, est.ci95_low, est.ci95_high
    )
}

/// The fleet as text: the runs, then throughput per case (with each run's
/// change against run A), then each comparison's ratio per run with the
/// ratio of ratios against run A. `names` names each run's file.
pub fn render_fleet_text(
    fleet: &Fleet,
    runs: &[&RunResults],
    names: &[String],
    units: ThroughputUnit,
    max: usize,
    styled: bool,
) -> String {
    let mut out = String::new();
    for (i, r) in runs.iter().enumerate() {
        let line = format!("{}  {} ({})", run_letter(i), run_label(r), names[i]);
        for l in crate::report::terminal::wrap(&line, max) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    let unit = units.resolve(
        fleet
            .cases
            .iter()
            .flat_map(|c| c.throughput.iter().flatten())
            .fold(0.0, |a: f64, &b| a.max(b)),
    );
    let letters: Vec<String> = (0..runs.len()).map(run_letter).collect();
    out.push_str(&format!(
        "\nThroughput, {} (change against A: ratio of geometric means, 95% CI)\n",
        unit.name()
    ));
    push_throughput(&mut out, fleet, &letters, unit, max, styled);
    if !fleet.comparisons.is_empty() {
        push_comparisons(&mut out, fleet, &letters, max, styled);
    }
    out
}

/// Throughput per case, the runs' columns in blocks that fit the width;
/// each change against run A follows the first block's cells, wrapped.
fn push_throughput(
    out: &mut String,
    fleet: &Fleet,
    letters: &[String],
    unit: ThroughputUnit,
    max: usize,
    styled: bool,
) {
    let runs = letters.len();
    let label_w = fleet
        .cases
        .iter()
        .map(|c| width(&c.label))
        .max()
        .unwrap_or(6)
        .max(6);
    let per_block = (max.saturating_sub(2 + label_w) / 9).max(1);
    let blocks: Vec<std::ops::Range<usize>> = (0..runs)
        .step_by(per_block)
        .map(|s| s..(s + per_block).min(runs))
        .collect();
    for (b, block) in blocks.iter().enumerate() {
        if b > 0 {
            out.push('\n');
        }
        let mut header = format!("  {:<label_w$}", "method");
        for l in &letters[block.clone()] {
            header.push_str(&format!("  {l:>7}"));
        }
        out.push_str(header.trim_end());
        out.push('\n');
        let mut heading = String::new();
        for c in &fleet.cases {
            let h = format!("{}; {}", c.group, size_heading(c.file_size, c.set));
            if h != heading {
                out.push_str(&fit(&h, max));
                out.push('\n');
                heading = h;
            }
            let mut line = format!("  {}{}", c.label, " ".repeat(label_w - width(&c.label)));
            for t in &c.throughput[block.clone()] {
                let cell = t.map_or_else(|| "-".to_string(), |t| sig3(t / unit.bytes_per_sec()));
                line.push_str(&format!("  {cell:>7}"));
            }
            if b > 0 {
                out.push_str(line.trim_end());
                out.push('\n');
                continue;
            }
            let notes = change_notes(c, letters, styled);
            if !notes.is_empty() {
                line.push_str("  ");
                line.push_str(&notes.join("; "));
            }
            // Wrapped under the notes' start when too wide.
            let line = line.trim_end();
            if width(line) <= max {
                out.push_str(line);
                out.push('\n');
                continue;
            }
            let hang = width(line) - width(&notes.join("; "));
            for l in crate::report::terminal::wrap_hanging(line, max, hang.min(max / 2)) {
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
}

/// What a case's row says after its cells: the run it is only in, or each
/// run's change against run A (or that the run did not run it).
fn change_notes(
    c: &crate::analysis::across::fleet::FleetCase,
    letters: &[String],
    styled: bool,
) -> Vec<String> {
    let mut notes = Vec::new();
    if c.in_one_run_only() {
        let only = c.throughput.iter().position(Option::is_some).unwrap_or(0);
        notes.push(format!("only in {}", letters[only]));
        return notes;
    }
    for (i, change) in c.change.iter().enumerate().skip(1) {
        match (change, c.verdict[i]) {
            (Some(est), Some(v)) => {
                notes.push(format!("{}: {}", letters[i], change_text(est, v, styled)))
            }
            _ if c.throughput[i].is_none() => notes.push(format!("{}: not run", letters[i])),
            _ => {}
        }
    }
    notes
}

/// Each comparison's ratio per run, with the ratio of ratios against run A.
fn push_comparisons(out: &mut String, fleet: &Fleet, letters: &[String], max: usize, styled: bool) {
    out.push_str(
        "\nComparisons: other/baseline throughput in each run; ratio of ratios against A (95% CI)\n",
    );
    let mut heading = String::new();
    for c in &fleet.comparisons {
        let h = format!("{}; {}", c.group, size_heading(c.file_size, c.set));
        if h != heading {
            out.push_str(&fit(&h, max));
            out.push('\n');
            heading = h;
        }
        let mut line = format!("  {} vs {}:", c.other, c.baseline);
        for (i, r) in c.ratio.iter().enumerate() {
            let cell = r
                .as_ref()
                .map_or_else(|| "-".to_string(), |r| format!("{:.2}x", r.ratio));
            line.push_str(&format!(" {} {cell}", letters[i]));
        }
        for (i, ror) in c.ratio_of_ratios.iter().enumerate().skip(1) {
            if let Some(est) = ror {
                let word = match est.verdict() {
                    Verdict::Faster => "larger",
                    Verdict::Slower => "smaller",
                    Verdict::WithinNoise => "within noise",
                    Verdict::Unsettled => "unsettled",
                };
                line.push_str(&format!(
                    "; {}/A {}, {}",
                    letters[i],
                    ratio_text(est),
                    paint(word, verdict_style(est.verdict()), styled)
                ));
            }
        }
        for l in crate::report::terminal::wrap(&line, max) {
            out.push_str(&l);
            out.push('\n');
        }
    }
}

/// `run --baseline`: one line per case of the new run found in the old one,
/// `group: label +3.1%, within noise`, then one line naming the cases only
/// one of the runs has.
pub fn render_baseline_text(fleet: &Fleet, max: usize, styled: bool) -> String {
    let mut out = String::from("Change against the baseline (throughput, 95% CI):\n");
    let mut only_new = Vec::new();
    let mut only_old = Vec::new();
    for c in &fleet.cases {
        match (&c.throughput[0], &c.throughput[1], &c.change[1]) {
            (Some(_), Some(_), Some(est)) => {
                let v = c.verdict[1].unwrap_or(Verdict::WithinNoise);
                let head = format!("  {}, {}: {}", c.group, c.label, "");
                let text = change_text(est, v, false);
                let head = if width(&head) + width(&text) > max {
                    fit(&head, max.saturating_sub(width(&text) + 1))
                } else {
                    head
                };
                out.push_str(&format!("{head}{}\n", change_text(est, v, styled)));
            }
            (None, Some(_), _) => only_new.push(format!("{}, {}", c.group, c.label)),
            (Some(_), None, _) => only_old.push(format!("{}, {}", c.group, c.label)),
            _ => {}
        }
    }
    for (what, list) in [
        ("not in the baseline", only_new),
        ("only in the baseline", only_old),
    ] {
        if !list.is_empty() {
            let line = format!("  {what}: {}", list.join("; "));
            for l in crate::report::terminal::wrap(&line, max) {
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(ratio: f64, low: f64, high: f64) -> RatioEstimate {
        RatioEstimate {
            ratio,
            ci95_low: low,
            ci95_high: high,
            pairs: 5,
        }
    }

    #[test]
    fn changes_read_as_criterion_prints_them() {
        assert_eq!(
            change_text(&est(1.031, 0.98, 1.08), Verdict::WithinNoise, false),
            "+3.1%, within noise"
        );
        assert_eq!(
            change_text(&est(0.88, 0.85, 0.91), Verdict::Slower, false),
            "−12% [−15, −9], slower"
        );
        assert_eq!(
            change_text(&est(1.5, 1.4, 1.6), Verdict::Faster, false),
            "+50% [+40, +60], faster"
        );
        // A CI off 1 but not wholly beyond the smallest effect: its ends are
        // shown, and the word is within noise.
        assert_eq!(
            change_text(&est(1.094, 1.03, 1.17), Verdict::WithinNoise, false),
            "+9.4% [+3, +17], within noise"
        );
        assert_eq!(ratio_text(&est(1.17, 1.1, 1.25)), "1.17x [1.10–1.25]");
        assert_eq!(run_letter(0), "A");
        assert_eq!(run_letter(26), "27");
    }

    #[test]
    fn the_fleet_shows_each_case_and_marks_those_in_one_run() {
        let a = crate::fixtures::results();
        let mut b = crate::fixtures::results();
        b.cases[1].label = "mmap(populate=map)".into();
        let fleet = crate::analysis::across::fleet::fleet(&[&a, &b]).unwrap();
        let text = render_fleet_text(
            &fleet,
            &[&a, &b],
            &["a.json".into(), "b.json".into()],
            ThroughputUnit::Auto,
            100,
            false,
        );
        assert!(text.contains("A  host not recorded"), "{text}");
        assert!(text.contains("(b.json)"), "{text}");
        let line = |label: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with(&format!("{label} ")))
                .unwrap_or_else(|| panic!("{label} in {text}"))
                .to_string()
        };
        assert!(line("mmap").ends_with("only in A"), "{text}");
        assert!(line("mmap(populate=map)").ends_with("only in B"), "{text}");
        assert!(line("read").contains("B: +0.0%, within noise"), "{text}");
    }
}
