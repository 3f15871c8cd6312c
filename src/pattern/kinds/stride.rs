//! `stride:N`: every Nth block, wrapping around; every block exactly once
//! ([`orders::stride`]).
use crate::pattern::spec::err;
use crate::pattern::{orders, BlockOrder, Order, Pattern, PatternError, PatternSpec};

/// `stride:N`.
pub(in crate::pattern) const STRIDE: PatternSpec = PatternSpec {
    name: "stride",
    param: Some("N"),
    listed: true,
    parse: |param| match param.trim().parse::<u64>() {
        Ok(n) => Pattern::stride(n),
        Err(_) => Err(err(format!(
            "stride:N needs a whole number N >= 1 (e.g. stride:8), got '{param}'"
        ))),
    },
    param_names: &["n"],
    visits_each_block_once: true,
    uses_seed: false,
    reads_data: false,
    order: Order::Own(|pattern, layout, seed| {
        let n = pattern.param().whole();
        if orders::stride_is_sequential(layout.blocks(), n) {
            return Ok(BlockOrder::Sequential {
                count: layout.blocks(),
            });
        }
        BlockOrder::listed(pattern, layout, seed, |p, count, _| {
            orders::stride(count, p.param().whole())
        })
    }),
    example: "stride:7",
};

impl Pattern {
    /// `stride:N`; N ≥ 1.
    pub fn stride(n: u64) -> Result<Pattern, PatternError> {
        if n == 0 {
            return Err(err(
                "stride:N needs a whole number N >= 1 (e.g. stride:8), got 0",
            ));
        }
        Ok(Pattern::Stride(n))
    }
}
