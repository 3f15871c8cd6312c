//! The write methods, end to end: the real binary on small files (16 MiB at most).
mod common;

use std::collections::{HashMap, HashSet};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{samples, Scratch};
use serde_json::Value;

const WRITERS: &str = "write,pwrite,mmap-write";

/// The sum of the `pattern` fill's bytes over a file of `len` bytes.
fn pattern_sum(len: usize) -> u64 {
    let mut bytes = vec![0u8; len];
    faultline::workload::fill_pattern(0, &mut bytes);
    bytes.iter().map(|&b| b as u64).sum()
}

/// Entries of `dir`, sorted (empty when it does not exist).
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

/// stderr's lines, without the environment's warnings (a DAMON kdamond on
/// the test machine), which are not about the input.
fn stderr_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.contains("DAMON"))
        .map(String::from)
        .collect()
}

/// Checks exit code, exactly one line on stderr containing `needle`, no panic.
fn one_line(out: &Output, code: i32, needle: &str) {
    let lines = stderr_lines(out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(lines.len(), 1, "one line, got: {stderr}");
    assert!(
        lines[0].contains(needle),
        "{needle:?} not in {:?}",
        lines[0]
    );
}

#[test]
fn checksums_agree_across_write_methods_and_equal_the_patterns_sum() {
    let scratch = Scratch::new();
    let size = 3 << 20;
    let results = scratch.run_json(&[
        "--size",
        "3M",
        "--method",
        WRITERS,
        "--pattern",
        "seq,random",
        "--block",
        "4k,12345",
        "--fill",
        "zero,pattern",
        "--target",
        "fresh,overwrite",
        "--cache",
        "as-is",
        "--runs",
        "2",
    ]);
    let expected = pattern_sum(size);
    let mut by_key: HashMap<String, Vec<(String, u64)>> = HashMap::new();
    for (case, sample) in samples(&results) {
        assert_eq!(case["workload"], "fill");
        assert_eq!(sample["bytes"], size as u64);
        let key = format!(
            "{} {} {} {}",
            case["pattern"], case["block_size"], case["fill"], case["target"]
        );
        by_key.entry(key).or_default().push((
            case["method"].as_str().unwrap().to_string(),
            sample["checksum"].as_u64().unwrap(),
        ));
    }
    assert_eq!(by_key.len(), 2 * 2 * 2 * 2, "every combination measured");
    for (key, sums) in by_key {
        let methods: HashSet<_> = sums.iter().map(|s| s.0.clone()).collect();
        assert_eq!(methods.len(), 3, "all three methods for {key}");
        let want = if key.contains("zero") { 0 } else { expected };
        assert!(
            sums.iter().all(|s| s.1 == want),
            "checksums for {key}: {sums:?}, want {want}"
        );
    }
    assert!(results["failures"].as_array().unwrap().is_empty());
    assert!(
        entries(&scratch.data_dir().join("scratch")).is_empty(),
        "scratch files removed"
    );
}

#[test]
fn a_pattern_written_by_each_method_reads_back_as_its_sum() {
    let scratch = Scratch::new();
    let dir = tempfile::tempdir().unwrap();
    let size = (1 << 20) + 3;
    let written = scratch.run_json(&[
        "--size",
        &size.to_string(),
        "--method",
        WRITERS,
        "--block",
        "64k",
        "--runs",
        "1",
        "--dir",
        dir.path().to_str().unwrap(),
        "--keep",
    ]);
    let sum = pattern_sum(size);
    for (_, sample) in samples(&written) {
        assert_eq!(sample["checksum"].as_u64().unwrap(), sum);
    }
    // --keep: faultline's own directory in --dir holds one file per case.
    let own = entries(dir.path());
    assert_eq!(own.len(), 1, "{own:?}");
    let name = own[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("faultline-scratch-"), "{name}");
    let kept = entries(&own[0]);
    assert_eq!(kept.len(), 3, "{kept:?}");
    for file in kept {
        let read = scratch.run_json(&[
            "--file",
            file.to_str().unwrap(),
            "--method",
            "read,mmap",
            "--workload",
            "sum",
            "--block",
            "16k",
            "--cache",
            "as-is",
            "--runs",
            "1",
        ]);
        for (_, sample) in samples(&read) {
            assert_eq!(sample["checksum"].as_u64().unwrap(), sum, "{file:?}");
        }
    }
}

#[test]
fn random_one_byte_writes_work_for_every_write_method() {
    let scratch = Scratch::new();
    let results = scratch.run_json(&[
        "--size",
        "2M",
        "--method",
        WRITERS,
        "--pattern",
        "random",
        "--block",
        "1",
        "--runs",
        "1",
    ]);
    let all = samples(&results);
    assert_eq!(all.len(), 3);
    let sum = pattern_sum(2 << 20);
    for (case, sample) in all {
        assert_eq!(
            sample["checksum"].as_u64().unwrap(),
            sum,
            "{}",
            case["method"]
        );
        assert_eq!(sample["bytes"], 2 << 20);
        if case["method"] == "mmap-write" {
            assert_eq!(sample["syscalls"], 0);
        } else {
            // pwrite: one call per byte; write: an lseek and a write per byte.
            assert!(sample["syscalls"].as_u64().unwrap() >= 2 << 20);
        }
    }
}

#[test]
fn random_one_byte_reads_work_for_every_read_method() {
    let scratch = Scratch::new();
    let results = scratch.run_json(&[
        "--size",
        "2M",
        "--method",
        "read,pread,mmap,mmap-copy",
        "--pattern",
        "random",
        "--block",
        "1",
        "--cache",
        "as-is",
        "--runs",
        "1",
    ]);
    let sums: HashSet<u64> = samples(&results)
        .iter()
        .map(|(_, s)| s["checksum"].as_u64().unwrap())
        .collect();
    assert_eq!(samples(&results).len(), 4);
    assert_eq!(sums.len(), 1, "{sums:?}");
}

#[test]
fn sync_time_is_reported_apart_and_added_to_the_total() {
    let scratch = Scratch::new();
    let results = scratch.run_json(&[
        "--size",
        "1M",
        "--method",
        WRITERS,
        "--block",
        "256k",
        "--sync",
        "none,end,each",
        "--sync-call",
        "fsync,fdatasync",
        "--size-with",
        "truncate,fallocate",
        "--runs",
        "1",
    ]);
    let labels: HashSet<String> = results["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap().to_string())
        .collect();
    for label in [
        "write",
        "write(sync=end)",
        "write(sync=each,sync-call=fdatasync)",
        "pwrite(sync=end,sync-call=fdatasync)",
        "mmap-write",
        "mmap-write(size-with=fallocate)",
        "mmap-write(sync=each,size-with=fallocate)",
    ] {
        assert!(labels.contains(label), "{label} missing from {labels:?}");
    }
    // 2 methods x (none + 2 syncs x 2 calls) + mmap-write x 3 syncs x 2 sizings.
    assert_eq!(labels.len(), 2 * 5 + 3 * 2);
    for (case, s) in samples(&results) {
        let parts: u64 = ["setup_ns", "wall_ns", "sync_ns", "teardown_ns"]
            .iter()
            .map(|f| s[*f].as_u64().unwrap())
            .sum();
        assert_eq!(s["total_ns"].as_u64().unwrap(), parts, "{}", case["label"]);
        let sync_ns = s["sync_ns"].as_u64().unwrap();
        match case["sync"].as_str().unwrap() {
            "none" => assert_eq!(sync_ns, 0, "{}", case["label"]),
            _ => assert!(sync_ns > 0, "{}", case["label"]),
        }
        let syncs_per_block = case["sync"] == "each";
        if case["method"] == "mmap-write" {
            assert!(case["sync_call"].is_null());
            let msyncs = if syncs_per_block { 4 } else { 0 };
            assert_eq!(s["syscalls"], msyncs);
        } else {
            assert!(case["size_with"].is_null());
            let calls = if syncs_per_block { 8 } else { 4 };
            assert_eq!(s["syscalls"], calls, "{}", case["label"]);
        }
    }
}

#[test]
fn overwrite_targets_take_the_cache_state_and_fresh_ones_are_as_is() {
    let scratch = Scratch::new();
    let results = scratch.run_json(&[
        "--size",
        "4M",
        "--method",
        WRITERS,
        "--block",
        "64k",
        "--target",
        "fresh,overwrite",
        "--cache",
        "warm,cold",
        "--runs",
        "2",
    ]);
    let cases = results["cases"].as_array().unwrap();
    // fresh: one as-is group; overwrite: a warm and a cold group.
    assert_eq!(cases.len(), 3 * 3);
    for (case, s) in samples(&results) {
        let before = s["residency_before"].as_f64().unwrap();
        match (
            case["target"].as_str().unwrap(),
            case["cache"].as_str().unwrap(),
        ) {
            ("fresh", "as-is") => {}
            ("overwrite", "warm") => assert!(before >= 0.99, "{before}"),
            ("overwrite", "cold") => assert!(before <= 0.01, "{before}"),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(s["cache_reached"], true);
    }
    let groups: HashSet<String> = results["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["group"].as_str().unwrap().to_string())
        .collect();
    assert!(
        groups.contains("seq 64 KiB fill pattern, fresh file"),
        "{groups:?}"
    );
    assert!(
        groups.contains("seq 64 KiB fill pattern, overwrite, cold"),
        "{groups:?}"
    );
}

#[test]
fn dir_gets_a_private_directory_of_faultlines_own_and_is_left_as_it_was() {
    let scratch = Scratch::new();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("precious.txt"), b"mine").unwrap();
    let results = scratch.run_json(&[
        "--size",
        "1M",
        "--method",
        WRITERS,
        "--target",
        "fresh,overwrite",
        "--block",
        "64k",
        "--runs",
        "1",
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    let used = results["settings"]["scratch_dir"].as_str().unwrap();
    assert!(Path::new(used).starts_with(dir.path()), "{used}");
    assert_eq!(entries(dir.path()), vec![dir.path().join("precious.txt")]);
    assert_eq!(
        std::fs::read(dir.path().join("precious.txt")).unwrap(),
        b"mine"
    );
    assert!(
        !scratch.data_dir().exists(),
        "no test file generated for write methods"
    );
}

// ---- bad input and faults ------------------------------------------------

#[test]
fn a_missing_dir_is_refused() {
    let scratch = Scratch::new();
    let out = scratch
        .run(&["--method", "write", "--dir", "/nonexistent/faultline"])
        .output()
        .unwrap();
    one_line(&out, 2, "no such directory");
}

#[test]
fn a_dir_that_is_a_file_is_refused() {
    let scratch = Scratch::new();
    let file = tempfile::NamedTempFile::new().unwrap();
    let out = scratch
        .run(&["--method", "pwrite", "--dir", file.path().to_str().unwrap()])
        .output()
        .unwrap();
    one_line(&out, 2, "is not a directory");
}

/// A file system mounted for one test, unmounted (and its mount point
/// removed) when dropped.
struct Mounted {
    point: tempfile::TempDir,
}

impl Mounted {
    /// `mount -t fstype -o options none <tempdir>`, or `None` when this
    /// process may not mount (not root, or in a restricted container).
    fn new(fstype: &str, options: &str) -> Option<Mounted> {
        let point = tempfile::tempdir().ok()?;
        let status = Command::new("mount")
            .args(["-t", fstype, "-o", options, "none"])
            .arg(point.path())
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?;
        status.success().then_some(Mounted { point })
    }

    fn path(&self) -> &Path {
        self.point.path()
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.point.path()).status();
    }
}

#[test]
fn a_dir_that_is_not_writable_is_refused() {
    let scratch = Scratch::new();
    if faultline::dataset::current_uid() == 0 {
        // Root writes through permission bits: use a read-only file system.
        let Some(ro) = Mounted::new("tmpfs", "ro,size=1m") else {
            eprintln!("skipped: cannot mount a read-only tmpfs here");
            return;
        };
        let out = scratch
            .run(&["--method", "write", "--dir", ro.path().to_str().unwrap()])
            .output()
            .unwrap();
        one_line(&out, 2, "is not writable");
        assert!(entries(ro.path()).is_empty());
    } else {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o500)).unwrap();
        let out = scratch
            .run(&["--method", "write", "--dir", dir.path().to_str().unwrap()])
            .output()
            .unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        one_line(&out, 2, "is not writable");
    }
}

#[test]
fn a_file_system_that_refuses_mmap_writes_is_refused() {
    // The POSIX message-queue file system creates files but has no mmap.
    let Some(mq) = Mounted::new("mqueue", "rw") else {
        eprintln!("skipped: cannot mount an mqueue file system here");
        return;
    };
    let scratch = Scratch::new();
    let out = scratch
        .run(&[
            "--method",
            "mmap-write",
            "--dir",
            mq.path().to_str().unwrap(),
        ])
        .output()
        .unwrap();
    one_line(&out, 2, "refuses shared writable mappings");
    assert!(entries(mq.path()).is_empty(), "the probe file is removed");
}

#[test]
fn a_write_method_with_a_users_file_is_refused_and_the_file_untouched() {
    let scratch = Scratch::new();
    let file = scratch.path("mine.bin");
    std::fs::write(&file, vec![9u8; 100_000]).unwrap();
    for method in ["write", "pwrite", "mmap-write", "read,write"] {
        let out = scratch
            .run(&["--method", method, "--file", file.to_str().unwrap()])
            .output()
            .unwrap();
        one_line(
            &out,
            2,
            "write methods only write files faultline creates; --file is for read methods",
        );
    }
    assert_eq!(std::fs::read(&file).unwrap(), vec![9u8; 100_000]);
}

#[test]
fn write_methods_need_the_fill_workload_and_a_permutation() {
    let scratch = Scratch::new();
    let out = scratch
        .run(&["--method", "write", "--workload", "sum"])
        .output()
        .unwrap();
    one_line(&out, 2, "need --workload fill");
    let out = scratch
        .run(&["--method", "read", "--workload", "fill"])
        .output()
        .unwrap();
    one_line(&out, 2, "--workload fill is for write methods");
    let out = scratch
        .run(&["--method", "mmap-write", "--pattern", "random-replace"])
        .output()
        .unwrap();
    one_line(&out, 2, "write methods take seq or random");
}

/// Runs faultline with RLIMIT_FSIZE set in its process (inherited by its
/// trial children): writing past it is EFBIG, the test's full disk.
fn run_with_file_size_limit(limit: u64, args: &[&str]) -> Output {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("faultline"));
    cmd.arg("run").args(args);
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        cmd.pre_exec(move || {
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_FSIZE, limit, limit)
                .map_err(std::io::Error::from)
        });
    }
    cmd.output().unwrap()
}

