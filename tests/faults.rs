//! Faults inside and around trials: each costs what it must and no more, and
//! is reported in one clear line.
mod common;

use std::time::{Duration, Instant};

use common::{
    entries, failures, faultline, file_ending, one_line, read_json, require_root, samples,
    spawn_piped, stderr_lines, succeeded, trial_children, wait_until, with_file_size_limit, Flags,
    Scratch,
};

#[test]
fn a_file_truncated_under_a_mapping_costs_one_trial() {
    let scratch = Scratch::new();
    let file = scratch.path("victim.bin");
    std::fs::write(&file, vec![3u8; 32 << 20]).unwrap();
    let json = scratch.path("out.json");
    // 1-byte random touches of 32 MiB through a mapping: long enough to truncate under it.
    let run = spawn_piped(
        &mut scratch.run(
            Flags::new()
                .method("mmap")
                .pattern("random")
                .block("1")
                .workload("touch")
                .cache("as-is")
                .runs(2)
                .file(&file)
                .export_json(&json),
        ),
    );
    wait_until("no trial started", || !trial_children(run.id()).is_empty());
    std::thread::sleep(Duration::from_millis(100)); // past setup, inside the loop
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(0)
        .unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The group's trials fail one by one; after the group, the changed
    // file stops the run (with what was measured exported).
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the file changed during the run") && stderr.contains("resume with:"),
        "{stderr}"
    );
    let results = read_json(&json);
    let failures = failures(&results);
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
    let (results, last) = scratch.run_json_failing(
        Flags::new()
            .size("4M")
            .method("read")
            .block("1")
            .cache("as-is")
            .runs(1)
            .flag("--trial-timeout", "0.3"),
    );
    assert!(last.contains("1× timed out after 0.3 s"), "{last}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "killed, not waited for"
    );
    let failures = failures(&results);
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
    succeeded(
        scratch
            .run(
                Flags::new()
                    .size("1M")
                    .method("read")
                    .pattern("seq")
                    .cache("cold,warm")
                    .runs(1)
                    .export_json(&json),
            )
            .env("FAULTLINE_NO_CACHESTAT", "1"),
    );
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
    let out = with_file_size_limit(&mut scratch.run(["--size", "4M"]), 1 << 20)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("preparing the test file") && stderr.contains("File too large"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().filter(|l| l.starts_with("error")).count(), 1);
    assert!(
        scratch.data_dir().is_dir(),
        "the data directory was made before the file"
    );
    // The data directory's lock file stays (it is locked, never removed,
    // so two processes never lock two files of one name).
    let left: Vec<_> = entries(&scratch.data_dir())
        .into_iter()
        .filter(|p| p.is_file() && !p.ends_with(".faultline-lock"))
        .collect();
    assert!(left.is_empty(), "partial files left: {left:?}");
}

#[test]
fn a_tampered_dataset_is_regenerated_with_a_warning() {
    let scratch = Scratch::new();
    let once = Flags::new().size("256k").cache("as-is").runs(1);
    succeeded(&mut scratch.run(&once));
    let data = file_ending(&scratch.data_dir(), ".data").expect("the generated file");
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[128 << 10] ^= 0xff;
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&data, &bytes).unwrap();
    let second = succeeded(&mut scratch.run(&once));
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains("does not hold the bytes its name promises"),
        "{stderr}"
    );
    assert_ne!(std::fs::read(&data).unwrap(), bytes, "regenerated");
}

#[test]
#[ignore = "needs root"]
fn a_data_dir_owned_by_someone_else_or_a_symlink_is_refused() {
    require_root("giving a directory to another user");
    let scratch = Scratch::new();
    let theirs = scratch.path("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
    let link = scratch.path("link");
    std::os::unix::fs::symlink(scratch.dir.path(), &link).unwrap();
    for (dir, needle) in [(&theirs, "owned by another user"), (&link, "symbolic link")] {
        let out = faultline()
            .args(["run", "--size", "64k", "--data-dir"])
            .arg(dir)
            .output()
            .unwrap();
        one_line(&out, 2, &[needle]);
    }
}

#[test]
fn resume_refuses_what_is_not_a_journal() {
    let scratch = Scratch::new();
    let not_journal = scratch.path("notes.txt");
    std::fs::write(&not_journal, b"hello\n").unwrap();
    for (path, needle) in [
        (not_journal, "is not a faultline journal"),
        (scratch.path("missing"), "no such journal"),
    ] {
        let out = faultline()
            .arg("run")
            .arg("--resume")
            .arg(&path)
            .output()
            .unwrap();
        let lines = stderr_lines(&out);
        assert_ne!(out.status.code(), Some(0));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains(needle), "{lines:?}");
    }
    let out = faultline()
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
    // sysfs files are regular files that cannot be mapped (this one's size
    // is its length, unlike most attributes', which are refused earlier).
    let scratch = Scratch::new();
    let (results, last) = scratch.run_json_failing(
        Flags::new()
            .file("/sys/kernel/btf/vmlinux")
            .method("mmap")
            .block("1M")
            .cache("as-is")
            .runs(1),
    );
    assert!(last.contains("nothing was measured"), "{last}");
    let failures = failures(&results);
    assert_eq!(failures.len(), 1);
    let reason = failures[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("mmap failed") && reason.contains("(file system: sysfs)"),
        "{reason}"
    );
}
