//! `normal:SIGMA`: blocks drawn from a normal law centred on the middle of
//! the file, SIGMA in % of the file (hot blocks are neighbours).
use crate::pattern::distributions::Draw;
use crate::pattern::spec::{err, real};
use crate::pattern::{Order, Pattern, PatternError, PatternSpec, Real};

/// `normal:SIGMA`.
pub(in crate::pattern) const NORMAL: PatternSpec = PatternSpec {
    name: "normal",
    param: Some("SIGMA"),
    listed: true,
    parse: |param| Pattern::normal(real(param, "normal:SIGMA")?),
    param_names: &["sigma_percent"],
    visits_each_block_once: false,
    uses_seed: true,
    reads_data: false,
    order: Order::Drawn(|p, count, _| Draw::normal(p.param().first(), count)),
    example: "normal:10",
};

impl Pattern {
    /// `normal:SIGMA`; 0 < SIGMA ≤ 100 (percent of the file).
    pub fn normal(sigma: f64) -> Result<Pattern, PatternError> {
        match Real::new(sigma) {
            Some(r) if sigma > 0.0 && sigma <= 100.0 => Ok(Pattern::Normal(r)),
            _ => Err(err(format!(
                "normal:SIGMA needs 0 < SIGMA <= 100, the standard deviation in % of the \
                 file (e.g. normal:10), got {sigma:?}"
            ))),
        }
    }
}
