//! Plans: the cases of an experiment, how often each runs, and in what order.
//!
//! A [`Case`] is one point in the space of factors, with the small value
//! types it is made of ([`CacheState`], [`WarmBy`], [`Target`], [`Threads`]);
//! [`factors`] expands lists of factors into cases, [`preflight`] checks a
//! plan against this machine before anything runs, [`memory_budget`]
//! finds how a page-cache budget can be enforced here, [`device_rate`] how
//! a device's read rate can be limited, [`duration`]
//! says which cases can run for a fixed time, and [`pace`] which can run
//! at a target rate.
use serde::{Deserialize, Serialize};

pub mod cache;
mod case;
pub mod device_rate;
pub mod duration;
pub mod factor_table;
pub mod factors;
pub mod file_set;
pub mod memory_budget;
mod mixed_files;
pub mod notes;
pub mod pace;
pub mod precision;
pub mod preflight;
pub mod refusal;
pub mod resources;
mod target;
pub mod threads;

pub use cache::{CacheState, WarmBy};
pub use case::{size_heading, Case};
pub use factor_table::GroupKey;
pub use file_set::FileSet;
pub use target::Target;
pub use threads::{ThreadMode, Threads};

/// Most measured runs per case (`--runs`).
pub const MAX_RUNS: u32 = 10_000;
/// Most warm-up runs per case (`--warmup`).
pub const MAX_WARMUP: u32 = 10_000;
/// Most cases one plan may have (the product of the factor lists).
pub const MAX_CASES: u64 = 100_000;
/// Most trials one plan may have: cases × (runs + warm-ups).
pub const MAX_TRIALS: u64 = 1_000_000;

/// The order in which the trials of a group run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum OrderPolicy {
    /// A B B A A B ...: each run reverses the previous run's order.
    #[default]
    Alternating,
    /// A seeded shuffle in each run.
    Shuffled,
}

/// Which time the statistics compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Setup + main loop + teardown: what a program pays.
    #[default]
    Total,
    /// The main loop only (mapping setup and teardown excluded, as in fedorova2019).
    Loop,
}

/// An experiment: cases, runs, warm-ups and the order policy.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Plan {
    /// Every case, in the order given.
    pub cases: Vec<Case>,
    /// Measured runs per case.
    pub runs: u32,
    /// Discarded runs per case before measuring.
    pub warmup: u32,
    /// Order of the trials within a group.
    pub order: OrderPolicy,
    /// Which time is compared.
    pub metric: Metric,
    /// Seed of the shuffled order.
    pub seed: u64,
}

impl Plan {
    /// Trials in the whole plan: cases × (runs + warm-ups).
    pub fn trials(&self) -> u64 {
        self.cases.len() as u64 * (u64::from(self.runs) + u64::from(self.warmup))
    }

    /// Refuses a plan past the bounds ([`MAX_RUNS`], [`MAX_WARMUP`],
    /// [`MAX_CASES`], [`MAX_TRIALS`]) or without a case.
    pub fn check_bounds(&self) -> std::result::Result<(), String> {
        if self.cases.is_empty() {
            return Err("the plan has no case".into());
        }
        if self.runs == 0 || self.runs > MAX_RUNS {
            return Err(format!("runs {} is not in 1..={MAX_RUNS}", self.runs));
        }
        if self.warmup > MAX_WARMUP {
            return Err(format!("warmup {} is not in 0..={MAX_WARMUP}", self.warmup));
        }
        if self.cases.len() as u64 > MAX_CASES {
            return Err(format!(
                "{} cases is more than the {MAX_CASES} one plan may have; sweep fewer values at once",
                self.cases.len()
            ));
        }
        if self.trials() > MAX_TRIALS {
            return Err(format!(
                "{} cases × {} runs and warm-ups is {} trials, more than the {MAX_TRIALS} one plan may have; use fewer cases or runs",
                self.cases.len(),
                u64::from(self.runs) + u64::from(self.warmup),
                self.trials()
            ));
        }
        Ok(())
    }

    /// Groups of case indices that differ only in method (and its options),
    /// in the order their first case appears. The first case of each group
    /// is the baseline its others are compared with.
    pub fn groups(&self) -> Vec<Vec<usize>> {
        // Each group's index by its key: linear in the cases.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut index: std::collections::HashMap<GroupKey, usize> = Default::default();
        for (i, case) in self.cases.iter().enumerate() {
            let next = groups.len();
            let g = *index.entry(case.group_key()).or_insert(next);
            if g == next {
                groups.push(Vec::new());
            }
            groups[g].push(i);
        }
        groups
    }
}
