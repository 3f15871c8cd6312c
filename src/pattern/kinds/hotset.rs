//! `hotset:P/Q`: P% of the accesses go to Q% of the blocks, the hot blocks
//! spread over the file (each block as likely as any other to be hot).
use crate::pattern::distributions::{Draw, Popularity};
use crate::pattern::spec::{pair, percentages};
use crate::pattern::{Order, Pattern, PatternError, PatternSpec};

/// `hotset:P/Q`.
pub(in crate::pattern) const HOTSET: PatternSpec = PatternSpec {
    name: "hotset",
    param: Some("P/Q"),
    listed: true,
    parse: |param| {
        let (p, q) = pair("hotset", param)?;
        Pattern::hotset(p, q)
    },
    param_names: &["hot_accesses_percent", "hot_blocks_percent"],
    visits_each_block_once: false,
    uses_seed: true,
    reads_data: false,
    order: Order::Drawn(|p, count, rng| {
        let (accesses, blocks) = (p.param().first(), p.param().second());
        Draw::ranked(Popularity::Hotset { accesses, blocks }, count, true, rng)
    }),
    example: "hotset:90/10",
};

impl Pattern {
    /// `hotset:P/Q`; 0 < P ≤ 100 and 0 < Q < 100 (percentages).
    pub fn hotset(accesses: f64, blocks: f64) -> Result<Pattern, PatternError> {
        Ok(Pattern::Hotset(percentages("hotset", accesses, blocks)?))
    }
}
