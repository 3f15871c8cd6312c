//! Honest under load: a verdict is decided only from trials that were not
//! interfered with, or when it comes out the same with and without them.
//!
//! A comparison whose paired runs include interfered trials rests on its
//! clean pairs (neither trial interfered). When those decide it, that is the
//! verdict. When they do not, and either the interfered share is at least
//! [`BUSY_SHARE`] or the verdict over all pairs would have been decided (the
//! interfered trials would have decided it), the verdict is
//! [`Verdict::Unsettled`]: the machine was too busy to tell. The run's
//! comparisons and the study claims follow this one rule.
use crate::results::Sample;
use crate::stats::compare::Verdict;

/// A comparison whose paired runs were interfered with in at least this
/// share is unsettled unless its clean pairs decide it.
pub const BUSY_SHARE: f64 = 0.5;

/// The samples with no interfered trial.
pub fn clean(samples: &[Sample]) -> Vec<Sample> {
    samples
        .iter()
        .filter(|s| !s.interfered())
        .cloned()
        .collect()
}

/// Share (0–1) of `pairs` paired runs that were not among `clean_pairs`.
pub fn interfered_share(pairs: usize, clean_pairs: usize) -> f64 {
    if pairs == 0 {
        0.0
    } else {
        pairs.saturating_sub(clean_pairs) as f64 / pairs as f64
    }
}

/// The verdict of a comparison whose clean pairs say `on_clean` and whose
/// pairs all together say `on_all`, `interfered_share` of them interfered.
pub fn settle(on_clean: Verdict, on_all: Verdict, interfered_share: f64) -> Verdict {
    if interfered_share <= 0.0 {
        return on_all;
    }
    if on_clean.decided() || on_clean == on_all {
        if on_clean == Verdict::WithinNoise && interfered_share >= BUSY_SHARE {
            return Verdict::Unsettled;
        }
        return on_clean;
    }
    if interfered_share >= BUSY_SHARE || on_all.decided() {
        Verdict::Unsettled
    } else {
        on_clean
    }
}

/// Why a comparison is unsettled, with the advice that would settle it.
pub fn unsettled_words(interfered_share: f64) -> String {
    format!(
        "machine busy: {:.0}% of its paired runs had an interfered trial and the clean ones do not \
         decide it; quiet the machine and run it again, or add --retry-interfered 3",
        interfered_share * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::*;

    #[test]
    fn a_quiet_comparison_keeps_its_verdict() {
        for v in [Faster, Slower, WithinNoise] {
            assert_eq!(settle(v, v, 0.0), v);
        }
    }

    #[test]
    fn clean_pairs_that_decide_it_decide_it() {
        assert_eq!(settle(Faster, Faster, 0.9), Faster);
        assert_eq!(settle(Slower, WithinNoise, 0.3), Slower);
        // Even against what the interfered trials said.
        assert_eq!(settle(Faster, Slower, 0.2), Faster);
    }

    #[test]
    fn a_verdict_only_the_interfered_trials_decide_is_unsettled() {
        assert_eq!(settle(WithinNoise, Faster, 0.1), Unsettled);
        assert_eq!(settle(WithinNoise, Slower, 0.4), Unsettled);
    }

    #[test]
    fn undecided_with_most_pairs_interfered_is_unsettled_not_within_noise() {
        assert_eq!(settle(WithinNoise, WithinNoise, 0.5), Unsettled);
        assert_eq!(settle(WithinNoise, WithinNoise, 1.0), Unsettled);
        // A few interfered pairs and no decision either way: within noise.
        assert_eq!(settle(WithinNoise, WithinNoise, 0.2), WithinNoise);
    }

    #[test]
    fn shares_and_words() {
        assert_eq!(interfered_share(10, 7), 0.3);
        assert_eq!(interfered_share(0, 0), 0.0);
        assert_eq!(interfered_share(3, 5), 0.0);
        let w = unsettled_words(0.6);
        assert!(w.starts_with("machine busy: 60% of its paired runs"), "{w}");
        assert!(w.contains("--retry-interfered"), "{w}");
    }
}
