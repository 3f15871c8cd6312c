//! `--profile`: where a trial's main loop spends its CPU time. A software
//! `cpu-clock` event samples the trial process and every thread it creates
//! ([`sampler`]), only while the main loop runs; the child normalizes the
//! call chains ([`raw`]); the parent names them once per run ([`symbolize`])
//! and sorts each sample into one category of THE table ([`categories`]).
//!
//! In the trial child:
//!
//! ```no_run
//! # fn main() -> std::io::Result<()> {
//! use faultline::measure::profile::{ProfileMode, ProfileRequest, Profiler};
//! let request = ProfileRequest { frequency_hz: 997, mode: ProfileMode::KernelUser };
//! let profiler = Profiler::open(&request)?; // before the counters are read
//! profiler.enable()?;                        // the main loop starts
//! // ... the main loop (threads spawned after `open` are sampled too) ...
//! profiler.disable()?;                       // the main loop ends
//! let raw = profiler.finish()?;              // after the clocks: to the parent
//! # Ok(()) }
//! ```
use std::collections::BTreeMap;
use std::io;

use serde::{Deserialize, Serialize};

pub mod categories;
pub mod raw;
pub mod sampler;
pub mod symbolize;

pub use categories::{classify, Category, Frame};
pub use raw::RawProfile;
pub use symbolize::Namer;

/// The default rate, samples per CPU second: 499 Hz. On a virtual machine
/// each cpu-clock tick costs the sampled thread ~13–25 µs (the timer
/// interrupt's exits to the hypervisor, with or without a sample written):
/// on this project's 2-core VM 997 Hz cost about 5–7% of a warm loop's
/// throughput, over the 5% target, and 499 Hz about 1–2% (docs/profile.md);
/// on bare metal a tick costs 1–2 µs. The price is half the samples of
/// 997 Hz (shares' CIs about 1.4 times as wide); `--profile-hz` raises it.
/// A prime, so that samples do not fall in step with periodic work in the
/// loop.
pub const DEFAULT_HZ: u32 = 499;

/// The highest rate `--profile-hz` takes (the kernel's own limit,
/// `kernel.perf_event_max_sample_rate`, may be lower: [`check_rate`]).
pub const MAX_HZ: u32 = 10_000;

/// Which samples a trial can take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProfileMode {
    /// Kernel and user call chains.
    #[default]
    #[serde(rename = "kernel+user")]
    KernelUser,
    /// User call chains only (`exclude_kernel`): time in the kernel is not
    /// sampled at all (the kernel drops cpu-clock samples that land in
    /// kernel mode), so shares are shares of user time.
    #[serde(rename = "user-only")]
    UserOnly,
}

impl ProfileMode {
    /// `kernel+user` or `user-only`.
    pub fn name(self) -> &'static str {
        match self {
            ProfileMode::KernelUser => "kernel+user",
            ProfileMode::UserOnly => "user-only",
        }
    }
}

impl std::fmt::Display for ProfileMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a profiled trial is asked to sample: decided once per run by the
/// parent ([`probe`]) and sent to every trial child.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileRequest {
    /// Samples per CPU second of each thread.
    pub frequency_hz: u32,
    /// Kernel and user, or user only.
    pub mode: ProfileMode,
}

/// The mode this process may take, and the one line that says why when it
/// is not the full one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeDecision {
    /// Kernel and user, or user only.
    pub mode: ProfileMode,
    /// Why the samples are user-only; `None` for kernel and user.
    pub note: Option<String>,
}

/// The mode `kernel.perf_event_paranoid` and the effective user id allow:
/// kernel samples need root (or CAP_PERFMON) when paranoid is above 1.
pub fn decide_mode(paranoid: i32, euid: u32) -> ModeDecision {
    if euid == 0 || paranoid <= 1 {
        return ModeDecision {
            mode: ProfileMode::KernelUser,
            note: None,
        };
    }
    ModeDecision {
        mode: ProfileMode::UserOnly,
        note: Some(format!(
            "profile: user-only samples (kernel time is not sampled, so shares are of user time): \
             kernel.perf_event_paranoid is {paranoid} (above 1) and faultline is not running as root"
        )),
    }
}

