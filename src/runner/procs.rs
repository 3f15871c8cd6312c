//! Processes at once (`--procs N`): N trial children run the same case on
//! the same file together, which shows that a shared mapping shares physical
//! pages while read() copies into each process.
//!
//! The release protocol runs over each child's stdin and stdout: the runner
//! sends the trial spec as one line and keeps stdin open; each child opens
//! its file and builds its method, then prints `ready` and waits for a line
//! on stdin; when all N are ready the runner sends `go` to each, and only
//! then does any child start its clocks. After its main loop (and sync) each
//! child prints `ready` again and waits for a second `go`, sent once all N
//! have got there; then it reads its proportional set size (PSS,
//! /proc/self/smaps_rollup) before teardown, so the pages a mapping shares
//! are split between the processes that map them at that moment. Both
//! meeting points are outside every clock (the teardown clock starts after
//! the PSS read). A third meeting point after the PSS read keeps any
//! process from unmapping before every process has read its PSS.
//!
//! The sample is that of the slowest process (largest total), with every
//! process's figures in [`ProcStat`]s; the processes' checksums must agree.
//! `--trial-timeout` does not apply to these trials (the runner waits for
//! all N).
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;

use crate::results::{ChildReport, ProcStat};
use crate::trial::procs::READY;
use crate::trial::TrialSpec;

/// Most processes a case may run at once.
pub const MAX_PROCS: u32 = 64;

