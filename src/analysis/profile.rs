//! Where a case's CPU time went (`--profile`): each category's share of the
//! samples with a 95% CI across the trials, the samples behind it, the
//! kernel's share (for user/sys splits finer than getrusage's), and the
//! trials' folded stacks merged into one (for the case's flame graph).
//! Pure arithmetic over samples; the report words it.
use std::collections::BTreeMap;

use crate::measure::profile::{Category, ProfileMode, TrialProfile};
use crate::results::{CategoryShare, ProfileSummary, Sample};
use crate::stats::summary::summarize;

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
