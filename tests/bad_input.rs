//! Bad input gets one clear line on stderr, a non-zero exit, and no panic.
mod common;

use common::{faultline, one_line, Flags, Scratch};

#[test]
fn missing_file() {
    Scratch::new().refused(["--file", "/nonexistent/faultline-test"], &["no such file"]);
}

#[test]
fn directory() {
    let dir = tempfile::tempdir().unwrap();
    Scratch::new().refused(
        ["--file", dir.path().to_str().unwrap()],
        &["is a directory"],
    );
}

#[test]
fn fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    Scratch::new().refused(["--file", fifo.to_str().unwrap()], &["FIFO"]);
}

#[test]
fn character_device() {
    Scratch::new().refused(["--file", "/dev/null"], &["is a device"]);
}

#[test]
fn empty_file() {
    let file = tempfile::NamedTempFile::new().unwrap();
    Scratch::new().refused(["--file", file.path().to_str().unwrap()], &["is empty"]);
}

#[test]
fn block_of_zero() {
    Scratch::new().refused(["--size", "64k", "--block", "0"], &["at least 1 byte"]);
}

#[test]
fn block_larger_than_file() {
    Scratch::new().refused(
        ["--size", "64k", "--block", "1M"],
        &["larger than the file"],
    );
}

#[test]
fn block_larger_than_64_mib() {
    Scratch::new().refused(["--size", "64k", "--block", "65M"], &["64 MiB"]);
}

#[test]
fn malformed_sizes() {
    for bad in ["4kk", "-1", "1.5.2M"] {
        Scratch::new().refused(["--size", bad], &["malformed size"]);
        Scratch::new().refused(["--block", bad], &["malformed size"]);
    }
}

#[test]
fn unknown_method_lists_the_valid_ones() {
    Scratch::new().refused(
        ["--method", "read,mmapp"],
        &["read, pread, mmap, mmap-copy"],
    );
}

#[test]
fn unknown_pattern_lists_the_valid_ones() {
    Scratch::new().refused(["--pattern", "zigzag"], &["seq, random, random-replace"]);
}

#[test]
fn warm_by_written_refuses_a_users_file() {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), vec![7u8; 8192]).unwrap();
    let before = std::fs::read(file.path()).unwrap();
    Scratch::new().refused(
        Flags::new()
            .file(file.path())
            .block("4k")
            .cache("warm")
            .flag("--warm-by", "written")
            .runs(1),
        &["not a file faultline created"],
    );
    assert_eq!(
        std::fs::read(file.path()).unwrap(),
        before,
        "the user's file is untouched"
    );
}

#[test]
fn world_writable_data_dir_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = faultline()
        .args(["run", "--size", "64k", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    one_line(&out, 2, &["writable by everyone"]);
}

#[test]
fn export_into_a_missing_directory_is_refused_before_anything_runs() {
    Scratch::new().refused(
        [
            "--size",
            "64k",
            "--export-json",
            "/nonexistent/dir/out.json",
        ],
        &["the directory /nonexistent/dir does not exist"],
    );
    Scratch::new().refused(
        ["--size", "64k", "--export-csv", "/nonexistent/dir/out.csv"],
        &["--export-csv"],
    );
    Scratch::new().refused(
        ["--size", "64k", "--journal", "/nonexistent/dir/run.journal"],
        &["--journal"],
    );
}

#[test]
fn zero_runs() {
    Scratch::new().refused(["--runs", "0"], &["0 is not in 1..=10000"]);
}

#[test]
fn unknown_order_lists_the_valid_ones() {
    Scratch::new().refused(["--order", "sideways"], &["alternating, shuffled"]);
}

#[test]
fn env_with_a_missing_file() {
    let out = faultline()
        .args(["env", "--file", "/nonexistent/faultline"])
        .output()
        .unwrap();
    one_line(&out, 2, &["no such file"]);
}

#[test]
fn a_missing_journal_is_named_once() {
    let out = faultline()
        .args(["run", "--resume", "/nonexistent/run.journal"])
        .output()
        .unwrap();
    let line = one_line(&out, 2, &[]);
    assert_eq!(
        line.matches("no such journal").count(),
        1,
        "the cause is not repeated: {line}"
    );
}

#[test]
fn trial_timeouts_that_are_not_durations_are_refused() {
    for (bad, why) in [
        ("NaN", "'NaN' is not a number of seconds"),
        (
            "inf",
            "inf seconds is more than the 31536000 (a year) this flag accepts",
        ),
        ("1e400", "1e400 seconds is more than the 31536000 (a year)"),
        ("-1", "-1 seconds is negative; give a positive duration"),
        (
            "0",
            "0 seconds would end every trial at once; give a positive duration",
        ),
        (
            "0.0000001",
            "is less than the 0.001 (1 ms) this flag accepts",
        ),
        (
            "ten",
            "'ten' is not a number of seconds (e.g. 0.5, 10, 1e2)",
        ),
    ] {
        Scratch::new().refused(
            ["--size", "64k", "--trial-timeout", bad],
            &["for '--trial-timeout <SECONDS>'", why],
        );
    }
}

#[test]
fn warmups_are_bounded_like_runs() {
    Scratch::new().refused(
        ["--size", "64k", "--warmup", "10001"],
        &["invalid value '10001' for '--warmup <WARMUP>': 10001 is not in 0..=10000"],
    );
    Scratch::new().refused(
        ["--size", "64k", "--warmup", "-1"],
        &["invalid value '-1' for '--warmup <WARMUP>'"],
    );
}

#[test]
fn a_plan_too_large_to_run_is_refused_before_it_is_expanded() {
    let blocks: Vec<String> = (1..=400).map(|b| b.to_string()).collect();
    let sizes: Vec<String> = (1..=300).map(|s| format!("{}k", s + 64)).collect();
    Scratch::new().refused(
        [
            "--block".to_string(),
            blocks.join(","),
            "--size".to_string(),
            sizes.join(","),
        ],
        &[
            "multiply to as many as",
            "more than the 100000 one run may have; sweep fewer values at once",
        ],
    );
    Scratch::new().refused(
        [
            "--size",
            "64k",
            "--block",
            "1k,2k,4k,8k,16k,32k",
            "--method",
            "read,pread,mmap",
            "--runs",
            "10000",
            "--warmup",
            "10000",
            "--pattern",
            "seq,random,random-replace",
            "--cache",
            "warm,cold",
        ],
        &["trials, more than the 1000000 one plan may have"],
    );
}

#[test]
fn a_missing_file_with_a_name_that_is_not_utf8_is_named_lossily() {
    use std::os::unix::ffi::OsStrExt;
    Scratch::new().refused(
        [
            std::ffi::OsStr::new("--file"),
            std::ffi::OsStr::from_bytes(b"/nonexistent/\xff\xfe"),
        ],
        &["/nonexistent/\u{fffd}\u{fffd}: no such file"],
    );
}

#[test]
fn calloc_fill_is_for_write_and_pwrite_only() {
    Scratch::new().refused(
        [
            "--method",
            "mmap-write",
            "--workload",
            "fill",
            "--fill",
            "calloc",
            "--size",
            "64K",
        ],
        &["--fill calloc is for --method write and pwrite"],
    );
}

#[test]
fn scale_unit_without_the_scale_workload() {
    Scratch::new().refused(
        ["--scale-unit", "byte", "--size", "64K"],
        &["--scale-unit is for --workload scale"],
    );
}
