//! The Markdown report: environment, settings, per-case tables, verdicts,
//! failures and warnings, for pasting into an issue or a README.
//!
//! The per-case tables have the same columns and numbers as the terminal
//! table. The environment is rendered from its serialized form, so every field
//! it records appears here without this module naming any of them.
use std::path::Path;

use serde_json::Value;

use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::report::groups::groups;
use crate::report::rows::{case_row, headers, outlier_count, Row, OUTLIER_NOTE};
use crate::report::units::MISSING;
use crate::report::verdict::{failure_lines, verdict_lines, warning_lines};
use crate::results::RunResults;

/// Renders the whole report as Markdown: its head, the per-case tables, the
/// sections every report shares, then the verdicts and what qualifies them.
pub fn render_markdown(results: &RunResults) -> String {
    let mut out = String::from("# faultline results\n\n");
    push_head(&mut out, results);
    push_tables(&mut out, results);
    push_sections(&mut out, results);
    push_verdicts(&mut out, results);
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// Whether the run is complete, its command line, the study it reproduces
/// and its claims, the environment and the settings.
fn push_head(out: &mut String, results: &RunResults) {
    if !results.complete {
        out.push_str(
            "> **Incomplete run** (interrupted or still running): some cases may lack runs.\n\n",
        );
    }
    if !results.command_line.is_empty() {
        out.push_str("```sh\n");
        let words: Vec<String> = results.command_line.iter().map(|w| shell_word(w)).collect();
        out.push_str(&words.join(" "));
        out.push_str("\n```\n\n");
    }

    if let Some(r) = &results.settings.reproduction {
        out.push_str(&format!(
            "Reproduction of **{}**, mode: {}.\n\n",
            escape(&r.preset),
            escape(&r.mode_line())
        ));
    }
    if !results.claims.is_empty() {
        out.push_str("## Claims\n\n");
        push_row(
            out,
            super::claims_csv::COLUMNS.iter().map(|c| c.to_string()),
        );
        push_row(
            out,
            super::claims_csv::COLUMNS.iter().map(|_| "---".to_string()),
        );
        for c in &results.claims {
            push_row(out, super::claims_csv::claim_row(c));
        }
        out.push('\n');
    }
    out.push_str("## Environment\n\n");
    push_fields(out, ["field", "value"], &results.environment);
    out.push_str("## Settings\n\n");
    push_fields(out, ["setting", "value"], &results.settings);
}

/// The per-case tables, one per group, and the note on outliers.
fn push_tables(out: &mut String, results: &RunResults) {
    out.push_str("## Results\n\n");
    if results.cases.is_empty() {
        out.push_str("No cases.\n\n");
    }
    let headers = headers(results);
    let latency = crate::report::rows::shows_latency(results);
    for group in groups(results) {
        out.push_str(&format!("### {}\n\n", escape(&group.heading)));
        push_row(out, headers.iter().map(|h| h.to_string()));
        push_row(
            out,
            (0..headers.len()).map(|i| if i == 0 { ":---" } else { "---:" }.to_string()),
        );
        for case in group.cases {
            match case_row(case, results, latency) {
                Row::Measured(cells) => push_row(out, cells),
                Row::Empty { label, note } => {
                    let blanks = std::iter::repeat_n(String::new(), headers.len() - 2);
                    push_row(out, [label, note].into_iter().chain(blanks));
                }
            }
        }
        out.push('\n');
    }
    let any_outliers = results
        .cases
        .iter()
        .filter_map(|c| c.summary.as_ref())
        .any(|s| outlier_count(s) > 0);
    if any_outliers {
        out.push_str(&format!("{OUTLIER_NOTE}.\n\n"));
    }
}

/// The sections every report shares: access, timelines, spread and cycles.
fn push_sections(out: &mut String, results: &RunResults) {
    let access = crate::report::sections::access::access_lines(results);
    if !access.is_empty() {
        out.push_str(&format!(
            "## {}\n\n",
            crate::report::sections::access::TITLE
        ));
        push_bullets(out, &access);
    }
    for (title, rows) in crate::report::sections::access::timelines(results) {
        out.push_str(&format!(
            "## {}: {}\n\n",
            crate::report::sections::access::TIMELINE_TITLE,
            escape(&title)
        ));
        push_row(
            out,
            crate::report::sections::access::TIMELINE_HEADERS
                .iter()
                .map(|h| h.to_string()),
        );
        push_row(
            out,
            crate::report::sections::access::TIMELINE_HEADERS
                .iter()
                .map(|_| "---:".to_string()),
        );
        for row in rows {
            push_row(out, row);
        }
        out.push('\n');
    }
    let spreads = crate::report::sections::spread::spread_lines(results);
    if !spreads.is_empty() {
        out.push_str(&format!(
            "## {}\n\n",
            crate::report::sections::spread::TITLE
        ));
        push_bullets(out, &spreads);
    }

    let cycles = crate::report::sections::profile::section_lines(results);
    if !cycles.is_empty() {
        out.push_str(&format!(
            "## {}\n\n",
            crate::report::sections::profile::TITLE
        ));
        if let Some(legend) = crate::report::sections::profile::legend(results) {
            out.push_str(&format!("{}.\n\n", escape(&legend)));
        }
        push_bullets(out, &cycles);
    }
}

/// The verdicts, then the statistics lines, short trials, failures and
/// warnings.
fn push_verdicts(out: &mut String, results: &RunResults) {
    out.push_str("## Verdicts\n\n");
    let verdicts = verdict_lines(results);
    if verdicts.is_empty() {
        out.push_str("No comparisons.\n\n");
    } else {
        push_bullets(out, &verdicts);
    }
    let statistics = crate::report::sections::precision::statistics_lines(results);
    if !statistics.is_empty() {
        out.push_str("## Statistics\n\n");
        push_bullets(out, &statistics);
    }
    let short = crate::report::sections::precision::short_trial_warnings(results);
    if !short.is_empty() {
        out.push_str("## Short trials\n\n");
        push_bullets(out, &short);
    }
    let failures = failure_lines(results);
    if !failures.is_empty() {
        out.push_str("## Failures\n\n");
        push_bullets(out, &failures);
    }
    let warnings = warning_lines(results);
    if !warnings.is_empty() {
        out.push_str("## Warnings\n\n");
        push_bullets(out, &warnings);
    }
}

/// Writes [`render_markdown`] to `path`, atomically.
pub fn write_markdown(results: &RunResults, path: &Path) -> Result<()> {
    let text = render_markdown(results);
    write_atomically(path, SHARED_MODE, |w| w.write_all(text.as_bytes()))
}

/// The Markdown report as an [`super::Exporter`]: [`write_markdown`].
pub struct Markdown;

impl super::Exporter for Markdown {
    fn name(&self) -> &'static str {
        "markdown"
    }

    fn write(&self, results: &RunResults, path: &Path) -> Result<()> {
        write_markdown(results, path)
    }
}

