//! `pareto:H`: a share 1-H of the accesses goes to a share H of the blocks
//! (fio's pareto), the popular blocks spread over the file.
use crate::pattern::distributions::{pareto_shape, Draw, Popularity};
use crate::pattern::spec::{err, real};
use crate::pattern::{Order, Pattern, PatternError, PatternSpec, Real};

/// `pareto:H`.
pub(in crate::pattern) const PARETO: PatternSpec = PatternSpec {
    name: "pareto",
    param: Some("H"),
    listed: true,
    parse: |param| Pattern::pareto(real(param, "pareto:H")?),
    param_names: &["h"],
    visits_each_block_once: false,
    uses_seed: true,
    reads_data: false,
    order: Order::Drawn(|p, count, rng| {
        Draw::ranked(Popularity::Pareto(p.param().first()), count, true, rng)
    }),
    example: "pareto:0.2",
};

impl Pattern {
    /// `pareto:H`; 0 < H < 1.
    pub fn pareto(h: f64) -> Result<Pattern, PatternError> {
        let shape = pareto_shape(h);
        match Real::new(h) {
            Some(r) if h > 0.0 && h < 1.0 && shape > 0.0 && shape.is_finite() => {
                Ok(Pattern::Pareto(r))
            }
            Some(r) if h > 0.0 && h < 1.0 => Err(err(format!(
                "pareto:H with H = {r} is too close to 0 or 1 to draw from"
            ))),
            _ => Err(err(format!(
                "pareto:H needs 0 < H < 1: a share 1-H of the accesses goes to a share H \
                 of the blocks (e.g. pareto:0.2 for 80/20), got {h:?}"
            ))),
        }
    }
}
