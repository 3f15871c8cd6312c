//! What a `--pattern` value is made of, and the registry's machinery: the
//! [`PatternSpec`] each pattern's file declares (`src/pattern/kinds/`), the
//! parameter shapes ([`Real`], [`Share`], [`Param`]), and the code every
//! pattern shares: parsing (`FromStr`, one-line errors), printing
//! (`Display`, which parses back to the same value), serde (as that same
//! string), the predicates and the parameters by name, all read from the
//! spec. The registry itself is one line per pattern in `pattern/mod.rs`.
//!
//! The three original names print and serialize exactly as before: `seq`,
//! `random`, `random-replace`.
use std::fmt;
use std::str::FromStr;

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::distributions::Draw;
use super::{BlockOrder, Layout, Pattern};

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

/// The two percentages of `hotset:P/Q` and `hotzone:P/Q`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Share {
    /// P: percentage of the accesses that go to the hot blocks.
    pub accesses: Real,
    /// Q: percentage of the blocks that are hot.
    pub blocks: Real,
}

/// A pattern's parameter, whatever its shape: what `Display` prints after
/// `name:`, what [`Pattern::params`] lists, what the order builders read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// No parameter (`seq`, `chase`).
    None,
    /// A whole number (`stride:N`).
    Whole(u64),
    /// A real number (`zipf:THETA`).
    Real(Real),
    /// Two percentages (`hotset:P/Q`).
    Pair(Real, Real),
}

impl Param {
    /// The values, in order (empty for none).
    pub fn values(self) -> Vec<f64> {
        match self {
            Param::None => Vec::new(),
            Param::Whole(n) => vec![n as f64],
            Param::Real(x) => vec![x.get()],
            Param::Pair(a, b) => vec![a.get(), b.get()],
        }
    }

    /// The whole number (0 for another shape).
    pub fn whole(self) -> u64 {
        match self {
            Param::Whole(n) => n,
            _ => 0,
        }
    }

    /// The first real (or the whole number, as a real; 0 for none).
    pub fn first(self) -> f64 {
        self.values().first().copied().unwrap_or(0.0)
    }

    /// The second real of a pair (0 for another shape).
    pub fn second(self) -> f64 {
        self.values().get(1).copied().unwrap_or(0.0)
    }
}

impl From<u64> for Param {
    fn from(n: u64) -> Param {
        Param::Whole(n)
    }
}
impl From<Real> for Param {
    fn from(x: Real) -> Param {
        Param::Real(x)
    }
}
impl From<Share> for Param {
    fn from(s: Share) -> Param {
        Param::Pair(s.accesses, s.blocks)
    }
}

/// How a pattern's order is built ([`BlockOrder::new`]).
#[derive(Clone, Copy)]
pub enum Order {
    /// Blocks in file order; nothing is stored.
    Sequential,
    /// A list of block indices from the block count and the seeded generator.
    Listed(fn(Pattern, u32, &mut ChaCha8Rng) -> Vec<u32>),
    /// Drawn visit by visit from a law, with replacement (a sampled
    /// pattern): a one-pass order is as many draws as blocks, and a
    /// duration-bounded trial keeps drawing from the same law.
    Drawn(fn(Pattern, u32, &mut ChaCha8Rng) -> Draw),
    /// Built by the pattern itself from the layout and the seed.
    Own(fn(Pattern, Layout, u64) -> crate::error::Result<BlockOrder>),
}

/// What faultline knows about an access pattern, declared once in the
/// pattern's own file (`src/pattern/kinds/<name>.rs`).
pub struct PatternSpec {
    /// The name `--pattern` takes and the exports print.
    pub name: &'static str,
    /// The syntax of the parameter after `name:` (`N`, `THETA`, `P/Q`), or
    /// `None` when the pattern takes none.
    pub param: Option<&'static str>,
    /// Whether `--pattern` offers it (`trace` is set by `--trace FILE`).
    pub listed: bool,
    /// Parses the text after `name:` (empty when the pattern takes no parameter).
    pub parse: fn(&str) -> Result<Pattern, PatternError>,
    /// The names of the parameter's values, for the record.
    pub param_names: &'static [&'static str],
    /// Whether every block is visited exactly once.
    pub visits_each_block_once: bool,
    /// Whether the seed changes the order.
    pub uses_seed: bool,
    /// Whether the order depends on the file's bytes.
    pub reads_data: bool,
    /// How its order is built.
    pub order: Order,
    /// A value of it, for tests and examples (`zipf:1.2`).
    pub example: &'static str,
}

