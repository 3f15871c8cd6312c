//! Bad input gets one clear line on stderr, a non-zero exit, and no panic.
mod common;

use common::{faultline, Scratch};

/// Runs faultline and checks: exit code, exactly one line on stderr that
/// contains `needle`, and no panic.
fn refused(args: &[&str], needle: &str, code: i32) {
    let scratch = Scratch::new();
    let out = scratch.run(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "exit code for {args:?}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line for {args:?}, got: {stderr}");
    assert!(
        lines[0].contains(needle),
        "{needle:?} not in {:?}",
        lines[0]
    );
}

#[test]
fn missing_file() {
    refused(
        &["--file", "/nonexistent/faultline-test"],
        "no such file",
        2,
    );
}

#[test]
fn directory() {
    let dir = tempfile::tempdir().unwrap();
    refused(
        &["--file", dir.path().to_str().unwrap()],
        "is a directory",
        2,
    );
}

#[test]
fn fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    refused(&["--file", fifo.to_str().unwrap()], "FIFO", 2);
}

#[test]
fn character_device() {
    refused(&["--file", "/dev/null"], "is a device", 2);
}

#[test]
fn empty_file() {
    let file = tempfile::NamedTempFile::new().unwrap();
    refused(&["--file", file.path().to_str().unwrap()], "is empty", 2);
}

#[test]
fn block_of_zero() {
    refused(&["--size", "64k", "--block", "0"], "at least 1 byte", 2);
}

#[test]
fn block_larger_than_file() {
    refused(
        &["--size", "64k", "--block", "1M"],
        "larger than the file",
        2,
    );
}

#[test]
fn block_larger_than_64_mib() {
    refused(&["--size", "64k", "--block", "65M"], "64 MiB", 2);
}

#[test]
fn malformed_sizes() {
    for bad in ["4kk", "-1", "1.5.2M"] {
        refused(&["--size", bad], "malformed size", 2);
        refused(&["--block", bad], "malformed size", 2);
    }
}

#[test]
fn unknown_method_lists_the_valid_ones() {
    refused(
        &["--method", "read,mmapp"],
        "read, pread, mmap, mmap-copy",
        2,
    );
}

#[test]
fn unknown_pattern_lists_the_valid_ones() {
    refused(&["--pattern", "zigzag"], "seq, random, random-replace", 2);
}

#[test]
fn warm_by_written_refuses_a_users_file() {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), vec![7u8; 8192]).unwrap();
    let before = std::fs::read(file.path()).unwrap();
    refused(
        &[
            "--file",
            file.path().to_str().unwrap(),
            "--block",
            "4k",
            "--cache",
            "warm",
            "--warm-by",
            "written",
            "--runs",
            "1",
        ],
        "not a file faultline created",
        2,
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
        .args([
            "run",
            "--size",
            "64k",
            "--data-dir",
            dir.path().to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("writable by everyone"), "{stderr}");
}

#[test]
fn export_into_a_missing_directory_is_refused_before_anything_runs() {
    refused(
        &[
            "--size",
            "64k",
            "--export-json",
            "/nonexistent/dir/out.json",
        ],
        "the directory /nonexistent/dir does not exist",
        2,
    );
    refused(
        &["--size", "64k", "--export-csv", "/nonexistent/dir/out.csv"],
        "--export-csv",
        2,
    );
    refused(
        &["--size", "64k", "--journal", "/nonexistent/dir/run.journal"],
        "--journal",
        2,
    );
}

#[test]
fn zero_runs() {
    refused(&["--runs", "0"], "0 is not in 1..=10000", 2);
}

#[test]
fn unknown_order_lists_the_valid_ones() {
    refused(&["--order", "sideways"], "alternating, shuffled", 2);
}

#[test]
fn env_with_a_missing_file() {
    let out = faultline()
        .args(["env", "--file", "/nonexistent/faultline"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr.lines().count(), 1);
    assert!(stderr.contains("no such file"), "{stderr}");
}

#[test]
fn a_missing_journal_is_named_once() {
    let out = faultline()
        .args(["run", "--resume", "/nonexistent/run.journal"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr.lines().count(), 1);
    assert_eq!(
        stderr.matches("No such file").count(),
        1,
        "the cause is not repeated: {stderr}"
    );
}

#[test]
fn calloc_fill_is_for_write_and_pwrite_only() {
    refused(
        &[
            "--method",
            "mmap-write",
            "--workload",
            "fill",
            "--fill",
            "calloc",
            "--size",
            "64K",
        ],
        "--fill calloc is for --method write and pwrite",
        2,
    );
}

#[test]
fn scale_unit_without_the_scale_workload() {
    refused(
        &["--scale-unit", "byte", "--size", "64K"],
        "--scale-unit is for --workload scale",
        2,
    );
}
