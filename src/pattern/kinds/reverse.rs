//! `reverse`: blocks from the last to the first.
use crate::pattern::{orders, Order, Pattern, PatternSpec};

/// `reverse`.
pub(in crate::pattern) const REVERSE: PatternSpec = PatternSpec {
    name: "reverse",
    param: None,
    listed: true,
    parse: |_| Ok(Pattern::Reverse),
    param_names: &[],
    visits_each_block_once: true,
    uses_seed: false,
    reads_data: false,
    order: Order::Listed(|_, count, _| orders::reverse(count)),
    example: "reverse",
};