/// `kernel.perf_event_paranoid`, or 2 (the kernel's default) when unreadable.
pub fn read_paranoid() -> i32 {
    read_sysctl("perf_event_paranoid").unwrap_or(2)
}

fn read_sysctl(name: &str) -> Option<i32> {
    std::fs::read_to_string(format!("/proc/sys/kernel/{name}"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Refuses a rate above the kernel's `perf_event_max_sample_rate` (it would
/// fail every trial with EINVAL), in one line.
pub fn check_rate(frequency_hz: u32) -> Result<(), String> {
    match read_sysctl("perf_event_max_sample_rate") {
        Some(max) if i64::from(frequency_hz) > i64::from(max) => Err(format!(
            "--profile-hz {frequency_hz}: above this kernel's limit, kernel.perf_event_max_sample_rate = {max}"
        )),
        _ => Ok(()),
    }
}

/// Decides the mode this process may profile in and checks that the kernel
/// opens the events: the mode [`decide_mode`] allows, confirmed by opening
/// (and closing) a sampler on this thread. Fails with one line when
/// profiling is impossible: a rate above the kernel's limit (a usage error,
/// [`crate::error::Error::Plan`]), or perf events refused (`perf_event_paranoid` 3 or
/// more on kernels that refuse unprivileged users, no perf events at all: a
/// runtime failure, [`crate::error::Error::Trial`]).
pub fn probe(frequency_hz: u32) -> crate::error::Result<ModeDecision> {
    use crate::error::Error;
    check_rate(frequency_hz).map_err(Error::Plan)?;
    let decision = decide_mode(read_paranoid(), crate::system::current_uid());
    match sampler::Sampler::open(u64::from(frequency_hz), decision.mode) {
        Ok(s) => {
            drop(s);
            Ok(decision)
        }
        Err(e) => Err(Error::Trial(format!(
            "--profile: the kernel refused a {} cpu-clock sampler: {e} (kernel.perf_event_paranoid is {}{}); \
             run as root or lower kernel.perf_event_paranoid",
            decision.mode,
            read_paranoid(),
            if crate::system::current_uid() == 0 {
                ""
            } else {
                ", not root"
            }
        ))),
    }
}

/// One trial's profile after naming: what the parent keeps with the sample
/// (and the journal holds).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialProfile {
    /// Kernel and user, or user only.
    pub mode: ProfileMode,
    /// The asked-for rate, samples per CPU second.
    pub frequency_hz: u32,
    /// Samples taken in the main loop.
    pub samples: u64,
    /// Samples the kernel dropped (ring buffer full).
    #[serde(default)]
    pub lost: u64,
    /// Times the kernel throttled the rate.
    #[serde(default)]
    pub throttled: u64,
    /// Distinct threads sampled.
    pub threads: u32,
    /// Samples of each thread sampled, most first (absent in results
    /// written before it was kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_samples: Vec<u64>,
    /// CPU time of the sampler's drain thread, ns (part of the trial's CPU time).
    #[serde(default)]
    pub drain_cpu_ns: u64,
    /// Samples whose leaf frame could not be named (`[unknown]`, an address
    /// in no symbol, or `[file changed since the trial]`): counted in "other
    /// kernel" or "other user" like any other sample, and reported.
    #[serde(default)]
    pub unnamed: u64,
    /// Samples per category (those with none are left out).
    pub categories: BTreeMap<Category, u64>,
    /// Folded stacks, root first (inferno's format without the count):
    /// `frame;frame;frame` -> samples. Kernel frames end in `_[k]`, inlined
    /// ones in `_[i]`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stacks: BTreeMap<String, u64>,
}

impl TrialProfile {
    /// Samples sorted into categories (every sample with a stack).
    pub fn categorised(&self) -> u64 {
        self.categories.values().sum()
    }
}

/// A trial's profiler: the events opened (disabled) before the trial's
/// counters are read, enabled and disabled around the main loop, finished
/// after the trial's clocks have stopped.
pub struct Profiler {
    sampler: sampler::Sampler,
    request: ProfileRequest,
}

impl std::fmt::Debug for Profiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Profiler")
            .field("request", &self.request)
            .finish_non_exhaustive()
    }
}

