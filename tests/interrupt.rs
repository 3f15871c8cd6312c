//! Interruption and resume: SIGINT/SIGTERM mid-sweep keeps every finished
//! trial in the journal and the exports, and `--resume` finishes the plan.
mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{read_json, samples, Scratch};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// Slow trials (1-byte reads) so a signal lands mid-sweep.
fn start(scratch: &Scratch, journal: &std::path::Path) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin!("faultline"))
        .args([
            "run",
            "--size",
            "2M",
            "--method",
            "read,pread",
            "--block",
            "1",
            "--cache",
            "as-is",
            "--runs",
            "3",
        ])
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .arg("--export-json")
        .arg(scratch.path("out.json"))
        .arg("--journal")
        .arg(journal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the journal holds `entries` trial lines after its header.
fn wait_for_entries(journal: &std::path::Path, entries: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(journal)
        .map(|t| t.lines().count())
        .unwrap_or(0)
        < entries + 1
    {
        assert!(Instant::now() < deadline, "the journal did not grow");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn ctrl_c_keeps_what_was_measured_and_resume_finishes_the_plan() {
    let scratch = Scratch::new();
    let journal = scratch.path("run.journal");
    let run = start(&scratch, &journal);
    wait_for_entries(&journal, 1);
    kill(Pid::from_raw(run.id() as i32), Signal::SIGINT).unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "resume with: faultline run --resume {}",
            journal.display()
        )),
        "{stderr}"
    );
    let partial = read_json(&scratch.path("out.json"));
    assert_eq!(partial["complete"], false);
    let kept = samples(&partial);
    assert!(
        !kept.is_empty() && kept.len() < 6,
        "some but not all trials: {}",
        kept.len()
    );
    assert!(
        partial["failures"].as_array().unwrap().is_empty(),
        "the interrupted trial is not a failure"
    );
    let resumed = common::faultline()
        .arg("run")
        .arg("--resume")
        .arg(&journal)
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let full = read_json(&scratch.path("out.json"));
    assert_eq!(full["complete"], true);
    let all = samples(&full);
    assert_eq!(all.len(), 6, "2 methods x 3 runs");
    for (_, s) in &kept {
        assert!(
            all.iter().any(|(_, t)| t == s),
            "a sample from before the interruption is kept as it was"
        );
    }
    assert_eq!(full["comparisons"].as_array().unwrap().len(), 1);
    let lines = std::fs::read_to_string(&journal).unwrap().lines().count();
    assert_eq!(lines, 1 + 6, "header and one line per trial");
}

#[test]
fn sigterm_stops_too_and_a_second_signal_exits_at_once() {
    let scratch = Scratch::new();
    let journal = scratch.path("run.journal");
    let run = start(&scratch, &journal);
    wait_for_entries(&journal, 1);
    let pid = Pid::from_raw(run.id() as i32);
    kill(pid, Signal::SIGTERM).unwrap();
    kill(pid, Signal::SIGINT).unwrap();
    let started = Instant::now();
    let out = run.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(started.elapsed() < Duration::from_secs(5));
    // The journal is still readable by a resume.
    let resumed = common::faultline()
        .arg("run")
        .arg("--resume")
        .arg(&journal)
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert_eq!(samples(&read_json(&scratch.path("out.json"))).len(), 6);
}

#[test]
fn a_torn_journal_line_is_skipped_with_a_warning() {
    let scratch = Scratch::new();
    let journal = scratch.path("run.journal");
    let out = scratch
        .run(&[
            "--size",
            "64k",
            "--method",
            "read,mmap",
            "--block",
            "4k",
            "--cache",
            "as-is",
            "--runs",
            "2",
        ])
        .arg("--journal")
        .arg(&journal)
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut text = std::fs::read_to_string(&journal).unwrap();
    let last = text.trim_end().rfind('\n').unwrap();
    text.truncate(last + 1 + 20); // the last trial's line, torn
    std::fs::write(&journal, &text).unwrap();
    let resumed = common::faultline()
        .arg("run")
        .arg("--resume")
        .arg(&journal)
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .arg("--export-json")
        .arg(scratch.path("out.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{stderr}");
    assert!(stderr.contains("torn last line"), "{stderr}");
    assert_eq!(
        samples(&read_json(&scratch.path("out.json"))).len(),
        4,
        "the torn trial ran again"
    );
    let replay = faultline::runner::journal::read(&journal).unwrap();
    assert!(
        replay.warnings.is_empty(),
        "the torn fragment was cut before appending: {:?}",
        replay.warnings
    );
    assert_eq!(replay.entries.len(), 4);
}

#[test]
fn ctrl_c_during_a_write_run_leaves_no_file_behind() {
    let scratch = Scratch::new();
    let dir = tempfile::tempdir().unwrap();
    let journal = scratch.path("run.journal");
    // 1-byte random pwrites of 4 MiB: slow enough to interrupt mid-trial.
    let run = Command::new(assert_cmd::cargo::cargo_bin!("faultline"))
        .args([
            "run",
            "--method",
            "pwrite",
            "--size",
            "4M",
            "--pattern",
            "random",
            "--block",
            "1",
            "--runs",
            "3",
        ])
        .arg("--dir")
        .arg(dir.path())
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .arg("--journal")
        .arg(&journal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until a trial is writing: faultline's private directory holds a file.
    let deadline = Instant::now() + Duration::from_secs(60);
    let writing = || {
        std::fs::read_dir(dir.path()).unwrap().flatten().any(|sub| {
            sub.path().is_dir()
                && std::fs::read_dir(sub.path())
                    .map(|mut d| d.next().is_some())
                    .unwrap_or(false)
        })
    };
    while !writing() {
        assert!(Instant::now() < deadline, "no write trial started");
        std::thread::sleep(Duration::from_millis(5));
    }
    kill(Pid::from_raw(run.id() as i32), Signal::SIGINT).unwrap();
    let out = run.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        left.is_empty(),
        "the half-written file and faultline's directory are gone: {left:?}"
    );
}

#[test]
fn an_interrupted_reproduction_says_to_resume_it_with_reproduce() {
    let scratch = Scratch::new();
    let data = scratch.data_dir();
    let run = Command::new(assert_cmd::cargo::cargo_bin!("faultline"))
        .args(["reproduce", "liege2018", "--faithful", "--scale-down", "4"])
        .arg("--data-dir")
        .arg(&data)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let journal = loop {
        let found = std::fs::read_dir(data.join("runs")).ok().and_then(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| p.extension().is_some_and(|e| e == "journal"))
        });
        if let Some(j) = found {
            break j;
        }
        assert!(Instant::now() < deadline, "no journal appeared");
        std::thread::sleep(Duration::from_millis(10));
    };
    wait_for_entries(&journal, 1);
    kill(Pid::from_raw(run.id() as i32), Signal::SIGINT).unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let hint = format!(
        "resume with: faultline reproduce liege2018 --faithful --resume {}",
        journal.display()
    );
    assert!(stderr.contains(&hint), "{stderr}");
    // The command it gives continues the reproduction to its verdicts.
    let args: Vec<&str> = hint["resume with: faultline ".len()..].split(' ').collect();
    let resumed = common::faultline()
        .args(&args)
        .arg("--data-dir")
        .arg(&data)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(stdout.contains("Verdicts:"), "{stdout}");
    assert!(stdout.contains("mode: faithful"), "{stdout}");
}
