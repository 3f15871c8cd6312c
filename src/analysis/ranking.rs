//! `faultline advise`'s ranking: the candidate read paths of one run in
//! order of median throughput, each with its comparison against the run's
//! baseline, and the winner against the runner-up head to head (paired by
//! run, as every comparison is). Pure: it reads results.
use serde::{Deserialize, Serialize};

use super::case_summary::compare_cases;
use crate::results::RunResults;
use crate::stats::crossover::{side_of, Side};
use crate::stats::{RatioEstimate, Verdict};

/// One candidate in the ranking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ranked {
    /// Its case id in the run.
    pub case: usize,
    /// The method with its options, e.g. `mmap(populate=madvise,advice=random)`.
    pub label: String,
    /// Median throughput, bytes per second.
    pub median_bps: f64,
    /// Its throughput over the baseline's with the run's verdict; `None`
    /// for the baseline itself.
    pub against_baseline: Option<(RatioEstimate, Verdict)>,
}

/// The winner against the runner-up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadToHead {
    /// The winner's throughput over the runner-up's, paired by run.
    pub ratio: RatioEstimate,
    /// Faster (the winner), no difference, or unsettled, at the margin.
    pub side: Side,
}

/// The cases with a summary, by median throughput, fastest first.
pub fn rank(results: &RunResults) -> Vec<Ranked> {
    let mut out: Vec<Ranked> = results
        .cases
        .iter()
        .filter_map(|c| {
            let s = c.summary.as_ref()?;
            let against_baseline = results
                .comparisons
                .iter()
                .find(|cmp| cmp.other == c.id)
                .map(|cmp| (cmp.throughput_ratio.clone(), cmp.verdict));
            Some(Ranked {
                case: c.id,
                label: c.label.clone(),
                median_bps: s.throughput_bps.median,
                against_baseline,
            })
        })
        .collect();
    out.sort_by(|a, b| b.median_bps.total_cmp(&a.median_bps));
    out
}

/// The first of `ranked` against the second, paired by run: `None` with
/// fewer than two candidates or two pairs. `margin` is the no-effect band.
pub fn head_to_head(results: &RunResults, ranked: &[Ranked], margin: f64) -> Option<HeadToHead> {
    let (first, second) = (ranked.first()?, ranked.get(1)?);
    let winner = results.case(first.case)?;
    let runner = results.case(second.case)?;
    let ratio = compare_cases(
        &runner.counted_samples(),
        &winner.counted_samples(),
        results.settings.metric,
    )?;
    // Faster only beyond the margin, as the run's verdicts with --min-effect.
    let verdict = if ratio.ci95_low > 1.0 + margin {
        Verdict::Faster
    } else if ratio.ci95_high < 1.0 / (1.0 + margin) {
        Verdict::Slower
    } else {
        Verdict::WithinNoise
    };
    Some(HeadToHead {
        side: side_of(&ratio, verdict, margin),
        ratio,
    })
}

/// The version of `advise`'s JSON export.
pub const ADVISE_FORMAT: u32 = 1;

/// Everything `faultline advise` measured and concluded, as its JSON export holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AdviseResults {
    /// Export format version ([`ADVISE_FORMAT`]); first, so that a later
    /// run recognises the file as faultline's own (`files::made`).
    #[serde(default)]
    pub faultline_advise: u32,
    /// What was advised on, e.g. `random 4 KiB reads of /data/db (64 MiB), warm`.
    pub workload: String,
    /// Candidates left out, each with the reason (io_uring unavailable, O_DIRECT misaligned...).
    pub skipped: Vec<String>,
    /// The candidates, fastest first.
    pub ranking: Vec<Ranked>,
    /// The winner against the runner-up.
    pub head_to_head: Option<HeadToHead>,
    /// Why the winner wins: the counters that differ in its favour.
    pub why: Option<String>,
    /// The run of every candidate, with every sample.
    pub run: RunResults,
    /// Where the answer changes along the block size (winner against
    /// runner-up), when the pattern allows it and time was left.
    pub block_map: Option<super::map_results::MapResults>,
    /// The map along the file size against the memory available
    /// (`--memory-budget`), on generated files with the same pattern.
    #[serde(default)]
    pub size_map: Option<super::map_results::MapResults>,
    /// What was not mapped, and why.
    pub not_mapped: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fastest_median_comes_first_with_its_comparison() {
        // The fixture: mmap 2.84 GB/s against read, 1.42x faster; mmap-copy has no summary.
        let results = crate::fixtures::results();
        let ranked = rank(&results);
        assert_eq!(ranked.len(), 2);
        assert_eq!(ranked[0].label, "mmap");
        assert!(ranked[0].median_bps > ranked[1].median_bps);
        assert_eq!(
            ranked[0].against_baseline.as_ref().unwrap().1,
            Verdict::Faster
        );
        assert!(ranked[1].against_baseline.is_none(), "read is the baseline");
        assert!(head_to_head(&results, &ranked[..1], 0.05).is_none());
    }
}
