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
    let line = one_line(&out, 1, &[]);
    assert_eq!(
        line.matches("No such file").count(),
        1,
        "the cause is not repeated: {line}"
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
