//! What a finished faultline printed: its stderr, checked line by line.
use std::process::{Command, Output};

/// Every line of stderr (blank ones too).
pub fn stderr_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(String::from)
        .collect()
}

/// Expects `out` to have exited with `code`, without a panic, and with
/// exactly one line on stderr, holding every needle. Returns that line.
#[track_caller]
pub fn one_line(out: &Output, code: i32, needles: &[&str]) -> String {
    expect_one_line(out, code, needles, stderr_lines(out), "")
}

/// [`one_line`] for a run that got as far as measuring: besides its one
/// line, stderr may hold the warning that a DAMON kdamond runs on this
/// machine, which is about the machine, not about the input, and the notice
/// that a `--runs 1` plan gives no verdicts.
#[track_caller]
pub fn one_line_besides_damon(out: &Output, code: i32, needles: &[&str]) -> String {
    // A warning is wrapped to the width: its continuation lines (indented)
    // go with it.
    let mut skipping = false;
    let lines = stderr_lines(out)
        .into_iter()
        .filter(|l| {
            if skipping && l.starts_with("  ") {
                return false;
            }
            skipping = l.starts_with("warning: ")
                && (l.contains(" DAMON kdamond(s) running")
                    // A one-run plan is told up front that it gives no verdicts.
                    || l.starts_with("warning: --runs 1: no verdicts"));
            !skipping
        })
        .collect();
    expect_one_line(out, code, needles, lines, "")
}

/// The checks of [`one_line`] on `lines`, the lines of `out`'s stderr that
/// count; `what` names the command in the messages.
#[track_caller]
pub(crate) fn expect_one_line(
    out: &Output,
    code: i32,
    needles: &[&str],
    lines: Vec<String>,
    what: &str,
) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "exit code {what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    let lines = clap_error(&lines).unwrap_or(lines);
    assert_eq!(lines.len(), 1, "one line on stderr {what}, got: {stderr}");
    for needle in needles {
        assert!(
            lines[0].contains(needle),
            "{needle:?} not in {:?} {what}",
            lines[0]
        );
    }
    lines.into_iter().next().unwrap()
}

/// An error from the command-line parser, printed as clap formats it: the
/// error (its first paragraph), clap's usage or tip, and its closing
/// "For more information, try '--help'." line. Returns the error's
/// paragraph joined into one line, or `None` for any other output.
fn clap_error(lines: &[String]) -> Option<Vec<String>> {
    let last = lines.iter().rev().find(|l| !l.trim().is_empty())?;
    if last != "For more information, try '--help'." || !lines[0].starts_with("error: ") {
        return None;
    }
    let paragraph: Vec<&str> = lines
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.trim())
        .collect();
    Some(vec![paragraph.join(" ")])
}

/// Runs `cmd`, expects it to succeed, and returns its output.
#[track_caller]
pub fn succeeded(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("faultline runs");
    assert!(
        out.status.success(),
        "{:?} failed ({}): {}\n{}",
        cmd.get_args().collect::<Vec<_>>(),
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    out
}
