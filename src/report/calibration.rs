//! The text `faultline calibrate` prints: the A/A noise floor, the
//! false-verdict rates of the run's verdicts per comparison and per family,
//! and with `--claims` those of the claim verdicts, each rate with its 95%
//! interval and whether that interval shows it within the 5% target.
use crate::analysis::calibrate::{
    against, Against, Calibration, ClaimRates, FalseRate, Share, SHARE_CI_LEVEL,
};
use crate::stats::fdr::Adjustment;

pub use crate::analysis::calibrate_until_shown::TARGET_FALSE_RATE;

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// `2 of 40 (5.0%)`.
fn count(s: &Share) -> String {
    format!("{} of {} ({})", s.count, s.of, pct(s.value()))
}

/// `2 of 40 = 5.0% [95% CI 0.6–16.9%]`.
fn with_ci(s: &Share) -> String {
    format!(
        "{} of {} = {} [{:.0}% CI {:.1}–{}]",
        s.count,
        s.of,
        pct(s.value()),
        SHARE_CI_LEVEL * 100.0,
        s.low * 100.0,
        pct(s.high)
    )
}

/// What an A/A run amounts to, to say how many families would settle a
/// rate: the families it had and the pairs each holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    /// Families the run had (`--families`).
    pub families: usize,
    /// Pairs one family holds (`--runs` × `--comparisons`).
    pub pairs_per_family: usize,
}

/// Whether `s` is shown within the target, and if not yet, how many
/// families would tell; `pairs_per_trial` is how many pairs one trial of
/// `s` (a comparison, or a family) takes.
pub fn verdict_on(s: &Share, pairs_per_trial: f64, scale: Scale) -> String {
    let target = pct(TARGET_FALSE_RATE);
    match against(s, TARGET_FALSE_RATE) {
        Against::Met => {
            format!("within the {target} target (the CI's upper end is at or below it)")
        }
        Against::Missed => format!("ABOVE the {target} target (the CI's lower end is above it)"),
        Against::NotShown { trials: None } => format!(
            "not shown against the {target} target (needs more families: a rate this close to \
             {target} is not told from it by any number of families)"
        ),
        Against::NotShown { trials: Some(n) } => {
            let pairs = n as f64 * pairs_per_trial;
            let families = (pairs / scale.pairs_per_family.max(1) as f64).ceil() as usize;
            let families = families.max(scale.families + 1);
            format!(
                "not shown against the {target} target (needs more families: at this rate about \
                 {families} in all would tell, --families {families})"
            )
        }
    }
}

/// The calibration in lines; `adjustment` is the one the run's settings
/// use (the "current settings" verdict).
pub fn calibration_lines(c: &Calibration, adjustment: Adjustment, scale: Scale) -> Vec<String> {
    let current = c.rate(adjustment);
    let called = if c.min_effect > 0.0 {
        format!(
            "a difference called only when its CI lies beyond ±{} (--min-effect)",
            pct(c.min_effect)
        )
    } else {
        "any difference the CI shows called (--min-effect 0)".to_string()
    };
    let per_comparison = c.mean_pairs;
    let per_family = c.mean_pairs * c.comparisons as f64 / c.families.max(1) as f64;
    let mut lines = vec![
        format!(
            "A/A: {} comparisons of {:.1} pairs on average, in {} families",
            c.comparisons, c.mean_pairs, c.families
        ),
        format!(
            "noise floor: ±{} (95th percentile of |ratio - 1| over A/A comparisons whose true ratio is 1); \
             a smaller real difference cannot be told from noise at these settings",
            pct(c.noise_floor)
        ),
        format!(
            "median 95% CI half-width: ±{}; sd of one pair's log ratio: {}; bias (mean A/A log ratio): {:+.2}%",
            pct(c.median_half_width),
            pct(c.pair_sd),
            c.mean_log_ratio * 100.0
        ),
        format!("run verdicts, {called}:"),
    ];
    lines.extend(rate_lines("  ", &c.raw, &c.holm, &c.bh));
    if let Some(b) = &c.beside_effects {
        lines.push(
            "  beside real effects (half of each family's comparisons given an effect far beyond \
             their noise, as methods that truly differ; false verdicts counted in the other half):"
                .to_string(),
        );
        lines.extend(rate_lines("    ", &b.raw, &b.holm, &b.bh));
    }
    lines.push(format!("at the current settings ({}):", adjustment.name()));
    lines.push(format!(
        "  per comparison: {}: {}",
        with_ci(&current.per_comparison),
        verdict_on(&current.per_comparison, per_comparison, scale)
    ));
    lines.push(format!(
        "  per family: {}: {}",
        with_ci(&current.per_family),
        verdict_on(&current.per_family, per_family, scale)
    ));
    if let Some(b) = &c.beside_effects {
        let f = b.rate(adjustment).per_family;
        lines.push(format!(
            "  per family beside real effects: {}: {}",
            with_ci(&f),
            verdict_on(&f, per_family, scale)
        ));
    }
    lines
}

/// The two lines of false-verdict counts under each adjustment.
fn rate_lines(indent: &str, raw: &FalseRate, holm: &FalseRate, bh: &FalseRate) -> [String; 2] {
    [
        format!(
            "{indent}false verdicts per comparison: raw {} · Holm {} · Benjamini-Hochberg {}",
            count(&raw.per_comparison),
            count(&holm.per_comparison),
            count(&bh.per_comparison)
        ),
        format!(
            "{indent}families with any false verdict: raw {} · Holm {} · Benjamini-Hochberg {}",
            count(&raw.per_family),
            count(&holm.per_family),
            count(&bh.per_family)
        ),
    ]
}

