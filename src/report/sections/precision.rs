//! The statistics lines under the verdicts: how the verdicts were adjusted
//! for testing many comparisons at once, whether each group reached its
//! precision target, and the short-trial warnings.
use crate::results::{RunResults, StoppedBy};
use crate::stats::compare::Verdict;
use crate::stats::fdr::Adjustment;

/// `±2%` or `±0.4%`.
fn plus_minus(fraction: f64) -> String {
    let pct = fraction * 100.0;
    if !pct.is_finite() {
        "unbounded".to_string()
    } else if pct < 1.0 {
        format!("±{pct:.2}%")
    } else {
        format!("±{pct:.1}%")
    }
}

/// The rules the run's verdicts follow, the same for every run.
pub fn rules_line(results: &RunResults) -> String {
    results
        .settings
        .statistics
        .rules_words(results.settings.runs)
}

/// The rules line, the adjustment line, one line per verdict the adjustment changed, and
/// one line per group with a precision target.
pub fn statistics_lines(results: &RunResults) -> Vec<String> {
    let stats = &results.statistics;
    let min_effect = results.settings.statistics.min_effect();
    let margin = (min_effect > 0.0).then(|| {
        format!(
            "; a difference is called only when its CI lies beyond {} (--min-effect)",
            plus_minus(min_effect)
        )
    });
    let mut lines = Vec::new();
    if !results.comparisons.is_empty() {
        lines.push(rules_line(results));
        let adjustment = match stats.adjustment {
            Adjustment::None => format!(
                "verdicts: each of {} comparison(s) at 5% on its own (--fdr none: no adjustment for many comparisons)",
                stats.family
            ),
            Adjustment::BenjaminiHochberg => format!(
                "verdicts: Benjamini-Hochberg adjusted over {} comparison(s) (FDR 5%; see --fdr)",
                stats.family
            ),
            Adjustment::Holm => format!(
                "verdicts: Holm adjusted over {} comparison(s) (family-wise error 5%; see --fdr)",
                stats.family
            ),
        };
        lines.push(adjustment + margin.as_deref().unwrap_or(""));
    }
    for c in &results.comparisons {
        if c.throughput_ratio.verdict() != Verdict::WithinNoise && c.verdict == Verdict::WithinNoise
        {
            let label = |id: usize| {
                results
                    .case(id)
                    .map_or_else(|| format!("case {id}"), |x| x.label.clone())
            };
            let why = if min_effect > 0.0 {
                format!(
                    "not wholly beyond {} (--min-effect), or not after {}",
                    plus_minus(min_effect),
                    stats.adjustment.name()
                )
            } else {
                format!("after {} it is not", stats.adjustment.name())
            };
            lines.push(format!(
                "{}: {} vs {}: the 95% CI excludes 1, but {why}: within noise (p {:.3}, adjusted {:.3})",
                c.group,
                label(c.other),
                label(c.baseline),
                c.p_value.unwrap_or(f64::NAN),
                c.p_adjusted.unwrap_or(f64::NAN)
            ));
        }
    }
    for g in &stats.precision {
        let width = g.half_width.map_or("no CI".to_string(), plus_minus);
        let how = match g.stopped_by {
            StoppedBy::Precision => "reached".to_string(),
            StoppedBy::MaxRuns => "NOT reached: --max-runs spent".to_string(),
            StoppedBy::MaxTime => "NOT reached: its share of --max-time spent".to_string(),
            StoppedBy::Decided => {
                "not needed: every verdict was decided (or out of reach of --max-runs) first"
                    .to_string()
            }
            StoppedBy::Unfinished => "NOT reached: the run did not finish".to_string(),
        };
        lines.push(format!(
            "precision {}: {}: {how} (widest CI {width}, {} runs)",
            plus_minus(g.target),
            g.group,
            g.pairs
        ));
    }
    lines
}

/// One hyperfine-style warning per case whose trials were too short, with
/// the advice that fits the case ([`short_trial_advice`]).
pub fn short_trial_warnings(results: &RunResults) -> Vec<String> {
    short_trial_rows(results)
        .into_iter()
        .zip(&results.statistics.short_trials)
        .map(|(row, s)| {
            format!(
                "{}: the main loop took {} (median), under {} ms. Results might be inaccurate: \
                 clock and getrusage() jitter are a large share of a trial this short. Use {}.",
                row[0],
                row[1],
                s.threshold_ns / 1_000_000,
                row[2]
            )
        })
        .collect()
}

