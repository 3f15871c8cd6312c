//! Where a case's CPU time went (`--profile`): each category's share of the
//! samples with a 95% CI across the trials, the samples behind it, the
//! kernel's share (for user/sys splits finer than getrusage's), and the
//! trials' folded stacks merged into one (for the case's flame graph).
//! Pure arithmetic over samples; the report words it.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::measure::profile::{Category, ProfileMode, TrialProfile};
use crate::results::Sample;
use crate::stats::summary::{summarize, Summary};

/// One category's share of a case's samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CategoryShare {
    /// The category.
    pub category: Category,
    /// Its samples over every trial.
    pub samples: u64,
    /// Its share of each trial's samples (0 to 1), summarised over the
    /// trials: the mean with its 95% Student-t CI.
    pub share: Summary,
}

/// The profile of one case's trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileSummary {
    /// Kernel and user, or user only (the trials' mode; a case never mixes).
    pub mode: ProfileMode,
    /// The asked-for rate, samples per CPU second.
    pub frequency_hz: u32,
    /// Profiled trials.
    pub trials: usize,
    /// Samples over every trial.
    pub samples: u64,
    /// Samples per trial.
    pub samples_per_trial: Summary,
    /// Samples per second of main-loop wall time, per trial: near the rate
    /// times the threads busy on a CPU (less when the loop waits, or in
    /// user-only mode, which cannot sample kernel time).
    pub samples_per_second: Summary,
    /// Samples the kernel dropped (ring buffer full), over every trial.
    pub lost: u64,
    /// Times the kernel throttled the rate, over every trial.
    pub throttled: u64,
    /// Samples whose leaf frame could not be named, over every trial (they
    /// are in "other kernel" or "other user").
    #[serde(default)]
    pub unnamed: u64,
    /// The sampler's drain thread's CPU time as a share of the main loop's
    /// wall time, per trial (what the drain adds to the trial's CPU time).
    pub drain_cpu_share: Summary,
    /// Each category with samples, largest mean share first.
    pub shares: Vec<CategoryShare>,
    /// The share of each trial's samples taken in the kernel.
    pub kernel_share: Summary,
    /// The trials' folded stacks added up (`frame;frame;frame` -> samples).
    pub stacks: BTreeMap<String, u64>,
}

impl ProfileSummary {
    /// The share of `category`, or `None` when it has no sample.
    pub fn share(&self, category: Category) -> Option<&CategoryShare> {
        self.shares.iter().find(|s| s.category == category)
    }

    /// The mean share of `category` (0 when it has no sample).
    pub fn mean_share(&self, category: Category) -> f64 {
        self.share(category).map_or(0.0, |s| s.share.mean)
    }

    /// The category with the largest mean share.
    pub fn top(&self) -> Option<&CategoryShare> {
        self.shares.first()
    }

    /// The kernel's share of all the samples of every trial together
    /// (pooled: a trial too short to take many samples still counts its few).
    pub fn pooled_kernel_share(&self) -> f64 {
        let all: u64 = self.shares.iter().map(|s| s.samples).sum();
        let kernel: u64 = self
            .shares
            .iter()
            .filter(|s| s.category.in_kernel())
            .map(|s| s.samples)
            .sum();
        if all == 0 {
            0.0
        } else {
            kernel as f64 / all as f64
        }
    }
}