/// The A/A claims' lines: one heading for the cut (e.g. `fixed comparisons
/// of 5 pairs`), then per claim its verdicts and its two false rates.
pub fn claim_lines(cut: &str, claims: &[ClaimRates], scale: Scale) -> Vec<String> {
    let mut lines = vec![format!("A/A claims, {cut}:")];
    for r in claims {
        if r.any_false.of == 0 {
            lines.push(format!(
                "  {} \"{}\": no comparison completed: the pairs ran out before one was settled \
                 (give more --families)",
                r.id, r.text
            ));
            continue;
        }
        let verdicts = r
            .verdicts
            .iter()
            .map(|&(v, n)| {
                if v == crate::results::claim::ClaimVerdict::Unsettled && r.busy > 0 {
                    format!("{n} {} ({} machine busy)", v.word(), r.busy)
                } else {
                    format!("{n} {}", v.word())
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let undecided = r
            .verdicts
            .iter()
            .filter(|(v, _)| !v.decided())
            .map(|(_, n)| n)
            .sum::<usize>();
        let none_decided = if r.any_false.of > 0 && undecided == r.any_false.of {
            " (none decided, so none could be false: these rates show the comparisons set \
             aside, not how the verdicts are calibrated)"
        } else {
            ""
        };
        lines.push(format!(
            "  {} \"{}\" (published {}; right: {}): {} comparisons of {:.1} pairs on average: {}{none_decided}",
            r.id,
            r.text,
            r.band,
            r.truth.word(),
            r.any_false.of,
            r.mean_pairs,
            if verdicts.is_empty() {
                "none".to_string()
            } else {
                verdicts
            }
        ));
        let named = r
            .named
            .iter()
            .map(|v| v.word())
            .collect::<Vec<_>>()
            .join(" or ");
        lines.push(format!(
            "    false {named}: {}: {}",
            with_ci(&r.named_false),
            verdict_on(&r.named_false, r.mean_pairs, scale)
        ));
        lines.push(format!(
            "    any false verdict: {}: {}",
            with_ci(&r.any_false),
            verdict_on(&r.any_false, r.mean_pairs, scale)
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCALE: Scale = Scale {
        families: 10,
        pairs_per_family: 20,
    };

    #[test]
    fn each_target_word_at_its_edge() {
        assert!(verdict_on(&Share::new(0, 72), 5.0, SCALE).starts_with("within the 5.0% target"));
        assert!(verdict_on(&Share::new(10, 40), 5.0, SCALE).starts_with("ABOVE the 5.0% target"));
        // 0 of 10 families: 72 families would tell.
        let v = verdict_on(&Share::new(0, 10), 20.0, SCALE);
        assert!(
            v.contains("needs more families") && v.ends_with("--families 72)"),
            "{v}"
        );
        // 0 of 40 comparisons of 5 pairs (4 a family): 72 comparisons, 18 families.
        let v = verdict_on(&Share::new(0, 40), 5.0, SCALE);
        assert!(
            v.ends_with("about 18 in all would tell, --families 18)"),
            "{v}"
        );
        // The 2 of 40: on the target.
        let v = verdict_on(&Share::new(2, 40), 5.0, SCALE);
        assert!(
            v.contains("is not told from it by any number of families"),
            "{v}"
        );
    }

    #[test]
    fn a_claim_without_comparisons_says_so_and_prints_no_rate() {
        use crate::results::claim::ClaimVerdict;
        let none = ClaimRates::tally(
            ("ratio", "B is 1.2x faster than A", "1.09–1.32x"),
            ClaimVerdict::NoEffect,
            &[ClaimVerdict::Holds, ClaimVerdict::Reversed],
            &[],
        );
        let lines = claim_lines("settled", &[none], SCALE);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[1].contains("no comparison completed"), "{lines:?}");
        let one = ClaimRates::tally(
            ("ratio", "B is 1.2x faster than A", "1.09–1.32x"),
            ClaimVerdict::NoEffect,
            &[ClaimVerdict::Holds, ClaimVerdict::Reversed],
            &[
                (ClaimVerdict::Reversed, false, 5),
                (ClaimVerdict::Unsettled, true, 5),
            ],
        );
        let lines = claim_lines("fixed", &[one], SCALE);
        assert!(
            lines[1].ends_with(
                "2 comparisons of 5.0 pairs on average: 1 reversed, 1 unsettled (1 machine busy)"
            ),
            "{lines:?}"
        );
        assert!(
            lines[2].starts_with(
                "    false holds or reversed: 1 of 2 = 50.0% [95% CI 1.3–98.7%]: not shown"
            ),
            "{lines:?}"
        );
        assert!(
            lines[3].starts_with("    any false verdict: 1 of 2 = 50.0%"),
            "{lines:?}"
        );
    }

    #[test]
    fn a_rate_is_printed_with_its_interval() {
        assert_eq!(
            with_ci(&Share::new(2, 10)),
            "2 of 10 = 20.0% [95% CI 2.5–55.6%]"
        );
        assert_eq!(count(&Share::new(1, 40)), "1 of 40 (2.5%)");
    }
}
