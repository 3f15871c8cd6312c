//! The rule that settles a run after its planned runs, apart from the
//! stopping arithmetic ([`super::stopping`]) that the assembled results
//! ([`crate::results::RunResults`]) use: the rule reads those results.

/// A rule that settles a run after its planned runs: given the results so
/// far and the seconds of trials spent, the cases (plan indices) that get
/// another paired run; none ends the run. `faultline reproduce` settles each
/// study's claims this way (`crate::studies::settle`).
pub trait SettleRule: Send + Sync {
    /// The cases that need another paired run, or none.
    fn cases_needing_runs(
        &self,
        results: &crate::results::RunResults,
        elapsed_s: f64,
    ) -> Vec<usize>;

    /// The same, when the raw samples alone tell it, so the results need
    /// not be assembled after every round (a rule that decides only at
    /// some looks); `None` asks [`SettleRule::cases_needing_runs`].
    fn without_assembly(&self, _raw: &crate::results::RawResults) -> Option<Vec<usize>> {
        None
    }
}
