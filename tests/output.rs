//! What the terminal shows, through the real binary: the table and the
//! verdicts fit 100 columns when piped, one throughput unit (`--units`),
//! colour (`--color`, NO_COLOR), `--quiet`, `--verbose`; runs compared side
//! by side (`compare`) and against a baseline (`run --baseline`).
mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{faultline, one_line, succeeded, Flags, Scratch};

/// Every line of stdout.
fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A small warm read-vs-mmap run with a JSON export.
fn small_run(scratch: &Scratch, methods: &str, json: &Path) -> Output {
    succeeded(
        &mut scratch.run(
            Flags::new()
                .size("4M")
                .method(methods)
                .cache("warm")
                .runs(3)
                .export_json(json),
        ),
    )
}

#[track_caller]
fn assert_fits(text: &str, width: usize) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= width,
            "{} columns: {line:?}\n{text}",
            line.chars().count()
        );
    }
}

#[test]
fn the_default_run_fits_100_columns_when_piped() {
    let scratch = Scratch::new();
    // The default comparison (read vs mmap, seq and random, warm and cold)
    // on a small file: every line of stdout fits 100 columns.
    let out = succeeded(&mut scratch.run(Flags::new().size("4M").runs(3)));
    let text = stdout(&out);
    assert_fits(&text, 100);
    let header = text.lines().next().unwrap();
    // One throughput unit, not both.
    assert!(header.contains("/s ±95% CI"), "{header}");
    assert_eq!(header.matches("/s").count(), 1, "{header}");
    // Four verdicts, each one line, none holding the device reads of warm cases.
    let verdicts: Vec<&str> = text
        .lines()
        .filter(|l| {
            [
                "x faster than",
                "x slower than",
                "x within noise of",
                "x unsettled against",
            ]
            .iter()
            .any(|w| l.contains(w))
        })
        .collect();
    assert_eq!(verdicts.len(), 4, "{text}");
    assert!(!text.contains("0.00 vs 0.00"), "{text}");
    // No long runs of zeros.
    assert!(!text.contains("0.000"), "{text}");

    // A wider table (latency, more methods) still fits, naming what it left out.
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .size("4M")
                .method("read,mmap,pread,mmap-copy")
                .cache("warm")
                .runs(2)
                .flag("--latency", "on"),
        ),
    );
    assert_fits(&stdout(&out), 100);
    // --verbose shows every column, whatever the width.
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .size("4M")
                .method("read,mmap")
                .cache("warm")
                .runs(2)
                .flag("--latency", "on")
                .switch("--verbose"),
        ),
    );
    let text = stdout(&out);
    let header = text.lines().next().unwrap();
    for column in ["setup", "user", "sys", "faults/MiB", "p50 µs", "resident"] {
        assert!(header.contains(column), "{column}: {header}");
    }
    // The full counter comparison, labelled other vs baseline.
    assert!(text.contains("ms/MiB"), "{text}");
    assert!(text.contains("syscalls"), "{text}");
}

