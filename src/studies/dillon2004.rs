//! dillon2004: md5 of a large file, read() into an 8–64 KiB buffer against a
//! whole-file mmap (freebsd-current thread, M. Dillon's reply, June 2004).
use super::{
    cpu_split_of, measured_time_split, profile_of, ratio_cell, ratio_header, read_case, secs,
    share_cell, summary_of, time_split_bars, time_split_keys, time_unit, Preset, Scope, Table,
    BELOW_RESOLUTION, COMPARISON_NOTE, CPU_SPLIT_RESOLUTION_S,
};
use crate::analysis::case_summary::MIB;
use crate::measure::profile::Category;
use crate::method::{Advice, MethodKind, Populate};
use crate::pattern::Pattern;
use crate::plan::device_rate::{self, DeviceRate};
use crate::plan::CacheState;
use crate::plan::{Case, Metric, OrderPolicy, Plan};
use crate::report::plot::{bar_plot, AxisScale, Bar, BarChart, BarGroup, BarPanel, Plot};
use crate::results::RunResults;
use crate::stats::effect::{Published, Size};
use crate::studies::claims::{Claim, Expect};
use crate::workload::WorkloadKind;

/// The preset. Prepared on a machine where an I/O cgroup can be made, its
/// I/O-bound claim is judged on cold trials of its own that read a disk
/// throttled to the poster's rate ([`POSTER_DISK_BYTES_PER_S`]); else on
/// this machine's own disk.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dillon2004 {
    /// The throttle the I/O-bound claim's cold trials read through.
    throttle: Option<DeviceRate>,
}

impl Dillon2004 {
    /// The preset with the I/O-bound claim's cold trials read through
    /// `throttle` (what [`Preset::prepare`] chooses where it can).
    pub fn throttled(throttle: DeviceRate) -> Dillon2004 {
        Dillon2004 {
            throttle: Some(throttle),
        }
    }
}

/// The poster's disk, bytes per second. The Pentium 4M read the file in
/// 93.02 s (read) and 83.59 s (mmap); the file was the thread's
/// 1,462,726,660-byte one (its 11221 blocks in are that size in 128 KiB
/// clusters, and the Pentium II's 22328 faults that size in Dillon's
/// 16-page fault-ahead): 15.7 and 17.5 MB/s, so 16 MB/s.
pub const POSTER_DISK_BYTES_PER_S: u64 = 16_000_000;
/// The file the throttled cold trials read in quick mode: 16 MiB takes
/// about 1 s at 16 MB/s, so its 20 trials cost about 21 s.
const THROTTLED_QUICK_SIZE: u64 = 16 << 20;

/// The follow-up's file size, bytes.
const FULL_SIZE: u64 = 1_462_726_660;
// Claims with no figure get a stated smallest effect, so that a 1%
// difference cannot hold: "considerably slower" is read as at least 10%;
// "could do better" as at least 5%.
const CONSIDERABLY: f64 = 1.10;
const BETTER: f64 = 1.05;
/// "Only marginally faster": 5–25%, around the quoted 1.11x.
const MARGINAL: (f64, f64) = (1.05, 1.25);
/// One published run: machine, read times, mmap times, counts, in the text.
type PublishedRow = (&'static str, [f64; 3], [f64; 3], &'static str, bool);

/// The original poster's runs: machine, read (user, sys, elapsed), mmap
/// (user, sys, elapsed), counts, and whether the row is in the study's text
/// (Dillon's reply quotes only the I/O-bound machine; the other two are
/// from the poster's first message elsewhere in the thread).
const PUBLISHED: [PublishedRow; 3] = [
    (
        "Pentium II 400",
        [56.837, 34.115, 126.61],
        [72.463, 7.534, 154.62],
        "22328 page faults",
        false,
    ),
    (
        "dual P2 Xeon 450",
        [36.557, 29.395, 189.88],
        [42.052, 7.545, 122.25],
        "",
        false,
    ),
    (
        "Pentium 4M 1 GHz (I/O-bound)",
        [27.195, 8.280, 93.02],
        [26.619, 3.004, 83.59],
        "19463 page faults (read: 11221 blocks in)",
        true,
    ),
];

/// Where a published row comes from, in words.
fn provenance(in_text: bool) -> &'static str {
    if in_text {
        "quoted in Dillon's reply (the study's text)"
    } else {
        "outside the study's text: the original poster's runs, elsewhere in the thread"
    }
}

/// Faultline's reading of "I/O-bound": md5 of a cold file kept the CPU
/// busy (user + sys) for at most this share of its elapsed time. The
/// poster's I/O-bound Pentium 4M ran at 38.1% (read) and 35.4% (mmap), by
/// its `time` output.
const IO_BOUND_AT_MOST: f64 = 0.5;
/// Which disk the I/O-bound claim's cold trials read, in words: a throttled
/// one (its rate, how, and the file), or this machine's own.
fn disk_words(throttle: Option<(DeviceRate, u64)>) -> String {
    match throttle {
        Some((rate, size)) => format!(
            "its cold trials read a {} file from this machine's disk throttled to {} by a cgroup ({}), the poster's disk rate (1,462,726,660 B in 93.02 s and 83.59 s: 15.7 and 17.5 MB/s)",
            crate::size::format_size(size),
            rate.rate_words(),
            rate.kind.describe()
        ),
        None => "its cold trials read this machine's own disk at its own rate: no I/O cgroup could be made here to throttle it to the poster's 16 MB/s (that needs root, and cgroup v2 io or v1 blkio)".into(),
    }
}

/// The device rate and file size of a plan's throttled cases (the
/// I/O-bound claim's), if it has them.
fn throttle_of(cases: &[Case]) -> Option<(DeviceRate, u64)> {
    cases
        .iter()
        .find_map(|c| c.device_rate.map(|r| (r, c.file_size)))
}
/// ... and "CPU-bound": at least this share.
const CPU_BOUND_AT_LEAST: f64 = 0.8;

/// The CPU share of elapsed time, (user + sys) / elapsed, of a published
/// run's (user, sys, elapsed).
fn published_cpu_share(t: [f64; 3]) -> f64 {
    (t[0] + t[1]) / t[2]
}

/// How busy md5 of a file kept the CPU in a set of cases: the mean CPU
/// share of elapsed time over their clean trials.
#[derive(Clone, Debug, PartialEq)]
struct CpuShare {
    /// Mean (user + sys) / elapsed over the clean trials.
    mean: f64,
    /// The least and most of one trial.
    range: (f64, f64),
    /// Clean trials counted.
    trials: usize,
    /// Of them, interfered trials of a throttled case counted by an upper
    /// bound ([`THROTTLE_LEAST_SHARE`]).
    bounded: usize,
}

/// A throttled trial cannot take less than its bytes over the rate (this
/// share of it: the throttle's first slice may pass a little early), load
/// or no load; and load only adds CPU time. So an interfered throttled
/// trial's CPU time over that least time bounds its unloaded CPU share from
/// above: enough to tell I/O-bound, never CPU-bound.
const THROTTLE_LEAST_SHARE: f64 = 0.9;

