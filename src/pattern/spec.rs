//! The `--pattern` values: their names and parameters, how they are parsed
//! (`FromStr`, one-line errors), printed (`Display`, which parses back to the
//! same value) and stored in exports (serde, as that same string).
//!
//! The three original names print and serialize exactly as before: `seq`,
//! `random`, `random-replace`.
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A real-valued parameter: a finite `f64` with total equality, order and
/// hash, so that [`Pattern`] stays `Eq + Ord + Hash` (it is part of a case's
/// key). Printed the shortest way that parses back to the same value.
#[derive(Clone, Copy, Debug)]
pub struct Real(f64);

impl Real {
    /// `value` if it is finite (`-0.0` becomes `0.0`).
    pub fn new(value: f64) -> Option<Real> {
        value.is_finite().then_some(Real(value + 0.0))
    }

    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl PartialEq for Real {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}
impl Eq for Real {}
impl std::hash::Hash for Real {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state)
    }
}
impl PartialOrd for Real {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Real {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
impl fmt::Display for Real {
    /// Plain decimals (`1.2`, `10`, `0.001`), or exponent form when that
    /// would take more than 12 characters (`1e-300`). Both parse back exactly.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = self.0.to_string();
        if plain.len() <= 12 {
            f.write_str(&plain)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// The order in which a trial visits the blocks of a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pattern {
    /// `seq`: blocks in file order.
    #[default]
    Seq,
    /// `random`: a seeded permutation of the blocks, each exactly once.
    Random,
    /// `random-replace`: as many blocks as the file holds, uniform with replacement.
    RandomReplace,
    /// `reverse`: blocks from the last to the first.
    Reverse,
    /// `stride:N`: every Nth block, wrapping around; every block exactly once.
    Stride(u64),
    /// `zipf:THETA`: block popularity follows Zipf's law with exponent THETA.
    Zipf(Real),
    /// `pareto:H`: a share 1-H of the accesses goes to a share H of the blocks (fio's pareto).
    Pareto(Real),
    /// `normal:SIGMA`: centred on the middle of the file, SIGMA in % of the file.
    Normal(Real),
    /// `hotset:P/Q`: P% of the accesses go to Q% of the blocks, the hot
    /// blocks spread over the file (each block as likely as any other to be hot).
    Hotset {
        /// P: percentage of the accesses that go to the hot blocks.
        accesses: Real,
        /// Q: percentage of the blocks that are hot.
        blocks: Real,
    },
    /// `hotzone:P/Q`: P% of the accesses go to the first Q% of the file, one
    /// contiguous zone (fio's `random_distribution=zoned:P/Q/(100-P)/(100-Q)`).
    Hotzone {
        /// P: percentage of the accesses that go to the hot zone.
        accesses: Real,
        /// Q: percentage of the file (from its start) that is hot.
        blocks: Real,
    },
    /// `chase`: each next block is computed from the bytes of the block just read.
    Chase,
    /// `trace`: the reads (or writes) of a recorded trace, replayed in their
    /// order; set by `--trace FILE`, never given to `--pattern`.
    Trace,
}

/// A `--pattern` value that could not be parsed; the message is one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PatternError(String);

impl Pattern {
    /// Every accepted form, for `--help` and error messages.
    pub const FORMS: &'static str = "seq, random, random-replace, reverse, stride:N, \
        zipf:THETA, pareto:H, normal:SIGMA, hotset:P/Q, hotzone:P/Q, chase";

    /// `zipf:THETA`; THETA must be finite and > 0.
    pub fn zipf(theta: f64) -> Result<Pattern, PatternError> {
        let theta = positive(theta, "zipf:THETA needs THETA > 0 (e.g. zipf:1.2)")?;
        Ok(Pattern::Zipf(theta))
    }

