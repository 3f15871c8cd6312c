//! Machine-wide CPU time from `/proc/stat`: the aggregate `cpu` line and
//! the number of `cpuN` lines (online CPUs).
//!
//! Fields of the `cpu` line, in `USER_HZ` ticks (1/100 s on Linux):
//! `user nice system idle iowait irq softirq steal guest guest_nice`.
//! `guest` and `guest_nice` are already inside `user` and `nice`, so they
//! are never added again.
//!
//! Two ways to get the machine's busy time over a window:
//! - *busy fields*: `user + nice + system + irq + softirq`;
//! - *idle-based*: `cores × wall − (idle + iowait + steal)`.
//!
//! With tick-based CPU accounting (`CONFIG_TICK_CPU_ACCOUNTING`, the usual
//! case) the busy fields are sampled: each timer tick charges a whole tick
//! to whatever ran. Idle time is instead measured exactly by the nohz idle
//! code (`get_cpu_idle_time_us`, including an idle period in progress), so
//! [`CpuDelta::busy_ns_idle_based`] is the better estimator; both are then
//! printed in 10 ms units, so either has a resolution of ±10 ms per window.
//! docs/interference.md has the measurements behind the choice.
use serde::{Deserialize, Serialize};

/// One reading of the aggregate `cpu` line, in ticks, and the CPU count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuTimes {
    /// user (includes guest).
    pub user: u64,
    /// nice (includes guest_nice).
    pub nice: u64,
    /// system.
    pub system: u64,
    /// idle.
    pub idle: u64,
    /// iowait: idle with I/O outstanding.
    pub iowait: u64,
    /// hard interrupts (0 without `CONFIG_IRQ_TIME_ACCOUNTING` unless a tick lands in one).
    pub irq: u64,
    /// soft interrupts.
    pub softirq: u64,
    /// time the hypervisor ran something else while this guest wanted the CPU.
    pub steal: u64,
    /// `cpuN` lines: CPUs online.
    pub cores: u32,
}

/// Parses the text of `/proc/stat`. `None` without a `cpu` line with at
/// least the first 4 fields. Missing later fields (very old kernels) are 0.
pub fn parse(text: &str) -> Option<CpuTimes> {
    let mut times = None;
    let mut cores = 0;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("cpu") => {
                let v: Vec<u64> = words.map(|w| w.parse().ok()).collect::<Option<_>>()?;
                if v.len() < 4 {
                    return None;
                }
                let f = |i: usize| v.get(i).copied().unwrap_or(0);
                times = Some(CpuTimes {
                    user: f(0),
                    nice: f(1),
                    system: f(2),
                    idle: f(3),
                    iowait: f(4),
                    irq: f(5),
                    softirq: f(6),
                    steal: f(7),
                    cores: 0,
                });
            }
            Some(w)
                if w.len() > 3
                    && w.starts_with("cpu")
                    && w[3..].bytes().all(|b| b.is_ascii_digit()) =>
            {
                cores += 1
            }
            _ => {}
        }
    }
    times.map(|t| CpuTimes { cores, ..t })
}

/// Reads `/proc/stat`.
pub fn read() -> Option<CpuTimes> {
    parse(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// Nanoseconds per `USER_HZ` tick (10 ms when `sysconf` fails).
pub fn tick_ns() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 {
        1_000_000_000 / hz as u64
    } else {
        10_000_000
    }
}

/// What changed between two readings, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuDelta {
    /// user + nice + system + irq + softirq.
    pub busy_fields_ns: u64,
    /// idle + iowait.
    pub idle_ns: u64,
    /// steal.
    pub steal_ns: u64,
    /// irq + softirq: interrupt handling, charged to no process (on an
    /// I/O-heavy trial, mostly the completion of its own requests).
    pub interrupt_ns: u64,
    /// CPUs online at the later reading.
    pub cores: u32,
}

impl CpuTimes {
    /// The change since `earlier`, with `tick_ns` per tick. Counters never
    /// go back; a smaller later value (CPU hot-unplug) counts as 0.
    pub fn delta_since(&self, earlier: &CpuTimes, tick_ns: u64) -> CpuDelta {
        let d = |a: u64, b: u64| a.saturating_sub(b) * tick_ns;
        CpuDelta {
            busy_fields_ns: d(self.user, earlier.user)
                + d(self.nice, earlier.nice)
                + d(self.system, earlier.system)
                + d(self.irq, earlier.irq)
                + d(self.softirq, earlier.softirq),
            idle_ns: d(self.idle, earlier.idle) + d(self.iowait, earlier.iowait),
            steal_ns: d(self.steal, earlier.steal),
            interrupt_ns: d(self.irq, earlier.irq) + d(self.softirq, earlier.softirq),
            cores: self.cores,
        }
    }
}

impl CpuDelta {
    /// Busy time as `cores × wall − idle − steal` (never below 0).
    pub fn busy_ns_idle_based(&self, wall_ns: u64) -> u64 {
        (self.cores as u64 * wall_ns).saturating_sub(self.idle_ns + self.steal_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = include_str!("../../tests/fixtures/proc/proc_stat_before.txt");
    const AFTER: &str = include_str!("../../tests/fixtures/proc/proc_stat_after.txt");

    #[test]
    fn parses_the_aggregate_line_and_counts_cpus() {
        let t = parse(BEFORE).unwrap();
        assert_eq!(
            t,
            CpuTimes {
                user: 34516,
                nice: 0,
                system: 8797,
                idle: 70882,
                iowait: 3111,
                irq: 0,
                softirq: 204,
                steal: 107,
                cores: 2,
            }
        );
    }

    #[test]
    fn delta_in_ns() {
        let (b, a) = (parse(BEFORE).unwrap(), parse(AFTER).unwrap());
        let d = a.delta_since(&b, 10_000_000);
        // user +30, system +4, softirq +1 ticks; idle +16, iowait +0; steal +2.
        assert_eq!(d.busy_fields_ns, 350_000_000);
        assert_eq!(d.idle_ns, 160_000_000);
        assert_eq!(d.steal_ns, 20_000_000);
        assert_eq!(d.cores, 2);
        // 2 cores × 0.27 s = 540 ms; minus 160 idle, minus 20 steal.
        assert_eq!(d.busy_ns_idle_based(270_000_000), 360_000_000);
        assert_eq!(d.busy_ns_idle_based(10_000_000), 0);
    }

    #[test]
    fn old_or_broken_text() {
        // A 2.6-era line with 7 fields still parses; steal is 0.
        let t = parse("cpu 1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n").unwrap();
        assert_eq!((t.softirq, t.steal, t.cores), (7, 0, 1));
        assert_eq!(parse("cpu 1 2 3\n"), None);
        assert_eq!(parse("cpu 1 x 3 4\n"), None);
        assert_eq!(parse("intr 5\n"), None);
        // `cpufreq`-like words are not CPUs.
        assert_eq!(parse("cpu 1 2 3 4\ncpux 1 2 3 4\n").unwrap().cores, 0);
    }

    #[test]
    fn reads_this_machine() {
        let t = read().expect("/proc/stat");
        assert!(t.cores >= 1);
        assert!(tick_ns() > 0);
    }
}
