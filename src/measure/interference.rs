//! What else the machine did while a trial ran.
//!
//! The runner (the parent) takes a [`Snapshot`] right before it spawns a
//! trial and another right after it has **reaped** it; [`measure`] turns
//! the two into an [`Interference`] record, stored with the sample:
//!
//! - **others' CPU**: machine busy time over the window minus the CPU of
//!   the runner and its reaped children (the trial), from `getrusage(SELF)`
//!   and `getrusage(CHILDREN)` deltas, and minus interrupt handling (irq +
//!   softirq, kept as `interrupt_ns`): no process is charged for it, and on
//!   an I/O-heavy trial it is mostly the completion of the trial's own
//!   requests, which must not make the trial look interfered. Machine busy time is
//!   `cores × window − (idle + iowait + steal)` from `/proc/stat` (see
//!   [`super::procstat`] for why not the sum of the busy fields). It is
//!   given in *cores*: `other_cpu_cores = other_cpu_ns / window_ns`, so 1.0
//!   means another process kept one CPU busy all along; the share of the
//!   machine is that over `cores`. Resolution ±10 ms per window.
//! - **steal**: `/proc/stat` steal over the window, also in cores.
//! - **pressure**: `some`/`full` stall µs of `/proc/pressure/{cpu,io,memory}`.
//!   They are system-wide and include the trial's own stalls.
//! - **others' device bytes**: the whole disk's read (written) bytes minus
//!   what the runner and the trial read (dirtied) themselves, from the same
//!   rusage deltas (`ru_inblock`/`ru_oublock`, i.e. `/proc/<pid>/io`
//!   `read_bytes`/`write_bytes`, see [`super::procio`]). Writes are only
//!   indicative: a process is charged when it dirties a page, the device
//!   sees it at writeback, which may fall in a later window.
//! - **other runs**: faultline runs registered in
//!   [`super::active_runs`] and alive at either snapshot.
//!
//! A trial is **interfered** ([`Rule`]) when, with the one tunable
//! threshold `T` (default 10%, i.e. 0.10):
//! - others kept more than `T` cores busy on average over the window (plus
//!   20 ms of `/proc/stat` resolution: `other_cpu_ns > T·window + 20 ms`);
//! - or steal took more than `T` of one core (same slack);
//! - or, for a trial with fewer threads than CPUs (so that it cannot cause
//!   CPU pressure by itself), some task waited for a CPU for more than `T`
//!   of the window (`cpu some`);
//! - or the disk moved more than `T × max(own device bytes, 16 MiB)` that
//!   were not the trial's (reads + writes; this includes the writeback of
//!   an earlier trial's dirty pages, which does disturb this one);
//! - or another faultline run was active.
//!
//! docs/interference.md has the measurements behind these definitions and
//! defaults.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::active_runs::{self, OtherRun, Registration};
use super::procio::{self, Usage};
use super::psi::{self, StallDelta};
use super::run_delay::CpuWait;
use super::{blockdev, procstat};

/// The runner's counters at one instant. Fields are public so that tests
/// and replays can build one from fixture text.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// When (monotonic).
    pub at: Instant,
    /// `/proc/stat`.
    pub cpu: Option<procstat::CpuTimes>,
    /// `/proc/pressure/*`.
    pub pressure: psi::Pressure,
    /// The whole disk under the data file.
    pub disk: Option<blockdev::Sectors>,
    /// `getrusage(SELF) + getrusage(CHILDREN)` of the runner.
    pub own: Usage,
    /// The other live faultline runs (the runner also reads, from the
    /// same snapshots, which of them share its data directory).
    pub other_runs: Vec<OtherRun>,
}

/// What the runner needs to take snapshots: where the disk counters are
/// and this run's registration among the active runs. Register once per
/// run and share it (`Arc`): two registrations of one run would see each
/// other as "other runs". Make one probe per data file ([`Probe::for_file`]).
#[derive(Clone, Debug, Default)]
pub struct Probe {
    disk_stat: Option<PathBuf>,
    registration: Option<Arc<Registration>>,
}