    /// `pareto:H`; 0 < H < 1.
    pub fn pareto(h: f64) -> Result<Pattern, PatternError> {
        let shape = super::distributions::pareto_shape(h);
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

    /// `hotset:P/Q`; 0 < P ≤ 100 and 0 < Q < 100 (percentages).
    pub fn hotset(accesses: f64, blocks: f64) -> Result<Pattern, PatternError> {
        let (accesses, blocks) = percentages("hotset", accesses, blocks)?;
        Ok(Pattern::Hotset { accesses, blocks })
    }

    /// `hotzone:P/Q`; the same bounds as [`Pattern::hotset`].
    pub fn hotzone(accesses: f64, blocks: f64) -> Result<Pattern, PatternError> {
        let (accesses, blocks) = percentages("hotzone", accesses, blocks)?;
        Ok(Pattern::Hotzone { accesses, blocks })
    }

    /// `stride:N`; N ≥ 1.
    pub fn stride(n: u64) -> Result<Pattern, PatternError> {
        if n == 0 {
            return Err(err(
                "stride:N needs a whole number N >= 1 (e.g. stride:8), got 0",
            ));
        }
        Ok(Pattern::Stride(n))
    }

    /// The family name: `seq`, `random`, `random-replace`, `reverse`,
    /// `stride`, `zipf`, `pareto`, `normal`, `hotset` or `chase`. The full
    /// value, parameters included, is the `Display` form.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Seq => "seq",
            Pattern::Random => "random",
            Pattern::RandomReplace => "random-replace",
            Pattern::Reverse => "reverse",
            Pattern::Stride(_) => "stride",
            Pattern::Zipf(_) => "zipf",
            Pattern::Pareto(_) => "pareto",
            Pattern::Normal(_) => "normal",
            Pattern::Hotset { .. } => "hotset",
            Pattern::Hotzone { .. } => "hotzone",
            Pattern::Chase => "chase",
            Pattern::Trace => "trace",
        }
    }

    /// The parameters by name, for the record (empty for parameterless patterns).
    pub fn params(self) -> Vec<(&'static str, f64)> {
        match self {
            Pattern::Stride(n) => vec![("n", n as f64)],
            Pattern::Zipf(t) => vec![("theta", t.get())],
            Pattern::Pareto(h) => vec![("h", h.get())],
            Pattern::Normal(s) => vec![("sigma_percent", s.get())],
            Pattern::Hotset { accesses, blocks } | Pattern::Hotzone { accesses, blocks } => vec![
                ("hot_accesses_percent", accesses.get()),
                ("hot_blocks_percent", blocks.get()),
            ],
            _ => Vec::new(),
        }
    }

    /// Whether every block is visited exactly once (so a write method leaves
    /// every byte written once). False for sampling patterns and `chase`.
    pub fn visits_each_block_once(self) -> bool {
        matches!(
            self,
            Pattern::Seq | Pattern::Random | Pattern::Reverse | Pattern::Stride(_)
        )
    }

    /// Whether the seed changes the order.
    pub fn uses_seed(self) -> bool {
        !matches!(
            self,
            Pattern::Seq | Pattern::Reverse | Pattern::Stride(_) | Pattern::Trace
        )
    }

    /// Whether the pattern draws each visit independently from a fixed law
    /// (with replacement): `random-replace`, `zipf`, `pareto`, `normal`,
    /// `hotset`, `hotzone`. A duration-bounded trial keeps drawing from the
    /// law for as long as it runs; the other patterns repeat their order.
    pub fn is_sampled(self) -> bool {
        matches!(
            self,
            Pattern::RandomReplace
                | Pattern::Zipf(_)
                | Pattern::Pareto(_)
                | Pattern::Normal(_)
                | Pattern::Hotset { .. }
                | Pattern::Hotzone { .. }
        )
    }

    /// Whether the order depends on the file's bytes (`chase`): it cannot be
    /// listed before the trial, and a method must read each block before it
    /// knows the next.
    pub fn reads_data(self) -> bool {
        self == Pattern::Chase
    }
}

/// The P and Q of `hotset:P/Q` or `hotzone:P/Q`: 0 < P ≤ 100, 0 < Q < 100.
fn percentages(name: &str, accesses: f64, blocks: f64) -> Result<(Real, Real), PatternError> {
    match (Real::new(accesses), Real::new(blocks)) {
        (Some(p), Some(q))
            if accesses > 0.0 && accesses <= 100.0 && blocks > 0.0 && blocks < 100.0 =>
        {
            Ok((p, q))
        }
        _ => Err(err(format!(
            "{name}:P/Q needs 0 < P <= 100 and 0 < Q < 100, in % (e.g. {name}:90/10: \
             90% of the accesses go to 10% of the blocks), got {accesses:?}/{blocks:?}"
        ))),
    }
}

impl From<PatternError> for crate::error::Error {
    /// A pattern that cannot be parsed is a usage error.
    fn from(e: PatternError) -> Self {
        crate::error::Error::Plan(e.0)
    }
}

fn err(message: impl Into<String>) -> PatternError {
    PatternError(message.into())
}

fn positive(value: f64, message: &str) -> Result<Real, PatternError> {
    match Real::new(value) {
        Some(r) if value > 0.0 => Ok(r),
        _ => Err(err(format!("{message}, got {value:?}"))),
    }
}

/// Parses a real parameter; `form` is the pattern's syntax, for the error.
fn real(text: &str, form: &str) -> Result<f64, PatternError> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(err(format!("{form}: '{text}' is not a number"))),
    }
}