/// The profile of `samples` (those that were profiled, with at least one
/// categorised sample); `None` when none was.
pub fn summarize_profile(samples: &[Sample]) -> Option<ProfileSummary> {
    let profiled: Vec<(&Sample, &TrialProfile)> = samples
        .iter()
        .filter_map(|s| s.child.profile.as_ref().map(|p| (s, p)))
        .filter(|(_, p)| p.categorised() > 0)
        .collect();
    let (_, first) = profiled.first()?;
    let of_trials = |f: &dyn Fn(&Sample, &TrialProfile) -> f64| {
        summarize(&profiled.iter().map(|(s, p)| f(s, p)).collect::<Vec<_>>())
    };
    let mut categories: BTreeMap<Category, u64> = BTreeMap::new();
    let mut stacks: BTreeMap<String, u64> = BTreeMap::new();
    for (_, p) in &profiled {
        for (&c, &n) in &p.categories {
            *categories.entry(c).or_default() += n;
        }
        for (k, &n) in &p.stacks {
            *stacks.entry(k.clone()).or_default() += n;
        }
    }
    let mut shares = categories
        .iter()
        .map(|(&category, &n)| {
            Some(CategoryShare {
                category,
                samples: n,
                share: of_trials(&|_, p| {
                    p.categories.get(&category).copied().unwrap_or(0) as f64
                        / p.categorised() as f64
                })?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    shares.sort_by(|a, b| {
        b.share
            .mean
            .total_cmp(&a.share.mean)
            .then(a.category.cmp(&b.category))
    });
    let seconds = |s: &Sample| s.child.wall_ns as f64 / 1e9;
    Some(ProfileSummary {
        mode: if profiled
            .iter()
            .any(|(_, p)| p.mode == ProfileMode::UserOnly)
        {
            ProfileMode::UserOnly
        } else {
            first.mode
        },
        frequency_hz: first.frequency_hz,
        trials: profiled.len(),
        samples: profiled.iter().map(|(_, p)| p.samples).sum(),
        samples_per_trial: of_trials(&|_, p| p.samples as f64)?,
        samples_per_second: of_trials(&|s, p| p.samples as f64 / seconds(s))?,
        lost: profiled.iter().map(|(_, p)| p.lost).sum(),
        throttled: profiled.iter().map(|(_, p)| p.throttled).sum(),
        unnamed: profiled.iter().map(|(_, p)| p.unnamed).sum(),
        drain_cpu_share: of_trials(&|s, p| p.drain_cpu_ns as f64 / s.child.wall_ns as f64)?,
        kernel_share: of_trials(&|_, p| {
            let kernel: u64 = p
                .categories
                .iter()
                .filter(|(c, _)| c.in_kernel())
                .map(|(_, n)| n)
                .sum();
            kernel as f64 / p.categorised() as f64
        })?,
        shares,
        stacks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(wall_ms: u64, counts: &[(Category, u64)]) -> Sample {
        let mut s = crate::fixtures::sample(0, 0);
        s.child.wall_ns = wall_ms * 1_000_000;
        let profile = TrialProfile {
            mode: ProfileMode::KernelUser,
            frequency_hz: 1000,
            samples: counts.iter().map(|c| c.1).sum(),
            threads: 1,
            drain_cpu_ns: 1_000_000,
            categories: counts.iter().copied().collect(),
            stacks: [("a;b".to_string(), counts.iter().map(|c| c.1).sum())]
                .into_iter()
                .collect(),
            ..Default::default()
        };
        s.child.profile = Some(profile);
        s
    }

    #[test]
    fn shares_are_per_trial_means_with_a_ci_largest_first() {
        use Category::*;
        let samples = vec![
            sample(100, &[(CopyToUser, 60), (PageCache, 20), (Workload, 20)]),
            sample(100, &[(CopyToUser, 70), (PageCache, 30)]),
            sample(50, &[(CopyToUser, 40), (PageCache, 5), (Workload, 5)]),
        ];
        let p = summarize_profile(&samples).unwrap();
        assert_eq!(p.trials, 3);
        assert_eq!(p.samples, 250);
        let order: Vec<Category> = p.shares.iter().map(|s| s.category).collect();
        assert_eq!(order, [CopyToUser, PageCache, Workload]);
        let copy = p.share(CopyToUser).unwrap();
        assert_eq!(copy.samples, 170);
        assert!((copy.share.mean - (0.6 + 0.7 + 0.8) / 3.0).abs() < 1e-12);
        let (lo, hi) = copy.share.ci95.unwrap();
        assert!(lo < copy.share.mean && copy.share.mean < hi);
        // A trial without the category counts as 0 for it.
        assert!((p.mean_share(Workload) - (0.2 + 0.0 + 0.1) / 3.0).abs() < 1e-12);
        assert_eq!(p.mean_share(Tlb), 0.0);
        // Workload is user time, the rest kernel.
        assert!((p.kernel_share.mean - (0.8 + 1.0 + 0.9) / 3.0).abs() < 1e-12);
        // 100 samples in 0.1 s: 1000/s; drain 1 ms of 100 ms.
        assert!((p.samples_per_second.mean - 1000.0).abs() < 1e-9);
        assert!((p.drain_cpu_share.max - 0.02).abs() < 1e-12);
        assert_eq!(p.stacks["a;b"], 250);
    }

    #[test]
    fn unprofiled_samples_have_no_profile() {
        let plain = crate::fixtures::sample(0, 0);
        assert!(summarize_profile(std::slice::from_ref(&plain)).is_none());
        // A profile without any sample says nothing either.
        let mut empty = plain;
        empty.child.profile = Some(TrialProfile::default());
        assert!(summarize_profile(&[empty]).is_none());
    }
}