/// The CPU share of elapsed time of `cases`' trials (whole trials: md5's
/// metric is the whole trial, which is what getrusage spans), from the
/// trials no other process interfered with (another process's CPU use
/// lowers a trial's share without the disk being any slower); `Err` with
/// why it cannot be told.
fn cpu_share(results: &RunResults, cases: &[Case]) -> Result<CpuShare, String> {
    let mut shares = Vec::new();
    let (mut all, mut short, mut bounded) = (0, 0, 0);
    for c in cases {
        let Some(found) = super::find_case(results, c) else {
            continue;
        };
        let least = c
            .device_rate
            .map(|r| THROTTLE_LEAST_SHARE * c.file_size as f64 / r.bytes_per_s as f64);
        for s in found.counted_samples() {
            all += 1;
            let mut elapsed = s.total_ns as f64 / 1e9;
            if s.interfered() {
                match least {
                    Some(least) => {
                        elapsed = least;
                        bounded += 1;
                    }
                    None => continue,
                }
            }
            if elapsed < CPU_SPLIT_RESOLUTION_S || s.child.passes.is_some_and(|n| n > 1) {
                short += 1;
                continue;
            }
            shares.push((s.child.rusage.user_ns + s.child.rusage.sys_ns) as f64 / 1e9 / elapsed);
        }
    }
    if shares.is_empty() {
        return Err(if all == 0 {
            "its cold cases were not measured".into()
        } else if short > 0 {
            format!(
                "its cold trials are {BELOW_RESOLUTION} (shorter than {:.0} ms, or repeated passes)",
                CPU_SPLIT_RESOLUTION_S * 1e3
            )
        } else {
            format!(
                "every one of its {all} cold trials was interfered with (other processes' CPU use lowers a trial's CPU share)"
            )
        });
    }
    let n = shares.len();
    Ok(CpuShare {
        mean: shares.iter().sum::<f64>() / n as f64,
        range: shares
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            }),
        trials: n,
        bounded,
    })
}

/// Whether md5 of a cold file is I/O-bound on the disk read, in words:
/// `(bound, sentence)`, `bound` one of `I/O-bound`, `CPU-bound`,
/// `between I/O- and CPU-bound`, or `not told`; from the throttled cold
/// cases (`throttled`) or the machine's own.
fn cold_boundness(results: &RunResults, throttled: bool) -> (&'static str, String) {
    let cases: Vec<Case> = results
        .cases
        .iter()
        .map(|c| c.case.clone())
        .filter(|c| {
            c.cache == CacheState::Cold
                && c.device_rate.is_some() == throttled
                && (c.method == MethodKind::Read
                    || (c.populate == Some(Populate::None) && c.advice == Some(Advice::Normal)))
        })
        .collect();
    let disk = match cases.first().and_then(|c| c.device_rate) {
        Some(rate) => format!("from the disk throttled to {}", rate.rate_words()),
        None => "from this machine's own disk".to_string(),
    };
    let (_, read, mmap, _, _) = PUBLISHED[2];
    let poster = format!(
        "the poster's I/O-bound Pentium 4M: {:.1}% and {:.1}%",
        published_cpu_share(read) * 100.0,
        published_cpu_share(mmap) * 100.0
    );
    match cpu_share(results, &cases) {
        Err(why) => (
            "not told",
            format!("Whether md5 of a cold file {disk} is I/O-bound cannot be told: {why}."),
        ),
        // Upper bounds tell I/O-bound, never CPU-bound or in between.
        Ok(c) if c.bounded > 0 && c.mean > IO_BOUND_AT_MOST => (
            "not told",
            format!(
                "Whether md5 of a cold file {disk} is I/O-bound cannot be told: {} of its {} trials were interfered with, and their CPU share bounded from above ({:.0}%) is above the {:.0}% that is I/O-bound.",
                c.bounded,
                c.trials,
                c.mean * 100.0,
                IO_BOUND_AT_MOST * 100.0
            ),
        ),
        Ok(c) => {
            let bound = if c.mean <= IO_BOUND_AT_MOST {
                "I/O-bound"
            } else if c.mean >= CPU_BOUND_AT_LEAST {
                "CPU-bound"
            } else {
                "between I/O- and CPU-bound"
            };
            let (at, counted) = if c.bounded > 0 {
                (
                    "at most ",
                    format!(
                        "{} trials, {} of them interfered with and counted at the least time the throttle allows ({:.0}% of their bytes over the rate; load only adds CPU time), so an upper bound",
                        c.trials,
                        c.bounded,
                        THROTTLE_LEAST_SHARE * 100.0
                    ),
                )
            } else {
                ("", format!("{} clean trials", c.trials))
            };
            (
                bound,
                format!(
                    "md5 of a cold file {disk} (read() and plain mmap) kept the CPU busy (user + sys) for {at}{:.0}% of its elapsed time, mean of {counted} ({:.0}–{:.0}%): {bound} (faultline calls it I/O-bound at {:.0}% or less, CPU-bound at {:.0}% or more; {poster})",
                    c.mean * 100.0,
                    c.range.0 * 100.0,
                    c.range.1 * 100.0,
                    IO_BOUND_AT_MOST * 100.0,
                    CPU_BOUND_AT_LEAST * 100.0
                ),
            )
        }
    }
}

/// The premise of the I/O-bound claim, judged on this run's cold trials
/// of the claim (throttled when the plan has them): met, not met, or not
/// told, with the measurement and the disk.
fn io_bound_premise(results: &RunResults) -> String {
    let throttle = throttle_of(&plan_cases(results));
    let (bound, measured) = cold_boundness(results, throttle.is_some());
    let disk = disk_words(throttle);
    match bound {
        "I/O-bound" => format!("Premise met: {measured}; {disk}."),
        "not told" => format!("Premise not checked: {measured} Which disk: {disk}."),
        _ => format!(
            "Premise not met: the claim is about an I/O-bound machine, and {measured}; so this verdict says what a machine where the cold file is not the bottleneck does, not what Dillon described ({disk})."
        ),
    }
}

/// The cases of a run.
fn plan_cases(results: &RunResults) -> Vec<Case> {
    results.cases.iter().map(|c| c.case.clone()).collect()
}

/// The published figure of the claim a read-against-plain-mmap row is
/// judged by: warm (CPU-bound) read faster by at least 1.10x, no figure;
/// cold (I/O-bound) mmap 1:33.02 / 1:23.59.
fn published_for(cache: CacheState) -> String {
    match cache {
        CacheState::Cold => format!(
            "{:.2} (1:33.02 / 1:23.59), judged {}–{}x",
            io_bound_ratio(),
            MARGINAL.0,
            MARGINAL.1
        ),
        _ => format!("above {CONSIDERABLY}x (no figure)"),
    }
}

/// The I/O-bound machine's elapsed times, read over mmap: 1:33.02 / 1:23.59.
fn io_bound_ratio() -> f64 {
    let (_, read, mmap, _, _) = PUBLISHED[2];
    read[2] / mmap[2]
}

