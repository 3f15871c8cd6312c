//! Attacks in classes issue 23 did not name, found by attacking faultline
//! as a hostile user would: a report stopped while it writes, the hidden
//! trial entry point fed without end, the binary replaced under a run, a
//! trial paused and continued, a data directory that cannot be one (the
//! stop signals are in `safety_run`, with SIGHUP's). Each test fails on the
//! code before its fix.
mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{
    faultline, read_json, samples, spawn_piped, succeeded, trial_children, wait_until, Flags,
    Scratch,
};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// Names in `dir` of the atomic writer's temporary files.
fn temporaries(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".faultline-tmp-"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_report_stopped_while_writing_leaves_nothing() {
    let scratch = Scratch::new();
    // Many cases, so that writing the plots takes a while.
    let json = scratch.path("many.json");
    succeeded(
        &mut scratch.run(
            Flags::new()
                .size("64k")
                .method("read,pread,mmap,mmap-copy,preadv,stdio")
                .pattern("seq,random")
                .block("4k,16k")
                .cache("as-is")
                .runs(2)
                .export_json(&json),
        ),
    );
    let plots = scratch.path("plots");
    let html = scratch.path("r.html");
    let mut report = faultline();
    report
        .arg("report")
        .arg(&json)
        .arg("-o")
        .arg(&html)
        .arg("--plots")
        .arg(&plots);
    let child = spawn_piped(&mut report);
    let pid = Pid::from_raw(child.id() as i32);
    // Frozen as soon as it has begun writing plots, then told to stop: the
    // stop lands while files remain to be written.
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::fs::read_dir(&plots).map_or(true, |mut d| d.next().is_none()) {
        assert!(Instant::now() < deadline, "report wrote no plot");
        std::thread::sleep(Duration::from_millis(1));
    }
    kill(pid, Signal::SIGSTOP).unwrap();
    assert!(
        !html.exists(),
        "the report finished before it could be stopped"
    );
    kill(pid, Signal::SIGINT).unwrap();
    kill(pid, Signal::SIGCONT).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted while writing"), "{stderr}");
    assert!(!html.exists(), "no page after the stop");
    assert_eq!(temporaries(&plots), Vec::<String>::new());
    assert_eq!(temporaries(scratch.dir.path()), Vec::<String>::new());
}

#[test]
fn the_trial_entry_point_reads_a_bounded_spec() {
    let mut child = faultline()
        .arg("__trial")
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("__trial read /dev/zero for a minute");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("reading the trial spec") && stderr.contains("longer than the 1 MiB"),
        "{stderr}"
    );
}

#[test]
fn a_binary_replaced_mid_run_does_not_change_the_trials() {
    let scratch = Scratch::new();
    let copy = scratch.path("faultline-copy");
    std::fs::copy(assert_cmd::cargo::cargo_bin!("faultline"), &copy).unwrap();
    let json = scratch.path("out.json");
    let mut cmd = std::process::Command::new(&copy);
    cmd.arg("run")
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .args(
            Flags::new()
                .size("2M")
                .method("read,pread")
                .block("1")
                .cache("as-is")
                .runs(2)
                .export_json(&json),
        );
    // Another test thread's fork may still hold the copy's write
    // descriptor for a moment (ETXTBSY): try again until it lets go.
    let mut tries = 0;
    let run = loop {
        cmd.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        match cmd.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            started => break started.expect("faultline starts"),
        }
    };
    wait_until("no trial child appeared", || {
        !trial_children(run.id()).is_empty()
    });
    // An upgrade renames a new file over the old one: here, one that fails.
    let new = scratch.path("faultline-new");
    std::fs::write(&new, "#!/bin/sh\nexit 1\n").unwrap();
    std::fs::set_permissions(&new, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::rename(&new, &copy).unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(samples(&read_json(&json)).len(), 4, "{stderr}");
}

/// Whether process `pid` has a handler for SIGCONT (its `SigCgt` mask).
fn catches_sigcont(pid: Pid) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (libc::SIGCONT - 1)) != 0)
}

#[test]
fn a_paused_trial_is_marked_not_taken_for_a_clean_sample() {
    let scratch = Scratch::new();
    let json = scratch.path("out.json");
    let run = spawn_piped(
        &mut scratch.run(
            Flags::new()
                .size("2M")
                .method("read")
                .block("1")
                .cache("as-is")
                .runs(1)
                .export_json(&json),
        ),
    );
    let mut trial = None;
    wait_until("no trial child appeared", || {
        trial = trial_children(run.id()).first().copied();
        trial.is_some()
    });
    let trial = Pid::from_raw(trial.unwrap());
    // Once the trial catches SIGCONT (its handler is set as it starts).
    wait_until("the trial never caught SIGCONT", || catches_sigcont(trial));
    kill(trial, Signal::SIGSTOP).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    kill(trial, Signal::SIGCONT).unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let results = read_json(&json);
    let all = samples(&results);
    assert_eq!(all.len(), 1);
    let record = &all[0].1["interference"];
    assert_eq!(record["interfered"], true, "{record}");
    assert!(
        record["reasons"].as_array().unwrap().iter().any(|r| r
            .as_str()
            .unwrap()
            .starts_with("the trial was stopped (Ctrl-Z or SIGSTOP)")),
        "{record}"
    );
}

#[test]
fn a_data_directory_that_cannot_be_one_is_refused_by_the_dry_run_as_by_the_run() {
    let scratch = Scratch::new();
    let file = scratch.path("afile");
    std::fs::write(&file, "mine\n").unwrap();
    for (dir, why) in [
        (file.clone(), "is not a directory"),
        (file.join("sub"), "cannot be made: "),
    ] {
        for dry in [true, false] {
            let mut cmd = faultline();
            cmd.args(["run", "--size", "64k", "--runs", "2", "--cache", "warm"])
                .arg("--data-dir")
                .arg(&dir);
            if dry {
                cmd.arg("--dry-run");
            }
            let out = cmd.output().unwrap();
            let line = common::one_line(&out, 2, &["preparing the data directory", why]);
            assert!(line.contains(&dir.display().to_string()), "{line}");
        }
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
}
