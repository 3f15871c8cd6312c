//! The last test binary of `cargo test` (they run in name order): one
//! summary, at the end of the run where it is seen, of the tests that
//! skipped for want of a tool (recorded by `common::skip` in this same
//! invocation), and of the tests that need root, which `cargo test` leaves
//! ignored even as root.
use std::io::Write;
use std::path::Path;

mod common;

/// The `#[ignore = "needs root"]` tests in tests/.
fn root_tests() -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            n += text.matches("#[ignore = \"needs root\"]").count();
        }
    }
    n
}

#[test]
fn summary_of_what_this_run_did_not_test() {
    let record = common::skip::record_file(std::os::unix::process::parent_id());
    let skipped = std::fs::read_to_string(&record).unwrap_or_default();
    let _ = std::fs::remove_file(&record);
    let roots = root_tests();
    // The count is of the source, so it cannot be zero while root tests exist.
    assert!(roots > 0, "the tests that need root are marked");
    let mut text = String::from("\nNOTICE: what this test run did not test\n");
    let lines: Vec<&str> = skipped.lines().filter(|l| !l.is_empty()).collect();
    if lines.is_empty() {
        text.push_str("  no test skipped for a missing tool\n");
    }
    for line in &lines {
        text.push_str(&format!("  skipped: {line}\n"));
    }
    text.push_str(&format!(
        "  {roots} tests need root and stay ignored: run them as root with \
         `cargo test --release -- --ignored` (.ci/run does)\n"
    ));
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

#[test]
fn the_summary_names_each_skip_of_its_invocation() {
    if std::env::var_os("FAULTLINE_SUMMARY_CHILD").is_some() {
        return;
    }
    // The child's invocation is this process: record a skip for it.
    let record = common::skip::record_file(std::process::id());
    std::fs::create_dir_all(record.parent().unwrap()).unwrap();
    std::fs::write(&record, "some::test SKIPPED: frobnicator not found\n").unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "summary_of_what_this_run_did_not_test"])
        .env("FAULTLINE_SUMMARY_CHILD", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("skipped: some::test SKIPPED: frobnicator not found")
            && stderr.contains("need root and stay ignored"),
        "{stderr}"
    );
    assert!(!record.exists(), "the record is removed once summarized");
}
