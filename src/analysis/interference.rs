//! Which samples the statistics count, and how many trials of each case
//! were interfered (docs/interference.md).
//!
//! - Of the attempts of one (case, run) (`--retry-interfered`), the last
//!   one counts; the earlier ones are marked `retried`.
//! - With `--exclude-interfered`, a counted sample that was interfered is
//!   marked `interfered` and left out too. A comparison pairs samples by
//!   run, so its partner is then unpaired and drops out of the comparison
//!   (it still counts in its own case's summary).
//!
//! - An unprofiled control trial of a `--profile` run (`--profile-control`)
//!   is marked `profile-control`: it measures what profiling costs
//!   ([`crate::analysis::profile_cost`]), never the case.
//!
//! Every sample stays in the results, marked; nothing here measures.
use std::collections::BTreeMap;

use crate::results::{CaseInterference, Sample};

/// `excluded` of a sample a later attempt of the same run replaces.
pub const RETRIED: &str = "retried";
/// `excluded` of an interfered sample under `--exclude-interfered`.
pub const INTERFERED: &str = "interfered";
/// `excluded` of an unprofiled control trial (`--profile-control`).
pub const PROFILE_CONTROL: &str = "profile-control";

/// Marks, in place, the samples of one case the statistics leave out (see
/// the module docs); clears earlier marks first.
pub fn mark_excluded(samples: &mut [Sample], exclude_interfered: bool) {
    let mut last: BTreeMap<u32, u32> = BTreeMap::new();
    for s in samples.iter().filter(|s| !s.profile_control) {
        let a = last.entry(s.run).or_insert(s.attempt);
        *a = (*a).max(s.attempt);
    }
    let mut seen_last: BTreeMap<u32, bool> = BTreeMap::new();
    for s in samples.iter_mut() {
        s.excluded = None;
        if s.profile_control {
            s.excluded = Some(PROFILE_CONTROL.to_string());
            continue;
        }
        // Of two samples with the same run and attempt (which the runner
        // never writes), the first counts, so runs stay unique.
        let is_last = last.get(&s.run) == Some(&s.attempt)
            && !std::mem::replace(seen_last.entry(s.run).or_default(), true);
        if !is_last {
            s.excluded = Some(RETRIED.to_string());
        } else if exclude_interfered && s.interfered() {
            s.excluded = Some(INTERFERED.to_string());
        }
    }
}

/// The samples the statistics count (those not marked).
pub fn counted(samples: &[Sample]) -> Vec<Sample> {
    samples.iter().filter(|s| s.is_counted()).cloned().collect()
}