impl Probe {
    /// For trials on `data_file` (its whole disk's counters, if any),
    /// looking for other runs through `registration` (`None`: do not).
    pub fn new(data_file: &Path, registration: Option<Arc<Registration>>) -> Probe {
        Probe {
            disk_stat: blockdev::disk_stat_path(data_file),
            registration,
        }
    }

    /// The same probe for trials on another file.
    pub fn for_file(&self, data_file: &Path) -> Probe {
        Probe::new(data_file, self.registration.clone())
    }

    /// Registers this run, which keeps its files in `data_dir`, in
    /// [`active_runs::default_dir`]; a reason to warn about when that
    /// fails, e.g. on a read-only `/tmp`.
    pub fn register_default(data_dir: Option<&Path>) -> Result<Arc<Registration>, String> {
        let dir = active_runs::default_dir();
        Registration::register(&dir, data_dir)
            .map(Arc::new)
            .map_err(|e| {
                format!(
                    "cannot register in {}: {e}; other runs will not be seen",
                    dir.display()
                )
            })
    }

    /// Whether other runs can be seen.
    pub fn watches_runs(&self) -> bool {
        self.registration.is_some()
    }

    fn runs(&self) -> Vec<OtherRun> {
        let Some(r) = &self.registration else {
            return Vec::new();
        };
        r.others().unwrap_or_default()
    }

    /// Just before spawning the trial: the slow directory scan first, the
    /// clock last.
    pub fn before(&self) -> Snapshot {
        let other_runs = self.runs();
        let disk = self.disk_stat.as_deref().and_then(blockdev::read);
        let pressure = psi::read();
        let cpu = procstat::read();
        let own = own_usage();
        Snapshot {
            at: Instant::now(),
            cpu,
            pressure,
            disk,
            own,
            other_runs,
        }
    }

    /// Right after reaping the trial: the mirror of [`Probe::before`].
    pub fn after(&self) -> Snapshot {
        let at = Instant::now();
        let own = own_usage();
        let cpu = procstat::read();
        let pressure = psi::read();
        let disk = self.disk_stat.as_deref().and_then(blockdev::read);
        Snapshot {
            at,
            cpu,
            pressure,
            disk,
            own,
            other_runs: self.runs(),
        }
    }
}

/// The runner's own usage plus that of all its reaped children.
pub fn own_usage() -> Usage {
    procio::getrusage(libc::RUSAGE_SELF).plus(&procio::getrusage(libc::RUSAGE_CHILDREN))
}

/// What else happened during one trial. Stored with each sample.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Interference {
    /// The window between the two snapshots, ns.
    pub window_ns: u64,
    /// CPUs online.
    pub cores: u32,
    /// CPU of the runner and the trial over the window, ns.
    pub own_cpu_ns: u64,
    /// CPU time of everything else, ns; `None` without `/proc/stat`.
    pub other_cpu_ns: Option<u64>,
    /// `other_cpu_ns / window_ns`: how many cores others kept busy.
    pub other_cpu_cores: Option<f64>,
    /// Interrupt handling (irq + softirq) over the window, ns: left out of
    /// `other_cpu_ns`, because on an I/O-heavy trial it is mostly the
    /// completion of the trial's own requests (16,000 random 4 KiB reads
    /// took 0.13 cores of softirq); `None` without `/proc/stat`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt_ns: Option<u64>,
    /// Steal over the window, ns.
    pub steal_ns: Option<u64>,
    /// CPU pressure (`full` only on Linux 5.13+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub psi_cpu: Option<StallDelta>,
    /// How long the trial's own thread waited for a CPU (one-thread trials,
    /// [`super::run_delay`]); judged instead of `psi_cpu` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_cpu_wait: Option<CpuWait>,
    /// I/O pressure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub psi_io: Option<StallDelta>,
    /// Memory pressure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub psi_memory: Option<StallDelta>,
    /// Bytes the runner and the trial read from storage.
    pub own_read_bytes: u64,
    /// Bytes the runner and the trial dirtied.
    pub own_write_bytes: u64,
    /// Disk reads not the trial's (saturating at 0); `None` without a disk.
    pub other_device_read_bytes: Option<u64>,
    /// Disk writes not the trial's (indicative only: writeback lags).
    pub other_device_write_bytes: Option<u64>,
    /// Other faultline runs alive at either snapshot.
    pub other_runs: u32,
    /// Whether [`Rule`] found the trial interfered.
    pub interfered: bool,
    /// Why, one phrase per exceeded limit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

