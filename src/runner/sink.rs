//! What the scheduler hands its trials to, in the shape of ripgrep's `Sink`:
//! the scheduler ([`super::scheduler`]) decides which trial runs next and
//! the executor ([`super::executor`]) runs it; a [`Sink`] takes each finished
//! trial (the journal), each group's results so far (the exports), and
//! answers the two questions that decide whether more trials run: another
//! round of a group (`--precision`), and which cases still need paired runs
//! once every group is done (a study's claims settled). A stopping rule is
//! a sink's answer to those questions, not a parameter of the scheduler.
use crate::error::Result;
use crate::results::RawResults;
use crate::runner::journal::Entry;

/// What the sink says of a group whose rounds so far are done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoreRuns {
    /// Whether to add another round.
    pub another: bool,
    /// The group's rounds so far and the rounds it is expected to end with
    /// (the precision rule's forecast), for the time left.
    pub forecast: Option<(usize, usize)>,
}

/// Where the scheduler's trials go, and what decides that more run.
pub trait Sink {
    /// Takes one finished trial, before the next one starts; an error stops
    /// the run (the journal could not keep it).
    fn record(&mut self, entry: &Entry) -> Result<()>;

    /// Takes everything so far: after each group, and before the run
    /// returns early (a stop, an error), so the exports can be rewritten.
    fn group_done(&mut self, raw: &RawResults);

    /// Whether group `group`, its planned rounds and any added so far done,
    /// gets another round (`--precision`). None, by default.
    fn more_rounds(&mut self, _group: usize, _raw: &RawResults) -> MoreRuns {
        MoreRuns::default()
    }

    /// Once every group is done: the cases (from any groups) that need one
    /// more paired run each, asked again after every such round until it
    /// names none. None, by default.
    fn settle(&mut self, _raw: &RawResults) -> Vec<usize> {
        Vec::new()
    }
}
