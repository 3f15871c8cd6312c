//! `chase`: each next block is computed from the bytes of the block just
//! read (the walk is [`crate::pattern::chase`]).
use crate::pattern::chase::{Chase, ChaseSpec};
use crate::pattern::{BlockOrder, Order, Pattern, PatternSpec};

/// `chase`.
pub(in crate::pattern) const CHASE: PatternSpec = PatternSpec {
    name: "chase",
    param: None,
    listed: true,
    parse: |_| Ok(Pattern::Chase),
    param_names: &[],
    visits_each_block_once: false,
    uses_seed: true,
    reads_data: true,
    order: Order::Own(|_, layout, seed| {
        Ok(BlockOrder::Chase(ChaseSpec {
            start: Chase::new(layout, seed),
            steps: layout.blocks(),
        }))
    }),
    example: "chase",
};