/// A two-column table of every field of `value` as serialized; nested
/// fields are named `outer.inner`.
fn push_fields(out: &mut String, headings: [&str; 2], value: &impl serde::Serialize) {
    let mut fields = Vec::new();
    match serde_json::to_value(value) {
        Ok(v) => flatten("", &v, &mut fields),
        Err(e) => fields.push(("error".to_string(), e.to_string())),
    }
    if fields.is_empty() {
        out.push_str("Nothing recorded.\n\n");
        return;
    }
    push_row(out, headings.iter().map(|h| h.to_string()));
    push_row(out, ["---".to_string(), "---".to_string()]);
    for (name, value) in fields {
        push_row(out, [name, value]);
    }
    out.push('\n');
}

pub(super) fn flatten(prefix: &str, value: &Value, out: &mut Vec<(String, String)>) {
    let name = |key: &str| {
        if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        }
    };
    match value {
        Value::Object(map) if !map.is_empty() || prefix.is_empty() => {
            for (key, v) in map {
                flatten(&name(key), v, out);
            }
        }
        Value::Array(items) if items.iter().any(|v| v.is_object() || v.is_array()) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), v, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let words: Vec<String> = items.iter().map(scalar).collect();
            out.push((prefix.to_string(), words.join(", ")));
        }
        other => out.push((prefix.to_string(), scalar(other))),
    }
}

/// A scalar as text; null, empty strings and empty collections print as `-`.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) if !s.is_empty() => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        _ => MISSING.to_string(),
    }
}

fn push_row(out: &mut String, cells: impl IntoIterator<Item = String>) {
    out.push('|');
    for cell in cells {
        out.push(' ');
        out.push_str(&escape(&cell));
        out.push_str(" |");
    }
    out.push('\n');
}

fn push_bullets(out: &mut String, lines: &[String]) {
    for line in lines {
        out.push_str("- ");
        out.push_str(&escape(line));
        out.push('\n');
    }
    out.push('\n');
}

/// Keeps user-controlled text (file names, labels, messages) text: on one
/// line, its pipes from ending a cell, and its HTML, links and code spans
/// from being rendered (`<`, `>` and `&` become entities; the `]` of a
/// `](` and every `` ` `` are backslash-escaped, so no inline link or code
/// span forms).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ']' if chars.peek() == Some(&'(') => out.push_str("\\]"),
            '|' | '`' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A command-line word as a POSIX shell would need it.