impl Interference {
    /// Share of the whole machine others used (0–1).
    pub fn other_cpu_machine_share(&self) -> Option<f64> {
        Some(self.other_cpu_cores? / self.cores.max(1) as f64)
    }

    /// Steal in cores (steal ns / window ns).
    pub fn steal_cores(&self) -> Option<f64> {
        Some(self.steal_ns? as f64 / self.window_ns.max(1) as f64)
    }
}

/// The interference rule: one threshold `T` for every check.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// `T`, e.g. 0.10 for `--interference-threshold 10%`.
    pub threshold: f64,
    /// Device bytes below which a trial is judged as if it moved this many
    /// (so a warm trial tolerates `T × 16 MiB` of others' traffic).
    pub device_floor_bytes: u64,
    /// Added to the CPU and steal limits: the resolution of `/proc/stat`
    /// (each of the two readings is truncated to a 10 ms tick), so that a
    /// short trial is not flagged for one tick of rounding.
    pub cpu_slack_ns: u64,
}

/// The default threshold `T`: 10% (docs/interference.md says why).
pub const DEFAULT_THRESHOLD: f64 = 0.10;

impl Default for Rule {
    fn default() -> Self {
        Rule {
            threshold: DEFAULT_THRESHOLD,
            device_floor_bytes: 16 << 20,
            cpu_slack_ns: 20_000_000,
        }
    }
}

impl Rule {
    /// The default rule at threshold `t`.
    pub fn with_threshold(t: f64) -> Rule {
        Rule {
            threshold: t,
            ..Rule::default()
        }
    }
}

/// Parses `--interference-threshold`: `10%` or `0.1`; above 0, at most 8
/// (cores). `off` is `None`.
pub fn parse_threshold(text: &str) -> Result<Option<f64>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let v = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => t.parse::<f64>(),
    }
    .map_err(|_| format!("not a threshold: {text:?} (e.g. 10% or 0.1)"))?;
    if v.is_finite() && v > 0.0 && v <= 8.0 {
        Ok(Some(v))
    } else {
        Err(format!(
            "the interference threshold must be above 0 and at most 800%: {text:?}"
        ))
    }
}

/// The interference over the window `before`–`after`, judged by `rule`.
///
/// `trial_threads` is how many threads (or processes) the trial ran at
/// once: with as many as there are CPUs, CPU pressure may be its own and is
/// not judged. The trial must have been reaped before `after` was taken.
pub fn measure(
    before: &Snapshot,
    after: &Snapshot,
    rule: &Rule,
    trial_threads: u32,
    own_cpu_wait: Option<CpuWait>,
) -> Interference {
    let window_ns = after.at.saturating_duration_since(before.at).as_nanos() as u64;
    let own = after.own.since(&before.own);
    let cpu = match (&before.cpu, &after.cpu) {
        (Some(b), Some(a)) => Some(a.delta_since(b, procstat::tick_ns())),
        _ => None,
    };
    let other_cpu_ns = cpu.map(|d| {
        d.busy_ns_idle_based(window_ns)
            .saturating_sub(own.cpu_ns)
            .saturating_sub(d.interrupt_ns)
    });
    let per_window = |ns: u64| ns as f64 / window_ns.max(1) as f64;
    let disk = match (&before.disk, &after.disk) {
        (Some(b), Some(a)) => Some(a.bytes_since(b)),
        _ => None,
    };
    let mut runs: Vec<String> = before
        .other_runs
        .iter()
        .chain(&after.other_runs)
        .map(|r| format!("{} ({})", r.id, r.describe()))
        .collect();
    runs.sort();
    runs.dedup();
    let mut rec = Interference {
        window_ns,
        cores: cpu.map(|d| d.cores).unwrap_or(0),
        own_cpu_ns: own.cpu_ns,
        other_cpu_ns,
        other_cpu_cores: other_cpu_ns.map(per_window),
        interrupt_ns: cpu.map(|d| d.interrupt_ns),
        steal_ns: cpu.map(|d| d.steal_ns),
        psi_cpu: psi::delta(before.pressure.cpu, after.pressure.cpu),
        own_cpu_wait,
        psi_io: psi::delta(before.pressure.io, after.pressure.io),
        psi_memory: psi::delta(before.pressure.memory, after.pressure.memory),
        own_read_bytes: own.read_bytes,
        own_write_bytes: own.write_bytes,
        other_device_read_bytes: disk.map(|(r, _)| r.saturating_sub(own.read_bytes)),
        other_device_write_bytes: disk.map(|(_, w)| w.saturating_sub(own.write_bytes)),
        other_runs: runs.len() as u32,
        interfered: false,
        reasons: Vec::new(),
    };
    rec.reasons = judge(&rec, rule, trial_threads, &runs);
    rec.interfered = !rec.reasons.is_empty();
    rec
}

