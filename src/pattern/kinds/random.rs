//! `random`: a seeded permutation of the blocks, each exactly once.
use crate::pattern::{orders, Order, Pattern, PatternSpec};

/// `random`.
pub(in crate::pattern) const RANDOM: PatternSpec = PatternSpec {
    name: "random",
    param: None,
    listed: true,
    parse: |_| Ok(Pattern::Random),
    param_names: &[],
    visits_each_block_once: true,
    uses_seed: true,
    reads_data: false,
    order: Order::Listed(|_, count, rng| orders::permutation(count, rng)),
    example: "random",
};
