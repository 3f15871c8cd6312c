//! Case summaries and comparisons computed from samples.
//!
//! The compared time of a sample is chosen by the plan's [`Metric`]
//! ([`metric_time`]): `total_ns` (setup + loop + teardown) or the main loop's
//! `wall_ns`. Throughput is bytes delivered over that time.
//!
//! Invariants:
//! - [`summarize_case`] is `Some` for any non-empty slice of sane samples
//!   (compared time > 0, bytes > 0, finite residencies), and then every
//!   number in the [`CaseSummary`] is finite;
//! - [`compare_cases`] only pairs samples of equal `run`, so the order of
//!   the slices does not matter and unpaired runs do not count.

pub use super::paired_costs::{metric_time, paired_compared_costs};
use crate::plan::Metric;
use crate::results::{CaseSummary, PerMib, Sample};
use crate::stats::summary::summarize;
use crate::stats::{paired_ratio, RatioEstimate};

/// Where a trial's own storage bytes come from.
pub const OWN_BYTES_SOURCE: &str =
    "own: the trial process's getrusage ru_inblock/ru_oublock (the /proc/<pid>/io read_bytes/write_bytes counters), over setup + loop + teardown";

/// Bytes the trial's own processes read from storage (page-cache misses and
/// the readahead they triggered, O_DIRECT reads too), and bytes delivered,
/// over the measured part of the trial: `ru_inblock × 512` of the trial
/// process (all its threads); with `--procs`, summed over the processes,
/// and so are the bytes delivered. Another process's reads are never
/// charged to it, unlike the device-wide counters.
pub fn own_read_bytes(sample: &Sample) -> (u64, u64) {
    let procs = &sample.child.procs;
    match procs
        .iter()
        .map(|p| p.read_bytes)
        .collect::<Option<Vec<u64>>>()
    {
        Some(each) if !each.is_empty() => {
            (each.iter().sum(), sample.child.bytes * each.len() as u64)
        }
        _ => (sample.child.rusage.inblock * 512, sample.child.bytes),
    }
}

/// What the faster side's per-trial times are multiplied by to compare
/// them with the slower side's over the same bytes. A warm trial that
/// repeats its pass to a shortest time (`--min-trial-time`, the default
/// without `--runs`) moves more bytes the faster it is, so its per-trial
/// times are not the slower side's work; sides whose trials moved the same
/// bytes (within 2%, the spread of the estimate) compare as they are (1).
pub fn work_scale(faster: &CaseSummary, slower: &CaseSummary) -> f64 {
    match (faster.bytes_per_trial(), slower.bytes_per_trial()) {
        (Some(fast), Some(slow)) if (slow / fast - 1.0).abs() > 0.02 => slow / fast,
        _ => 1.0,
    }
}

/// Bytes in a MiB, the unit of [`PerMib`].
pub const MIB: f64 = 1_048_576.0;

/// Bytes per second delivered over the compared time:
/// `child.bytes / (metric_time / 1e9)`. Infinite or NaN when the time is 0.
pub fn throughput_bps(sample: &Sample, metric: Metric) -> f64 {
    sample.child.bytes as f64 / (metric_time(sample, metric) / 1e9)
}

/// The (minor, major) page faults of `sample` over the time `metric`
/// compares: every fault getrusage counted for [`Metric::Total`]; for
/// [`Metric::Loop`], less those its setup took outside the loop's clock
/// (MAP_POPULATE's prefault), when they were counted apart.
pub fn timed_faults(sample: &Sample, metric: Metric) -> (u64, u64) {
    let r = &sample.child.rusage;
    match (metric, sample.child.setup_faults) {
        (Metric::Loop, Some(setup)) => (
            r.minflt.saturating_sub(setup.minflt),
            r.majflt.saturating_sub(setup.majflt),
        ),
        _ => (r.minflt, r.majflt),
    }
}

