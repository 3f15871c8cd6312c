//! Per-second timelines of a duration-bounded trial ([`crate::trial::timed`]):
//! reads completed, TLB shootdowns, major faults, bytes the trial itself
//! caused to be read from storage (`/proc/self/io`), bytes read from the
//! file's device (by anyone) and the page cache charged to the trial's
//! cgroup, one point per second.
//!
//! The trial's sampler takes one [`Reading`] of cumulative counters when the
//! workers start and one at the end of each second; [`bucket`] turns them
//! into [`TimelinePoint`]s (per-second deltas). The workers publish their
//! read counts through [`OpCounters`], one cache line per worker, updated with
//! relaxed stores after each small chunk of reads: nothing else is added to
//! their loop, and trials without a duration have no timeline at all.
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// Cumulative counters at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Reading {
    /// Time since the workers started, ns.
    pub at_ns: u64,
    /// Reads completed by all workers.
    pub reads: u64,
    /// TLB shootdown interrupts, summed over CPUs (system-wide).
    pub tlb_shootdowns: Option<u64>,
    /// Major faults of the trial process (all threads).
    pub major_faults: u64,
    /// Bytes read from the file's block device (device-wide).
    pub device_read_bytes: Option<u64>,
    /// Bytes the trial process caused to be read from storage
    /// (`read_bytes` of /proc/self/io: its own, readahead included).
    pub own_read_bytes: Option<u64>,
    /// Memory charged to the trial's cgroup now, bytes.
    pub cgroup_bytes: Option<u64>,
}

/// One second of a trial.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelinePoint {
    /// End of the interval, seconds since the workers started (1, 2, ...).
    pub second: u32,
    /// Length of the interval actually measured, s (about 1).
    pub interval_s: f64,
    /// Reads completed in the interval.
    pub reads: u64,
    /// Reads per second.
    pub reads_per_s: f64,
    /// TLB shootdowns per second, system-wide (`None` without /proc/interrupts' TLB line).
    pub tlb_shootdowns_per_s: Option<f64>,
    /// Major faults per second of the trial process.
    pub major_faults_per_s: f64,
    /// Bytes per second read from the device (`None` without a block device).
    pub device_read_bytes_per_s: Option<f64>,
    /// Bytes per second the trial itself caused to be read from storage
    /// (`None` without /proc/self/io, or in results from before it was read).
    #[serde(default)]
    pub own_read_bytes_per_s: Option<f64>,
    /// Memory charged to the trial's cgroup at the end of the interval, bytes
    /// (`None` without a cgroup).
    pub cgroup_bytes: Option<u64>,
}

/// The per-second points from consecutive readings (the first taken at the
/// start): one point per pair, rates over the pair's measured interval.
/// Counters that went backwards count as 0.
pub fn bucket(readings: &[Reading]) -> Vec<TimelinePoint> {
    readings
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            let (a, b) = (w[0], w[1]);
            let interval_s = (b.at_ns.saturating_sub(a.at_ns) as f64 / 1e9).max(1e-9);
            let rate = |x: u64, y: u64| y.saturating_sub(x) as f64 / interval_s;
            let opt_rate = |x: Option<u64>, y: Option<u64>| Some(rate(x?, y?));
            TimelinePoint {
                second: i as u32 + 1,
                interval_s,
                reads: b.reads.saturating_sub(a.reads),
                reads_per_s: rate(a.reads, b.reads),
                tlb_shootdowns_per_s: opt_rate(a.tlb_shootdowns, b.tlb_shootdowns),
                major_faults_per_s: rate(a.major_faults, b.major_faults),
                device_read_bytes_per_s: opt_rate(a.device_read_bytes, b.device_read_bytes),
                own_read_bytes_per_s: opt_rate(a.own_read_bytes, b.own_read_bytes),
                cgroup_bytes: b.cgroup_bytes,
            }
        })
        .collect()
}

/// The TLB shootdowns in /proc/interrupts text: the `TLB:` line's per-CPU
/// counts, summed (the line's description is not a number and is skipped).
pub fn parse_tlb_shootdowns(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.trim_start().starts_with("TLB:"))?;
    let counts: Vec<u64> = line
        .trim_start()
        .trim_start_matches("TLB:")
        .split_whitespace()
        .map_while(|f| f.parse().ok())
        .collect();
    (!counts.is_empty()).then(|| counts.iter().sum())
}

/// TLB shootdowns so far, system-wide; `None` where /proc/interrupts has no TLB line.
pub fn tlb_shootdowns() -> Option<u64> {
    parse_tlb_shootdowns(&std::fs::read_to_string("/proc/interrupts").ok()?)
}

/// `read_bytes` of /proc/self/io text: the bytes this process caused to be
/// fetched from storage.
pub fn parse_io_read_bytes(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("read_bytes:"))?
        .trim()
        .parse()
        .ok()
}

/// The bytes this process has caused to be read from storage so far
/// (all its threads); `None` without /proc/self/io (no task I/O accounting).
pub fn own_read_bytes() -> Option<u64> {
    parse_io_read_bytes(&std::fs::read_to_string("/proc/self/io").ok()?)
}