impl FromStr for Pattern {
    type Err = PatternError;

    fn from_str(input: &str) -> Result<Pattern, PatternError> {
        let s = input.trim();
        let (name, param) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        let simple = match name {
            "seq" => Some(Pattern::Seq),
            "random" => Some(Pattern::Random),
            "random-replace" => Some(Pattern::RandomReplace),
            "reverse" => Some(Pattern::Reverse),
            "chase" => Some(Pattern::Chase),
            "trace" => Some(Pattern::Trace),
            _ => None,
        };
        if let Some(pattern) = simple {
            return match param {
                None => Ok(pattern),
                Some(_) => Err(err(format!("{name} takes no parameter, got '{s}'"))),
            };
        }
        let form = match name {
            "stride" => "stride:N",
            "zipf" => "zipf:THETA",
            "pareto" => "pareto:H",
            "normal" => "normal:SIGMA",
            "hotset" => "hotset:P/Q",
            "hotzone" => "hotzone:P/Q",
            _ => {
                return Err(err(format!(
                    "unknown pattern '{s}' (one of: {})",
                    Pattern::FORMS
                )))
            }
        };
        let Some(param) = param.filter(|p| !p.trim().is_empty()) else {
            return Err(err(format!("{name} needs a parameter: {form}")));
        };
        match name {
            "stride" => match param.trim().parse::<u64>() {
                Ok(n) => Pattern::stride(n),
                Err(_) => Err(err(format!(
                    "stride:N needs a whole number N >= 1 (e.g. stride:8), got '{param}'"
                ))),
            },
            "zipf" => Pattern::zipf(real(param, form)?),
            "pareto" => Pattern::pareto(real(param, form)?),
            "normal" => Pattern::normal(real(param, form)?),
            _ => {
                let Some((p, q)) = param.split_once('/') else {
                    return Err(err(format!(
                        "{form} needs two percentages separated by '/' (e.g. {name}:90/10), \
                         got '{param}'"
                    )));
                };
                let (p, q) = (real(p, form)?, real(q, form)?);
                if name == "hotset" {
                    Pattern::hotset(p, q)
                } else {
                    Pattern::hotzone(p, q)
                }
            }
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        match self {
            Pattern::Stride(n) => write!(f, "{name}:{n}"),
            Pattern::Zipf(x) | Pattern::Pareto(x) | Pattern::Normal(x) => write!(f, "{name}:{x}"),
            Pattern::Hotset { accesses, blocks } | Pattern::Hotzone { accesses, blocks } => {
                write!(f, "{name}:{accesses}/{blocks}")
            }
            _ => f.write_str(name),
        }
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Pattern {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn refused(s: &str) -> String {
        let e = s.parse::<Pattern>().expect_err(s).to_string();
        assert!(!e.contains('\n'), "one line: {e}");
        e
    }

    #[test]
    fn old_names_print_and_serialize_as_before() {
        for (p, s) in [
            (Pattern::Seq, "seq"),
            (Pattern::Random, "random"),
            (Pattern::RandomReplace, "random-replace"),
        ] {
            assert_eq!(parse(s), p);
            assert_eq!(p.to_string(), s);
            assert_eq!(p.name(), s);
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{s}\""));
            assert_eq!(
                serde_json::from_str::<Pattern>(&format!("\"{s}\"")).unwrap(),
                p
            );
        }
        assert!(Pattern::Seq < Pattern::Random && Pattern::Random < Pattern::RandomReplace);
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "reverse",
            "chase",
            "stride:8",
            "zipf:1.2",
            "zipf:0.8",
            "zipf:1",
            "pareto:0.2",
            "normal:10",
            "normal:2.5",
            "hotset:90/10",
            "hotset:99.9/0.1",
            "hotzone:80/20",
            "trace",
        ] {
            let p = parse(s);
            assert_eq!(p.to_string(), s);
            assert_eq!(parse(&p.to_string()), p);
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(serde_json::from_str::<Pattern>(&json).unwrap(), p);
        }
        // Non-canonical spellings parse and print canonically.
        assert_eq!(parse(" zipf:1.20 ").to_string(), "zipf:1.2");
        assert_eq!(parse("normal:1e1").to_string(), "normal:10");
        assert_eq!(parse("zipf:1e-300").to_string(), "zipf:1e-300");
        assert_eq!(parse("zipf:1e300").to_string(), "zipf:1e300");
        assert_eq!(
            parse("hotset:99.999/0.001").to_string(),
            "hotset:99.999/0.001"
        );
    }

