//! The results of a run as the reports and exports see them: every case with
//! its samples and summary, and each paired comparison. Plain data: they
//! are assembled from the raw samples by [`crate::analysis::run_results`].
use serde::{Deserialize, Serialize};

use super::case_summary::CaseSummary;
use super::interference::CaseInterference;
use super::precision::GroupPrecision;
use super::profile_cost::RunCost;
use super::short_trial::ShortTrial;
use super::{Sample, Settings, TrialFailure};
use crate::measure::environment::Environment;
use crate::plan::Case;
use crate::stats::fdr::Adjustment;
use crate::stats::{RatioEstimate, Verdict};

/// Everything one run produced; rewritten to the exports after every group.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunResults {
    /// The machine, kernel, file system and faultline build.
    pub environment: Environment,
    /// The command line as given.
    pub command_line: Vec<String>,
    /// Settings that affect every number.
    pub settings: Settings,
    /// Every case with its samples and summary.
    pub cases: Vec<CaseResult>,
    /// Paired comparisons of each case with its group's baseline.
    pub comparisons: Vec<ComparisonResult>,
    /// Trials that produced no sample.
    pub failures: Vec<TrialFailure>,
    /// Warnings raised while running (cache state not reached, fallbacks).
    pub warnings: Vec<String>,
    /// False while the run is still going (or was interrupted).
    pub complete: bool,
    /// How the verdicts were adjusted, whether each group reached the
    /// precision target, and which cases ran trials too short to time well.
    #[serde(default)]
    pub statistics: StatisticsReport,
    /// `faultline reproduce`: each of the study's claims with its verdict
    /// (filled by the session, which knows the study).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<super::claim::ClaimOutcome>,
}

/// The run-wide statistics beyond each comparison.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatisticsReport {
    /// How the p-values were adjusted across the comparisons.
    pub adjustment: Adjustment,
    /// Comparisons in the adjusted family (those with 2 or more pairs).
    pub family: usize,
    /// Per group, with `--precision`: whether the target was reached.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub precision: Vec<GroupPrecision>,
    /// Cases whose median main loop was too short to time well.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_trials: Vec<ShortTrial>,
    /// With `--profile`: what profiling cost the trials, over the warm
    /// cases (each case's own figure is in its summary), or why it was not
    /// measured; absent without `--profile`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_cost: Option<RunCost>,
}

/// One case and what was measured for it.
///
/// Read by [`CaseResultWire`]'s visitor rather than a derived
/// `Deserialize`: serde's `flatten` would buffer every field but `case`'s
/// own, the samples included, before parsing them a second time.
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    /// Index of the case.
    pub id: usize,
    /// The factors, under their own names.
    #[serde(flatten)]
    pub case: Case,
    /// The method with its options, e.g. `mmap(populate=map)`.
    pub label: String,
    /// Summary over the samples; `None` until a sample exists.
    pub summary: Option<CaseSummary>,
    /// Every measured trial; those the statistics leave out are marked
    /// (`excluded`). With `--profile`, each keeps its category counts; its
    /// folded stacks are merged into the summary's profile.
    pub samples: Vec<Sample>,
    /// How interference touched its trials; `None` when none was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference: Option<CaseInterference>,
}

/// Reads a [`CaseResult`] in one pass: its own fields parsed in place, the
/// case's factors (every other key, a few scalars) gathered and parsed as
/// a [`Case`], as `#[serde(flatten)]` reads them.
struct CaseResultWire;

impl<'de> serde::de::Visitor<'de> for CaseResultWire {
    type Value = CaseResult;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a case's results")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<CaseResult, A::Error> {
        use super::flat::{required, take, Key};
        let (mut id, mut label, mut summary, mut samples, mut interference) =
            (None, None, None, None, None);
        let mut rest = serde_json::Map::new();
        while let Some(Key(key)) = map.next_key()? {
            match &*key {
                "id" => take(&mut id, "id", &mut map)?,
                "label" => take(&mut label, "label", &mut map)?,
                "summary" => take(&mut summary, "summary", &mut map)?,
                "samples" => take(&mut samples, "samples", &mut map)?,
                "interference" => take(&mut interference, "interference", &mut map)?,
                _ => {
                    rest.insert(key.into_owned(), map.next_value()?);
                }
            }
        }
        Ok(CaseResult {
            id: required(id, "id")?,
            case: super::flat::rest(rest)?,
            label: required(label, "label")?,
            summary: summary.unwrap_or_default(),
            samples: required(samples, "samples")?,
            interference: interference.unwrap_or_default(),
        })
    }
}