/// The reasons `rule` finds in `rec` (empty: not interfered). Pure, so a
/// stored record can be judged again at another threshold.
pub fn judge(rec: &Interference, rule: &Rule, trial_threads: u32, runs: &[String]) -> Vec<String> {
    let t = rule.threshold;
    let pct = |v: f64| format!("{:.0}%", v * 100.0);
    let window = rec.window_ns.max(1) as f64;
    // In cores: T plus the /proc/stat resolution over this window.
    let cpu_limit = t + rule.cpu_slack_ns as f64 / window;
    let mut reasons = Vec::new();
    if let Some(c) = rec.other_cpu_cores.filter(|&c| c > cpu_limit) {
        reasons.push(format!(
            "other processes used {c:.2} cores (limit {cpu_limit:.2})"
        ));
    }
    if let Some(s) = rec.steal_cores().filter(|&s| s > cpu_limit) {
        reasons.push(format!(
            "steal took {} of a core (limit {})",
            pct(s),
            pct(cpu_limit)
        ));
    }
    if trial_threads < rec.cores {
        if let Some(w) = rec.own_cpu_wait {
            if w.share() > t {
                reasons.push(format!(
                    "the trial waited for a CPU {} of its time (limit {})",
                    pct(w.share()),
                    pct(t)
                ));
            }
        } else if let Some(p) = rec.psi_cpu {
            let share = p.some_us as f64 * 1000.0 / rec.window_ns.max(1) as f64;
            if share > t {
                reasons.push(format!(
                    "tasks waited for a CPU {} of the time (limit {})",
                    pct(share),
                    pct(t)
                ));
            }
        }
    }
    if let (Some(r), Some(w)) = (rec.other_device_read_bytes, rec.other_device_write_bytes) {
        let own = (rec.own_read_bytes + rec.own_write_bytes).max(rule.device_floor_bytes);
        let limit = t * own as f64;
        if (r + w) as f64 > limit {
            reasons.push(format!(
                "the disk moved {:.1} MiB that were not this trial's (limit {:.1} MiB)",
                (r + w) as f64 / 1048576.0,
                limit / 1048576.0
            ));
        }
    }
    if rec.other_runs > 0 {
        let list = if runs.is_empty() {
            String::new()
        } else {
            format!(": {}", runs.join("; "))
        };
        reasons.push(format!(
            "{} other faultline run(s) active{list}",
            rec.other_runs
        ));
    }
    reasons
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{block_device_tempdir, serial, uncached_file};
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command, Stdio};
    use std::time::Duration;

    fn fixture_pair(window_ms: u64) -> (Snapshot, Snapshot) {
        let t0 = Instant::now();
        let b = Snapshot {
            at: t0,
            cpu: procstat::parse(include_str!(
                "../../tests/fixtures/proc/proc_stat_before.txt"
            )),
            pressure: psi::Pressure {
                cpu: psi::parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=1000\n"),
                io: psi::parse(include_str!("../../tests/fixtures/proc/psi_io.txt")),
                memory: None,
            },
            disk: Some(blockdev::Sectors {
                read: 1000,
                written: 50,
            }),
            own: Usage {
                cpu_ns: 5_000_000,
                read_bytes: 0,
                write_bytes: 0,
            },
            other_runs: vec![],
        };
        let a = Snapshot {
            at: t0 + Duration::from_millis(window_ms),
            cpu: procstat::parse(include_str!(
                "../../tests/fixtures/proc/proc_stat_after.txt"
            )),
            pressure: psi::Pressure {
                cpu: psi::parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=81000\n"),
                io: psi::parse(include_str!("../../tests/fixtures/proc/psi_io.txt")),
                memory: None,
            },
            // 40 MiB read, 1 MiB written by the device.
            disk: Some(blockdev::Sectors {
                read: 1000 + 81920,
                written: 50 + 2048,
            }),
            own: Usage {
                cpu_ns: 205_000_000,
                read_bytes: 32 << 20,
                write_bytes: 0,
            },
            other_runs: vec![],
        };
        (b, a)
    }

    #[test]
    fn fixture_window_is_measured_and_judged() {
        let (b, a) = fixture_pair(270);
        let rec = measure(&b, &a, &Rule::default(), 1, None);
        // busy = 2 × 270 − (160 idle + 20 steal) = 360 ms; own 200 ms;
        // interrupts (softirq 204 → 205 ticks) 10 ms, nobody's: others 150.
        assert_eq!(rec.interrupt_ns, Some(10_000_000));
        assert_eq!(rec.other_cpu_ns, Some(150_000_000));
        assert!((rec.other_cpu_cores.unwrap() - 150.0 / 270.0).abs() < 1e-9);
        assert!((rec.other_cpu_machine_share().unwrap() - 75.0 / 270.0).abs() < 1e-9);
        assert_eq!(rec.steal_ns, Some(20_000_000));
        assert_eq!(
            rec.psi_cpu,
            Some(StallDelta {
                some_us: 80_000,
                full_us: None
            })
        );
        assert_eq!(
            rec.psi_io,
            Some(StallDelta {
                some_us: 0,
                full_us: Some(0)
            })
        );
        assert_eq!(rec.psi_memory, None);
        assert_eq!(rec.other_device_read_bytes, Some(8 << 20));
        assert_eq!(rec.other_device_write_bytes, Some(1 << 20));
        assert!(rec.interfered);
        // CPU (0.56 cores), CPU pressure (30%), disk (9 MiB > 10% × 32 MiB).
        assert_eq!(rec.reasons.len(), 3, "{:?}", rec.reasons);
        // Limit 0.10 + 20 ms / 270 ms = 0.17 cores.
        assert!(
            rec.reasons[0].starts_with("other processes used 0.56 cores (limit 0.17)"),
            "{:?}",
            rec.reasons
        );
        assert!(
            rec.reasons[1].contains("waited for a CPU 30%"),
            "{:?}",
            rec.reasons
        );
        assert!(rec.reasons[2].contains("9.0 MiB"), "{:?}", rec.reasons);
        // A trial with a thread per CPU is not judged on CPU pressure; a
        // looser threshold passes it entirely; the record round-trips.
        assert_eq!(judge(&rec, &Rule::default(), 2, &[]).len(), 2);
        let loose = Rule::with_threshold(0.7);
        assert_eq!(judge(&rec, &loose, 1, &[]), Vec::<String>::new());
        let json = serde_json::to_string(&rec).unwrap();
        assert_eq!(serde_json::from_str::<Interference>(&json).unwrap(), rec);
    }

    /// A one-thread trial is judged by its own thread's wait for a CPU, not
    /// by the machine-wide pressure (which any kernel worker's queueing
    /// raises): 30% of the window in `cpu some` with 2% of the trial's own
    /// time waited is no CPU interference; 20% of its own time is.
    #[test]
    fn a_one_thread_trial_is_judged_by_its_own_wait_for_a_cpu() {
        let (mut b, a) = fixture_pair(270);
        // No other CPU, no disk: only the CPU pressure is left to judge.
        b.cpu = a.cpu;
        b.disk = a.disk;
        let own = |waited_ms: u64| CpuWait {
            waited_ns: waited_ms * 1_000_000,
            span_ns: 250_000_000,
        };
        let pressure_only = measure(&b, &a, &Rule::default(), 1, None);
        assert!(
            pressure_only
                .reasons
                .iter()
                .any(|r| r.contains("tasks waited for a CPU")),
            "{:?}",
            pressure_only.reasons
        );
        let calm = measure(&b, &a, &Rule::default(), 1, Some(own(5)));
        assert!(
            !calm.reasons.iter().any(|r| r.contains("waited for a CPU")),
            "{:?}",
            calm.reasons
        );
        let waited = measure(&b, &a, &Rule::default(), 1, Some(own(50)));
        assert!(
            waited
                .reasons
                .iter()
                .any(|r| r.starts_with("the trial waited for a CPU 20% of its time (limit 10%)")),
            "{:?}",
            waited.reasons
        );
        // A trial with a thread per CPU is judged on neither.
        assert!(!measure(&b, &a, &Rule::default(), 2, Some(own(50)))
            .reasons
            .iter()
            .any(|r| r.contains("waited for a CPU")));
        let json = serde_json::to_string(&waited).unwrap();
        assert_eq!(serde_json::from_str::<Interference>(&json).unwrap(), waited);
    }

    #[test]
    fn other_runs_and_missing_sources() {
        let (mut b, mut a) = fixture_pair(1000);
        let run = |id: &str, info: &str| OtherRun {
            id: id.into(),
            info: info.into(),
            data_dir: None,
            same_data_dir: false,
        };
        b.other_runs = vec![run("7-1", "pid=7")];
        a.other_runs = vec![run("7-1", "pid=7"), run("8-2", "pid=8")];
        let rec = measure(&b, &a, &Rule::default(), 1, None);
        assert_eq!(rec.other_runs, 2);
        assert!(rec
            .reasons
            .last()
            .unwrap()
            .starts_with("2 other faultline run(s) active: 7-1"));
        // Nothing readable: nothing judged, nothing made up.
        for s in [&mut b, &mut a] {
            s.cpu = None;
            s.disk = None;
            s.pressure = psi::Pressure::default();
            s.other_runs.clear();
        }
        let rec = measure(&b, &a, &Rule::default(), 1, None);
        assert_eq!(
            (rec.other_cpu_ns, rec.steal_ns, rec.other_device_read_bytes),
            (None, None, None)
        );
        assert!(!rec.interfered);
    }

    #[test]
    fn probes_of_two_runs_see_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("faultline-x").join("active");
        let me = Probe::new(
            Path::new("/"),
            Some(Arc::new(Registration::register(&runs, None).unwrap())),
        );
        assert!(me.watches_runs());
        // A second probe of the same run (another data file) is not "another run".
        let mine_too = me.for_file(Path::new("/var/tmp"));
        assert!(mine_too.watches_runs());
        let b = me.before();
        let other = Registration::register(&runs, None).unwrap();
        let a = mine_too.after();
        let rec = measure(&b, &a, &Rule::default(), 1, None);
        assert_eq!(rec.other_runs, 1, "{rec:?}");
        assert!(
            rec.reasons
                .iter()
                .any(|r| r.starts_with("1 other faultline run(s) active: ")),
            "{rec:?}"
        );
        drop(other);
        let rec = measure(&me.before(), &me.after(), &Rule::default(), 1, None);
        assert_eq!(rec.other_runs, 0);
    }

    #[test]
    fn thresholds_parse() {
        assert_eq!(parse_threshold("10%"), Ok(Some(0.1)));
        assert_eq!(parse_threshold(" 0.25 "), Ok(Some(0.25)));
        assert_eq!(parse_threshold("off"), Ok(None));
        assert!(parse_threshold("0").is_err());
        assert!(parse_threshold("-5%").is_err());
        assert!(parse_threshold("ten").is_err());
        assert!(parse_threshold("900%").is_err());
    }

    /// Kills a whole process group when dropped, even if the test panics.
    struct Group(Child);
    impl Drop for Group {
        fn drop(&mut self) {
            // SAFETY: kill has no memory preconditions; the group is ours.
            unsafe { libc::kill(-(self.0.id() as i32), libc::SIGKILL) };
            let _ = self.0.wait();
        }
    }

    fn background(script: &str) -> Group {
        let child = Command::new("sh")
            .args(["-c", script])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("sh");
        Group(child)
    }

    /// CPU time (ticks → ns) of one process from /proc/<pid>/stat.
    fn cpu_of(pid: u32) -> u64 {
        let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let rest = &s[s.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = rest.split_whitespace().collect();
        (f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()) * procstat::tick_ns()
    }

    /// Runs a ~500 ms busy "trial" child between two snapshots.
    fn busy_trial(probe: &Probe) -> Interference {
        let before = probe.before();
        let mut child = Command::new("timeout")
            .args(["0.5", "sh", "-c", "while :; do :; done"])
            .spawn()
            .expect("timeout(1)");
        child.wait().unwrap();
        let after = probe.after();
        measure(&before, &after, &Rule::default(), 1, None)
    }

    #[test]
    fn a_cpu_hog_beside_the_trial_is_recorded() {
        let _serial = serial();
        let probe = Probe::new(Path::new("/"), None);
        let quiet = busy_trial(&probe);
        let hog = background("while :; do :; done");
        std::thread::sleep(Duration::from_millis(50));
        let hog_before = cpu_of(hog.0.id());
        let busy = busy_trial(&probe);
        let hog_cpu = cpu_of(hog.0.id()) - hog_before;
        drop(hog);
        eprintln!("quiet {quiet:?}\nwith hog {busy:?}\nhog cpu {hog_cpu} ns");
        assert!(
            quiet.own_cpu_ns >= 20_000_000,
            "the trial's CPU is its own: {quiet:?}"
        );
        // The hog's CPU (from its own /proc/<pid>/stat) is inside others'
        // CPU, to the ±10 ms resolution of each of the two sources.
        // Even on a loaded machine the hog gets some of the 0.5 s.
        assert!(hog_cpu >= 40_000_000, "hog starved: {hog_cpu} ns");
        assert!(
            busy.other_cpu_ns.unwrap() + 30_000_000 >= hog_cpu,
            "{busy:?}"
        );
        assert!(busy.interfered, "{busy:?}");
        // On a quiet machine the difference is plain to see; on a busy one
        // (the quiet window already had others at work) only the above holds.
        let background = quiet.other_cpu_cores.unwrap();
        if background < 0.3 {
            assert!(busy.other_cpu_cores.unwrap() > background + 0.5, "{busy:?}");
        } else {
            eprintln!("machine busy ({background:.2} cores of others without the hog): quiet-vs-hog not compared");
        }
    }

    #[test]
    fn another_readers_disk_reads_are_not_the_warm_trials() {
        let _serial = serial();
        let dir = block_device_tempdir();
        let warm = dir.path().join("warm");
        std::fs::write(&warm, vec![7u8; 8 << 20]).unwrap();
        std::fs::read(&warm).unwrap(); // cached
        let cold = uncached_file(dir.path(), 16 << 20);
        let probe = Probe::new(&warm, None);
        let reader = background(&format!(
            "while :; do dd if={} of=/dev/null bs=1M iflag=direct; done",
            cold.display()
        ));
        std::thread::sleep(Duration::from_millis(50));
        let before = probe.before();
        let status = Command::new("sh")
            .args([
                "-c",
                &format!("for i in $(seq 20); do cat {}; done", warm.display()),
            ])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let after = probe.after();
        drop(reader);
        let rec = measure(&before, &after, &Rule::default(), 1, None);
        eprintln!("{rec:?}");
        // A few KiB may come from loading `sh`/`cat` themselves; the 160 MiB
        // the trial delivered came from the cache.
        assert!(
            rec.own_read_bytes < 1 << 20,
            "the warm trial read from the disk: {rec:?}"
        );
        assert!(rec.other_device_read_bytes.unwrap() >= 1 << 20, "{rec:?}");
    }
}