/// Summarises the samples of one case; `None` when there are none.
///
/// Nothing is dropped silently, so the result is also `None` when a number
/// cannot be computed for some sample: a compared time of 0 (throughput
/// undefined), 0 bytes delivered (per-MiB counters undefined) or a
/// non-finite residency. The runner never records such samples.
///
/// `read_amplification` is the mean of [`own_read_bytes`] read over
/// delivered, over the samples whose file has a block device, and `None`
/// when none has (a file on tmpfs, procfs or sysfs has no device, and its
/// device figures are not 0.00 but absent); `device_wide_read_amplification`
/// the mean of the device's read bytes over delivered, for those samples.
pub fn summarize_case(samples: &[Sample], metric: Metric) -> Option<CaseSummary> {
    if samples.is_empty() {
        return None;
    }
    let field = |f: &dyn Fn(&Sample) -> f64| summarize(&samples.iter().map(f).collect::<Vec<_>>());
    let per_mib_mean = |counter: &dyn Fn(&Sample) -> f64| {
        finite_mean(
            samples
                .iter()
                .map(|s| counter(s) / (s.child.bytes as f64 / MIB)),
        )
    };
    let per_mib = PerMib {
        minflt: per_mib_mean(&|s| timed_faults(s, metric).0 as f64)?,
        majflt: per_mib_mean(&|s| timed_faults(s, metric).1 as f64)?,
        syscalls: per_mib_mean(&|s| s.child.syscalls as f64)?,
        sys_ms: per_mib_mean(&|s| s.child.rusage.sys_ns as f64 / 1e6)?,
        user_ms: per_mib_mean(&|s| s.child.rusage.user_ns as f64 / 1e6)?,
        nvcsw: per_mib_mean(&|s| s.child.rusage.nvcsw as f64)?,
        nivcsw: per_mib_mean(&|s| s.child.rusage.nivcsw as f64)?,
    };
    // On tmpfs, procfs or sysfs there is no device to read from, and a
    // 0.00 would look measured.
    let amplification: Vec<f64> = samples
        .iter()
        .filter(|s| s.child.device.is_some())
        .map(|s| {
            let (read, delivered) = own_read_bytes(s);
            read as f64 / delivered as f64
        })
        .collect();
    let read_amplification = if amplification.is_empty() {
        None
    } else {
        Some(finite_mean(amplification)?)
    };
    let devices: Vec<_> = samples
        .iter()
        .filter_map(|s| s.child.device.map(|d| (s, d)))
        .collect();
    let device_reads_per_mib = if devices.is_empty() {
        None
    } else {
        Some(finite_mean(devices.iter().map(|(s, d)| {
            d.reads as f64 / (s.child.bytes as f64 / MIB)
        }))?)
    };
    let (requests, request_bytes) = devices.iter().fold((0u64, 0u64), |(n, b), (_, d)| {
        (n + d.reads, b + d.read_bytes)
    });
    let device_read_request_bytes = (requests > 0).then(|| request_bytes as f64 / requests as f64);
    let device_wide_read_amplification = if devices.is_empty() {
        None
    } else {
        Some(finite_mean(
            devices
                .iter()
                .map(|(s, d)| d.read_bytes as f64 / s.child.bytes as f64),
        )?)
    };
    Some(CaseSummary {
        runs: samples.len(),
        device_reads_per_mib,
        device_read_request_bytes,
        time_ns: field(&|s| metric_time(s, metric))?,
        loop_ns: field(&|s| s.child.wall_ns as f64)?,
        setup_ns: field(&|s| s.child.setup_ns as f64)?,
        teardown_ns: field(&|s| s.child.teardown_ns as f64)?,
        sync_ns: Some(field(&|s| s.child.sync_ns as f64)?),
        throughput_bps: field(&|s| throughput_bps(s, metric))?,
        user_ns: field(&|s| s.child.rusage.user_ns as f64)?,
        sys_ns: field(&|s| s.child.rusage.sys_ns as f64)?,
        per_mib,
        read_amplification,
        residency_before: finite_mean(samples.iter().map(|s| s.residency_before))?,
        residency_after: finite_mean(samples.iter().map(|s| s.residency_after))?,
        latency: super::latency::summarize_latency(samples).map(Box::new),
        threads: super::spread::thread_spread(samples).map(Box::new),
        procs: super::spread::proc_spread(samples).map(Box::new),
        ops_per_s: super::access::ops_per_s(samples),
        footprint: super::access::footprint(samples),
        timeline: super::access::timeline(samples),
        read_bytes_source: Some(OWN_BYTES_SOURCE.to_string()),
        device_wide_read_amplification,
        profile: super::profile::summarize_profile(samples).map(Box::new),
        profile_cost: None,
    })
}

/// Mean of the values; `None` when there are none or any is not finite.
fn finite_mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    summarize(&values.into_iter().collect::<Vec<_>>()).map(|s| s.mean)
}

