//! The session's [`Sink`]: every finished trial goes to the journal, every
//! group's results so far to the exports, and the questions of more runs
//! to the run's stopping rules ([`Rounds`]): the precision rule
//! (`--precision`, per group) and a study's settling rule (per claim).
use crate::error::Result;
use crate::plan::precision::Precision;
use crate::plan::Plan;
use crate::report::Exports;
use crate::results::{RawResults, RunResults};
use crate::runner::journal::{Entry, Journal};
use crate::runner::{MoreRuns, Sink};

use super::Settle;

/// The rules that decide whether more runs are added.
pub(super) struct Rounds<'a> {
    /// The plan run.
    pub plan: &'a Plan,
    /// `--precision` with its budget: another round of a group until its
    /// comparisons are that precise, or its time is up.
    pub precision: Option<Precision>,
    /// `--exclude-interfered`: the precision counts clean samples only.
    pub exclude: bool,
    /// After every group: paired runs of the cases a study's claims still
    /// need (their verdicts settled).
    pub settle: Option<&'a Settle>,
}

/// Journal, exports and stopping rules, as one sink.
pub(super) struct SessionSink<'a, A> {
    /// Where each entry is appended before the next trial starts.
    pub journal: &'a mut Journal,
    /// Entries the journal holds (a resumed run's included).
    pub kept: &'a mut usize,
    /// Rewritten after each group.
    pub exports: &'a Exports,
    /// Warnings are printed above it.
    pub progress: &'a indicatif::ProgressBar,
    /// The results of the raw data so far.
    pub assemble: &'a A,
    /// Whether a failed export was warned about (once).
    pub export_warned: bool,
    /// When the first trial started: the time budgets count from here.
    pub started: std::time::Instant,
    /// The stopping rules.
    pub rounds: Rounds<'a>,
}

impl<A: Fn(&RawResults) -> RunResults> Sink for SessionSink<'_, A> {
    fn record(&mut self, entry: &Entry) -> Result<()> {
        self.journal.append(entry)?;
        *self.kept += 1;
        Ok(())
    }

    fn group_done(&mut self, raw: &RawResults) {
        if let Err(e) = self.exports.write_all(&(self.assemble)(raw)) {
            if !std::mem::replace(&mut self.export_warned, true) {
                self.progress
                    .suspend(|| eprintln!("warning: could not write the exports: {e}"));
            }
        }
    }

    fn more_rounds(&mut self, group: usize, raw: &RawResults) -> MoreRuns {
        let Some(precision) = &self.rounds.precision else {
            return MoreRuns::default();
        };
        let plan = self.rounds.plan;
        let exclude = self.rounds.exclude;
        let in_time = precision
            .group_deadline_s(group, plan.groups().len())
            .is_none_or(|deadline| self.started.elapsed().as_secs_f64() < deadline);
        let needs_more = in_time
            && crate::analysis::stopping::group_needs_more(
                plan,
                &raw.samples,
                group,
                precision,
                exclude,
            );
        // A map's point: no more runs once its verdict is decided at the
        // stricter level of its looks, or out of reach (`stats::decided`).
        let decided = needs_more
            && precision.until_decided
            && plan.groups().get(group).is_some_and(|members| {
                (self.assemble)(raw).group_done(
                    members,
                    crate::stats::decided::looks(plan.runs, precision.max_runs),
                    precision.max_runs,
                )
            });
        MoreRuns {
            another: needs_more && !decided,
            forecast: crate::analysis::stopping::group_forecast(
                plan,
                &raw.samples,
                group,
                precision,
                exclude,
            ),
        }
    }

    /// The rule's budget counts the whole run's time, from its first trial.
    fn settle(&mut self, raw: &RawResults) -> Vec<usize> {
        let Some(Settle(rule)) = self.rounds.settle else {
            return Vec::new();
        };
        if let Some(cases) = rule.without_assembly(raw) {
            return cases;
        }
        rule.cases_needing_runs(&(self.assemble)(raw), self.started.elapsed().as_secs_f64())
    }
}