#[test]
fn units_choose_the_one_throughput_unit() {
    let scratch = Scratch::new();
    for (unit, shown) in [("MB/s", "MB/s"), ("GB/s", "GB/s"), ("mibps", "MiB/s")] {
        let out = succeeded(
            &mut scratch.run(
                Flags::new()
                    .size("4M")
                    .cache("warm")
                    .pattern("seq")
                    .runs(2)
                    .flag("--units", unit),
            ),
        );
        let header = stdout(&out).lines().next().unwrap().to_string();
        assert!(
            header.contains(&format!("{shown} ±95% CI")),
            "{unit}: {header}"
        );
        assert_eq!(header.matches("/s").count(), 1, "{header}");
    }
    let out = scratch.run(["--units", "furlongs"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let scratch = Scratch::new();
    let flags = || Flags::new().size("4M").cache("warm").pattern("seq").runs(2);
    let escape = |out: &Output| stdout(out).contains('\u{1b}');
    let always = succeeded(&mut scratch.run(flags().flag("--color", "always")));
    assert!(escape(&always), "{}", stdout(&always));
    let never = succeeded(
        scratch
            .run(flags().flag("--color", "never"))
            .env("CLICOLOR_FORCE", "1"),
    );
    assert!(!escape(&never));
    // auto: CLICOLOR_FORCE colours even a pipe, and NO_COLOR wins over it.
    let forced = succeeded(scratch.run(flags()).env("CLICOLOR_FORCE", "1"));
    assert!(escape(&forced));
    let no_color = succeeded(
        scratch
            .run(flags())
            .env("CLICOLOR_FORCE", "1")
            .env("NO_COLOR", "1"),
    );
    assert!(!escape(&no_color), "{}", stdout(&no_color));
    // Piped with nothing set: plain.
    let piped = succeeded(&mut scratch.run(flags()));
    assert!(!escape(&piped));
}

#[test]
fn quiet_prints_only_the_verdicts() {
    let scratch = Scratch::new();
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .size("4M")
                .cache("warm")
                .runs(2)
                .switch("--quiet"),
        ),
    );
    let text = stdout(&out);
    // A verdict may wrap (an unsettled one says why): its lines after the
    // first are indented.
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(lines.len(), 2, "two verdicts, nothing else: {text}");
    for line in lines {
        assert!(
            line.contains(": mmap ") && line.contains(" read ["),
            "{line}"
        );
    }
}

/// Two real exports: A with read and mmap, B with pread too (a case only B has).
fn two_exports(scratch: &Scratch) -> (PathBuf, PathBuf) {
    let (a, b) = (scratch.path("a.json"), scratch.path("b.json"));
    small_run(scratch, "read,mmap", &a);
    small_run(scratch, "read,mmap,pread", &b);
    (a, b)
}

#[test]
fn compare_sets_two_real_runs_side_by_side() {
    let scratch = Scratch::new();
    let (a, b) = two_exports(&scratch);
    let out = succeeded(faultline().arg("compare").arg(&a).arg(&b));
    let text = stdout(&out);
    println!("{text}");
    assert_fits(&text, 100);
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    // Each run labelled by host, kernel and date.
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("A  ") && first.contains(host.trim()),
        "{first}"
    );
    assert!(
        first.contains("Linux ") && first.contains(" UTC"),
        "{first}"
    );
    assert!(text.lines().nth(1).unwrap().starts_with("B  "), "{text}");
    let line = |label: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{label} ")))
            .unwrap_or_else(|| panic!("{label}: {text}"))
            .to_string()
    };
    // pread is in B only; read and mmap have a change with a verdict.
    assert!(line("pread").ends_with("only in B"), "{text}");
    for label in ["read", "mmap"] {
        let l = line(label);
        assert!(
            // Unsettled when the machine was busy (trials interfered).
            ["within noise", "faster", "slower", "unsettled"]
                .iter()
                .any(|w| l.contains(&format!(", {w}"))),
            "{l}"
        );
    }
    // Each comparison: the ratio in each run and the ratio of ratios.
    let cmp = text
        .lines()
        .find(|l| l.contains("mmap vs read:"))
        .expect("the comparison");
    assert!(
        cmp.contains(" A ") && cmp.contains(" B ") && cmp.contains("; B/A "),
        "{cmp}"
    );
    // Three runs: a column and a ratio of ratios each.
    let c = scratch.path("c.json");
    small_run(&scratch, "read,mmap", &c);
    let out = succeeded(faultline().arg("compare").arg(&a).arg(&b).arg(&c));
    let text = stdout(&out);
    assert!(text.contains("C/A "), "{text}");
}

