//! Pressure stall information (`/proc/pressure/{cpu,io,memory}`): the
//! cumulative `total=` microseconds during which *some* task (or, for
//! `full`, every non-idle task) was stalled on the resource.
//!
//! The files are absent when the kernel lacks `CONFIG_PSI` or boots with
//! `psi=0` (and `CONFIG_PSI_DEFAULT_DISABLED` needs `psi=1`); the `full`
//! line of `cpu` only exists since Linux 5.13. Both cases give `None`
//! rather than an error. The figures are system-wide: a trial's own stalls
//! (a cold trial waiting for the disk, more threads than CPUs) count too.
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Cumulative stall totals of one resource, µs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// `some total=`.
    pub some_us: u64,
    /// `full total=`, when the line exists.
    pub full_us: Option<u64>,
}

/// Totals of the three resources, each `None` when unreadable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pressure {
    /// `/proc/pressure/cpu`.
    pub cpu: Option<Totals>,
    /// `/proc/pressure/io`.
    pub io: Option<Totals>,
    /// `/proc/pressure/memory`.
    pub memory: Option<Totals>,
}

/// Parses one pressure file. `None` without a readable `some` line.
pub fn parse(text: &str) -> Option<Totals> {
    let total = |kind: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(kind))
            .and_then(|l| {
                l.split_whitespace()
                    .find_map(|w| w.strip_prefix("total="))
                    .and_then(|v| v.parse::<u64>().ok())
            })
    };
    Some(Totals {
        some_us: total("some")?,
        full_us: total("full"),
    })
}

/// Reads the three files under `dir` (normally `/proc/pressure`).
pub fn read_in(dir: &Path) -> Pressure {
    let one = |name: &str| parse(&std::fs::read_to_string(dir.join(name)).ok()?);
    Pressure {
        cpu: one("cpu"),
        io: one("io"),
        memory: one("memory"),
    }
}

/// Reads `/proc/pressure`.
pub fn read() -> Pressure {
    read_in(Path::new("/proc/pressure"))
}

/// Stall time of one resource over a window, µs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StallDelta {
    /// Time some task was stalled.
    pub some_us: u64,
    /// Time all non-idle tasks were stalled; `None` without a `full` line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_us: Option<u64>,
}

/// The change of one resource's totals; `None` when either reading is missing.
pub fn delta(before: Option<Totals>, after: Option<Totals>) -> Option<StallDelta> {
    let (b, a) = (before?, after?);
    Some(StallDelta {
        some_us: a.some_us.saturating_sub(b.some_us),
        full_us: match (b.full_us, a.full_us) {
            (Some(b), Some(a)) => Some(a.saturating_sub(b)),
            _ => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fixtures() {
        let cpu = parse(include_str!("../../tests/fixtures/proc/psi_cpu.txt")).unwrap();
        assert_eq!(
            cpu,
            Totals {
                some_us: 30_192_922,
                full_us: Some(0)
            }
        );
        let io = parse(include_str!("../../tests/fixtures/proc/psi_io.txt")).unwrap();
        assert_eq!(
            io,
            Totals {
                some_us: 33_132_188,
                full_us: Some(27_132_684)
            }
        );
        let old = parse(include_str!(
            "../../tests/fixtures/proc/psi_cpu_old_kernel.txt"
        ))
        .unwrap();
        assert_eq!(
            old,
            Totals {
                some_us: 123_456,
                full_us: None
            }
        );
    }

    #[test]
    fn broken_text_is_none() {
        assert_eq!(parse(""), None);
        assert_eq!(parse("full avg10=0.00 total=5\n"), None);
        assert_eq!(parse("some avg10=0.00 total=abc\n"), None);
    }

    #[test]
    fn missing_files_are_none() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("io"),
            "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n",
        )
        .unwrap();
        let p = read_in(dir.path());
        assert_eq!(p.cpu, None);
        assert_eq!(
            p.io,
            Some(Totals {
                some_us: 7,
                full_us: None
            })
        );
        assert_eq!(p.memory, None);
    }

    #[test]
    fn deltas() {
        let t = |s, f| {
            Some(Totals {
                some_us: s,
                full_us: f,
            })
        };
        assert_eq!(
            delta(t(10, Some(4)), t(25, Some(9))),
            Some(StallDelta {
                some_us: 15,
                full_us: Some(5)
            })
        );
        assert_eq!(
            delta(t(10, None), t(25, Some(9))),
            Some(StallDelta {
                some_us: 15,
                full_us: None
            })
        );
        assert_eq!(delta(None, t(1, None)), None);
    }
}
