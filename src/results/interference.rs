//! How interference touched one case's trials (tallied by
//! [`crate::analysis::interference`], which also words it).
use serde::{Deserialize, Serialize};

/// How interference touched one case's trials.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseInterference {
    /// Trials with an interference record, every attempt included.
    pub trials: usize,
    /// Of those, the interfered ones.
    pub interfered: usize,
    /// Re-runs made (`--retry-interfered`).
    pub retries: usize,
    /// Runs whose last attempt was still interfered.
    pub interfered_in_the_end: usize,
    /// Runs (last attempts) in all.
    pub runs: usize,
    /// Samples left out because they were interfered (`--exclude-interfered`).
    pub excluded: usize,
    /// The most frequent kind of reason, e.g. `other processes used`, with
    /// one full example.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<String>,
}