/// A warning said once for the cases it concerns: its text, the table's
/// header, and one row per case.
pub type WarningTable = (String, [&'static str; 3], Vec<Vec<String>>);

/// The short-trial warning said once for every case it concerns: its text,
/// then the table's header and rows (case, median main loop, advice).
pub fn short_trial_table(results: &RunResults) -> Option<WarningTable> {
    let threshold = results.statistics.short_trials.first()?.threshold_ns / 1_000_000;
    Some((
        format!(
            "trials under {threshold} ms: results might be inaccurate, since clock and \
             getrusage() jitter are a large share of a trial this short. --min-trial-time \
             repeats a warm pass inside each trial; a cold pass cannot be repeated:"
        ),
        ["case", "main loop", "what would lengthen it"],
        short_trial_rows(results),
    ))
}

/// Per short case: its label with its group, its median main loop, and
/// the advice that fits it.
fn short_trial_rows(results: &RunResults) -> Vec<Vec<String>> {
    results
        .statistics
        .short_trials
        .iter()
        .map(|s| {
            let case = results.case(s.case);
            let label = case.map_or_else(
                || format!("case {}", s.case),
                |c| format!("{} ({})", c.label, c.case.group_label()),
            );
            let advice = case.map_or_else(
                || "a larger --size".to_string(),
                |c| short_trial_advice(&c.case, s.threshold_ns),
            );
            vec![
                label,
                format!("{:.1} ms", s.median_loop_ns as f64 / 1e6),
                advice,
            ]
        })
        .collect()
}

/// What would lengthen a short trial of `case`: `--min-trial-time` where
/// it repeats the pass (a warm or as-is read on one thread), a larger
/// value than the one given when one was, a larger `--size` for a
/// generated file, a longer trace for a replayed one.
pub fn short_trial_advice(case: &crate::plan::Case, threshold_ns: u64) -> String {
    use crate::plan::CacheState;
    let repeatable = !case.method.writes()
        && case.cache != CacheState::Cold
        && case.threads.is_none()
        && case.procs.is_none()
        && case.duration_s.is_none()
        && case.scale.is_none();
    let bigger = if case.trace.is_some() {
        "a longer trace"
    } else {
        "a larger --size"
    };
    if !repeatable {
        return bigger.to_string();
    }
    let ms = |ns: u64| ns.div_ceil(1_000_000).max(1);
    match case.min_trial_ns {
        Some(given) => format!(
            "--min-trial-time above the {} ms given (e.g. {} ms), or {bigger}",
            ms(given),
            ms(given.max(threshold_ns)) * 2
        ),
        None if case.trace.is_some() => format!("--min-trial-time {}ms", ms(threshold_ns)),
        None => format!("--min-trial-time {}ms, or {bigger}", ms(threshold_ns)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{GroupPrecision, ShortTrial};

    #[test]
    fn short_trial_advice_fits_the_case() {
        use crate::method::MethodKind;
        use crate::plan::CacheState;
        let mut case = crate::fixtures::case(MethodKind::Read);
        case.cache = CacheState::Warm;
        let advice = |c: &crate::plan::Case| short_trial_advice(c, 20_000_000);
        assert_eq!(advice(&case), "--min-trial-time 20ms, or a larger --size");
        // Given already: a larger value, not the same one.
        case.min_trial_ns = Some(20_000_000);
        assert_eq!(
            advice(&case),
            "--min-trial-time above the 20 ms given (e.g. 40 ms), or a larger --size"
        );
        // A cold pass cannot be repeated.
        case.min_trial_ns = None;
        case.cache = CacheState::Cold;
        assert_eq!(advice(&case), "a larger --size");
        // A trace's length is the trace's, not --size.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, "0,4096\n").unwrap();
        let (reference, _) = crate::pattern::trace::TraceRef::open(
            &path,
            &crate::pattern::trace::TraceOptions::default(),
        )
        .unwrap();
        case.trace = Some(reference);
        assert_eq!(advice(&case), "a longer trace");
        case.cache = CacheState::Warm;
        assert_eq!(advice(&case), "--min-trial-time 20ms");
    }

    #[test]
    fn the_lines_say_the_method_the_target_and_the_short_trials() {
        let mut results = crate::fixtures::results();
        results.statistics.family = 1;
        results.statistics.precision = vec![GroupPrecision {
            group: "seq 16 KiB sum, warm".into(),
            target: 0.02,
            reached: false,
            half_width: Some(0.031),
            pairs: 30,
            stopped_by: StoppedBy::MaxRuns,
        }];
        results.statistics.short_trials = vec![ShortTrial {
            case: 1,
            median_loop_ns: 4_100_000,
            threshold_ns: 20_000_000,
        }];
        let lines = statistics_lines(&results);
        // The rules first, then the adjustment, then the precision.
        assert!(
            lines[0].starts_with("rules: 3 runs per case (--runs; no runs added)"),
            "{lines:?}"
        );
        assert!(lines[1].contains("Benjamini-Hochberg"), "{lines:?}");
        assert!(
            lines[2].contains("precision ±2.0%: seq 16 KiB sum, warm: NOT reached: --max-runs spent (widest CI ±3.1%, 30 runs)"),
            "{lines:?}"
        );
        let warnings = short_trial_warnings(&results);
        assert!(
            warnings[0].starts_with("mmap (seq 16 KiB sum, warm): the main loop took 4.1 ms"),
            "{warnings:?}"
        );
        assert!(warnings[0].contains("--min-trial-time 20ms"));
        // A CI that excludes 1 but an adjusted verdict of noise is said.
        results.comparisons[0].verdict = Verdict::WithinNoise;
        results.comparisons[0].p_adjusted = Some(0.08);
        assert!(statistics_lines(&results)[2].contains("within noise (p 0.001, adjusted 0.080)"));
        // A smallest effect is said on the adjustment line and in the reason.
        assert!(!statistics_lines(&results)[1].contains("--min-effect"));
        results.settings.statistics.min_effect = Some(0.05);
        let lines = statistics_lines(&results);
        assert!(
            lines[1].ends_with(
                "a difference is called only when its CI lies beyond ±5.0% (--min-effect)"
            ),
            "{lines:?}"
        );
        assert!(
            lines[0].contains("differences within ±5.0% are no difference"),
            "{lines:?}"
        );
        assert!(
            lines[2].contains("not wholly beyond ±5.0% (--min-effect)"),
            "{lines:?}"
        );
    }
}