#[test]
fn a_full_disk_fails_the_trial_with_a_reason_and_leaves_no_file() {
    for (method, target) in [
        ("write", "fresh"),
        ("pwrite", "fresh"),
        ("mmap-write", "fresh"),
        ("pwrite", "overwrite"),
    ] {
        let scratch = Scratch::new();
        let dir = tempfile::tempdir().unwrap();
        let json = scratch.path("out.json");
        let out = run_with_file_size_limit(
            1 << 20,
            &[
                "--size",
                "4M",
                "--method",
                method,
                "--target",
                target,
                "--block",
                "64k",
                "--runs",
                "2",
                "--dir",
                dir.path().to_str().unwrap(),
                "--data-dir",
                scratch.data_dir().to_str().unwrap(),
                "--export-json",
                json.to_str().unwrap(),
            ],
        );
        one_line(&out, 1, "disk full (");
        let line = &stderr_lines(&out)[0];
        assert!(line.contains("File too large"), "{line}");
        assert!(
            entries(dir.path()).is_empty(),
            "{method} {target}: left {:?}",
            entries(dir.path())
        );
        if target == "fresh" {
            // The trial ran and failed: it is in the exports, with its reason.
            assert!(line.contains(&format!("{method} (seq 64 KiB")), "{line}");
            let results: Value = common::read_json(&json);
            let failures = results["failures"].as_array().unwrap();
            assert_eq!(failures.len(), 1, "{failures:?}");
            assert!(failures[0]["reason"]
                .as_str()
                .unwrap()
                .starts_with("disk full ("));
        }
    }
}