/// A number read from a one-number file (a cgroup's `memory.current`).
pub fn read_number(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// A counter alone on its cache line, so workers never share one.
#[derive(Debug, Default)]
#[repr(align(128))]
struct PaddedCounter(AtomicU64);

/// One read counter per worker: each worker adds to its own, the sampler sums them.
#[derive(Debug)]
pub struct OpCounters(Vec<PaddedCounter>);

impl OpCounters {
    /// Counters for `workers` workers, all 0.
    pub fn new(workers: usize) -> OpCounters {
        OpCounters((0..workers).map(|_| PaddedCounter::default()).collect())
    }

    /// Worker `w` has completed `n` more reads (only it writes its counter).
    #[inline]
    pub fn add(&self, w: usize, n: u64) {
        let c = &self.0[w].0;
        c.store(c.load(Ordering::Relaxed) + n, Ordering::Relaxed);
    }

    /// Reads completed by all workers so far.
    pub fn total(&self) -> u64 {
        self.0.iter().map(|c| c.0.load(Ordering::Relaxed)).sum()
    }
}

/// The second at the end of which the cgroup's page cache first reached 90%
/// of `limit` (1-based: point k covers second k);
/// without cgroup readings, the second by which the device had read `limit`
/// bytes. `None` when the budget never filled.
pub fn filled_at(points: &[TimelinePoint], limit: u64) -> Option<u32> {
    let threshold = limit as f64 * 0.9;
    if points.iter().any(|p| p.cgroup_bytes.is_some()) {
        return points
            .iter()
            .find(|p| p.cgroup_bytes.is_some_and(|b| b as f64 >= threshold))
            .map(|p| p.second);
    }
    let mut read = 0.0;
    points.iter().find_map(|p| {
        read += p.device_read_bytes_per_s? * p.interval_s;
        (read >= limit as f64).then_some(p.second)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_tlb_line_of_proc_interrupts() {
        let text = "           CPU0       CPU1       CPU2\n\
                      0:         44          0          0   IO-APIC   2-edge      timer\n\
                    NMI:          0          0          0   Non-maskable interrupts\n\
                    TLB:     247191     236081         10   TLB shootdowns\n\
                    TRM:          0          0          0   Thermal event interrupts\n";
        assert_eq!(parse_tlb_shootdowns(text), Some(247191 + 236081 + 10));
        assert_eq!(
            parse_tlb_shootdowns("  TLB:  5   TLB shootdowns\n"),
            Some(5)
        );
        assert_eq!(parse_tlb_shootdowns("NMI: 1 2\n"), None);
        assert_eq!(parse_tlb_shootdowns("TLB: TLB shootdowns\n"), None);
    }

    #[test]
    fn real_proc_interrupts_has_a_tlb_line_on_x86() {
        if cfg!(target_arch = "x86_64") {
            assert!(tlb_shootdowns().is_some());
        }
    }

    fn reading(at_s: f64, reads: u64, tlb: u64, majflt: u64, dev: u64) -> Reading {
        Reading {
            at_ns: (at_s * 1e9) as u64,
            reads,
            tlb_shootdowns: Some(tlb),
            major_faults: majflt,
            device_read_bytes: Some(dev),
            own_read_bytes: Some(dev / 2),
            cgroup_bytes: Some(reads * 10),
        }
    }

    #[test]
    fn buckets_one_point_per_second_with_rates_over_the_measured_interval() {
        let readings = [
            reading(0.0, 0, 100, 5, 0),
            reading(1.0, 1000, 150, 7, 4096),
            reading(2.0, 1500, 150, 9, 8192),
            reading(3.5, 3000, 450, 9, 8192),
        ];
        let points = bucket(&readings);
        assert_eq!(points.len(), 3);
        assert_eq!(
            points.iter().map(|p| p.second).collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert_eq!(points[0].reads, 1000);
        assert_eq!(points[0].reads_per_s, 1000.0);
        assert_eq!(points[0].tlb_shootdowns_per_s, Some(50.0));
        assert_eq!(points[1].major_faults_per_s, 2.0);
        assert_eq!(points[1].device_read_bytes_per_s, Some(4096.0));
        assert_eq!(points[1].own_read_bytes_per_s, Some(2048.0));
        assert_eq!(points[1].cgroup_bytes, Some(15000));
        // A longer interval: rates divide by its measured length.
        assert!((points[2].interval_s - 1.5).abs() < 1e-9);
        assert!((points[2].reads_per_s - 1000.0).abs() < 1e-6);
        assert!((points[2].tlb_shootdowns_per_s.unwrap() - 200.0).abs() < 1e-6);
        assert!(bucket(&readings[..1]).is_empty());
        // A missing counter stays missing.
        let mut no_tlb = readings;
        no_tlb[1].tlb_shootdowns = None;
        assert_eq!(bucket(&no_tlb)[0].tlb_shootdowns_per_s, None);
    }

    #[test]
    fn finds_when_the_budget_filled() {
        let readings: Vec<Reading> = (0..5)
            .map(|s| reading(s as f64, s * 100, 0, 0, s * 1000))
            .collect();
        let points = bucket(&readings);
        // cgroup bytes are reads × 10: 1000, 2000, 3000, 4000.
        assert_eq!(filled_at(&points, 3000), Some(3));
        assert_eq!(filled_at(&points, 10_000), None);
        let no_cgroup: Vec<TimelinePoint> = points
            .iter()
            .map(|p| TimelinePoint {
                cgroup_bytes: None,
                ..*p
            })
            .collect();
        assert_eq!(filled_at(&no_cgroup, 2000), Some(2));
    }

    #[test]
    fn reads_own_storage_bytes_from_proc_self_io() {
        let text = "rchar: 100\nwchar: 5\nsyscr: 3\nsyscw: 1\nread_bytes: 8192\nwrite_bytes: 0\n";
        assert_eq!(parse_io_read_bytes(text), Some(8192));
        assert_eq!(parse_io_read_bytes("rchar: 1\n"), None);
        if std::path::Path::new("/proc/self/io").exists() {
            assert!(own_read_bytes().is_some());
        }
    }

    #[test]
    fn counters_sum_over_workers() {
        let c = OpCounters::new(3);
        c.add(0, 5);
        c.add(2, 7);
        c.add(0, 1);
        assert_eq!(c.total(), 13);
        assert!(std::mem::align_of::<PaddedCounter>() >= 64);
    }
}
