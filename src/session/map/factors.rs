//! The factors `faultline map` can sweep, one table ([`FACTORS`]): each entry
//! says its name, unit, scale, range, default resolution, how a value is
//! snapped to one the factor can take, printed, and set on the run's
//! [`Factors`]. Adding a factor is one entry.
use crate::pattern::Pattern;
use crate::plan::factors::{Factors, MAX_BLOCK};
use crate::size::{format_size, parse_size};
use crate::stats::crossover::Scale;

/// How a factor's values are written and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bytes: `4k`, `16KiB`, `1M`; printed `16 KiB`.
    Bytes,
    /// A whole number: threads, depths, blocks.
    Count,
    /// A real number (a Zipf exponent).
    Real,
    /// A percentage, 0 to 100.
    Percent,
}

impl Unit {
    /// The unit's name in the exports.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Bytes => "bytes",
            Unit::Count => "count",
            Unit::Real => "number",
            Unit::Percent => "percent",
        }
    }

    /// Parses one end of a range.
    pub fn parse(self, text: &str) -> Result<f64, String> {
        let t = text.trim();
        let value = match self {
            Unit::Bytes => parse_size(t).map(|b| b as f64).map_err(|e| e.to_string())?,
            Unit::Count => t
                .parse::<u64>()
                .map(|n| n as f64)
                .map_err(|_| format!("'{t}' is not a whole number"))?,
            Unit::Real | Unit::Percent => t
                .trim_end_matches('%')
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("'{t}' is not a number"))?,
        };
        Ok(value)
    }

    /// A value as a person reads it.
    pub fn label(self, value: f64) -> String {
        match self {
            Unit::Bytes => format_size(value.round() as u64),
            Unit::Count => format!("{}", value.round() as u64),
            Unit::Real => format!("{}", (value * 1000.0).round() / 1000.0),
            Unit::Percent => format!("{}%", (value * 100.0).round() / 100.0),
        }
    }
}

/// One factor `map` can sweep.
pub struct MapFactor {
    /// Its name in `--over NAME=LOW..HIGH`.
    pub name: &'static str,
    /// What its values are called in a sentence ("mmap faster for blocks up to ...").
    pub noun: &'static str,
    /// What it sets, for `--help` and the docs.
    pub about: &'static str,
    /// How values are written.
    pub unit: Unit,
    /// How the search spaces them.
    pub scale: Scale,
    /// Smallest and largest value allowed.
    pub range: (f64, f64),
    /// The resolution when `--resolution` is not given (a ratio on a log
    /// scale, a difference on a linear one).
    pub resolution: f64,
    /// The value nearest `x` that the factor can take for these factors.
    pub snap: fn(f64, &Factors) -> f64,
    /// Sets `value` on the factors (and the file size), or says why it cannot.
    pub apply: fn(&mut Factors, &mut u64, f64) -> Result<(), String>,
}

/// `x` rounded to 4 significant bits (…, 32, 36, 40, 44, 48, …), at least 1:
/// steps of at most 1/8, so a 1.25x bracket can always be split.
fn four_bits(x: f64) -> f64 {
    let x = x.round().max(1.0);
    let top = x.log2().floor() as i32;
    let step = 2f64.powi((top - 3).max(0));
    ((x / step).round() * step).max(1.0)
}

/// A block size: 4 significant bits; a multiple of 4 KiB when a method
/// uses O_DIRECT (its buffers and offsets must be aligned).
fn snap_block(x: f64, f: &Factors) -> f64 {
    let v = four_bits(x);
    if f.methods.iter().any(|m| m.spec().direct) {
        ((v / 4096.0).round() * 4096.0).max(4096.0)
    } else {
        v
    }
}

/// A file size: 4 significant bits, whole 4 KiB pages.
fn snap_size(x: f64, _: &Factors) -> f64 {
    ((four_bits(x) / 4096.0).round() * 4096.0).max(4096.0)
}

fn snap_count(x: f64, _: &Factors) -> f64 {
    x.round().max(1.0)
}

fn snap_hundredth(x: f64, _: &Factors) -> f64 {
    (x * 100.0).round() / 100.0
}

fn pattern_err(e: crate::pattern::PatternError) -> String {
    e.to_string()
}

