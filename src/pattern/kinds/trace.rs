//! `trace`: the reads (or writes) of a recorded trace, replayed in their
//! order; set by `--trace FILE`, never offered by `--pattern`. Its order
//! comes from the file ([`crate::pattern::trace`]).
use crate::pattern::{Order, Pattern, PatternSpec};

/// `trace`.
pub(in crate::pattern) const TRACE: PatternSpec = PatternSpec {
    name: "trace",
    param: None,
    listed: false,
    parse: |_| Ok(Pattern::Trace),
    param_names: &[],
    visits_each_block_once: false,
    uses_seed: false,
    reads_data: false,
    order: Order::Own(|_, _, _| {
        Err(crate::error::Error::Plan(
            "a trace's order comes from its file (--trace FILE), not from --pattern".into(),
        ))
    }),
    example: "trace",
};
