//! Spawning one trial child: `faultline __trial`, tied to this process's
//! life, sent its spec on stdin, watched for `--trial-timeout` and for a
//! stop, and read back; a child that produced no report gets its reason in
//! words (a signal, out of memory, disk full, its first line of stderr).
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use crate::results::ChildReport;
use crate::runner::cgroup::TrialCgroup;
use crate::runner::live_rate::LiveWatch;
use crate::trial::{TrialSpec, DISK_FULL_EXIT, SUBCOMMAND};

/// How a trial child is started and bounded: the binary to run, the
/// longest it may run (`--trial-timeout`) and the flag that stops it.
#[derive(Clone, Debug)]
pub struct Spawner {
    /// The binary re-executed for each trial (normally this one).
    pub exe: std::path::PathBuf,
    /// A trial running longer than this is killed and reported.
    pub timeout: Option<Duration>,
    /// Set from a signal handler: the running trial is killed.
    pub stop: Arc<AtomicBool>,
}

/// `exe __trial`, set up to die with this process: the child asks the
/// kernel for SIGKILL when its parent dies (PR_SET_PDEATHSIG), then checks
/// that its parent is still the process that forked it, since the parent
/// may have died before the request took effect. So a SIGKILLed faultline
/// leaves no trial running, and a later resume is never measured beside an
/// orphan. (The signal is tied to the thread that spawns the child: trials
/// are spawned from the thread that runs the whole plan.)
pub fn trial_command(exe: &Path) -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(exe);
    command.arg(SUBCOMMAND);
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: prctl and getppid are async-signal-safe, and the closure
    // allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                return Err(std::io::Error::other(
                    "faultline ended before its trial started",
                ));
            }
            Ok(())
        });
    }
    command
}

/// Runs one trial child (in `cgroup`, when given, which it joins before it
/// is sent its spec); `Err` holds the reason it produced no sample.
/// While it waits, `live` samples the child's rate for the progress line
/// ([`crate::runner::live_rate`]), from this process, outside the child's
/// clocks.
pub(super) fn spawn_trial(
    options: &Spawner,
    spec: &TrialSpec,
    cgroup: Option<&TrialCgroup>,
    mut live: Option<LiveWatch>,
) -> std::result::Result<ChildReport, String> {
    let oom_kills_before = crate::measure::vmstat::oom_kills();
    let mut child = trial_command(&options.exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "could not start the trial process {}: {e}",
                options.exe.display()
            )
        })?;
    if let Some(cgroup) = cgroup {
        if let Err(e) = cgroup.add(child.id()) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("could not put the trial into its cgroup: {e}"));
        }
    }
    let spec_json = serde_json::to_vec(spec).map_err(|e| e.to_string())?;
    // A child that died before it read its spec (killed by a signal, out of
    // memory) breaks the pipe: its death, found below, is the reason, not
    // the broken pipe. Closing stdin ends a child still waiting on it.
    let send_error = child
        .stdin
        .take()
        .and_then(|mut stdin| stdin.write_all(&spec_json).err());
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let (done, watch) = mpsc::channel::<()>();
    let limit = options.timeout;
    let stop = Arc::clone(&options.stop);
    // The watchdog kills the child when it outlives --trial-timeout, or when
    // a stop is asked for (a signal sent to faultline alone must still end
    // the running trial). It wakes every 50 ms, or when the limit is due if
    // that is sooner (so a limit shorter than 50 ms holds for every trial),
    // and never touches the child otherwise (but to read its /proc io
    // counters for the live rate, at most once a second).
    let watchdog = std::thread::spawn(move || {
        let started = std::time::Instant::now();
        loop {
            let tick = limit.map_or(Duration::from_millis(50), |l| {
                l.saturating_sub(started.elapsed())
                    .min(Duration::from_millis(50))
            });
            match watch.recv_timeout(tick) {
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let expired = limit.is_some_and(|l| started.elapsed() >= l);
                    if expired || stop.load(Ordering::SeqCst) {
                        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
                        return expired;
                    }
                    if let Some(live) = live.as_mut() {
                        live.tick(pid.as_raw());
                    }
                }
                _ => return false,
            }
        }
    });
    let output = child.wait_with_output();
    let _ = done.send(());
    let timed_out = watchdog.join().unwrap_or(false);
    let output = output.map_err(|e| format!("waiting for the trial: {e}"))?;
    if timed_out {
        let limit = options.timeout.unwrap_or_default();
        return Err(format!(
            "timed out after {} s and was killed (--trial-timeout)",
            limit.as_secs_f64()
        ));
    }
    if let Some(reason) = out_of_memory(
        &output,
        oom_kills_before,
        cgroup.is_some_and(TrialCgroup::limits_memory),
    ) {
        return Err(reason);
    }
    if let Some(signal) = output.status.signal() {
        let name = nix::sys::signal::Signal::try_from(signal)
            .map(|s| s.as_str())
            .unwrap_or("an unknown signal");
        let hint = match signal {
            libc::SIGBUS if spec.case.method.writes() => {
                " (a store into the mapping could not be backed: disk full, or the file was truncated)"
            }
            libc::SIGBUS => " (the file was probably truncated under the mapping)",
            _ => "",
        };
        return Err(format!("killed by {name}{hint}"));
    }
    if let Some(e) = send_error {
        return Err(format!("could not send the trial spec: {e}"));
    }
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        if output.status.code() == Some(DISK_FULL_EXIT) && is_disk_full(line) {
            return Err(line.to_string());
        }
        return Err(format!(
            "exited with {}: {line}",
            output.status.code().unwrap_or(-1)
        ));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| format!("unreadable trial report: {e}"))
}

/// Why a trial that died for lack of memory died, in those words: killed
/// by SIGKILL while the kernel's OOM-kill count rose (the machine, or the
/// trial's memory cgroup, ran out), or aborted by a failed allocation.
fn out_of_memory(
    output: &std::process::Output,
    oom_kills_before: Option<i64>,
    in_cgroup: bool,
) -> Option<String> {
    let signal = output.status.signal()?;
    if signal == libc::SIGKILL {
        let rose = matches!(
            (oom_kills_before, crate::measure::vmstat::oom_kills()),
            (Some(before), Some(after)) if after > before
        );
        if !rose {
            return None;
        }
        let whose = if in_cgroup {
            "its memory cgroup (--memory-budget) or the machine"
        } else {
            "the machine"
        };
        return Some(format!(
            "ran out of memory: the kernel's OOM killer ended it with SIGKILL ({whose} had no memory left); \
             ask for less (fewer --threads or --procs, a smaller --block, --iov or --depth) or free memory"
        ));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let failed = stderr
        .lines()
        .find(|l| l.contains("memory allocation of"))?;
    (signal == libc::SIGABRT).then(|| {
        format!(
            "ran out of memory: {} (aborted); ask for less (fewer --threads or --procs, a smaller --block, --iov or --depth) or free memory",
            failed.trim()
        )
    })
}

/// Whether a trial failed because a write found no room (the child's
/// [`crate::error::Error::DiskFull`] line, which it exits with
/// [`DISK_FULL_EXIT`] for).
pub(super) fn is_disk_full(reason: &str) -> bool {
    reason.starts_with("disk full (")
}