/// Every factor `map` sweeps.
pub static FACTORS: &[MapFactor] = &[
    MapFactor {
        name: "block",
        noun: "blocks",
        about: "block size (--block)",
        unit: Unit::Bytes,
        scale: Scale::Log,
        range: (1.0, MAX_BLOCK as f64),
        resolution: 1.25,
        snap: snap_block,
        apply: |f, _, v| {
            f.blocks = vec![v as u64];
            Ok(())
        },
    },
    MapFactor {
        name: "size",
        noun: "files",
        about: "file size (--size); with --memory-budget, past the memory available",
        unit: Unit::Bytes,
        scale: Scale::Log,
        range: (4096.0, (1u64 << 40) as f64),
        resolution: 1.25,
        snap: snap_size,
        apply: |f, size, v| {
            *size = v as u64;
            f.sizes_given = true;
            Ok(())
        },
    },
    MapFactor {
        name: "working-set",
        noun: "working sets",
        about: "bytes the accesses go to, spread over the file (hotset:100/Q), below --size",
        unit: Unit::Bytes,
        scale: Scale::Log,
        range: (4096.0, (1u64 << 40) as f64),
        resolution: 1.25,
        snap: snap_size,
        apply: |f, size, v| {
            let share = 100.0 * v / *size as f64;
            if share >= 100.0 {
                return Err(format!(
                    "a working set of {} is not below the file's {} (--size)",
                    format_size(v as u64),
                    format_size(*size)
                ));
            }
            f.patterns = vec![Pattern::hotset(100.0, share).map_err(pattern_err)?];
            Ok(())
        },
    },
    MapFactor {
        name: "threads",
        noun: "threads",
        about: "threads per trial (--threads)",
        unit: Unit::Count,
        scale: Scale::Log,
        range: (1.0, 1024.0),
        resolution: 1.25,
        snap: snap_count,
        apply: |f, _, v| {
            f.threads = vec![v as u32];
            Ok(())
        },
    },
    MapFactor {
        name: "depth",
        noun: "depths",
        about: "io_uring requests in flight (--depth)",
        unit: Unit::Count,
        scale: Scale::Log,
        range: (1.0, 256.0),
        resolution: 1.25,
        snap: snap_count,
        apply: |f, _, v| {
            if !f.methods.iter().any(|m| m.spec().uses_uring) {
                return Err("depth applies to io_uring methods only: give --method with uring or uring-direct".into());
            }
            f.depths = vec![v as u32];
            Ok(())
        },
    },
    MapFactor {
        name: "stride",
        noun: "strides",
        about: "blocks between accesses (stride:N)",
        unit: Unit::Count,
        scale: Scale::Log,
        range: (1.0, (1u64 << 32) as f64),
        resolution: 1.25,
        snap: snap_count,
        apply: |f, _, v| {
            f.patterns = vec![Pattern::stride(v as u64).map_err(pattern_err)?];
            Ok(())
        },
    },
    MapFactor {
        name: "zipf",
        noun: "Zipf exponents",
        about: "Zipf exponent THETA (zipf:THETA), above 0",
        unit: Unit::Real,
        scale: Scale::Linear,
        range: (0.01, 10.0),
        resolution: 0.1,
        snap: snap_hundredth,
        apply: |f, _, v| {
            f.patterns = vec![Pattern::zipf(v).map_err(pattern_err)?];
            Ok(())
        },
    },
    MapFactor {
        name: "hot-share",
        noun: "hot-set shares",
        about: "percent of the accesses that go to a hot 10% of the blocks (hotset:P/10)",
        unit: Unit::Percent,
        scale: Scale::Linear,
        range: (1.0, 100.0),
        resolution: 5.0,
        snap: snap_hundredth,
        apply: |f, _, v| {
            f.patterns = vec![Pattern::hotset(v, 10.0).map_err(pattern_err)?];
            Ok(())
        },
    },
];

/// The factor called `name`.
pub fn find(name: &str) -> Option<&'static MapFactor> {
    FACTORS.iter().find(|f| f.name == name)
}

/// The names, for messages: `block, size, ...`.
pub fn names() -> String {
    FACTORS
        .iter()
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;

    #[test]
    fn four_bits_gives_steps_of_an_eighth_at_most() {
        assert_eq!(four_bits(32768.0), 32768.0);
        assert_eq!(four_bits(45.25 * 1024.0), 44.0 * 1024.0);
        assert_eq!(four_bits(0.2), 1.0);
        assert_eq!(four_bits(7.0), 7.0);
        for x in [100.0, 5000.0, 77777.0, 1e6] {
            let s = four_bits(x);
            assert!((s / x - 1.0).abs() <= 1.0 / 16.0 + 1e-9, "{x} -> {s}");
        }
    }

    #[test]
    fn direct_blocks_are_whole_pages() {
        let mut f = Factors {
            methods: vec![MethodKind::Read, MethodKind::Direct],
            ..Factors::default()
        };
        assert_eq!(snap_block(10000.0, &f), 12288.0);
        assert_eq!(snap_block(100.0, &f), 4096.0);
        f.methods = vec![MethodKind::Read, MethodKind::Mmap];
        assert_eq!(snap_block(100.0, &f), 104.0);
    }

    #[test]
    fn every_factor_has_a_unique_name_and_a_resolution_for_its_scale() {
        for (i, f) in FACTORS.iter().enumerate() {
            assert!(
                FACTORS[i + 1..].iter().all(|g| g.name != f.name),
                "{}",
                f.name
            );
            match f.scale {
                Scale::Log => assert!(f.resolution > 1.0, "{}", f.name),
                Scale::Linear => assert!(f.resolution > 0.0, "{}", f.name),
            }
            assert!(f.range.0 < f.range.1, "{}", f.name);
        }
    }

    #[test]
    fn a_working_set_as_large_as_the_file_is_refused() {
        let mut f = Factors::default();
        let mut size = 1 << 20;
        assert!((find("working-set").unwrap().apply)(&mut f, &mut size, (1 << 20) as f64).is_err());
        assert!((find("working-set").unwrap().apply)(&mut f, &mut size, (1 << 18) as f64).is_ok());
        assert_eq!(f.patterns, vec![Pattern::hotset(100.0, 25.0).unwrap()]);
    }
}
