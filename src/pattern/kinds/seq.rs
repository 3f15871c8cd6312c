//! `seq`: blocks in file order.
use crate::pattern::{Order, Pattern, PatternSpec};

/// `seq`.
pub(in crate::pattern) const SEQ: PatternSpec = PatternSpec {
    name: "seq",
    param: None,
    listed: true,
    parse: |_| Ok(Pattern::Seq),
    param_names: &[],
    visits_each_block_once: true,
    uses_seed: false,
    reads_data: false,
    order: Order::Sequential,
    example: "seq",
};
