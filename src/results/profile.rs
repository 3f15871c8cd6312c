//! Where a case's trials spent their time, by category, as `--profile`
//! sampled it (computed by [`crate::analysis::profile`]).
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::measure::profile::{Category, ProfileMode};
use crate::stats::summary::Summary;

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
