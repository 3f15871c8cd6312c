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
    // The default mode is recorded and shown.
    for preset in PRESETS {
        let json = read_json(&scratch.path(&format!("results-{preset}.json")));
        assert_eq!(json["settings"]["reproduction"]["preset"], preset);
        assert_eq!(json["settings"]["reproduction"]["faithful"], false);
    }
    assert_eq!(stdout.matches("\nmode: default (").count(), 5);
    assert!(html.contains("<strong>Mode:</strong> default ("));
}

fn read_json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("the JSON export")).expect("JSON")
}

/// The verdict words of `preset`'s claims in the verdict list.
fn verdict_words<'a>(stdout: &'a str, preset: &str) -> Vec<&'a str> {
    let verdicts = stdout
        .split("\nVerdicts:\n")
        .nth(1)
        .expect("a verdict list");
    verdicts
        .lines()
        .filter(|l| l.trim_start().starts_with(&format!("{preset}: ")))
        .map(|l| l.split(": ").nth(1).unwrap().split(' ').next().unwrap())
        .collect()
}

#[test]
fn faithful_runs_every_preset_with_the_originals_quirks_and_records_it() {
    let scratch = Scratch::new();
    let report = scratch.path("report.html");
    let json = scratch.path("results.json");
    let markdown = scratch.path("results.md");
    let out = faultline()
        .args([
            "reproduce",
            "all",
            "--quick",
            "--faithful",
            "--scale-down",
            "256",
            "--data-dir",
        ])
        .arg(scratch.path("data"))
        .arg("--report")
        .arg(&report)
        .arg("--export-json")
        .arg(&json)
        .arg("--export-markdown")
        .arg(&markdown)
        .output()
        .expect("faultline runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "reproduce --faithful failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&report).expect("the report");
    for preset in PRESETS {
        let words = verdict_words(&stdout, preset);
        assert!(!words.is_empty(), "{preset} has claims");
        for word in words {
            assert!(WORDS.contains(&word), "{preset}: {word}");
        }
        let section = stdout
            .split(&format!("== {preset} — "))
            .nth(1)
            .expect("a section");
        assert!(
            section
                .split_once('\n')
                .unwrap()
                .1
                .starts_with("mode: faithful ("),
            "{preset} header"
        );
        let results = read_json(&scratch.path(&format!("results-{preset}.json")));
        assert_eq!(results["settings"]["reproduction"]["preset"], preset);
        assert_eq!(results["settings"]["reproduction"]["faithful"], true);
        let md = std::fs::read_to_string(scratch.path(&format!("results-{preset}.md")))
            .expect("the Markdown export");
        assert!(
            md.contains(&format!("Reproduction of **{preset}**, mode: faithful (")),
            "{preset} Markdown"
        );
    }
    assert_eq!(html.matches("<strong>Mode:</strong> faithful (").count(), 5);
    // What the faithful plans replay, as run.
    let cases = |preset: &str| {
        read_json(&scratch.path(&format!("results-{preset}.json")))["cases"]
            .as_array()
            .unwrap()
            .clone()
    };
    let sun = cases("sun2002");
    assert!(sun.iter().all(|c| c["scale_unit"] == "byte"));
    assert!(sun
        .iter()
        .filter(|c| c["method"] == "mmap")
        .all(|c| c["share"] == "private"));
    assert!(cases("write2020")
        .iter()
        .any(|c| c["method"] == "mmap-write" && c["size_with"] == "seek-write"));
    assert!(cases("write2020")
        .iter()
        .any(|c| c["method"] == "write" && c["fill"] == "calloc"));
    assert!(cases("liege2018")
        .iter()
        .any(|c| c["pattern"] == "random-replace"));
    let sun_text = stdout.split("== sun2002 — ").nth(1).unwrap();
    assert!(sun_text.contains("bytes scaled as pixels, MAP_PRIVATE"));
}

#[test]
fn resume_refuses_to_mix_faithful_and_default_runs() {
    let scratch = Scratch::new();
    let data = scratch.path("data");
    let out = faultline()
        .args([
            "reproduce",
            "write2020",
            "--scale-down",
            "256",
            "--data-dir",
        ])
        .arg(&data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let journal = std::fs::read_dir(data.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "journal"))
        .expect("a journal");
    let refused = |extra: &[&str]| {
        let out = faultline()
            .args(["reproduce"])
            .args(extra)
            .arg("--resume")
            .arg(&journal)
            .arg("--data-dir")
            .arg(&data)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!err.contains("panicked"), "{err}");
        err
    };
    let err = refused(&["write2020", "--faithful"]);
    assert!(
        err.contains("default-mode") && err.contains("leave out --faithful"),
        "{err}"
    );
    let err = refused(&["sun2002"]);
    assert!(err.contains("reproduces write2020, not sun2002"), "{err}");
    // The same mode continues it (nothing is left to run).
    let out = faultline()
        .args(["reproduce", "write2020", "--resume"])
        .arg(&journal)
        .arg("--data-dir")
        .arg(&data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