    #[test]
    fn refuses_with_one_line_errors() {
        assert!(refused("zipf:0").contains("THETA > 0"));
        assert!(refused("zipf:-1").contains("THETA > 0"));
        assert!(refused("zipf:inf").contains("not a number"));
        assert!(refused("zipf:NaN").contains("not a number"));
        assert!(refused("zipf").contains("needs a parameter"));
        assert!(refused("zipf:").contains("needs a parameter"));
        assert!(refused("pareto:1").contains("0 < H < 1"));
        assert!(refused("pareto:1e-300").contains("too close to 0 or 1"));
        assert!(refused("normal:0").contains("0 < SIGMA <= 100"));
        assert!(refused("normal:101").contains("0 < SIGMA <= 100"));
        assert!(refused("hotset:90").contains("separated by '/'"));
        assert!(refused("hotset:90/100").contains("0 < Q < 100"));
        assert!(refused("hotset:0/10").contains("0 < P <= 100"));
        assert!(refused("hotset:a/10").contains("not a number"));
        assert!(refused("hotzone:90").contains("hotzone:P/Q needs two percentages"));
        assert!(refused("hotzone:90/0").contains("hotzone:P/Q needs 0 < P <= 100"));
        assert!(refused("stride:0").contains("N >= 1"));
        assert!(refused("stride:1.5").contains("N >= 1"));
        assert!(refused("seq:1").contains("takes no parameter"));
        assert!(refused("gauss:3").contains("one of: seq, random"));
        assert!(refused("").contains("unknown pattern"));
    }

    #[test]
    fn serde_refuses_bad_strings() {
        let e = serde_json::from_str::<Pattern>("\"zipf:0\"").unwrap_err();
        assert!(e.to_string().contains("THETA > 0"), "{e}");
    }

    #[test]
    fn parses_as_a_clap_list() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[arg(long, value_delimiter = ',')]
            pattern: Vec<Pattern>,
        }
        let cli =
            Cli::try_parse_from(["x", "--pattern", "seq,zipf:1.2,hotset:90/10,random"]).unwrap();
        assert_eq!(cli.pattern.len(), 4);
        assert_eq!(cli.pattern[2].to_string(), "hotset:90/10");
        let e = Cli::try_parse_from(["x", "--pattern", "zipf:0"])
            .err()
            .unwrap();
        assert!(e.to_string().contains("THETA > 0"), "{e}");
    }

    #[test]
    fn predicates() {
        assert!(parse("stride:3").visits_each_block_once());
        assert!(!parse("zipf:1.2").visits_each_block_once());
        assert!(!Pattern::RandomReplace.visits_each_block_once());
        assert!(!parse("reverse").uses_seed());
        assert!(parse("hotset:90/10").uses_seed());
        assert!(Pattern::Chase.reads_data());
        assert_eq!(
            parse("hotset:90/10").params(),
            vec![("hot_accesses_percent", 90.0), ("hot_blocks_percent", 10.0)]
        );
    }

    proptest::proptest! {
        #[test]
        fn parse_never_panics_and_display_round_trips(s in "\\PC{0,16}") {
            if let Ok(p) = s.parse::<Pattern>() {
                proptest::prop_assert_eq!(p.to_string().parse::<Pattern>().unwrap(), p);
            }
        }
    }
}
