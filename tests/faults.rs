//! Faults inside and around trials: each costs what it must and no more, and
//! is reported in one clear line.
mod common;

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{read_json, samples, Scratch};

fn trial_children(parent: u32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<i32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let ppid = stat
                .rsplit_once(") ")
                .and_then(|(_, rest)| rest.split(' ').nth(1)?.parse::<u32>().ok());
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            ppid == Some(parent) && String::from_utf8_lossy(&cmdline).contains("__trial")
        })
        .collect()
}

#[test]
fn a_file_truncated_under_a_mapping_costs_one_trial() {
    let scratch = Scratch::new();
    let file = scratch.path("victim.bin");
    std::fs::write(&file, vec![3u8; 32 << 20]).unwrap();
    let json = scratch.path("out.json");
    // 1-byte random touches of 32 MiB through a mapping: long enough to truncate under it.
    let run = Command::new(assert_cmd::cargo::cargo_bin!("faultline"))
        .args([
            "run",
            "--method",
            "mmap",
            "--pattern",
            "random",
            "--block",
            "1",
            "--workload",
            "touch",
        ])
        .args(["--cache", "as-is", "--runs", "2", "--file"])
        .arg(&file)
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .arg("--export-json")
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while trial_children(run.id()).is_empty() {
        assert!(Instant::now() < deadline, "no trial started");
        std::thread::sleep(Duration::from_millis(2));
    }
    std::thread::sleep(Duration::from_millis(100)); // past setup, inside the loop
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(0)
        .unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the run goes on: {stderr}");
    let results = read_json(&json);
    let failures = results["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2, "{failures:?}");
    let reason = failures[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("killed by SIGBUS") && reason.contains("truncated"),
        "{reason}"
    );
    let second = failures[1]["reason"].as_str().unwrap();
    assert!(
        second.contains("is 0 bytes now"),
        "the next trial refuses the changed file: {second}"
    );
}

#[test]
fn a_trial_past_its_timeout_is_killed_and_reported() {
    let scratch = Scratch::new();
    let started = Instant::now();
    let results = scratch.run_json(&[
        "--size",
        "4M",
        "--method",
        "read",
        "--block",
        "1",
        "--cache",
        "as-is",
        "--runs",
        "1",
        "--trial-timeout",
        "0.3",
    ]);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "killed, not waited for"
    );
    let failures = results["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1);
    assert!(
        failures[0]["reason"]
            .as_str()
            .unwrap()
            .contains("timed out after 0.3 s"),
        "{failures:?}"
    );
}

#[test]
fn without_cachestat_residency_falls_back_to_mincore_and_says_so() {
    let scratch = Scratch::new();
    let json = scratch.path("out.json");
    let out = scratch
        .run(&[
            "--size",
            "1M",
            "--method",
            "read",
            "--pattern",
            "seq",
            "--cache",
            "cold,warm",
            "--runs",
            "1",
        ])
        .env("FAULTLINE_NO_CACHESTAT", "1")
        .arg("--export-json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success());
    for (case, s) in samples(&read_json(&json)) {
        assert_eq!(s["residency_source"], "mincore");
        let before = s["residency_before"].as_f64().unwrap();
        match case["cache"].as_str().unwrap() {
            "cold" => assert!(before <= 0.01),
            _ => assert!(before >= 0.99),
        }
    }
}

#[test]
fn a_full_disk_while_generating_leaves_no_partial_file() {
    let scratch = Scratch::new();
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("faultline"));
    cmd.args(["run", "--size", "4M"])
        .arg("--data-dir")
        .arg(scratch.data_dir());
    // SAFETY: setrlimit is async-signal-safe; it runs in the child before exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 1 << 20,
                rlim_max: 1 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("preparing the test file") && stderr.contains("File too large"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().filter(|l| l.starts_with("error")).count(), 1);
    let left: Vec<_> = std::fs::read_dir(scratch.data_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .collect();
    assert!(left.is_empty(), "partial files left: {left:?}");
}

#[test]
fn a_tampered_dataset_is_regenerated_with_a_warning() {
    let scratch = Scratch::new();
    let first = scratch
        .run(&["--size", "256k", "--cache", "as-is", "--runs", "1"])
        .output()
        .unwrap();
    assert!(first.status.success());
    let data = std::fs::read_dir(scratch.data_dir())
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".data"))
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[128 << 10] ^= 0xff;
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&data, &bytes).unwrap();
    let second = scratch
        .run(&["--size", "256k", "--cache", "as-is", "--runs", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "{stderr}");
    assert!(
        stderr.contains("does not hold the bytes its name promises"),
        "{stderr}"
    );
    assert_ne!(std::fs::read(&data).unwrap(), bytes, "regenerated");
}

#[test]
fn a_data_dir_owned_by_someone_else_or_a_symlink_is_refused() {
    let scratch = Scratch::new();
    let theirs = scratch.path("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
    let link = scratch.path("link");
    std::os::unix::fs::symlink(scratch.dir.path(), &link).unwrap();
    for (dir, needle) in [(&theirs, "owned by another user"), (&link, "symbolic link")] {
        let out = common::faultline()
            .args(["run", "--size", "64k", "--data-dir"])
            .arg(dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(needle), "{stderr}");
    }
}

#[test]
fn resume_refuses_what_is_not_a_journal() {
    let scratch = Scratch::new();
    let not_journal = scratch.path("notes.txt");
    std::fs::write(&not_journal, b"hello\n").unwrap();
    for (path, needle) in [
        (not_journal, "is not a faultline journal"),
        (scratch.path("missing"), "No such file"),
    ] {
        let out = common::faultline()
            .arg("run")
            .arg("--resume")
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0));
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(needle), "{stderr}");
    }
    let out = common::faultline()
        .args(["run", "--resume", "x.journal", "--method", "read"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "--resume takes its plan from the journal"
    );
}

#[test]
fn a_file_system_that_refuses_mmap_is_named() {
    // sysfs attributes are regular files that cannot be mapped.
    let scratch = Scratch::new();
    let results = scratch.run_json(&[
        "--file",
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "--method",
        "mmap",
        "--block",
        "1",
        "--cache",
        "as-is",
        "--runs",
        "1",
    ]);
    let failures = results["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1);
    let reason = failures[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("mmap failed") && reason.contains("(file system: sysfs)"),
        "{reason}"
    );
}