impl Profiler {
    /// Opens the events in the requested mode.
    pub fn open(request: &ProfileRequest) -> io::Result<Profiler> {
        let sampler = sampler::Sampler::open(u64::from(request.frequency_hz), request.mode)
            .map_err(|e| io::Error::new(e.kind(), format!("--profile: perf_event_open: {e}")))?;
        Ok(Profiler {
            sampler,
            request: *request,
        })
    }

    /// Starts sampling (just before the main loop).
    pub fn enable(&self) -> io::Result<()> {
        self.sampler.enable()
    }

    /// Stops sampling (just after the main loop).
    pub fn disable(&self) -> io::Result<()> {
        self.sampler.disable()
    }

    /// Stops the sampler and normalizes what it collected.
    pub fn finish(self) -> io::Result<RawProfile> {
        let chains = self.sampler.finish()?;
        RawProfile::from_chains(&chains, self.request.mode, self.request.frequency_hz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_always_gets_kernel_samples() {
        for p in [-1, 0, 1, 2, 3, 4] {
            assert_eq!(decide_mode(p, 0).mode, ProfileMode::KernelUser);
            assert!(decide_mode(p, 0).note.is_none());
        }
    }

    #[test]
    fn an_unprivileged_user_falls_back_to_user_only_above_paranoid_1() {
        for p in [-1, 0, 1] {
            assert_eq!(decide_mode(p, 1000).mode, ProfileMode::KernelUser);
        }
        for p in [2, 3, 4] {
            let d = decide_mode(p, 1000);
            assert_eq!(d.mode, ProfileMode::UserOnly);
            let note = d.note.unwrap();
            assert!(!note.contains('\n'), "one line: {note}");
            assert!(note.contains("user-only") && note.contains(&format!("paranoid is {p}")));
            assert!(note.contains("not running as root"), "{note}");
        }
    }

    #[test]
    fn modes_serialize_by_name() {
        assert_eq!(
            serde_json::to_string(&ProfileMode::UserOnly).unwrap(),
            "\"user-only\""
        );
        assert_eq!(
            serde_json::to_string(&ProfileMode::KernelUser).unwrap(),
            "\"kernel+user\""
        );
    }

    #[test]
    fn a_rate_above_the_kernels_limit_is_refused() {
        let max = read_sysctl("perf_event_max_sample_rate").unwrap();
        assert!(check_rate(max as u32).is_ok());
        let e = check_rate(max as u32 + 1).unwrap_err();
        assert!(e.contains("perf_event_max_sample_rate"), "{e}");
    }

    /// Only the window between enable and disable is sampled, and threads
    /// spawned after `open` are followed. The threads spin for a fixed CPU
    /// time (not wall time), so a loaded machine does not starve the count.
    #[test]
    fn samples_the_enabled_window_and_new_threads() {
        let spin = |ms: u64| {
            let end = sampler::thread_cpu_ns() + ms * 1_000_000;
            let mut x = 0u64;
            while sampler::thread_cpu_ns() < end {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
            x
        };
        let decision = decide_mode(read_paranoid(), crate::system::current_uid());
        let request = ProfileRequest {
            frequency_hz: 1000,
            mode: decision.mode,
        };
        let p = Profiler::open(&request).unwrap();
        spin(150); // before: not sampled
        p.enable().unwrap();
        let worker = std::thread::spawn(move || spin(200));
        spin(200);
        worker.join().unwrap();
        p.disable().unwrap();
        spin(150); // after: not sampled
        let raw = p.finish().unwrap();
        // Two threads with 0.2 s of CPU each in the window: about 400
        // samples, never the 700 the whole test's CPU time would give.
        assert!(
            raw.samples <= 2 * 200 * 11 / 10 + 10,
            "{} samples",
            raw.samples
        );
        assert!(raw.samples >= 200, "{} samples", raw.samples);
        assert_eq!(raw.threads, 2, "{raw:?}");
        assert_eq!(raw.lost, 0);
        let in_stacks: u64 = raw.stacks.iter().map(|s| s.count).sum();
        assert_eq!(in_stacks, raw.samples);
    }
}