/// A `--pattern` value that could not be parsed; the message is one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PatternError(String);

impl Pattern {
    /// Every form `--pattern` accepts, for `--help` and error messages:
    /// `seq, random, ..., stride:N, ..., chase`.
    pub fn forms() -> String {
        Pattern::specs()
            .iter()
            .filter(|s| s.listed)
            .map(|s| match s.param {
                Some(param) => format!("{}:{param}", s.name),
                None => s.name.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The family name: `seq`, `random`, `zipf`, ... The full value,
    /// parameters included, is the `Display` form.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The parameters by name, for the record (empty for parameterless patterns).
    pub fn params(self) -> Vec<(&'static str, f64)> {
        let names = self.spec().param_names.iter().copied();
        names.zip(self.param().values()).collect()
    }

    /// Whether every block is visited exactly once (so a write method leaves
    /// every byte written once). False for sampling patterns and `chase`.
    pub fn visits_each_block_once(self) -> bool {
        self.spec().visits_each_block_once
    }

    /// Whether the seed changes the order.
    pub fn uses_seed(self) -> bool {
        self.spec().uses_seed
    }

    /// Whether the pattern draws each visit independently from a fixed law
    /// (with replacement): `random-replace`, `zipf`, `pareto`, `normal`,
    /// `hotset`, `hotzone`. A duration-bounded trial keeps drawing from the
    /// law for as long as it runs; the other patterns repeat their order.
    pub fn is_sampled(self) -> bool {
        matches!(self.spec().order, Order::Drawn(_))
    }

    /// Whether the order depends on the file's bytes (`chase`): it cannot be
    /// listed before the trial, and a method must read each block before it
    /// knows the next.
    pub fn reads_data(self) -> bool {
        self.spec().reads_data
    }

    /// The law of a sampled pattern over `count` blocks (at least 1); `None`
    /// for the other patterns.
    pub fn draw(self, count: u32, rng: &mut ChaCha8Rng) -> Option<Draw> {
        match self.spec().order {
            Order::Drawn(draw) => Some(draw(self, count.max(1), rng)),
            _ => None,
        }
    }
}

/// The P and Q of `hotset:P/Q` or `hotzone:P/Q`: 0 < P ≤ 100, 0 < Q < 100.
pub(super) fn percentages(name: &str, accesses: f64, blocks: f64) -> Result<Share, PatternError> {
    match (Real::new(accesses), Real::new(blocks)) {
        (Some(p), Some(q))
            if accesses > 0.0 && accesses <= 100.0 && blocks > 0.0 && blocks < 100.0 =>
        {
            Ok(Share {
                accesses: p,
                blocks: q,
            })
        }
        _ => Err(err(format!(
            "{name}:P/Q needs 0 < P <= 100 and 0 < Q < 100, in % (e.g. {name}:90/10: \
             90% of the accesses go to 10% of the blocks), got {accesses:?}/{blocks:?}"
        ))),
    }
}

/// Parses the `P/Q` of `hotset:P/Q` or `hotzone:P/Q` (`name`), without checking the bounds.
pub(super) fn pair(name: &str, param: &str) -> Result<(f64, f64), PatternError> {
    let form = format!("{name}:P/Q");
    let Some((p, q)) = param.split_once('/') else {
        return Err(err(format!(
            "{form} needs two percentages separated by '/' (e.g. {name}:90/10), \
             got '{param}'"
        )));
    };
    Ok((real(p, &form)?, real(q, &form)?))
}

impl From<PatternError> for crate::error::Error {
    /// A pattern that cannot be parsed is a usage error.
    fn from(e: PatternError) -> Self {
        crate::error::Error::Plan(e.0)
    }
}

/// A pattern error with `message`.
pub(super) fn err(message: impl Into<String>) -> PatternError {
    PatternError(message.into())
}

/// `value` if it is finite and > 0, else the error `message` (with the value).
pub(super) fn positive(value: f64, message: &str) -> Result<Real, PatternError> {
    match Real::new(value) {
        Some(r) if value > 0.0 => Ok(r),
        _ => Err(err(format!("{message}, got {value:?}"))),
    }
}

/// Parses a real parameter; `form` is the pattern's syntax, for the error.
pub(super) fn real(text: &str, form: &str) -> Result<f64, PatternError> {
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
        let Some(spec) = Pattern::specs().iter().find(|spec| spec.name == name) else {
            return Err(err(format!(
                "unknown pattern '{s}' (one of: {})",
                Pattern::forms()
            )));
        };
        let Some(form) = spec.param else {
            return match param {
                None => (spec.parse)(""),
                Some(_) => Err(err(format!("{name} takes no parameter, got '{s}'"))),
            };
        };
        match param.filter(|p| !p.trim().is_empty()) {
            Some(param) => (spec.parse)(param),
            None => Err(err(format!("{name} needs a parameter: {name}:{form}"))),
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        match self.param() {
            Param::None => f.write_str(name),
            Param::Whole(n) => write!(f, "{name}:{n}"),
            Param::Real(x) => write!(f, "{name}:{x}"),
            Param::Pair(p, q) => write!(f, "{name}:{p}/{q}"),
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

/// The registry of patterns: one line per pattern, `Variant => file::SPEC`
/// or `Variant(Parameter) => file::SPEC`, under the doc comment of the
/// variant. Each line declares the module `kinds::file`
/// (`src/pattern/kinds/file.rs`), the variant of [`Pattern`] with its
/// parameter, and the variant's spec; the order of the lines is the order
/// of [`Pattern`] (`Ord`), of `--help` and of error messages.
macro_rules! patterns {
    (
        $(#[doc = $enum_doc:literal])*
        pub enum $kind:ident, default $default:ident {
            $( $(#[doc = $doc:literal])* $variant:ident $( ( $payload:ty ) )? => $module:ident :: $spec:ident, )*
        }
    ) => {
        mod kinds {
            $( pub(super) mod $module; )*
        }

        $(#[doc = $enum_doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $kind {
            $( $(#[doc = $doc])* $variant $( ($payload) )?, )*
        }

        impl Default for $kind {
            fn default() -> Self {
                $kind::$default
            }
        }

        impl $kind {
            /// Every pattern's spec, in registry order.
            pub fn specs() -> &'static [&'static spec::PatternSpec] {
                &[ $( &kinds::$module::$spec, )* ]
            }

            /// What this pattern's own file declares about it.
            pub fn spec(self) -> &'static spec::PatternSpec {
                match self {
                    $( patterns!(@variant $kind $variant $( $payload )?) => &kinds::$module::$spec, )*
                }
            }

            /// The parameter, whatever its shape.
            pub fn param(self) -> spec::Param {
                match self {
                    $(
                        patterns!(@bind $kind $variant value $( $payload )?) =>
                            patterns!(@param value $( $payload )?),
                    )*
                }
            }
        }
    };
    (@variant $kind:ident $variant:ident) => { $kind::$variant };
    (@variant $kind:ident $variant:ident $payload:ty) => { $kind::$variant(_) };
    (@bind $kind:ident $variant:ident $value:ident) => { $kind::$variant };
    (@bind $kind:ident $variant:ident $value:ident $payload:ty) => { $kind::$variant($value) };
    (@param $value:ident) => { spec::Param::None };
    (@param $value:ident $payload:ty) => { spec::Param::from($value) };
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
    fn every_registered_pattern_round_trips_and_is_offered() {
        for spec in Pattern::specs() {
            let p = parse(spec.example);
            assert_eq!(p.name(), spec.name);
            assert_eq!(p.to_string(), spec.example);
            assert_eq!(p.params().len(), spec.param_names.len(), "{p}");
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(serde_json::from_str::<Pattern>(&json).unwrap(), p);
            let form = match spec.param {
                Some(param) => format!("{}:{param}", spec.name),
                None => spec.name.to_string(),
            };
            assert_eq!(Pattern::forms().contains(&form), spec.listed, "{form}");
            if spec.param.is_some() {
                assert!(refused(spec.name).contains("needs a parameter"));
            } else {
                assert!(refused(&format!("{}:1", spec.name)).contains("takes no parameter"));
            }
        }
        // The forms offered before the registry, spelled and ordered as then
        // (a new pattern's line goes after `chase`).
        assert!(Pattern::forms().starts_with(
            "seq, random, random-replace, reverse, stride:N, zipf:THETA, pareto:H, \
             normal:SIGMA, hotset:P/Q, hotzone:P/Q, chase"
        ));
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
