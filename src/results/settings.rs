//! Run-wide settings recorded with the results: what every number depends on
//! besides the cases, and which study a `faultline reproduce` run replayed.
use serde::{Deserialize, Serialize};

use crate::plan::{Metric, OrderPolicy};

/// Run-wide settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    /// The file measured (for a run of write methods only: the scratch directory).
    #[serde(with = "crate::os_path")]
    pub file: std::path::PathBuf,
    /// Whether faultline generated it.
    pub generated: bool,
    /// Where write methods wrote; `None` when no write method ran.
    #[serde(default, with = "crate::os_path::option")]
    pub scratch_dir: Option<std::path::PathBuf>,
    /// Measured runs per case.
    pub runs: u32,
    /// Warm-up runs per case.
    pub warmup: u32,
    /// Order policy.
    pub order: OrderPolicy,
    /// Which time the statistics compare.
    pub metric: Metric,
    /// Whether cold meant drop_caches (true) or per-file eviction.
    pub drop_caches: bool,
    /// Seed of random orders and shuffles.
    pub seed: u64,
    /// The study `faultline reproduce` replayed, and how; absent for `faultline run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduction: Option<Reproduction>,
    /// How interference was judged and handled; `None` in results written
    /// before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference: Option<InterferenceSettings>,
    /// Precision target, verdict adjustment and shortest trial.
    #[serde(default)]
    pub statistics: crate::plan::precision::Statistics,
    /// How every trial's main loop was sampled (`--profile`); absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileSettings>,
}

/// How a run judges and handles interference (`--interference-threshold`,
/// `--retry-interfered`, `--exclude-interfered`; docs/interference.md).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct InterferenceSettings {
    /// The threshold `T` of [`crate::measure::interference::Rule`] (0.10 for
    /// 10%); `None` for `off`: no record is taken and nothing is judged.
    pub threshold: Option<f64>,
    /// How many times an interfered trial is run again, at most.
    #[serde(default)]
    pub retries: u32,
    /// Whether the statistics leave interfered trials out.
    #[serde(default)]
    pub exclude: bool,
}

impl Default for InterferenceSettings {
    fn default() -> Self {
        InterferenceSettings {
            threshold: Some(crate::measure::interference::DEFAULT_THRESHOLD),
            retries: 0,
            exclude: false,
        }
    }
}

/// How a run sampled its trials' main loops (`--profile`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileSettings {
    /// The rate and mode asked of every trial.
    #[serde(flatten)]
    pub request: crate::measure::profile::ProfileRequest,
    /// Why the samples are user-only (the line printed at the start); absent
    /// for kernel and user samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Unprofiled control trials per case (`--profile-control`), each run
    /// beside the profiled trial of the same run number to measure what
    /// profiling costs (at most one per measured run); 0: the cost was not
    /// measured (also in results written before it was).
    #[serde(default)]
    pub control_trials: u32,
}

/// What a `faultline reproduce` run replayed: recorded in the journal and
/// the results, so that a resumed run cannot mix modes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reproduction {
    /// The preset, e.g. `sun2002`.
    pub preset: String,
    /// Whether the original's quirks were replayed (`--faithful`).
    pub faithful: bool,
}

impl Reproduction {
    /// `faithful (--faithful: the original's quirks replayed)` or `default (...)`.
    pub fn mode_line(&self) -> String {
        mode_line(self.faithful)
    }
}

/// The mode of a reproduction in words, for headers.
pub fn mode_line(faithful: bool) -> String {
    if faithful {
        "faithful (--faithful: the original's quirks replayed where the fidelity notes say so)"
            .into()
    } else {
        "default (faultline's like-for-like comparison; --faithful replays the original's quirks)"
            .into()
    }
}