/// With `--profile`: the share of each case's main loop in page-fault
/// handling (the cost Dillon blamed), beside the digest's own share and
/// read()'s copy, mean over trials [90% CI].
fn fault_share_table(results: &RunResults, cases: &[Case], size: u64) -> Table {
    let rows = cases
        .iter()
        .map(|c| {
            let p = profile_of(results, c);
            vec![
                format!(
                    "{}, {} buffer",
                    c.cache,
                    crate::size::format_size(c.block_size)
                ),
                c.method_label(),
                share_cell(p, Category::PageFault),
                share_cell(p, Category::Workload),
                share_cell(p, Category::CopyToUser),
                p.map_or("-".to_string(), |p| p.samples.to_string()),
            ]
        })
        .collect();
    Table::new(
        &format!(
            "Profile (--profile): where md5's main loop over a {} file spends its CPU time, share of the samples, mean over trials [90% CI]",
            crate::size::format_size(size)
        ),
        &["case", "version", "page faults", "md5", "copy to user", "samples"],
        rows,
    )
}

/// The counts the poster gave beside a machine's times, as bar notes:
/// (read's, mmap's), e.g. `11221 blocks in` and `19463 faults`.
fn published_counts(note: &str) -> (Option<String>, Option<String>) {
    let (mmap, read) = match note.split_once(" (read: ") {
        Some((m, r)) => (m, Some(r.trim_end_matches(')'))),
        None => (note, None),
    };
    let mmap = (!mmap.is_empty()).then(|| mmap.replace("page faults", "faults"));
    (read.map(str::to_string), mmap)
}

fn blocks(scope: Scope) -> Vec<u64> {
    if scope.full {
        vec![8 << 10, 16 << 10, 32 << 10, 64 << 10]
    } else {
        vec![8 << 10, 64 << 10]
    }
}

/// The mmap variants: plain, then ways of faulting in more at a time.
fn variants(scope: Scope) -> Vec<(Populate, Advice)> {
    let mut v = vec![
        (Populate::None, Advice::Normal),
        (Populate::None, Advice::Sequential),
        (Populate::Madvise, Advice::Normal),
    ];
    if scope.full {
        v.extend([
            (Populate::Map, Advice::Normal),
            (Populate::None, Advice::Hugepage),
        ]);
    }
    v
}

fn mmap(block: u64, size: u64, cache: CacheState, p: Populate, a: Advice) -> Case {
    let mut c = read_case(
        MethodKind::Mmap,
        Pattern::Seq,
        block,
        size,
        WorkloadKind::Md5,
        cache,
    );
    c.populate = Some(p);
    c.advice = Some(a);
    c
}

fn read(block: u64, size: u64, cache: CacheState) -> Case {
    read_case(
        MethodKind::Read,
        Pattern::Seq,
        block,
        size,
        WorkloadKind::Md5,
        cache,
    )
}

/// A case's trials in a table cell: user/sys/elapsed and faults, means.
fn trial_cell(results: &RunResults, c: &Case) -> String {
    summary_of(results, c).map_or("-".to_string(), |s| {
        let elapsed = s.time_ns.mean / 1e9;
        let cpu = match cpu_split_of(s, elapsed) {
            Some((user, sys)) => format!("{user:.3}u {sys:.3}s"),
            None => format!("user/sys {BELOW_RESOLUTION}"),
        };
        format!(
            "{cpu} {} elapsed, {:.0} faults",
            secs(Some(elapsed)),
            (s.per_mib.minflt + s.per_mib.majflt) * c.file_size as f64
                / crate::analysis::case_summary::MIB,
        )
    })
}

/// A case's CPU share of elapsed time in a table cell (`-` when not told).
fn share_cell_of(results: &RunResults, c: &Case) -> String {
    match cpu_share(results, std::slice::from_ref(c)) {
        Ok(c) => format!("{:.0}%", c.mean * 100.0),
        Err(_) => "-".to_string(),
    }
}

/// The file size and block sizes a plan's cases use.
/// (The I/O-bound claim's throttled cases, read from a file of their own,
/// are left out: [`throttle_of`].)
fn shape(plan_cases: &[Case]) -> (u64, Vec<u64>) {
    let own: Vec<&Case> = plan_cases
        .iter()
        .filter(|c| c.device_rate.is_none())
        .collect();
    let size = own.first().map_or(0, |c| c.file_size);
    let mut blocks: Vec<u64> = own.iter().map(|c| c.block_size).collect();
    blocks.sort_unstable();
    blocks.dedup();
    (size, blocks)
}

fn plain(block: u64, size: u64, cache: CacheState) -> Case {
    mmap(block, size, cache, Populate::None, Advice::Normal)
}