impl<'de> Deserialize<'de> for CaseResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CaseResult, D::Error> {
        d.deserialize_map(CaseResultWire)
    }
}

/// One case compared with its group's baseline.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ComparisonResult {
    /// The shared factors, e.g. `seq 16 KiB sum, warm`.
    pub group: String,
    /// The baseline case's id.
    pub baseline: usize,
    /// The compared case's id.
    pub other: usize,
    /// Throughput of `other` over throughput of `baseline`, paired by run.
    pub throughput_ratio: RatioEstimate,
    /// What the CI supports, after the run's adjustment for many
    /// comparisons (`settings.statistics.adjustment`), decided from the
    /// clean pairs when any trial was interfered with ([`crate::analysis::busy`]):
    /// `unsettled` when those do not decide it.
    pub verdict: Verdict,
    /// Share (0–1) of the paired runs with an interfered trial; when above
    /// 0, `throughput_ratio` and the p-values are over the clean pairs only.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub interfered_share: f64,
    /// Two-sided p-value of the paired t-test on the log ratios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// The p-value adjusted across the run's comparisons; the verdict is
    /// faster or slower when it is under 0.05.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_adjusted: Option<f64>,
}

/// For serde: leave a zero share out.
fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl CaseResult {
    /// The samples its statistics count: every sample but those marked
    /// `excluded` (retried, interfered with `--exclude-interfered`, or
    /// `--profile-control`'s control trials).
    pub fn counted_samples(&self) -> Vec<Sample> {
        self.samples
            .iter()
            .filter(|s| s.is_counted())
            .cloned()
            .collect()
    }
}

impl RunResults {
    /// The case with id `id`: at its index, as in every run's results, in
    /// constant time; else the first with that id.
    pub fn case(&self, id: usize) -> Option<&CaseResult> {
        match self.cases.get(id) {
            Some(c) if c.id == id => Some(c),
            _ => self.cases.iter().find(|c| c.id == id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_result_reads_back_every_field_it_writes() {
        let results = crate::fixtures::results();
        let mut case = results.cases[1].clone();
        case.case.io.stdio_buffer = Some(8192);
        case.case.replica = Some(1);
        case.interference = Some(CaseInterference {
            trials: 3,
            interfered: 1,
            ..Default::default()
        });
        let mut empty = results.cases[2].clone();
        empty.summary = None;
        for case in [case, empty] {
            let text = serde_json::to_string_pretty(&case).unwrap();
            for back in [
                serde_json::from_str::<CaseResult>(&text).unwrap(),
                serde_json::from_reader::<_, CaseResult>(text.as_bytes()).unwrap(),
            ] {
                assert_eq!(serde_json::to_string_pretty(&back).unwrap(), text, "{text}");
                assert_eq!(back.case, case.case);
                assert_eq!(back.samples, case.samples);
            }
        }
    }

    #[test]
    fn a_case_result_refuses_what_the_derived_reader_refused() {
        let case = crate::fixtures::results().cases[0].clone();
        for field in ["id", "label", "samples", "method"] {
            let mut value = serde_json::to_value(&case).unwrap();
            value.as_object_mut().unwrap().remove(field);
            let err = serde_json::from_value::<CaseResult>(value).unwrap_err();
            assert!(
                err.to_string()
                    .contains(&format!("missing field `{field}`")),
                "{err}"
            );
        }
        let text = serde_json::to_string(&case).unwrap();
        let twice = text.replacen('{', "{\"label\":\"x\",", 1);
        let err = serde_json::from_str::<CaseResult>(&twice).unwrap_err();
        assert!(err.to_string().contains("duplicate field `label`"), "{err}");
        // A summary given as null, or left out, is none.
        let mut value = serde_json::to_value(&case).unwrap();
        value.as_object_mut().unwrap().remove("summary");
        assert!(serde_json::from_value::<CaseResult>(value)
            .unwrap()
            .summary
            .is_none());
    }
}
