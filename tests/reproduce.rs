//! `faultline reproduce`: every preset end to end at a tiny scale, with its
//! tables, verdicts, plots and HTML report.
mod common;

use common::{faultline, Scratch};

const PRESETS: [&str; 5] = [
    "dillon2004",
    "liege2018",
    "fedorova2019",
    "write2020",
    "sun2002",
];
const WORDS: [&str; 3] = ["holds", "reversed", "inconclusive"];

#[test]
fn every_preset_runs_end_to_end_at_a_tiny_scale() {
    let scratch = Scratch::new();
    let report = scratch.path("report.html");
    let json = scratch.path("results.json");
    let out = faultline()
        .args([
            "reproduce",
            "all",
            "--quick",
            "--scale-down",
            "256",
            "--data-dir",
        ])
        .arg(scratch.path("data"))
        .arg("--report")
        .arg(&report)
        .arg("--export-json")
        .arg(&json)
        .output()
        .expect("faultline runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "reproduce failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdicts = stdout
        .split("\nVerdicts:\n")
        .nth(1)
        .expect("a verdict list");
    for preset in PRESETS {
        assert!(
            stdout.contains(&format!("== {preset} — ")),
            "{preset} section"
        );
        assert!(scratch.path(&format!("results-{preset}.json")).exists());
        let lines: Vec<&str> = verdicts
            .lines()
            .filter(|l| l.trim_start().starts_with(&format!("{preset}: ")))
            .collect();
        assert!(!lines.is_empty(), "{preset} has claims");
        for line in lines {
            let word = line.split(": ").nth(1).unwrap().split(' ').next().unwrap();
            assert!(WORDS.contains(&word), "{line}");
        }
    }
    for heading in [
        "Published",
        "Measured",
        "Claims:",
        "Fidelity notes:",
        "This machine:",
    ] {
        assert!(stdout.matches(heading).count() >= 5, "{heading}");
    }
    let html = std::fs::read_to_string(&report).expect("the report");
    for preset in PRESETS {
        assert!(
            html.contains(&format!("id=\"preset-{preset}\"")),
            "{preset} in report"
        );
        assert!(
            html.contains(&format!("id=\"plot-{preset}")),
            "{preset} plot"
        );
    }
    // sun2002: its scale cases read a generated PPM image (80x64 at this scale).
    let sun = stdout
        .split("== sun2002 — ")
        .nth(1)
        .expect("a sun2002 section");
    for text in [
        "Published (Table 1",
        "factor",
        "read/mmap [95% CI]",
        "5.48 s / 4.79 s = 1.14",
        "1.26 s / 0.62 s = 2.03",
        "advantage grows",
        "MAP_SHARED",
    ] {
        assert!(sun.contains(text), "sun2002: {text}");
    }
    assert!(
        std::fs::read_dir(scratch.path("data"))
            .unwrap()
            .any(|e| e.unwrap().file_name() == "faultline-image-80x64-0000000000000001.ppm"),
        "sun2002 generated its image"
    );
    assert!(html.contains("id=\"plot-sun2002-ratio"));
    assert!(html.contains("class=\"claim "));
    assert!(html.contains("<svg"));
}

#[test]
fn unknown_and_pending_presets_are_usage_errors() {
    for name in ["nosuch", "sun2003"] {
        let out = faultline().args(["reproduce", name]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("liege2018") && err.contains("sun2002"),
            "{err}"
        );
    }
    let out = faultline()
        .args(["reproduce", "all", "--resume", "/nonexistent.journal"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
