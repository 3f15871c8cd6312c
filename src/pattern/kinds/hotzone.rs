//! `hotzone:P/Q`: P% of the accesses go to the first Q% of the file, one
//! contiguous zone (fio's `random_distribution=zoned:P/Q/(100-P)/(100-Q)`).
use crate::pattern::distributions::{Draw, Popularity};
use crate::pattern::spec::{pair, percentages};
use crate::pattern::{Order, Pattern, PatternError, PatternSpec};

/// `hotzone:P/Q`.
pub(in crate::pattern) const HOTZONE: PatternSpec = PatternSpec {
    name: "hotzone",
    param: Some("P/Q"),
    listed: true,
    parse: |param| {
        let (p, q) = pair("hotzone", param)?;
        Pattern::hotzone(p, q)
    },
    param_names: &["hot_accesses_percent", "hot_blocks_percent"],
    visits_each_block_once: false,
    uses_seed: true,
    reads_data: false,
    order: Order::Drawn(|p, count, rng| {
        let (accesses, blocks) = (p.param().first(), p.param().second());
        Draw::ranked(Popularity::Hotset { accesses, blocks }, count, false, rng)
    }),
    example: "hotzone:90/10",
};

impl Pattern {
    /// `hotzone:P/Q`; the same bounds as [`Pattern::hotset`].
    pub fn hotzone(accesses: f64, blocks: f64) -> Result<Pattern, PatternError> {
        Ok(Pattern::Hotzone(percentages("hotzone", accesses, blocks)?))
    }
}