impl Preset for Dillon2004 {
    fn name(&self) -> &'static str {
        "dillon2004"
    }

    fn source(&self) -> &'static str {
        "freebsd-current, \"read vs. mmap (or io vs. page faults)\", M. Dillon's reply, June 2004"
    }

    fn published(&self) -> Vec<Table> {
        let cell = |t: [f64; 3], extra: &str| {
            let mut s = format!("{:.3}u {:.3}s {:.2}s elapsed", t[0], t[1], t[2]);
            if !extra.is_empty() {
                s.push_str(", ");
                s.push_str(extra);
            }
            s
        };
        let rows = PUBLISHED
            .iter()
            .map(|(m, r, mm, note, in_text)| {
                let (read_note, mmap_note) = match note.split_once(" (read: ") {
                    Some((a, b)) => (b.trim_end_matches(')').to_string(), a.to_string()),
                    None => (String::new(), note.to_string()),
                };
                vec![
                    m.to_string(),
                    cell(*r, &read_note),
                    cell(*mm, &mmap_note),
                    provenance(*in_text).to_string(),
                ]
            })
            .collect();
        vec![Table::new(
            "Published (original poster, FreeBSD 4.8/5.x): md5 of a file, user/sys/elapsed; only the I/O-bound row is in the study's text, the others are marked",
            &["machine", "read (\"stdio\")", "mmap", "source"],
            rows,
        )]
    }

    fn plan(&self, scope: Scope) -> Plan {
        let size = scope.size(128 << 20, FULL_SIZE, 256 << 10);
        let mut cases = Vec::new();
        for cache in [CacheState::Warm, CacheState::Cold] {
            for &b in &blocks(scope) {
                cases.push(read(b, size, cache));
                for (p, a) in variants(scope) {
                    cases.push(mmap(b, size, cache, p, a));
                }
            }
        }
        // The I/O-bound claim's cold pairs again, on a disk throttled to the
        // poster's rate, over a file small enough to read at that rate.
        if let Some(rate) = self.throttle {
            let small = scope.size(THROTTLED_QUICK_SIZE, FULL_SIZE, 256 << 10);
            for &b in &blocks(scope) {
                for mut c in [
                    read(b, small, CacheState::Cold),
                    plain(b, small, CacheState::Cold),
                ] {
                    c.device_rate = Some(rate);
                    cases.push(c);
                }
            }
        }
        Plan {
            cases,
            runs: scope.runs(5, 5),
            warmup: 0,
            order: OrderPolicy::Alternating,
            metric: Metric::Total,
            seed: 1,
        }
    }

    fn claims(&self, plan: &Plan) -> Vec<Claim> {
        let (size, blocks) = shape(&plan.cases);
        let read_vs_mmap = |cache| -> Vec<(Case, Case)> {
            blocks
                .iter()
                .map(|&b| (plain(b, size, cache), read(b, size, cache)))
                .collect()
        };
        let more_at_once: Vec<(Case, Case)> = plan
            .cases
            .iter()
            .filter(|c| {
                c.method == MethodKind::Mmap
                    && (c.populate != Some(Populate::None) || c.advice != Some(Advice::Normal))
            })
            .map(|c| (plain(c.block_size, size, c.cache), c.clone()))
            .collect();
        let io_bound = io_bound_ratio();
        // The I/O-bound claim reads the throttled disk when the plan has it.
        let throttle = throttle_of(&plan.cases);
        let io_pairs: Vec<(Case, Case)> = blocks
            .iter()
            .map(|&b| {
                let (mut r, mut m) = match throttle {
                    Some((_, small)) => (
                        read(b, small, CacheState::Cold),
                        plain(b, small, CacheState::Cold),
                    ),
                    None => (
                        read(b, size, CacheState::Cold),
                        plain(b, size, CacheState::Cold),
                    ),
                };
                r.device_rate = throttle.map(|t| t.0);
                m.device_rate = throttle.map(|t| t.0);
                (r, m)
            })
            .collect();
        let disk = match throttle {
            Some((rate, small)) => format!(
                "on a disk throttled to {} by a cgroup (the poster's rate), a {} file",
                rate.rate_words(),
                crate::size::format_size(small)
            ),
            None => "on this machine's own disk (no I/O cgroup to throttle it)".to_string(),
        };
        vec![
            Claim {
                id: "cpu-bound".into(),
                text: format!(
                    "CPU-bound (warm): md5 over read() into an 8–64 KiB buffer beats md5 over a whole-file mmap, \"considerably\": faster by at least {CONSIDERABLY}x (faultline's reading of a claim with no figure), in at least 3 of every 4 buffer sizes"
                ),
                pairs: read_vs_mmap(CacheState::Warm),
                expect: Expect::Effect(Published::faster(Size::AtLeast(CONSIDERABLY))),
                quorum: 0.75,
                published: "mmap \"considerably slower\" on a CPU-bound machine (the poster, quoted); no figure in the text".into(),
            },
            Claim {
                id: "io-bound".into(),
                text: format!(
                    "I/O-bound (cold, {disk}): mmap is only marginally faster than read(), {io_bound:.2}x in the quoted times (1:33.02 / 1:23.59), judged as faster by {}–{}x (faultline's reading of \"marginally\"), in at least 3 of every 4 buffer sizes",
                    MARGINAL.0, MARGINAL.1
                ),
                pairs: io_pairs,
                expect: Expect::Effect(Published::faster(Size::Range {
                    low: MARGINAL.0,
                    high: MARGINAL.1,
                })),
                quorum: 0.75,
                published: format!(
                    "{io_bound:.2}x: stdio 1:33.02 against mmap 1:23.59 elapsed on the I/O-bound Pentium 4M (quoted in the reply)"
                ),
            },
            Claim {
                id: "more-pages".into(),
                text: format!(
                    "mmap does better when it faults in more pages at a time (MADV_SEQUENTIAL, MADV_POPULATE_READ, MAP_POPULATE, MADV_HUGEPAGE): faster by at least {BETTER}x (faultline's smallest effect for a claim with no figure), in at least half the comparisons"
                ),
                pairs: more_at_once,
                expect: Expect::Effect(Published::faster(Size::AtLeast(BETTER))),
                quorum: 0.5,
                published: "\"could certainly be made more efficient\" by faulting in more pages at a time (Dillon); no figure".into(),
            },
        ]
    }

    fn prepare(
        &mut self,
        scope: Scope,
        choices: &super::Choices,
    ) -> crate::error::Result<Option<String>> {
        let _ = choices;
        let small = scope.size(THROTTLED_QUICK_SIZE, FULL_SIZE, 256 << 10);
        match device_rate::for_run(&device_rate::probe(), POSTER_DISK_BYTES_PER_S) {
            Ok(rate) => {
                self.throttle = Some(rate);
                Ok(Some(format!(
                    "dillon2004: the I/O-bound claim is judged on cold trials of a {} file read from a disk throttled to {} ({}), the poster's disk rate; each takes about {:.1} s",
                    crate::size::format_size(small),
                    rate.rate_words(),
                    rate.kind.describe(),
                    small as f64 / POSTER_DISK_BYTES_PER_S as f64
                )))
            }
            Err(_) => {
                self.throttle = None;
                Ok(Some("dillon2004: no I/O cgroup can be made here (it needs root, and cgroup v2 io or v1 blkio), so the I/O-bound claim is judged on this machine's own disk, which may not be I/O-bound".into()))
            }
        }
    }

    fn fidelity(&self) -> Vec<String> {
        vec![
            "--faithful changes nothing in this preset: the thread gives no quirk whose replay would move a number. Each departure below says why.".into(),
            "md5 is faultline's Rust MD5 in the trial process, not the 2004 md5(1) binary; one file, not the poster's own. Not replayable: neither is published.".into(),
            "The read version loops read() into one buffer and digests each chunk, as the poster's pseudo-code does (the poster labelled it \"stdio\"; the code shown calls read()). Its buffer size is not given, so faultline measures the 8–64 KiB Dillon names.".into(),
            "The mmap version maps the whole file and digests it in buffer-sized pieces; the poster's digested the mapping in one call. Not replayed by --faithful: MD5 consumes 64-byte blocks either way and the pages are faulted in by the same first touches, so the call count is all that differs.".into(),
            "Quick digests a 128 MiB file with 8 and 64 KiB buffers and three mmap variants (and, throttled, a 16 MiB file for the I/O-bound claim); full uses the follow-up's 1,462,726,660-byte file, 8/16/32/64 KiB and five variants. The follow-up's two parallel processes are not run.".into(),
            format!("The I/O-bound claim assumes a machine whose disk, not its CPU, limits md5 of a cold file: the poster's Pentium 4M kept its CPU busy {:.1}% (read) and {:.1}% (mmap) of the elapsed time. On a fast disk md5 of a cold file is CPU-bound instead, so where faultline may make an I/O cgroup (root; cgroup v2 io.max, else v1 blkio.throttle) the claim is judged on cold trials of their own whose reads of the disk are throttled to {} MB/s, the poster's disk: the file was the thread's 1,462,726,660 bytes (the 11221 blocks in are that size in 128 KiB clusters), read in 93.02 s (15.7 MB/s) and 83.59 s (17.5 MB/s). They read a {} file in quick mode (about 1 s a trial, 20 trials) and the full file in full mode (about 91 s a trial). Without an I/O cgroup the claim is judged on this machine's own disk, and says so. Every run measures the CPU share of elapsed time of the claim's cold trials (user + sys over the whole trial, clean trials only: another process's CPU use would lower it), and the claim's explanation and the machine notes say whether the premise holds (I/O-bound at {:.0}% or less, CPU-bound at {:.0}% or more).", published_cpu_share(PUBLISHED[2].1) * 100.0, published_cpu_share(PUBLISHED[2].2) * 100.0, POSTER_DISK_BYTES_PER_S / 1_000_000, crate::size::format_size(THROTTLED_QUICK_SIZE), IO_BOUND_AT_MOST * 100.0, CPU_BOUND_AT_LEAST * 100.0),
            "Cold means the file evicted before each trial (posix_fadvise DONTNEED, or drop_caches when asked), verified by residency; the 2004 runs read files larger than the cache. A machine difference, not replayable by a mode.".into(),
        ]
    }

    fn measured(&self, results: &RunResults) -> Vec<Table> {
        let cases: Vec<Case> = results.cases.iter().map(|c| c.case.clone()).collect();
        let (size, blocks) = shape(&cases);
        let cell = |c: &Case| trial_cell(results, c);
        let share = |c: &Case| share_cell_of(results, c);
        // The CPU-bound and I/O-bound claims: each comparison once, as its
        // claim reads it (the claimed winner's advantage, 90% CI).
        // The throttled pairs (the I/O-bound claim's, when the run had a
        // throttle) follow the machine's own cold disk.
        let throttle = throttle_of(&cases);
        let mut rows = Vec::new();
        let mut disks = vec![(CacheState::Warm, None), (CacheState::Cold, None)];
        disks.extend(throttle.map(|t| (CacheState::Cold, Some(t))));
        for &(cache, disk) in &disks {
            for &b in &blocks {
                let at = disk.map_or(size, |(_, small)| small);
                let (mut r, mut m) = (read(b, at, cache), plain(b, at, cache));
                r.device_rate = disk.map(|d| d.0);
                m.device_rate = disk.map(|d| d.0);
                if !cases.contains(&r) || !cases.contains(&m) {
                    continue;
                }
                let (winner, advantage) = match cache {
                    CacheState::Cold => ("mmap", ratio_cell(results, &r, &m)),
                    _ => ("read", ratio_cell(results, &m, &r)),
                };
                let on = disk.map_or(String::new(), |(rate, small)| {
                    format!(
                        ", {} file, disk throttled to {}",
                        crate::size::format_size(small),
                        rate.rate_words()
                    )
                });
                rows.push(vec![
                    format!("{cache}, {} buffer{on}", crate::size::format_size(b)),
                    cell(&r),
                    cell(&m),
                    format!("{} / {}", share(&r), share(&m)),
                    winner.to_string(),
                    advantage,
                    if cache == CacheState::Cold && disk.is_none() && throttle.is_some() {
                        "(the claim is judged on the throttled disk)".to_string()
                    } else {
                        published_for(cache)
                    },
                ]);
            }
        }
        let mut tables = vec![Table::new(
            &format!(
                "Measured: md5 of a {} file, read() against plain mmap, user/sys/elapsed and faults per trial; CPU/wall: (user + sys) / elapsed over the clean trials; the advantage of the version the claim says wins (warm: read, the CPU-bound claim; cold: mmap, the I/O-bound claim); {COMPARISON_NOTE}",
                crate::size::format_size(size)
            ),
            &[
                "case",
                "read",
                "mmap",
                "CPU/wall (read / mmap)",
                "advantage of",
                &ratio_header("advantage"),
                "published",
            ],
            rows,
        )];
        // The "more pages at a time" claim: each variant against plain mmap.
        let variants: Vec<Vec<String>> = cases
            .iter()
            .filter(|c| {
                c.method == MethodKind::Mmap
                    && (c.populate != Some(Populate::None) || c.advice != Some(Advice::Normal))
            })
            .map(|c| {
                let base = plain(c.block_size, size, c.cache);
                vec![
                    format!(
                        "{}, {} buffer",
                        c.cache,
                        crate::size::format_size(c.block_size)
                    ),
                    c.method_label(),
                    cell(c),
                    ratio_cell(results, &base, c),
                    format!("above {BETTER}x (no figure)"),
                ]
            })
            .collect();
        if !variants.is_empty() {
            tables.push(Table::new(
                &format!(
                    "Measured: mmap faulting in more pages at a time, md5 of a {} file; advantage of each variant over plain mmap (the \"more pages\" claim); {COMPARISON_NOTE}",
                    crate::size::format_size(size)
                ),
                &[
                    "case",
                    "mmap variant",
                    "variant",
                    &ratio_header("advantage over plain mmap"),
                    "published",
                ],
                variants,
            ));
        }
        if results.settings.profile.is_some() {
            tables.push(fault_share_table(results, &cases, size));
        }
        tables
    }

    fn explain(&self, claim: &Claim, results: &RunResults) -> Option<String> {
        let mut parts = Vec::new();
        if claim.id == "io-bound" {
            parts.push(io_bound_premise(results));
        }
        // With --profile: the share of fault handling on each side of the
        // claim's first comparison, the cost Dillon blamed.
        if let (Some(_), Some((base, other))) =
            (results.settings.profile.as_ref(), claim.pairs.first())
        {
            let side = |c: &Case| {
                format!(
                    "{} {} in page faults, {} in md5",
                    c.method_label(),
                    share_cell(profile_of(results, c), Category::PageFault),
                    share_cell(profile_of(results, c), Category::Workload)
                )
            };
            parts.push(format!(
                "Profile ({}, {} buffer): {}; {}.",
                other.cache,
                crate::size::format_size(other.block_size),
                side(other),
                side(base)
            ));
        }
        (!parts.is_empty()).then(|| parts.join(" "))
    }

    fn machine_notes(&self, results: &RunResults) -> Vec<String> {
        let throttle = throttle_of(&plan_cases(results));
        let (bound, measured) = cold_boundness(results, throttle.is_some());
        let premise = match bound {
            "I/O-bound" => "the I/O-bound claim's premise is met",
            "not told" => "the I/O-bound claim's premise is not checked",
            _ => "the I/O-bound claim's premise (an I/O-bound machine) is not met",
        };
        let mut note = format!(
            "dillon2004: {}; {premise}; {}",
            measured.trim_end_matches('.'),
            disk_words(throttle)
        );
        // Throttled: the machine's own disk, measured too, for contrast.
        if throttle.is_some() {
            let (_, own) = cold_boundness(results, false);
            let own = own.trim_end_matches('.');
            let own = own.replacen("Whether", "whether", 1);
            note.push_str(&format!(". Unthrottled, {own}"));
        }
        vec![note]
    }

    fn plots(&self, results: &RunResults) -> Vec<Plot> {
        let version = |name: &str, bars: Vec<Bar>, note: Option<String>| {
            let mut bars = bars;
            // The counts go over the CPU bar, or over the wall bar when the
            // CPU bar already says why it is empty.
            if let Some(note) = note {
                let free = bars.iter_mut().find(|b| b.note.is_none());
                if let Some(bar) = free {
                    bar.note = Some(note);
                }
            }
            BarGroup {
                label: name.to_string(),
                bars,
            }
        };
        let mut panels: Vec<BarPanel> = PUBLISHED
            .iter()
            .map(|(machine, r, m, notes, in_text)| {
                let published = |t: &[f64; 3]| {
                    time_split_bars(t[0], t[1], t[2], None, 1.0)
                        .into_iter()
                        .map(Bar::published)
                        .collect()
                };
                let (read_note, mmap_note) = published_counts(notes);
                BarPanel {
                    title: if *in_text {
                        format!("published: {machine}")
                    } else {
                        format!("published, outside the study text: {machine}")
                    },
                    y_label: "time, s".into(),
                    y_scale: AxisScale::Linear,
                    groups: vec![
                        version("read", published(r), read_note),
                        version("mmap", published(m), mmap_note),
                    ],
                }
            })
            .collect();
        let cases: Vec<Case> = results.cases.iter().map(|c| c.case.clone()).collect();
        let (size, blocks) = shape(&cases);
        for cache in [CacheState::Warm, CacheState::Cold] {
            for &b in &blocks {
                let pair = [read(b, size, cache), plain(b, size, cache)];
                let summaries: Vec<_> = pair.iter().map(|c| summary_of(results, c)).collect();
                let longest = summaries
                    .iter()
                    .flatten()
                    .map(|s| {
                        s.time_ns
                            .ci95
                            .map_or(s.time_ns.mean, |c| c.1)
                            .max(s.user_ns.mean + s.sys_ns.mean)
                            / 1e9
                    })
                    .fold(0.0, f64::max);
                let (unit, unit_name) = time_unit(longest);
                let groups: Vec<BarGroup> = ["read", "mmap"]
                    .iter()
                    .zip(&summaries)
                    .filter_map(|(name, s)| {
                        s.map(|s| {
                            let faults = (s.per_mib.minflt + s.per_mib.majflt) * size as f64 / MIB;
                            version(
                                name,
                                measured_time_split(s, unit),
                                Some(format!("{faults:.0} faults")),
                            )
                        })
                    })
                    .collect();
                if groups.is_empty() {
                    continue;
                }
                panels.push(BarPanel {
                    title: format!(
                        "measured here: {cache}, {} buffer",
                        crate::size::format_size(b)
                    ),
                    y_label: format!("time, {unit_name}"),
                    y_scale: AxisScale::Linear,
                    groups,
                });
            }
        }
        let chart = BarChart {
            panels,
            columns: 2,
            keys: time_split_keys(),
        };
        let caption = format!(
            "md5 of a file, read() into a buffer against a whole-file mmap: per version, user and \
             sys CPU time stacked (CPU) beside the elapsed time (wall). Pale panels: the original \
             poster's tcsh `time` output on three machines (FreeBSD 4.8/5.x; the page faults and \
             blocks in are the ones the poster gave); only the I/O-bound Pentium 4M is quoted in \
             Dillon's reply, the other two come from elsewhere in the thread and are marked so. Filled panels: measured here on a {} file, \
             means over the runs, whiskers the 95% CI of the elapsed mean, notes the minor + major \
             page faults per trial (over the wall bar when the CPU bar is noted \"unresolved\": \
             left empty, its trials too short for getrusage to split user from sys); plain \
             mmap (no advice, no populate). Every panel has its own \
             time axis: the machines' absolute times differ by orders of magnitude, so compare \
             the shapes (how CPU splits into user and sys, and CPU against wall), not the heights.",
            crate::size::format_size(size)
        );
        vec![bar_plot(
            "dillon2004-times",
            "dillon2004: user, sys and elapsed time of md5 over read() and mmap",
            &caption,
            &chart,
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faithful_changes_nothing() {
        for scope in [Scope::QUICK, Scope::FULL, Scope::new(false, 256)] {
            let default = Dillon2004::default().plan(scope);
            let faithful = Dillon2004::default().plan(scope.faithful(true));
            assert_eq!(default.cases, faithful.cases);
            assert_eq!(default.runs, faithful.runs);
        }
        assert!(Dillon2004::default().fidelity()[0].contains("--faithful changes nothing"));
    }

    #[test]
    fn the_io_bound_figure_is_judged_for_size_and_outside_rows_are_marked() {
        let plan = Dillon2004::default().plan(Scope::QUICK);
        let claims = Dillon2004::default().claims(&plan);
        let io = claims
            .iter()
            .find(|c| c.text.starts_with("I/O-bound"))
            .expect("the I/O-bound claim");
        // 1:33.02 / 1:23.59 = 1.11, mmap faster: read is the baseline.
        match &io.expect {
            Expect::Effect(p) => {
                assert_eq!(p.direction, crate::stats::effect::Direction::Faster);
                let (l, h) = p.band();
                assert!(
                    l < 93.02 / 83.59 && 93.02 / 83.59 < h,
                    "the quoted 1.11x is inside"
                );
                assert!(
                    l >= 1.05,
                    "direction and size: the band excludes 1 and trivial gains"
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(io.text.contains("1.11"));
        for (b, o) in &io.pairs {
            assert_eq!((b.method, o.method), (MethodKind::Read, MethodKind::Mmap));
            assert_eq!(b.cache, CacheState::Cold);
        }
        let published = &Dillon2004::default().published()[0];
        let source = published
            .columns
            .iter()
            .position(|c| c == "source")
            .unwrap();
        for row in &published.rows {
            let outside = row[source].starts_with("outside the study's text");
            assert_eq!(outside, !row[0].contains("I/O-bound"), "{row:?}");
        }
        let measured = Dillon2004::default().measured(&crate::fixtures::results_of(&plan.cases));
        assert!(measured[0]
            .rows
            .iter()
            .any(|r| r.last().unwrap().starts_with("1.11 (1:33.02 / 1:23.59)")));
    }

    use crate::studies::testing::{around, measure, Trial};

    /// Quick dillon2004 results: read and plain mmap measured at every
    /// buffer, warm at full CPU, cold at `cold_share` of elapsed time.
    fn measured_at(cold_share: f64, interfered: bool) -> (Plan, RunResults) {
        measured_with(Dillon2004::default(), cold_share, interfered)
    }

    /// The preset's own throttle in tests: cgroup v1, the poster's rate.
    fn poster_disk() -> DeviceRate {
        DeviceRate {
            kind: device_rate::ThrottleKind::CgroupV1Blkio,
            bytes_per_s: POSTER_DISK_BYTES_PER_S,
        }
    }

    /// [`measured_at`] for `preset`; its throttled cold pairs (if any) read
    /// at 4% CPU, read 1100 ms and mmap 1050 ms.
    fn measured_with(preset: Dillon2004, cold_share: f64, interfered: bool) -> (Plan, RunResults) {
        let plan = preset.plan(Scope::QUICK);
        let mut results = crate::fixtures::results_of(&plan.cases);
        for c in plan.cases.iter().filter(|c| c.device_rate.is_some()) {
            let ms = if c.method == MethodKind::Read {
                1100.0
            } else {
                1050.0
            };
            measure(&mut results, c, &around(ms, 5, 0.04));
        }
        let (size, blocks) = shape(&plan.cases);
        for b in blocks {
            // Warm: read 200 ms, mmap 240 ms; cold: read 330 ms, mmap 300 ms.
            measure(
                &mut results,
                &read(b, size, CacheState::Warm),
                &around(200.0, 5, 0.99),
            );
            measure(
                &mut results,
                &plain(b, size, CacheState::Warm),
                &around(240.0, 5, 0.99),
            );
            for (case, ms) in [
                (read(b, size, CacheState::Cold), 330.0),
                (plain(b, size, CacheState::Cold), 300.0),
            ] {
                let trials: Vec<Trial> = around(ms, 5, cold_share)
                    .into_iter()
                    .map(|t| Trial { interfered, ..t })
                    .collect();
                measure(&mut results, &case, &trials);
            }
        }
        (plan, results)
    }

    fn io_claim(plan: &Plan) -> Claim {
        Dillon2004::default()
            .claims(plan)
            .into_iter()
            .find(|c| c.id == "io-bound")
            .unwrap()
    }

    #[test]
    fn the_io_bound_premise_is_checked_on_every_run_from_the_cold_cpu_share() {
        // CPU-bound cold md5 (a fast disk): the premise is not met, and said so.
        let (plan, results) = measured_at(0.95, false);
        let why = Dillon2004::default()
            .explain(&io_claim(&plan), &results)
            .unwrap();
        assert!(why.contains("Premise not met"), "{why}");
        assert!(why.contains("95% of its elapsed time"), "{why}");
        assert!(why.contains(": CPU-bound (faultline calls"), "{why}");
        assert!(why.contains("from this machine's own disk"), "{why}");
        assert!(
            why.contains("38.1% and 35.4%"),
            "the poster's shares: {why}"
        );
        let notes = Dillon2004::default().machine_notes(&results);
        assert!(
            notes[0].contains("premise (an I/O-bound machine) is not met"),
            "{notes:?}"
        );
        // Which disk was used is said: this one, unthrottled, and why.
        assert!(notes[0].contains("this machine's own disk at its own rate: no I/O cgroup"));
        assert!(why.contains("no I/O cgroup could be made here"), "{why}");
        assert!(io_claim(&plan).text.contains("on this machine's own disk"));
        let judged = crate::studies::judge_claims(&Dillon2004::default(), &results);
        let io = judged.iter().find(|c| c.id == "io-bound").unwrap();
        assert!(
            io.explanation.contains(". Premise not met"),
            "a sentence of its own: {}",
            io.explanation
        );
        let outcome =
            crate::studies::outcome::PresetOutcome::build(&Dillon2004::default(), &results);
        assert!(outcome
            .machine
            .iter()
            .any(|n| n.starts_with("dillon2004: ")));
        // I/O-bound: met.
        let (plan, results) = measured_at(0.36, false);
        let why = Dillon2004::default()
            .explain(&io_claim(&plan), &results)
            .unwrap();
        assert!(why.starts_with("Premise met"), "{why}");
        assert!(Dillon2004::default().machine_notes(&results)[0].contains("premise is met"));
        // In between.
        let (plan, results) = measured_at(0.65, false);
        let why = Dillon2004::default()
            .explain(&io_claim(&plan), &results)
            .unwrap();
        assert!(why.contains("between I/O- and CPU-bound"), "{why}");
        assert!(why.contains("Premise not met"), "{why}");
        // Every cold trial interfered with: not told, never guessed.
        let (plan, results) = measured_at(0.36, true);
        let why = Dillon2004::default()
            .explain(&io_claim(&plan), &results)
            .unwrap();
        assert!(
            why.contains("cannot be told") && why.contains("interfered"),
            "{why}"
        );
        // The CPU-bound claim carries no premise sentence.
        let cpu = Dillon2004::default()
            .claims(&plan)
            .into_iter()
            .find(|c| c.id == "cpu-bound")
            .unwrap();
        assert_eq!(Dillon2004::default().explain(&cpu, &results), None);
    }

    #[test]
    fn each_comparison_is_shown_once_as_its_claim_reads_it() {
        let (_, results) = measured_at(0.94, false);
        let tables = Dillon2004::default().measured(&results);
        let t = &tables[0];
        let col = |name: &str| t.columns.iter().position(|c| c == name).expect(name);
        let (who, adv) = (col("advantage of"), col("advantage [90% CI]"));
        let judged = crate::studies::judge_claims(&Dillon2004::default(), &results);
        for (id, cache, winner, near) in [
            ("cpu-bound", "warm", "read", 1.2),
            ("io-bound", "cold", "mmap", 1.1),
        ] {
            let claim = judged.iter().find(|c| c.id == id).unwrap();
            let rows: Vec<_> = t.rows.iter().filter(|r| r[0].starts_with(cache)).collect();
            assert_eq!(rows.len(), claim.pairs.len());
            for (row, pair) in rows.iter().zip(&claim.pairs) {
                assert_eq!(row[who], winner);
                let (m, (lo, hi)) = (pair.measured.unwrap(), pair.ci.unwrap());
                assert!((m - near).abs() < 0.01, "{m}");
                assert!(
                    row[adv].starts_with(&format!("{m:.2} [{lo:.2}–{hi:.2}]")),
                    "{row:?} {m} {lo} {hi}"
                );
            }
        }
        for t in &tables {
            assert!(!t.render_text().contains("95%"), "{}", t.caption);
        }
        // The variants' table reads as the "more pages" claim.
        assert!(tables[1]
            .columns
            .contains(&"advantage over plain mmap [90% CI]".to_string()));
        // The cold CPU share is in the table.
        let share = col("CPU/wall (read / mmap)");
        assert!(
            t.rows.iter().any(|r| r[share] == "94% / 94%"),
            "{:?}",
            t.rows
        );
    }

    #[test]
    fn the_posters_disk_rate_comes_from_its_own_figures() {
        // The file (1,462,726,660 B) in 93.02 s (read) and 83.59 s (mmap).
        let (read_rate, mmap_rate) = (FULL_SIZE as f64 / 93.02, FULL_SIZE as f64 / 83.59);
        assert!((15.6e6..15.8e6).contains(&read_rate), "{read_rate}");
        assert!((17.4e6..17.6e6).contains(&mmap_rate), "{mmap_rate}");
        let rate = POSTER_DISK_BYTES_PER_S as f64;
        assert!(read_rate * 0.95 <= rate && rate <= mmap_rate, "{rate}");
        // 11221 blocks in: the file in 128 KiB clusters, within 1%.
        let clusters = FULL_SIZE as f64 / (128.0 * 1024.0);
        assert!((clusters / 11221.0 - 1.0).abs() < 0.01, "{clusters}");
    }

    #[test]
    fn a_throttle_gives_the_io_bound_claim_cold_pairs_of_its_own() {
        let rate = poster_disk();
        for (scope, size) in [
            (Scope::QUICK, THROTTLED_QUICK_SIZE),
            (Scope::FULL, FULL_SIZE),
        ] {
            let own = Dillon2004::default().plan(scope);
            let plan = Dillon2004::throttled(rate).plan(scope);
            // The unthrottled cases are unchanged; the throttled ones follow.
            assert_eq!(plan.cases[..own.cases.len()], own.cases[..]);
            let added = &plan.cases[own.cases.len()..];
            assert_eq!(added.len(), 2 * blocks(scope).len());
            for c in added {
                assert_eq!(c.device_rate, Some(rate));
                assert_eq!((c.cache, c.file_size), (CacheState::Cold, size));
            }
            assert!(own.cases.iter().all(|c| c.device_rate.is_none()));
            // The claim is judged on them, and says on which disk.
            let io = io_claim(&plan);
            assert_eq!(io.pairs.len(), blocks(scope).len());
            for (r, m) in &io.pairs {
                assert!(added.contains(r) && added.contains(m), "{r:?} {m:?}");
                assert_eq!((r.method, m.method), (MethodKind::Read, MethodKind::Mmap));
            }
            assert!(
                io.text
                    .contains("on a disk throttled to 16 MB/s by a cgroup"),
                "{}",
                io.text
            );
            assert!(!io_claim(&own).text.contains("throttled"));
            // The other claims and the tables' shape read the own disk.
            assert_eq!(shape(&plan.cases), shape(&own.cases));
            let claims = Dillon2004::default().claims(&plan);
            for c in claims.iter().filter(|c| c.id != "io-bound") {
                assert!(c
                    .pairs
                    .iter()
                    .all(|(a, b)| a.device_rate.is_none() && b.device_rate.is_none()));
            }
        }
        // Quick: the throttled trials fit the quick budget (about 21 s of
        // reading at the poster's rate, well within one preset's share).
        let plan = Dillon2004::throttled(rate).plan(Scope::QUICK);
        let seconds: f64 = plan
            .cases
            .iter()
            .filter_map(|c| {
                c.device_rate
                    .map(|r| c.file_size as f64 / r.bytes_per_s as f64)
            })
            .sum::<f64>()
            * f64::from(plan.runs);
        assert!((20.0..25.0).contains(&seconds), "{seconds}");
    }

    #[test]
    fn interfered_throttled_trials_bound_the_share_from_above() {
        let preset = Dillon2004::throttled(poster_disk());
        let plan = preset.plan(Scope::QUICK);
        let throttled: Vec<Case> = plan
            .cases
            .iter()
            .filter(|c| c.device_rate.is_some())
            .cloned()
            .collect();
        let least = THROTTLE_LEAST_SHARE * THROTTLED_QUICK_SIZE as f64 / 16e6;
        let run = |ms: f64, cpu_ms: f64| {
            let mut results = crate::fixtures::results_of(&plan.cases);
            for c in &throttled {
                let trials: Vec<Trial> = (0..5)
                    .map(|_| Trial {
                        interfered: true,
                        ..Trial::quiet((ms * 1e6) as u64, cpu_ms / ms)
                    })
                    .collect();
                measure(&mut results, c, &trials);
            }
            results
        };
        // Loaded: 3 s elapsed, 60 ms of CPU: bounded by 60 ms over the
        // least time, not diluted by the 3 s.
        let results = run(3000.0, 60.0);
        let share = cpu_share(&results, &throttled).unwrap();
        assert_eq!((share.trials, share.bounded), (20, 20));
        assert!((share.mean - 0.060 / least).abs() < 1e-3, "{share:?}");
        let (bound, words) = cold_boundness(&results, true);
        assert_eq!(bound, "I/O-bound", "{words}");
        assert!(words.contains("at most 6%"), "{words}");
        assert!(words.contains("20 of them interfered with"), "{words}");
        // A bound above the I/O-bound line tells nothing.
        let (bound, words) = cold_boundness(&run(3000.0, 700.0), true);
        assert_eq!(bound, "not told", "{words}");
        // The machine's own disk has no least time: interfered trials are
        // left out, as before.
        let own: Vec<Case> = plan
            .cases
            .iter()
            .filter(|c| c.device_rate.is_none() && c.cache == CacheState::Cold)
            .cloned()
            .collect();
        let mut results = crate::fixtures::results_of(&plan.cases);
        for c in &own {
            let trials: Vec<Trial> = around(300.0, 5, 0.4)
                .into_iter()
                .map(|t| Trial {
                    interfered: true,
                    ..t
                })
                .collect();
            measure(&mut results, c, &trials);
        }
        assert!(cpu_share(&results, &own).is_err());
    }

    #[test]
    fn a_throttled_run_judges_the_premise_on_the_throttled_disk_and_says_so() {
        // The own disk CPU-bound (95%), the throttled one I/O-bound (4%).
        let (plan, results) = measured_with(Dillon2004::throttled(poster_disk()), 0.95, false);
        let why = Dillon2004::default()
            .explain(&io_claim(&plan), &results)
            .unwrap();
        assert!(why.starts_with("Premise met"), "{why}");
        assert!(why.contains("from the disk throttled to 16 MB/s"), "{why}");
        assert!(why.contains("4% of its elapsed time"), "{why}");
        assert!(
            why.contains("throttled to 16 MB/s by a cgroup (cgroup v1 blkio.throttle)"),
            "{why}"
        );
        let notes = Dillon2004::default().machine_notes(&results);
        assert!(notes[0].contains("premise is met"), "{notes:?}");
        assert!(
            notes[0].contains("Unthrottled, md5 of a cold file from this machine's own disk"),
            "{notes:?}"
        );
        assert!(notes[0].contains("95% of its elapsed time"), "{notes:?}");
        // The claim compares the throttled pairs: 1100 / 1050 ms.
        let judged = crate::studies::judge_claims(&Dillon2004::default(), &results);
        let io = judged.iter().find(|c| c.id == "io-bound").unwrap();
        for pair in &io.pairs {
            let m = pair.measured.unwrap();
            assert!((m - 1100.0 / 1050.0).abs() < 0.01, "{m}");
        }
        // The table shows both cold disks, the throttled rows named.
        let t = &Dillon2004::default().measured(&results)[0];
        let throttled: Vec<_> = t
            .rows
            .iter()
            .filter(|r| r[0].contains("disk throttled to 16 MB/s"))
            .collect();
        assert_eq!(throttled.len(), 2, "{:?}", t.rows);
        assert!(throttled.iter().all(|r| r[0].contains("16 MiB file")));
        assert!(t
            .rows
            .iter()
            .any(|r| r.last().unwrap() == "(the claim is judged on the throttled disk)"));
    }
}