pub(super) fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        w.to_string()
    } else if w.chars().any(char::is_control) {
        // A newline or other control character would break the code
        // fence: bash's ANSI-C quoting keeps the word on one line.
        let mut out = String::from("$'");
        for c in w.chars() {
            match c {
                '\'' | '\\' => {
                    out.push('\\');
                    out.push(c);
                }
                c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32 & 0xff)),
                c => out.push(c),
            }
        }
        out.push('\'');
        out
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crate::report::rows::HEADERS;

    #[test]
    fn has_every_section_and_the_tables() {
        let mut results = fixtures::results();
        results.command_line.push("--file=my data".to_string());
        let md = render_markdown(&results);
        println!("{md}");
        assert!(md.starts_with("# faultline results\n"));
        assert!(
            md.contains("```sh\nfaultline run '--file=my data'\n```"),
            "{md}"
        );
        for heading in [
            "## Environment",
            "## Settings",
            "## Results",
            "## Verdicts",
            "## Failures",
            "## Warnings",
        ] {
            assert!(md.contains(&format!("\n{heading}\n")), "{heading}");
        }
        assert!(
            md.contains("| field | value |\n| --- | --- |\n")
                && md.contains("\n| faultline_version | - |\n"),
            "{md}"
        );
        assert!(md.contains("| runs | 3 |"), "{md}");
        assert!(md.contains("| order | alternating |"), "{md}");
        assert!(
            md.contains("| file | /tmp/data\\|file |"),
            "pipes are escaped: {md}"
        );

        assert!(
            md.contains("### seq 16 KiB sum, warm; 1 GiB file\n\n| method | GB/s ±95% CI |"),
            "{md}"
        );
        assert!(md.contains("| :--- | ---: |"), "{md}");
        let read = md.lines().find(|l| l.starts_with("| read |")).unwrap();
        assert_eq!(read.matches(" |").count(), HEADERS.len(), "{read}");
        assert!(read.contains("| 2.00 ± 0.10 | 1.86 ± 0.09 |"), "{read}");
        let copy = md.lines().find(|l| l.starts_with("| mmap-copy |")).unwrap();
        assert!(
            copy.starts_with("| mmap-copy | no samples (2 failed) |"),
            "{copy}"
        );
        assert_eq!(copy.matches(" |").count(), HEADERS.len(), "{copy}");
        assert!(md.contains(OUTLIER_NOTE));

        assert!(
            md.contains(
                "\n- seq 16 KiB sum, warm: mmap is 1.42x faster than read [95% CI 1.38–1.46] — "
            ),
            "{md}"
        );
        assert!(
            md.contains("\n- case mmap-copy (seq 16 KiB sum, warm), run 1: killed by SIGBUS\n"),
            "{md}"
        );
        assert!(
            md.contains("\n- cold cache not reached in run 2 of mmap\n"),
            "{md}"
        );
        assert!(!md.contains("Incomplete"));
        assert!(md.ends_with("mmap\n") && !md.ends_with("\n\n"));
    }

    #[test]
    fn optional_sections_are_left_out_when_empty() {
        let mut results = fixtures::results();
        results.failures.clear();
        results.warnings.clear();
        results.comparisons.clear();
        results.complete = false;
        let md = render_markdown(&results);
        assert!(
            !md.contains("## Failures") && !md.contains("## Warnings"),
            "{md}"
        );
        assert!(md.contains("No comparisons."), "{md}");
        assert!(md.contains("**Incomplete run**"), "{md}");
    }

    #[test]
    fn nested_environment_fields_are_flattened() {
        let value = serde_json::json!({
            "kernel": "6.8.0",
            "cpu": {"model": "x", "cores": 8},
            "flags": ["a", "b"],
            "mounts": [{"fs": "ext4"}],
            "thp": null,
            "empty": [],
        });
        let mut fields = Vec::new();
        flatten("", &value, &mut fields);
        let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("kernel"), Some("6.8.0"));
        assert_eq!(get("cpu.model"), Some("x"));
        assert_eq!(get("cpu.cores"), Some("8"));
        assert_eq!(get("flags"), Some("a, b"));
        assert_eq!(get("mounts[0].fs"), Some("ext4"));
        assert_eq!(get("thp"), Some("-"));
        assert_eq!(get("empty"), Some("-"));
    }

    #[test]
    fn writes_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.md");
        let results = fixtures::results();
        write_markdown(&results, &path).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            render_markdown(&results)
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn quotes_shell_words_only_when_needed() {
        assert_eq!(shell_word("--runs=10"), "--runs=10");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("a\n```"), r"$'a\x0a```'");
    }

    #[test]
    fn html_links_and_fences_in_user_text_stay_text() {
        let mut results = fixtures::results();
        results.settings.file = "/tmp/<img src=x onerror=alert(1)>&[a](javascript:x)`.bin".into();
        results.cases[0].label = "<script>alert(1)</script>".to_string();
        results.warnings.push("<b>warn</b> | [x](y)".to_string());
        results.command_line = vec!["faultline".into(), "--file=a\n```\n<p>".into()];
        let md = render_markdown(&results);
        for raw in ["<img", "<script>", "<b>", "[a](", "[x](", "\n```\n<p>"] {
            assert!(!md.contains(raw), "{raw} rendered raw in {md}");
        }
        assert!(
            md.contains("&lt;img src=x onerror=alert(1)&gt;&amp;[a\\](javascript:x)\\`.bin"),
            "{md}"
        );
        assert!(md.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{md}");
        let fences = md.lines().filter(|l| l.starts_with("```")).count();
        assert_eq!(fences, 2, "one fence, opened and closed: {md}");
    }
}