/// Throughput of `other` over `baseline`, paired by run number.
///
/// Samples are paired by their `run` field; runs present in only one slice
/// are left out. With the compared times ([`metric_time`]) `t`, the
/// estimate is [`paired_ratio`]`(t_baseline, t_other)`: `baseline / other`,
/// which is `other`'s throughput over `baseline`'s since the cases of a
/// group deliver the same bytes. Above 1, `other` is faster.
///
/// `None` when fewer than 2 runs pair up, a paired time is 0, or a run
/// number occurs twice in one slice (which sample to pair would be a guess).
pub fn compare_cases(
    baseline: &[Sample],
    other: &[Sample],
    metric: Metric,
) -> Option<RatioEstimate> {
    let (b, o) = paired_compared_costs(baseline, other, metric)?;
    paired_ratio(&b, &o)
}

/// The log ratios `ln(baseline_i / other_i)` of the compared costs, paired
/// by run as [`compare_cases`] pairs them: what the stopping rule and the
/// p-values work on. `None` where `compare_cases` is `None`.
pub fn compared_log_ratios(
    baseline: &[Sample],
    other: &[Sample],
    metric: Metric,
) -> Option<Vec<f64>> {
    compare_cases(baseline, other, metric)?;
    let (b, o) = paired_compared_costs(baseline, other, metric)?;
    Some(crate::stats::log_ratios::log_ratios(&b, &o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::rusage::Counters;
    use crate::results::ChildReport;
    use crate::stats::Verdict;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    fn sample(run: u32, total_ns: u64, wall_ns: u64) -> Sample {
        let child = ChildReport {
            wall_ns,
            bytes: 1 << 20,
            ..Default::default()
        };
        Sample {
            total_ns,
            residency_source: "cachestat".into(),
            cache_prepared_by: "x".into(),
            ..Sample::new(0, run, child)
        }
    }

    fn three_samples() -> Vec<Sample> {
        let mut samples = vec![
            sample(0, 1_000_000, 500_000),
            sample(1, 2_000_000, 1_000_000),
            sample(2, 4_000_000, 2_000_000),
        ];
        for (i, s) in samples.iter_mut().enumerate() {
            s.child.setup_ns = 100 * (i as u64 + 1);
            s.child.teardown_ns = 10 * (i as u64 + 1);
            s.child.syscalls = 16;
            s.child.rusage = Counters {
                user_ns: 1_000_000,
                sys_ns: 3_000_000,
                minflt: 256,
                majflt: 2,
                nvcsw: 4,
                nivcsw: 1,
                ..Default::default()
            };
            s.residency_before = [0.0, 0.02, 0.01][i];
        }
        for s in &mut samples {
            s.child.device = Some(Default::default());
        }
        samples[0].child.vmstat.insert("pgpgin".into(), 2048);
        samples[1].child.vmstat.insert("pgpgin".into(), 1024);
        samples[0].child.rusage.inblock = 4096;
        samples[1].child.rusage.inblock = 2048;
        samples[2].child.vmstat.insert("pgmajfault".into(), 7);
        samples
    }

    #[test]
    fn metric_picks_the_time() {
        let s = sample(0, 3_000, 2_000);
        assert_eq!(metric_time(&s, Metric::Total), 3_000.0);
        assert_eq!(metric_time(&s, Metric::Loop), 2_000.0);
        // 1 MiB in 2 µs = 1048576 / 2e-6 B/s.
        assert!(close(throughput_bps(&s, Metric::Loop), 5.24288e11, 1e-12));
    }

    #[test]
    fn summarize_case_total() {
        let c = summarize_case(&three_samples(), Metric::Total).unwrap();
        assert_eq!(c.runs, 3);
        // totals 1, 2, 4 ms: mean 7/3 ms, median 2 ms, sd = sqrt(7/3) ms.
        assert!(close(c.time_ns.mean, 2_333_333.333_333, 1e-9));
        assert_eq!(c.time_ns.median, 2_000_000.0);
        assert_eq!((c.time_ns.min, c.time_ns.max), (1_000_000.0, 4_000_000.0));
        assert!(close(c.time_ns.sd, 1_527_525.231_652, 1e-9));
        // loops 0.5, 1, 2 ms: mean 7/6 ms.
        assert!(close(c.loop_ns.mean, 1_166_666.666_667, 1e-9));
        assert_eq!(c.setup_ns.mean, 200.0);
        assert_eq!(c.teardown_ns.mean, 20.0);
        assert_eq!(c.sync_ns.as_ref().map(|s| s.mean), Some(0.0));
        assert_eq!(c.user_ns.mean, 1e6);
        assert_eq!(c.sys_ns.mean, 3e6);
        // 1 MiB over 1, 2, 4 ms: 1.048576e9, 5.24288e8, 2.62144e8 B/s;
        // mean 1.835008e9 / 3.
        assert!(close(c.throughput_bps.mean, 611_669_333.333_333, 1e-9));
        assert!(close(c.throughput_bps.median, 524_288_000.0, 1e-12));
        assert!(close(c.throughput_bps.max, 1_048_576_000.0, 1e-12));
        assert_eq!(
            c.per_mib,
            PerMib {
                minflt: 256.0,
                majflt: 2.0,
                syscalls: 16.0,
                sys_ms: 3.0,
                user_ms: 1.0,
                nvcsw: 4.0,
                nivcsw: 1.0,
            }
        );
        // The trial's own reads (ru_inblock, 512-byte units) for 1 MiB: 2,
        // 1 and 0 bytes per byte; the system-wide pgpgin is not used.
        assert_eq!(c.read_amplification, Some(1.0));
        assert_eq!(c.read_bytes_source.as_deref(), Some(OWN_BYTES_SOURCE));
        // The device (device-wide) read nothing in these samples.
        assert_eq!(c.device_wide_read_amplification, Some(0.0));
        assert!(close(c.residency_before, 0.01, 1e-12));
        assert_eq!(c.residency_after, 1.0);
    }

    #[test]
    fn a_file_without_a_device_has_no_device_figures() {
        let mut samples = three_samples();
        for s in &mut samples {
            s.child.device = None;
        }
        let c = summarize_case(&samples, Metric::Total).unwrap();
        assert_eq!(c.read_amplification, None);
        assert_eq!(c.device_reads_per_mib, None);
    }

    #[test]
    fn summarize_case_loop_uses_wall_time() {
        let c = summarize_case(&three_samples(), Metric::Loop).unwrap();
        assert_eq!(c.time_ns, c.loop_ns);
        assert!(close(c.time_ns.mean, 1_166_666.666_667, 1e-9));
        // half the time, twice the throughput: 2 * 1.835008e9 / 3.
        assert!(close(c.throughput_bps.mean, 1_223_338_666.666_667, 1e-9));
        let total = summarize_case(&three_samples(), Metric::Total).unwrap();
        assert_ne!(c.time_ns, total.time_ns);
        assert_eq!(c.loop_ns, total.loop_ns);
    }

    #[test]
    fn per_mib_is_a_mean_of_per_sample_rates() {
        let mut a = sample(0, 1_000, 1_000);
        a.child.rusage.minflt = 256;
        let mut b = sample(1, 1_000, 1_000);
        b.child.bytes = 4 << 20;
        b.child.rusage.minflt = 512;
        // 256 / 1 MiB and 512 / 4 MiB = 128: mean 192 (not 768 / 5).
        let c = summarize_case(&[a, b], Metric::Total).unwrap();
        assert_eq!(c.per_mib.minflt, 192.0);
        // No block device: no amplification to show.
        assert_eq!(c.read_amplification, None);
    }

    #[test]
    fn faults_per_mib_leave_out_an_untimed_setups_faults() {
        // 300 faults, 256 of them MAP_POPULATE's prefault in setup.
        let mut a = sample(0, 1_000, 1_000);
        a.child.rusage.minflt = 300;
        a.child.rusage.majflt = 3;
        a.child.setup_faults = Some(crate::results::SetupFaults {
            minflt: 256,
            majflt: 2,
        });
        // The loop's clock leaves setup out, and so do its faults.
        let looped = summarize_case(std::slice::from_ref(&a), Metric::Loop).unwrap();
        assert_eq!((looped.per_mib.minflt, looped.per_mib.majflt), (44.0, 1.0));
        assert_eq!(timed_faults(&a, Metric::Loop), (44, 1));
        // The whole trial's clock counts setup, and every fault.
        let total = summarize_case(std::slice::from_ref(&a), Metric::Total).unwrap();
        assert_eq!((total.per_mib.minflt, total.per_mib.majflt), (300.0, 3.0));
        // Not counted apart (results from before): every fault, either way.
        a.child.setup_faults = None;
        assert_eq!(timed_faults(&a, Metric::Loop), (300, 3));
    }

    #[test]
    fn summarize_case_rejects_what_it_cannot_compute() {
        assert_eq!(summarize_case(&[], Metric::Total), None);
        let zero_time = sample(0, 0, 0);
        assert_eq!(summarize_case(&[zero_time], Metric::Total), None);
        let zero_loop = sample(0, 1_000, 0);
        assert!(summarize_case(std::slice::from_ref(&zero_loop), Metric::Total).is_some());
        assert_eq!(summarize_case(&[zero_loop], Metric::Loop), None);
        let mut no_bytes = sample(0, 1_000, 1_000);
        no_bytes.child.bytes = 0;
        assert_eq!(summarize_case(&[no_bytes], Metric::Total), None);
    }

    #[test]
    fn compare_cases_pairs_by_run() {
        // baseline runs 0, 1, 2, 5; other runs 2, 0, 1, 3 (out of order).
        let baseline = vec![
            sample(0, 2_000_000, 1_000_000),
            sample(1, 4_000_000, 2_000_000),
            sample(2, 8_000_000, 4_000_000),
            sample(5, 1_000_000, 1_000_000),
        ];
        let other = vec![
            sample(2, 4_000_000, 4_000_000),
            sample(0, 1_000_000, 1_000_000),
            sample(1, 2_000_000, 2_000_000),
            sample(3, 5, 9),
        ];
        // Runs 0, 1, 2 pair up; totals halve in each: other is 2x faster.
        let total = compare_cases(&baseline, &other, Metric::Total).unwrap();
        assert_eq!(total.pairs, 3);
        assert!(close(total.ratio, 2.0, 1e-12));
        assert_eq!(
            (total.ci95_low, total.ci95_high),
            (total.ratio, total.ratio)
        );
        assert_eq!(total.verdict(), Verdict::Faster);
        // The loops are equal in each pair: ratio 1, within noise.
        let lp = compare_cases(&baseline, &other, Metric::Loop).unwrap();
        assert_eq!(lp.pairs, 3);
        assert_eq!((lp.ratio, lp.ci95_low, lp.ci95_high), (1.0, 1.0, 1.0));
        assert_eq!(lp.verdict(), Verdict::WithinNoise);
        // Swapped, other is 2x slower.
        let back = compare_cases(&other, &baseline, Metric::Total).unwrap();
        assert!(close(back.ratio, 0.5, 1e-12));
        assert_eq!(back.verdict(), Verdict::Slower);
    }

    #[test]
    fn compare_cases_needs_two_distinct_pairs() {
        let baseline = vec![sample(0, 2_000, 2_000), sample(1, 2_000, 2_000)];
        let lone = vec![sample(1, 1_000, 1_000), sample(7, 1_000, 1_000)];
        assert_eq!(compare_cases(&baseline, &lone, Metric::Total), None);
        let dup = vec![sample(0, 1_000, 1_000), sample(0, 1_500, 1_500)];
        assert_eq!(compare_cases(&baseline, &dup, Metric::Total), None);
        let zero = vec![sample(0, 1_000, 1_000), sample(1, 0, 0)];
        assert_eq!(compare_cases(&baseline, &zero, Metric::Total), None);
        assert_eq!(compare_cases(&[], &[], Metric::Total), None);
    }

    #[test]
    fn duration_bounded_samples_compare_time_per_byte() {
        // Same time, other delivers twice the bytes: other is 2x faster.
        let with_bytes = |run, bytes| {
            let mut s = sample(run, 1_000_000, 1_000_000);
            s.child.bytes = bytes;
            s
        };
        let baseline = vec![with_bytes(0, 1000), with_bytes(1, 1000)];
        let other = vec![with_bytes(0, 2000), with_bytes(1, 2000)];
        let r = compare_cases(&baseline, &other, Metric::Loop).unwrap();
        assert!(close(r.ratio, 2.0, 1e-12), "{r:?}");
        // Equal bytes: the plain time ratio, as before.
        let r = compare_cases(&baseline, &baseline, Metric::Loop).unwrap();
        assert!(close(r.ratio, 1.0, 1e-12));
    }
}
