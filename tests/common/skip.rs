//! Skipping a test that needs a tool this machine lacks (Chromium, fio,
//! strace, Ansible): the notice goes straight to the process's stderr (the
//! harness captures `eprintln!`, and a skip must be seen), and is recorded
//! for the summary that `tests/zz_skipped.rs` prints at the end of the run.
use std::io::Write;
use std::path::PathBuf;

/// Where the skips of one `cargo test` invocation are recorded: one file
/// per invocation, named by the process that ran the test binaries.
pub fn record_file(invocation: u32) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("skipped")
        .join(format!("{invocation}.txt"))
}

/// Prints `NOTICE: {test} SKIPPED: {why}` to stderr and records it for the
/// run's summary.
pub fn skip(test: &str, why: &str) {
    let line = format!("{test} SKIPPED: {why}");
    let _ = writeln!(std::io::stderr().lock(), "NOTICE: {line}");
    let path = record_file(std::os::unix::process::parent_id());
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        // One write per line: tests of one binary skip from several threads.
        let _ = f.write_all(format!("{line}\n").as_bytes());
    }
}
