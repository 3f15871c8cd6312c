//! Paced load (`--rate`, `--think-time`): a trial that issues its operations
//! at a target rate, or waits a think time after each, instead of running
//! flat out, so that latencies are compared at a fixed load (fio's `rate`,
//! `rate_iops` and `thinktime`). The waiting is the trial's work
//! ([`crate::trial::main_loop`]); this is the value type, its parser and
//! the cases it cannot go with.
use serde::{Deserialize, Serialize};

use crate::size::{format_size, parse_size};

/// A target rate: operations (blocks) per second, or bytes per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rate {
    /// Operations per second (`--rate 2000`).
    OpsPerS(u64),
    /// Bytes per second (`--rate 64M/s`), one block of `--block` bytes per operation.
    BytesPerS(u64),
}

impl Rate {
    /// The time from one operation's start to the next's, ns, for blocks of
    /// `block_size` bytes (at least 1 ns).
    pub fn interval_ns(self, block_size: u64) -> u64 {
        let ns = match self {
            Rate::OpsPerS(n) => 1_000_000_000u128 / u128::from(n.max(1)),
            Rate::BytesPerS(b) => u128::from(block_size) * 1_000_000_000u128 / u128::from(b.max(1)),
        };
        u64::try_from(ns).unwrap_or(u64::MAX).max(1)
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rate::OpsPerS(n) => write!(f, "{n} ops/s"),
            Rate::BytesPerS(b) => write!(f, "{}/s", format_size(*b)),
        }
    }
}

/// Most operations per second `--rate` takes (one every 1 µs).
pub const MAX_OPS_PER_S: u64 = 1_000_000;

/// Parses `--rate`: `2000` or `2000/s` (operations per second, 1 to
/// 1 000 000), or a size per second such as `64M/s` or `512KiB/s`.
pub fn parse_rate(input: &str) -> Result<Rate, String> {
    let s = input.trim();
    let (number, per_second) = match s.strip_suffix("/s") {
        Some(n) => (n.trim(), true),
        None => (s, false),
    };
    if let Ok(n) = number.parse::<u64>() {
        if n == 0 || n > MAX_OPS_PER_S {
            return Err(format!(
                "{n} operations per second is out of range: give 1 to {MAX_OPS_PER_S} (or a size per second such as 64M/s)"
            ));
        }
        return Ok(Rate::OpsPerS(n));
    }
    if !per_second {
        return Err(format!(
            "'{s}' is not a rate: give operations per second (2000) or bytes per second (64M/s)"
        ));
    }
    match parse_size(number) {
        Ok(0) => Err("0 bytes per second would never finish; give a positive rate".into()),
        Ok(b) => Ok(Rate::BytesPerS(b)),
        Err(e) => Err(format!("'{s}' is not a rate: {e}")),
    }
}

/// How a trial paces its operations. At least one of the two is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Pace {
    /// Operation `k` starts no earlier than `k` intervals after the first
    /// (an operation that is late starts at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// The wait after each operation before the next starts, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_ns: Option<u64>,
}

impl std::fmt::Display for Pace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some(r) = self.rate {
            parts.push(format!("paced {r}"));
        }
        if let Some(t) = self.think_ns {
            parts.push(format!("think {}", think_label(t)));
        }
        f.write_str(&parts.join(", "))
    }
}

/// A think time as labels show it: `5 ms`, `1.5 s`.
fn think_label(ns: u64) -> String {
    if ns >= 1_000_000_000 {
        format!("{} s", ns as f64 / 1e9)
    } else {
        format!("{} ms", ns as f64 / 1e6)
    }
}

/// The paces of a plan: each rate with each think time (an empty list
/// leaves that part out); `[None]` when neither flag was given.
pub fn choices(rates: &[Rate], thinks: &[u64]) -> Vec<Option<Pace>> {
    let rates: Vec<Option<Rate>> = if rates.is_empty() {
        vec![None]
    } else {
        rates.iter().copied().map(Some).collect()
    };
    let thinks: Vec<Option<u64>> = if thinks.is_empty() {
        vec![None]
    } else {
        thinks.iter().copied().map(Some).collect()
    };
    let mut out = Vec::new();
    for &rate in &rates {
        for &think_ns in &thinks {
            out.push((rate.is_some() || think_ns.is_some()).then_some(Pace { rate, think_ns }));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_operations_or_bytes_per_second() {
        assert_eq!(parse_rate("2000"), Ok(Rate::OpsPerS(2000)));
        assert_eq!(parse_rate("2000/s"), Ok(Rate::OpsPerS(2000)));
        assert_eq!(parse_rate("64M/s"), Ok(Rate::BytesPerS(64 << 20)));
        assert_eq!(parse_rate("1.5KB/s"), Ok(Rate::BytesPerS(1500)));
        for bad in ["0", "0/s", "2000001", "fast", "64M", "0M/s", "-5", "1.5"] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
        assert_eq!(Rate::OpsPerS(2000).interval_ns(4096), 500_000);
        assert_eq!(Rate::BytesPerS(4 << 20).interval_ns(4096), 976_562);
        assert_eq!(Rate::OpsPerS(2000).to_string(), "2000 ops/s");
        assert_eq!(Rate::BytesPerS(64 << 20).to_string(), "64 MiB/s");
    }

    #[test]
    fn each_rate_goes_with_each_think_time() {
        assert_eq!(choices(&[], &[]), vec![None]);
        let paces = choices(&[Rate::OpsPerS(10), Rate::OpsPerS(20)], &[5_000_000]);
        assert_eq!(paces.len(), 2);
        assert_eq!(paces[1].unwrap().to_string(), "paced 20 ops/s, think 5 ms");
        let thinks = choices(&[], &[1_000_000, 2_500_000_000]);
        assert_eq!(thinks[1].unwrap().to_string(), "think 2.5 s");
        assert!(thinks[0].unwrap().rate.is_none());
    }
}