/// The words of a reason without its figures, which name its kind (the
/// figures differ from trial to trial).
fn kind_of(reason: &str) -> String {
    reason
        .split_whitespace()
        .filter(|w| !w.contains(|c: char| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How interference touched `samples` (one case's, marked by
/// [`mark_excluded`]; its control trials left out); `None` when none of
/// them has a record.
pub fn tally(samples: &[Sample]) -> Option<CaseInterference> {
    let recorded: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.interference.is_some() && !s.profile_control)
        .collect();
    if recorded.is_empty() {
        return None;
    }
    // Per kind: how often, when first seen, one example.
    let mut kinds: BTreeMap<String, (usize, usize, &str)> = BTreeMap::new();
    let reasons = recorded
        .iter()
        .flat_map(|s| s.interference.iter().flat_map(|i| &i.reasons));
    for (order, r) in reasons.enumerate() {
        kinds.entry(kind_of(r)).or_insert((0, order, r)).0 += 1;
    }
    let example = kinds
        .values()
        .max_by_key(|(n, first, _)| (*n, std::cmp::Reverse(*first)))
        .map(|(_, _, r)| r.to_string());
    let last: Vec<&&Sample> = recorded
        .iter()
        .filter(|s| s.excluded.as_deref() != Some(RETRIED))
        .collect();
    Some(CaseInterference {
        trials: recorded.len(),
        interfered: recorded.iter().filter(|s| s.interfered()).count(),
        retries: recorded.iter().filter(|s| s.attempt > 0).count(),
        interfered_in_the_end: last.iter().filter(|s| s.interfered()).count(),
        runs: last.len(),
        excluded: last
            .iter()
            .filter(|s| s.excluded.as_deref() == Some(INTERFERED))
            .count(),
        example,
    })
}

impl CaseInterference {
    /// The row of case `label` of `group` in the run's interference table:
    /// the case, how many trials were interfered, the most frequent reason
    /// (with what re-runs and exclusion did); `None` when none was.
    pub fn row(&self, label: &str, group: &str) -> Option<Vec<String>> {
        if self.interfered == 0 {
            return None;
        }
        let pct = 100.0 * self.interfered as f64 / self.trials.max(1) as f64;
        let mut why = self.example.clone().unwrap_or_default();
        if self.retries > 0 {
            why.push_str(&format!(
                "; after {} re-run(s), {} of {} runs still interfered",
                self.retries, self.interfered_in_the_end, self.runs
            ));
        }
        if self.excluded > 0 {
            why.push_str(&format!(
                "; {} left out (--exclude-interfered)",
                self.excluded
            ));
        }
        Some(vec![
            format!("{label} ({group})"),
            format!("{} of {} ({pct:.0}%)", self.interfered, self.trials),
            why.trim_start_matches("; ").to_string(),
        ])
    }

    /// The warning for case `label` of `group`, with the share of
    /// interfered trials and advice; `None` when no trial was interfered.
    pub fn warning(&self, label: &str, group: &str) -> Option<String> {
        if self.interfered == 0 {
            return None;
        }
        let pct = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
        let mut line = format!(
            "{label} ({group}): {} of {} trials interfered ({:.0}%)",
            self.interfered,
            self.trials,
            pct(self.interfered, self.trials)
        );
        if let Some(example) = &self.example {
            line.push_str(&format!(", most often: {example}"));
        }
        if self.retries > 0 {
            line.push_str(&format!(
                "; after {} re-run(s), {} of {} runs still interfered",
                self.retries, self.interfered_in_the_end, self.runs
            ));
        }
        if self.excluded > 0 {
            line.push_str(&format!(
                "; {} left out of the statistics (--exclude-interfered)",
                self.excluded
            ));
        }
        if self.interfered_in_the_end > 0 {
            line.push_str(
                "; quiet the machine (stop other jobs), or use --retry-interfered N \
                 (or --exclude-interfered)",
            );
        }
        Some(line)
    }
}

/// The line saying what `--exclude-interfered` left out of the whole run;
/// `None` when it is off.
pub fn exclusion_note(cases: &[CaseInterference], exclude: bool) -> Option<String> {
    if !exclude {
        return None;
    }
    let excluded: usize = cases.iter().map(|c| c.excluded).sum();
    let runs: usize = cases.iter().map(|c| c.runs).sum();
    Some(format!(
        "statistics exclude interfered trials (--exclude-interfered): {excluded} of {runs} \
         sample(s) left out; comparisons use only pairs where neither trial was interfered"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::interference::Interference;

    fn sample(run: u32, attempt: u32, interfered: bool) -> Sample {
        let mut s = crate::fixtures::sample(0, run);
        s.attempt = attempt;
        s.interference = Some(Interference {
            interfered,
            reasons: if interfered {
                vec![format!("other processes used 1.0{run} cores (limit 0.19)")]
            } else {
                vec![]
            },
            ..Default::default()
        });
        s
    }

    #[test]
    fn retries_replace_their_originals_and_stay_marked() {
        let mut samples = vec![
            sample(0, 0, true),
            sample(0, 1, false),
            sample(1, 0, false),
            sample(2, 0, true),
            sample(2, 1, true),
            sample(2, 2, true),
        ];
        mark_excluded(&mut samples, false);
        let marks: Vec<Option<&str>> = samples.iter().map(|s| s.excluded.as_deref()).collect();
        assert_eq!(
            marks,
            [
                Some(RETRIED),
                None,
                None,
                Some(RETRIED),
                Some(RETRIED),
                None
            ]
        );
        let kept = counted(&samples);
        assert_eq!(
            kept.iter().map(|s| (s.run, s.attempt)).collect::<Vec<_>>(),
            [(0, 1), (1, 0), (2, 2)]
        );
        let t = tally(&samples).unwrap();
        assert_eq!((t.trials, t.interfered, t.retries), (6, 4, 3));
        assert_eq!((t.runs, t.interfered_in_the_end, t.excluded), (3, 1, 0));
        let w = t.warning("mmap", "seq 16 KiB sum, warm").unwrap();
        assert!(
            w.starts_with("mmap (seq 16 KiB sum, warm): 4 of 6 trials interfered (67%), most often: other processes used"),
            "{w}"
        );
        assert!(
            w.contains("after 3 re-run(s), 1 of 3 runs still interfered"),
            "{w}"
        );
        assert!(w.contains("--retry-interfered N"), "{w}");
    }

    #[test]
    fn control_trials_are_kept_marked_and_never_counted() {
        let control = |run, interfered| {
            let mut s = sample(run, 0, interfered);
            s.profile_control = true;
            s
        };
        // Run 0's profiled trial was retried; each run has its control.
        let mut samples = vec![
            sample(0, 0, true),
            control(0, true),
            sample(0, 1, false),
            control(1, false),
            sample(1, 0, false),
        ];
        mark_excluded(&mut samples, true);
        let marks: Vec<Option<&str>> = samples.iter().map(|s| s.excluded.as_deref()).collect();
        assert_eq!(
            marks,
            [
                Some(RETRIED),
                Some(PROFILE_CONTROL),
                None,
                Some(PROFILE_CONTROL),
                None
            ]
        );
        assert_eq!(
            counted(&samples)
                .iter()
                .map(|s| (s.run, s.attempt, s.profile_control))
                .collect::<Vec<_>>(),
            [(0, 1, false), (1, 0, false)]
        );
        // The tally is of the case's own trials: 3, two runs.
        let t = tally(&samples).unwrap();
        assert_eq!((t.trials, t.interfered, t.runs, t.excluded), (3, 1, 2, 0));
    }

    #[test]
    fn exclusion_leaves_out_interfered_last_attempts() {
        let mut samples = vec![sample(0, 0, true), sample(1, 0, false), sample(2, 0, true)];
        mark_excluded(&mut samples, true);
        assert_eq!(counted(&samples).len(), 1);
        let t = tally(&samples).unwrap();
        assert_eq!(t.excluded, 2);
        assert!(t
            .warning("read", "g")
            .unwrap()
            .contains("2 left out of the statistics (--exclude-interfered)"));
        let note = exclusion_note(&[t], true).unwrap();
        assert!(note.contains("2 of 3 sample(s) left out"), "{note}");
        assert_eq!(exclusion_note(&[], false), None);
        // Marks are recomputed, not accumulated.
        mark_excluded(&mut samples, false);
        assert_eq!(counted(&samples).len(), 3);
    }

    #[test]
    fn quiet_or_unrecorded_cases_warn_about_nothing() {
        let quiet = vec![sample(0, 0, false), sample(1, 0, false)];
        assert_eq!(tally(&quiet).unwrap().warning("read", "g"), None);
        assert_eq!(tally(&[crate::fixtures::sample(0, 0)]), None);
    }
}