/// In the runner: starts `n` children on `spec`, releases them together once
/// all are ready, and merges their reports (see the module docs). `Err`
/// holds the reason the trial produced no sample.
pub fn run_together(
    exe: &std::path::Path,
    spec: &TrialSpec,
    n: u32,
) -> std::result::Result<ChildReport, String> {
    let mut line = serde_json::to_string(spec).map_err(|e| e.to_string())?;
    line.push('\n');
    let mut children = Vec::new();
    let kill_all = |children: &mut Vec<std::process::Child>| {
        for c in children.iter_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    };
    for _ in 0..n {
        let child = super::trial_command(exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        match child {
            Ok(c) => children.push(c),
            Err(e) => {
                kill_all(&mut children);
                return Err(format!("could not start a trial process: {e}"));
            }
        }
    }
    let mut readers = Vec::new();
    for c in children.iter_mut() {
        let sent = c
            .stdin
            .as_mut()
            .map(|s| s.write_all(line.as_bytes()).and_then(|_| s.flush()));
        if let Some(Err(e)) = sent {
            // A child that died before it read its spec broke the pipe: its
            // death (a signal, out of memory) is the reason, not the pipe.
            let why = death_within(c, std::time::Duration::from_secs(1))
                .unwrap_or_else(|| format!("could not send the trial spec: {e}"));
            kill_all(&mut children);
            return Err(why);
        }
    }
    for c in children.iter_mut() {
        let mut reader = BufReader::new(c.stdout.take().expect("piped stdout"));
        let mut first = String::new();
        let _ = reader.read_line(&mut first);
        readers.push((first.trim() == READY, reader));
    }
    if let Some(i) = readers.iter().position(|(ready, _)| !ready) {
        // That child failed before it was ready: close the others' stdin
        // (their wait for the go fails) and report its error.
        for c in children.iter_mut() {
            drop(c.stdin.take());
        }
        let mut why = String::new();
        if let Some(err) = children[i].stderr.as_mut() {
            let _ = err.read_to_string(&mut why);
        }
        kill_all(&mut children);
        let line = why
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Err(format!(
            "process {i} of {n} failed before the start: {line}"
        ));
    }
    for c in children.iter_mut() {
        if let Some(stdin) = c.stdin.as_mut() {
            let _ = stdin.write_all(b"go\n").and_then(|_| stdin.flush());
        }
    }
    // The second meeting point: every child has finished its loop (or
    // failed, and then its line is empty); all read their PSS together. The
    // third: every child has read its PSS; all tear down.
    for round in 0..2 {
        for (_, reader) in readers.iter_mut() {
            let mut next = String::new();
            let _ = reader.read_line(&mut next);
        }
        for c in children.iter_mut() {
            if round == 1 {
                if let Some(mut stdin) = c.stdin.take() {
                    let _ = stdin.write_all(b"go\n");
                }
            } else if let Some(stdin) = c.stdin.as_mut() {
                let _ = stdin.write_all(b"go\n").and_then(|_| stdin.flush());
            }
        }
    }
    let mut reports = Vec::new();
    for (i, (c, (_, mut reader))) in children.iter_mut().zip(readers).enumerate() {
        let mut out = String::new();
        let _ = reader.read_to_string(&mut out);
        let mut err = String::new();
        if let Some(e) = c.stderr.as_mut() {
            let _ = e.read_to_string(&mut err);
        }
        let status = c
            .wait()
            .map_err(|e| format!("waiting for the trial: {e}"))?;
        if !status.success() {
            let line = err
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message");
            return Err(format!("process {i} of {n} failed: {line}"));
        }
        let report: ChildReport = serde_json::from_str(out.trim())
            .map_err(|e| format!("process {i} of {n} sent a bad report: {e}"))?;
        reports.push(report);
    }
    merge(reports)
}

fn total(r: &ChildReport) -> u64 {
    r.setup_ns + r.wall_ns + r.sync_ns + r.teardown_ns
}

/// The slowest process's report, with every process's [`ProcStat`].
pub fn merge(reports: Vec<ChildReport>) -> std::result::Result<ChildReport, String> {
    let first = reports.first().map(|r| r.checksum);
    if let Some(i) = reports.iter().position(|r| Some(r.checksum) != first) {
        return Err(format!(
            "process {i}'s checksum {:#x} differs from process 0's {:#x}",
            reports[i].checksum,
            first.unwrap_or(0)
        ));
    }
    let continued = reports.iter().any(|r| r.continued);
    let stats: Vec<ProcStat> = reports
        .iter()
        .map(|r| ProcStat {
            total_ns: total(r),
            max_rss_kib: r.max_rss_kib,
            pss_kib: r.pss_kib,
            read_bytes: Some(r.rusage.inblock * 512),
        })
        .collect();
    let mut slowest = reports
        .into_iter()
        .max_by_key(total)
        .ok_or("no process ran")?;
    slowest.procs = stats;
    slowest.continued = continued;
    Ok(slowest)
}

/// How `child` died, if it ends within `wait` killed by a signal: `killed
/// by SIGKILL`; `None` if it is still running or exited on its own.
fn death_within(child: &mut std::process::Child, wait: std::time::Duration) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let started = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let signal = status.signal()?;
                let name = nix::sys::signal::Signal::try_from(signal)
                    .map(|s| s.as_str())
                    .unwrap_or("an unknown signal");
                return Some(format!("killed by {name}"));
            }
            Ok(None) if started.elapsed() < wait => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_killed_before_its_spec_is_reported_by_its_signal() {
        let short = std::time::Duration::from_millis(200);
        let spawn = |script: &str| {
            std::process::Command::new("sh")
                .args(["-c", script])
                .spawn()
                .unwrap()
        };
        let mut killed = spawn("kill -KILL $$");
        assert_eq!(
            death_within(&mut killed, std::time::Duration::from_secs(5)).as_deref(),
            Some("killed by SIGKILL")
        );
        let mut exited = spawn("exit 3");
        let _ = exited.wait();
        assert_eq!(death_within(&mut exited, short), None);
        let mut running = spawn("sleep 30");
        assert_eq!(death_within(&mut running, short), None);
        let _ = running.kill();
        let _ = running.wait();
    }

    #[test]
    fn merge_keeps_the_slowest_and_every_process() {
        let r = |wall_ns, pss| ChildReport {
            wall_ns,
            checksum: 7,
            pss_kib: Some(pss),
            ..Default::default()
        };
        let m = merge(vec![r(5, 10), r(9, 20), r(3, 30)]).unwrap();
        assert_eq!(m.wall_ns, 9);
        assert_eq!(m.procs.len(), 3);
        assert_eq!(m.procs[2].pss_kib, Some(30));
        let mut bad = r(1, 1);
        bad.checksum = 8;
        assert!(merge(vec![r(1, 1), bad]).unwrap_err().contains("process 1"));
    }
}
