//! `random-replace`: as many blocks as the file holds, drawn uniformly with
//! replacement.
use crate::pattern::distributions::Draw;
use crate::pattern::{Order, Pattern, PatternSpec};

/// `random-replace`.
pub(in crate::pattern) const RANDOM_REPLACE: PatternSpec = PatternSpec {
    name: "random-replace",
    param: None,
    listed: true,
    parse: |_| Ok(Pattern::RandomReplace),
    param_names: &[],
    visits_each_block_once: false,
    uses_seed: true,
    reads_data: false,
    order: Order::Drawn(|_, count, _| Draw::Uniform { count }),
    example: "random-replace",
};
