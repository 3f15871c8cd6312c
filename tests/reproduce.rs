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
        .arg("--plots")
        .arg(scratch.path("plots"))
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
    check_plots(&scratch.path("plots"), &html);
    assert!(html.contains("class=\"claim "));
    assert!(html.contains("<svg"));
}

/// `fill="#RRGGBB"` as plotters writes it.
fn rects_filled(svg: &str, rgb: &str) -> usize {
    let fill = format!("fill=\"#{rgb}\"");
    svg.split("<rect")
        .skip(1)
        .filter(|r| r.split("/>").next().unwrap().contains(&fill))
        .count()
}

/// The text of every `<text>` element.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .map(|t| {
            let body = &t[t.find('>').unwrap() + 1..];
            body[..body.find("</text>").unwrap()].trim().to_string()
        })
        .collect()
}

/// Bar colours: measured user CPU (also the first series), sys CPU (also
/// the second), elapsed; and published (pale) user, sys and elapsed.
const USER: &str = "0072B2";
const SYS: &str = "E69F00";
const WALL: &str = "5A5A5A";
const PALE_USER: &str = "99C7E0";
const PALE_SYS: &str = "F5D999";
const PALE_WALL: &str = "BDBDBD";

/// Every preset's plots were written as SVG and an 800 px wide PNG, are in
/// the report, carry units on their axes and the published numbers beside
/// the measured ones, and the bar charts have their bars.
fn check_plots(dir: &std::path::Path, html: &str) {
    let svg_of = |name: &str| {
        let svg = std::fs::read_to_string(dir.join(format!("{name}.svg")))
            .unwrap_or_else(|e| panic!("{name}.svg: {e}"));
        let png = std::fs::read(dir.join(format!("{name}.png"))).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{name}.png");
        let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
        assert_eq!(width, 800, "{name}.png");
        assert!(
            html.contains(&format!("id=\"plot-{name}\"")),
            "{name} in the report"
        );
        (texts(&svg), svg)
    };
    let has = |texts: &[String], t: &str, name: &str| {
        assert!(texts.iter().any(|x| x == t), "{name}: {t:?} in {texts:?}");
    };

    // dillon2004: three published machines and four measured configurations
    // (warm and cold, 8 and 64 KiB), read and mmap in each: a CPU bar
    // (user + sys) and an elapsed bar, with the fault counts.
    let name = "dillon2004-times";
    let (t, svg) = svg_of(name);
    for m in [
        "Pentium II 400",
        "dual P2 Xeon 450",
        "Pentium 4M 1 GHz (I/O-bound)",
    ] {
        has(&t, &format!("published: {m}"), name);
    }
    for text in ["22328 faults", "19463 faults", "11221 blocks in", "time, s"] {
        has(&t, text, name);
    }
    assert_eq!(rects_filled(&svg, PALE_USER), 6, "{name}");
    assert_eq!(rects_filled(&svg, PALE_SYS), 6, "{name}");
    assert_eq!(rects_filled(&svg, PALE_WALL), 6, "{name}");
    assert_eq!(
        rects_filled(&svg, WALL),
        8 + 1,
        "{name}: 8 bars and the legend"
    );
    assert_eq!(
        t.iter()
            .filter(|x| x.starts_with("measured here: "))
            .count(),
        4
    );
    assert!(
        t.iter().filter(|x| x.ends_with(" faults")).count() >= 2 + 8,
        "{t:?}"
    );
    assert!(
        t.iter().any(|x| x.starts_with("time, ") && x != "time, s"),
        "{t:?}"
    );

    // liege2018: time against size for each of the four cases, and Figure 5.
    for case in ["seq-read", "seq-write", "random-read", "random-write"] {
        let name = format!("liege2018-{case}-time");
        let (t, _) = svg_of(&name);
        has(&t, "file size, kB", &name);
        has(&t, "time, ms", &name);
        let name = format!("liege2018-{case}-speedup");
        let (t, _) = svg_of(&name);
        has(&t, "Liège 2018 (text)", &name);
    }
    let name = "liege2018-fig5-user-sys";
    let (t, svg) = svg_of(name);
    assert_eq!(t.iter().filter(|x| *x == "read()").count(), 2, "{t:?}");
    assert_eq!(t.iter().filter(|x| *x == "mmap").count(), 2, "{t:?}");
    assert_eq!(t.iter().filter(|x| x.starts_with("CPU time, ")).count(), 2);
    assert!(t.iter().any(|x| x.starts_with("sequential 16 KiB read, ")));
    assert!(t.iter().any(|x| x.starts_with("random 1-byte read, ")));
    // Four stacks of user and sys (a zero segment is not drawn), and the legend.
    let segments = rects_filled(&svg, USER) + rects_filled(&svg, SYS);
    assert!((2 + 4..=2 + 8).contains(&segments), "{segments}");

    // fedorova2019: throughput bars for 3 block sizes x 2 patterns x 2
    // cache states, pread and mmap-copy, and the speedup against the
    // published range.
    let name = "fedorova2019-throughput";
    let (t, svg) = svg_of(name);
    assert_eq!(rects_filled(&svg, USER), 12 + 1, "{name}: pread");
    assert_eq!(rects_filled(&svg, SYS), 12 + 1, "{name}: mmap-copy");
    for p in [
        "seq, warm",
        "seq, cold",
        "random-replace, warm",
        "random-replace, cold",
    ] {
        has(&t, p, name);
    }
    assert_eq!(t.iter().filter(|x| *x == "throughput, MiB/s").count(), 4);
    assert_eq!(t.iter().filter(|x| *x == "8 KiB").count(), 4);
    let name = "fedorova2019-speedup";
    let (t, _) = svg_of(name);
    has(&t, "published low (2x)", name);
    has(&t, "published high (6x)", name);

    // write2020: the published real/user/sys beside the measured ones.
    let name = "write2020-times";
    let (t, svg) = svg_of(name);
    has(&t, "published: 1000 MB, `time` (2020 post)", name);
    has(&t, "time, s", name);
    assert_eq!(rects_filled(&svg, PALE_WALL), 2, "{name}");
    assert_eq!(rects_filled(&svg, PALE_USER), 2, "{name}");
    assert_eq!(rects_filled(&svg, PALE_SYS), 2, "{name}");
    assert_eq!(rects_filled(&svg, WALL), 2 + 1, "{name}");

    // sun2002: the read/mmap ratio against the factor, Table 1 beside it.
    let name = "sun2002-ratio";
    let (t, _) = svg_of(name);
    has(&t, "published read/mmap (Table 1)", name);
    has(&t, "measured read/mmap", name);
    has(&t, "reduction factor", name);
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
