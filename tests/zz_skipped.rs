//! The last test binary of `cargo test` (they run in name order): one
//! summary, at the end of the run where it is seen, of what `cargo test`
//! did not test: the tests ignored with their reason (root; Chromium, fio,
//! strace, Ansible). No test returns early and passes for want of a tool:
//! each such test is `#[ignore = "needs …"]`, and run with `--ignored` a
//! missing tool fails it.
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The ignored tests in tests/, counted by their reason.
fn ignored_by_reason() -> BTreeMap<String, usize> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut reasons = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines() {
                let reason = line
                    .trim()
                    .strip_prefix("#[ignore = \"")
                    .and_then(|r| r.strip_suffix("\"]"));
                if let Some(reason) = reason {
                    // "needs fio and strace (apt-get …); run with --ignored" -> its need.
                    let need = reason.split(" (").next().unwrap_or(reason);
                    let need = need.split(';').next().unwrap_or(need);
                    *reasons.entry(need.to_string()).or_insert(0) += 1;
                }
            }
        }
    }
    reasons
}

#[test]
fn summary_of_what_this_run_did_not_test() {
    let reasons = ignored_by_reason();
    // Counted from the source, so it cannot be empty while such tests exist.
    assert!(
        reasons.get("needs root").is_some_and(|&n| n > 0),
        "the tests that need root are marked: {reasons:?}"
    );
    let mut text =
        String::from("\nNOTICE: what this test run did not test (ignored, with their reason)\n");
    for (reason, n) in &reasons {
        text.push_str(&format!("  {n} test(s): {reason}\n"));
    }
    text.push_str(
        "  run them with `cargo test --release -- --ignored` (as root for the root tests; .ci/run \
         installs the tools and does): a missing tool fails them there\n",
    );
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

#[test]
fn no_test_returns_early_for_want_of_a_tool() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("zz_skipped.rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                if line.contains("SKIPPED") || line.contains("common::skip(") {
                    offenders.push(format!("{}:{}: {line}", path.display(), i + 1));
                }
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}
