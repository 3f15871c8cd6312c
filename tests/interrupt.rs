//! Interruption and resume: SIGINT/SIGTERM mid-sweep keeps every finished
//! trial in the journal and the exports, and `--resume` finishes the plan.
mod common;

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use common::{
    entries, faultline, file_ending, read_json, samples, spawn_piped, succeeded, wait_until, Flags,
    Scratch,
};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// Slow trials (1-byte reads) so a signal lands mid-sweep.
fn start(scratch: &Scratch, journal: &Path) -> Child {
    spawn_piped(
        &mut scratch.run(
            Flags::new()
                .size("2M")
                .method("read,pread")
                .block("1")
                .cache("as-is")
                .runs(3)
                .export_json(&scratch.path("out.json"))
                .journal(journal),
        ),
    )
}

/// Waits until the journal holds `entries` trial lines after its header.
fn wait_for_entries(journal: &Path, entries: usize) {
    wait_until("the journal did not grow", || {
        std::fs::read_to_string(journal)
            .map(|t| t.lines().count())
            .unwrap_or(0)
            > entries
    });
}

/// `faultline run --resume JOURNAL` with the scratch's data dir.
fn resume(scratch: &Scratch, journal: &Path) -> Command {
    let mut cmd = faultline();
    cmd.arg("run")
        .arg("--resume")
        .arg(journal)
        .arg("--data-dir")
        .arg(scratch.data_dir());
    cmd
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
    succeeded(resume(&scratch, &journal).arg("--keep-journal"));
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
    succeeded(&mut resume(&scratch, &journal));
    assert_eq!(samples(&read_json(&scratch.path("out.json"))).len(), 6);
}

#[test]
fn a_torn_journal_line_is_skipped_with_a_warning() {
    let scratch = Scratch::new();
    let journal = scratch.path("run.journal");
    succeeded(
        &mut scratch.run(
            Flags::new()
                .size("64k")
                .method("read,mmap")
                .block("4k")
                .cache("as-is")
                .runs(2)
                .journal(&journal),
        ),
    );
    let mut text = std::fs::read_to_string(&journal).unwrap();
    let last = text.trim_end().rfind('\n').unwrap();
    text.truncate(last + 1 + 20); // the last trial's line, torn
    std::fs::write(&journal, &text).unwrap();
    let resumed = succeeded(
        resume(&scratch, &journal)
            .arg("--export-json")
            .arg(scratch.path("out.json"))
            .arg("--keep-journal"),
    );
    let stderr = String::from_utf8_lossy(&resumed.stderr);
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
    let run = spawn_piped(
        &mut scratch.run(
            Flags::new()
                .method("pwrite")
                .size("4M")
                .pattern("random")
                .block("1")
                .runs(3)
                .dir(dir.path())
                .journal(&journal),
        ),
    );
    // Wait until a trial is writing: faultline's private directory holds a file.
    wait_until("no write trial started", || {
        entries(dir.path())
            .iter()
            .any(|sub| sub.is_dir() && !entries(sub).is_empty())
    });
    kill(Pid::from_raw(run.id() as i32), Signal::SIGINT).unwrap();
    let out = run.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let left = entries(dir.path());
    assert!(
        left.is_empty(),
        "the half-written file and faultline's directory are gone: {left:?}"
    );
}

#[test]
fn an_interrupted_reproduction_says_to_resume_it_with_reproduce() {
    let scratch = Scratch::new();
    let data = scratch.data_dir();
    let run = spawn_piped(&mut scratch.reproduce("liege2018", ["--faithful", "--scale-down", "4"]));
    let mut journal = None;
    wait_until("no journal appeared", || {
        journal = file_ending(&data.join("runs"), ".journal");
        journal.is_some()
    });
    let journal = journal.unwrap();
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
    let resumed = succeeded(faultline().args(&args).arg("--data-dir").arg(&data));
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(stdout.contains("Verdicts:"), "{stdout}");
    assert!(stdout.contains("mode: faithful"), "{stdout}");
}
