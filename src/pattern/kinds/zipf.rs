//! `zipf:THETA`: block popularity follows Zipf's law with exponent THETA,
//! the popular blocks spread over the file.
use crate::pattern::distributions::{Draw, Popularity};
use crate::pattern::spec::{positive, real};
use crate::pattern::{Order, Pattern, PatternError, PatternSpec};

/// `zipf:THETA`.
pub(in crate::pattern) const ZIPF: PatternSpec = PatternSpec {
    name: "zipf",
    param: Some("THETA"),
    listed: true,
    parse: |param| Pattern::zipf(real(param, "zipf:THETA")?),
    param_names: &["theta"],
    visits_each_block_once: false,
    uses_seed: true,
    reads_data: false,
    order: Order::Drawn(|p, count, rng| {
        Draw::ranked(Popularity::Zipf(p.param().first()), count, true, rng)
    }),
    example: "zipf:1.2",
};

impl Pattern {
    /// `zipf:THETA`; THETA must be finite and > 0.
    pub fn zipf(theta: f64) -> Result<Pattern, PatternError> {
        let theta = positive(theta, "zipf:THETA needs THETA > 0 (e.g. zipf:1.2)")?;
        Ok(Pattern::Zipf(theta))
    }
}