#[test]
fn compare_refuses_what_it_cannot_compare_in_one_line() {
    let scratch = Scratch::new();
    let a = scratch.path("a.json");
    small_run(&scratch, "read,mmap", &a);
    let junk = scratch.path("junk.json");
    std::fs::write(&junk, "{\"not\": \"an export\"}").unwrap();
    let missing = scratch.path("missing.json");
    let compare = |b: &Path| faultline().arg("compare").arg(&a).arg(b).output().unwrap();
    one_line(
        &compare(&junk),
        2,
        &["junk.json: is not a faultline JSON export"],
    );
    one_line(&compare(&missing), 2, &["missing.json: cannot be read"]);
    // A run that compared the main loop only does not compare with a total.
    let loop_json = scratch.path("loop.json");
    succeeded(
        &mut scratch.run(
            Flags::new()
                .size("4M")
                .cache("warm")
                .runs(2)
                .flag("--metric", "loop")
                .export_json(&loop_json),
        ),
    );
    one_line(&compare(&loop_json), 2, &["their numbers do not compare"]);
    // One export is not a comparison (clap's own error).
    let out = faultline().arg("compare").arg(&a).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_baseline_run_prints_the_change_per_case() {
    let scratch = Scratch::new();
    let (a, _) = two_exports(&scratch);
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .size("4M")
                .method("read,mmap,pread")
                .cache("warm")
                .runs(3)
                .flag("--baseline", &a),
        ),
    );
    let text = stdout(&out);
    assert_fits(&text, 100);
    let changes = text
        .split("Change against the baseline (throughput, 95% CI):\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let lines: Vec<&str> = changes.lines().collect();
    // read and mmap, seq and random: four changes; then pread, new in this run.
    assert_eq!(lines.len(), 5, "{changes}");
    for l in &lines[..4] {
        assert!(
            l.ends_with("within noise")
                || l.ends_with("faster")
                || l.ends_with("slower")
                || l.ends_with("unsettled"),
            "{l}"
        );
        assert!(l.contains('%'), "{l}");
    }
    assert!(
        lines[4].contains("not in the baseline") && lines[4].contains("pread"),
        "{changes}"
    );

    // A bad baseline is refused before anything runs.
    let junk = scratch.path("junk.json");
    std::fs::write(&junk, "not json").unwrap();
    let out = scratch
        .run(Flags::new().size("4M").flag("--baseline", &junk))
        .output()
        .unwrap();
    one_line(&out, 2, &["junk.json: is not a faultline JSON export"]);
    let out = scratch
        .run(
            Flags::new()
                .size("4M")
                .flag("--metric", "loop")
                .flag("--baseline", &a),
        )
        .output()
        .unwrap();
    one_line(&out, 2, &["--baseline", "do not compare"]);
}

#[test]
fn one_html_report_of_several_runs() {
    let scratch = Scratch::new();
    let (a, b) = two_exports(&scratch);
    let html = scratch.path("both.html");
    succeeded(
        faultline()
            .arg("report")
            .arg(&a)
            .arg(&b)
            .arg("-o")
            .arg(&html),
    );
    let page = std::fs::read_to_string(&html).unwrap();
    for needle in [
        "Runs side by side",
        "id=\"run-A\"",
        "id=\"run-B\"",
        "B against A",
        "not in A",
        "id=\"plot-A-samples\"",
        "id=\"plot-B-samples\"",
        "mmap vs read",
    ] {
        assert!(page.contains(needle), "{needle}");
    }
    // The environment is humanised: memory as GiB beside the raw bytes.
    assert!(page.contains(" GiB ("), "ram_bytes humanised");
    // A bad export among them: one line, nothing written.
    let junk = scratch.path("junk.json");
    std::fs::write(&junk, "[]").unwrap();
    let out = faultline()
        .arg("report")
        .arg(&a)
        .arg(&junk)
        .arg("-o")
        .arg(scratch.path("no.html"))
        .output()
        .unwrap();
    one_line(&out, 2, &["junk.json: is not a faultline JSON export"]);
    assert!(!scratch.path("no.html").exists());
}
