//! `faultline reproduce`: every preset end to end at a tiny scale, with its
//! tables, verdicts, plots and HTML report.
mod common;

use common::{
    faultline, file_ending, one_line, read_json, require_root, samples, succeeded, Flags, Scratch,
};

/// The presets `reproduce all` runs, from the registry: a new preset is
/// tested here without an edit.
fn presets() -> Vec<&'static str> {
    faultline::studies::all().iter().map(|p| p.name()).collect()
}
/// Every word a claim's verdict can print, from the library's own enums: a
/// new verdict or reason is accepted here without an edit.
fn verdict_words_known() -> Vec<String> {
    use faultline::results::claim::{ClaimVerdict, Reason};
    ClaimVerdict::ALL
        .iter()
        .filter(|v| **v != ClaimVerdict::Unsettled)
        .map(|v| v.word().to_string())
        .chain(
            Reason::ALL
                .iter()
                .map(|r| format!("unsettled: {}", r.word())),
        )
        .collect()
}

#[test]
fn every_preset_runs_end_to_end_at_a_tiny_scale() {
    let scratch = Scratch::new();
    let report = scratch.path("report.html");
    let json = scratch.path("results.json");
    let out = succeeded(
        &mut scratch.reproduce(
            "all",
            Flags::new()
                .switch("--quick")
                .flag("--scale-down", "256")
                .flag("--report", &report)
                .export_json(&json)
                .flag("--plots", scratch.path("plots")),
        ),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let verdicts = stdout
        .split("\nVerdicts:\n")
        .nth(1)
        .expect("a verdict list");
    for preset in presets() {
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
        let known = verdict_words_known();
        for line in lines {
            assert!(known.iter().any(|w| w == verdict_of(line)), "{line}");
        }
    }
    let html = std::fs::read_to_string(&report).expect("the report");
    // Every claim sets its measured CI beside the published value.
    let claims = verdicts_count(&stdout);
    assert!(claims >= 12, "{claims} claims");
    assert_eq!(stdout.matches("\n      published: ").count(), claims);
    assert_eq!(stdout.matches("measured [90% CI]").count(), claims);
    assert!(html.contains("<th scope=\"col\">measured [90% CI]</th>"));
    for heading in [
        "Published",
        "Measured",
        "Claims:",
        "Fidelity notes:",
        "This machine:",
    ] {
        assert!(
            stdout.matches(heading).count() >= presets().len(),
            "{heading}"
        );
    }
    for preset in presets() {
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
        "read/mmap [90% CI]",
        "5.48 s / 4.79 s = 1.14",
        "1.26 s / 0.62 s = 2.03",
        "advantage grows",
        "MAP_SHARED",
    ] {
        assert!(sun.contains(text), "sun2002: {text}");
    }
    assert!(
        scratch
            .data_dir()
            .join("faultline-image-80x64-0000000000000001.ppm")
            .is_file(),
        "sun2002 generated its image"
    );
    assert!(html.contains("id=\"plot-sun2002-ratio"));
    check_plots(&scratch.path("plots"), &html);
    assert!(html.contains("class=\"claim "));
    assert!(html.contains("<svg"));
    // The default mode is recorded and shown.
    for preset in presets() {
        let json = read_json(&scratch.path(&format!("results-{preset}.json")));
        assert_eq!(json["settings"]["reproduction"]["preset"], preset);
        assert_eq!(json["settings"]["reproduction"]["faithful"], false);
    }
    assert_eq!(stdout.matches("\nmode: default (").count(), presets().len());
    assert!(html.contains("<strong>Mode:</strong> default ("));
    seed_readings(&stdout, &scratch);
}

/// What the seed texts say, as a tiny `reproduce all` shows it.
fn seed_readings(stdout: &str, scratch: &Scratch) {
    let section = |preset: &str| {
        stdout
            .split(&format!("== {preset} — "))
            .nth(1)
            .and_then(|s| s.split("\n== ").next())
            .expect("a section")
            .to_string()
    };
    for preset in presets() {
        // One CI per comparison: the study's tables use the claims' 90%.
        let tables = section(preset);
        let tables = tables.split("\nClaims:\n").next().unwrap();
        assert!(!tables.contains("[95% CI]"), "{preset}: {tables}");
    }
    // dillon2004 checks the I/O-bound claim's premise on the run's cold trials.
    let dillon = section("dillon2004");
    let machine = dillon.split("This machine:").nth(1).unwrap();
    assert!(machine.contains("dillon2004: "), "{machine}");
    assert!(dillon.contains("Premise "), "{dillon}");
    // liege2018 shows where its text contradicts itself.
    let liege = section("liege2018");
    assert!(liege.contains("contradicts itself"), "{liege}");
    // fedorova2019: "warm more consistent" is a claim about spread.
    let fedorova = read_json(&scratch.path("results-fedorova2019.json"));
    let claims = fedorova["claims"].as_array().unwrap();
    let consistent = claims
        .iter()
        .find(|c| c["id"] == "warm-consistent")
        .expect("the consistency claim");
    assert_eq!(consistent["kind"], "dispersion");
    assert!(section("fedorova2019").contains("the benchmark's code"));
    // write2020's claim is judged on the post's calloc'd buffer; the
    // pre-faulted write is an extra, marked row.
    let write = read_json(&scratch.path("results-write2020.json"));
    let fills: Vec<&str> = write["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["method"] == "write")
        .map(|c| c["fill"].as_str().unwrap())
        .collect();
    assert_eq!(fills, ["calloc", "zero"]);
    let claim = &write["claims"][0];
    assert!(
        claim["claim"].as_str().unwrap().contains("calloc"),
        "{claim}"
    );
    assert!(section("write2020").contains("not in the post: an extra row"));
}

#[test]
fn fedorova2019_judges_map_populate_at_its_own_larger_file() {
    let scratch = Scratch::new();
    let json = scratch.path("f.json");
    let out = succeeded(
        &mut scratch.reproduce(
            "fedorova2019",
            Flags::new()
                .flag("--scale-down", "64")
                .flag("--max-runs", "2")
                .switch("--no-profile")
                .export_json(&json),
        ),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    // 64 MiB and 256 MiB, scaled down 64 times.
    assert!(
        stdout.contains("main-loop time over a 1 MiB file"),
        "{stdout}"
    );
    assert!(
        stdout.contains("MAP_POPULATE, main-loop time of mmap-copy over a 4 MiB file"),
        "{stdout}"
    );
    let exported = read_json(&json);
    let populate = exported["claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "populate")
        .expect("the MAP_POPULATE claim");
    let label = populate["pairs"][0]["label"].as_str().unwrap();
    assert!(label.contains("4 MiB file"), "{label}");
    // Both of its cases ran at that size.
    let at_4 = exported["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["file_size"] == 4u64 << 20)
        .count();
    assert_eq!(at_4, 4, "plain and MAP_POPULATE, sequential and random");
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
        .map(verdict_of)
        .collect()
}

/// How many claims the verdict list has.
fn verdicts_count(stdout: &str) -> usize {
    let verdicts = stdout
        .split("\nVerdicts:\n")
        .nth(1)
        .expect("a verdict list");
    verdicts.lines().filter(|l| l.contains(" — ")).count()
}

/// The verdict of a line `  preset: verdict — claim` of the verdict list.
fn verdict_of(line: &str) -> &str {
    let rest = line.split_once(": ").expect("preset: verdict").1;
    rest.split_once(" — ").expect("verdict — claim").0
}

#[test]
fn faithful_runs_every_preset_with_the_originals_quirks_and_records_it() {
    let scratch = Scratch::new();
    let report = scratch.path("report.html");
    let json = scratch.path("results.json");
    let markdown = scratch.path("results.md");
    let out = succeeded(
        &mut scratch.reproduce(
            "all",
            Flags::new()
                .switch("--quick")
                .switch("--faithful")
                .flag("--scale-down", "256")
                .flag("--report", &report)
                .export_json(&json)
                .flag("--export-markdown", &markdown),
        ),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let html = std::fs::read_to_string(&report).expect("the report");
    for preset in presets() {
        let words = verdict_words(&stdout, preset);
        assert!(!words.is_empty(), "{preset} has claims");
        let known = verdict_words_known();
        for word in words {
            assert!(known.iter().any(|w| w == word), "{preset}: {word}");
        }
        let section = stdout
            .split(&format!("== {preset} — "))
            .nth(1)
            .expect("a section");
        // The header may wrap at the console's width; the mode line follows it.
        let header = section.split("\n\n").next().unwrap();
        assert!(
            header.lines().any(|l| l.starts_with("mode: faithful (")),
            "{preset} header: {header}"
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
    succeeded(&mut scratch.reproduce("write2020", ["--scale-down", "256", "--keep-journal"]));
    let journal = file_ending(&scratch.data_dir().join("runs"), ".journal").expect("a journal");
    let resume = Flags::new().flag("--resume", &journal);
    let out = scratch
        .reproduce("write2020", resume.clone().switch("--faithful"))
        .output()
        .unwrap();
    one_line(&out, 2, &["default-mode", "leave out --faithful"]);
    let out = scratch.reproduce("sun2002", &resume).output().unwrap();
    one_line(&out, 2, &["reproduces write2020, not sun2002"]);
    // The same mode continues it (nothing is left to run).
    succeeded(&mut scratch.reproduce("write2020", &resume));
}

#[test]
fn quick_reproductions_settle_each_claim_within_a_budget() {
    let scratch = Scratch::new();
    let json_of = |preset: &str, extra: &[&str]| {
        let json = scratch.path("w.json");
        let _ = std::fs::remove_file(&json);
        let mut args = vec![
            "--scale-down",
            "256",
            "--export-json",
            json.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = succeeded(&mut scratch.reproduce(preset, args));
        let value: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        (String::from_utf8_lossy(&out.stdout).into_owned(), value)
    };
    // The quick default: no per-group precision target; claims settled
    // within --max-runs, and no warm read's main loop timed below 20 ms.
    let (stdout, json) = json_of("liege2018", &["--max-runs", "6"]);
    assert!(json["settings"]["statistics"].get("precision").is_none());
    assert!(!stdout.contains("precision ±"), "{stdout}");
    let planned = json["settings"]["runs"].as_u64().expect("planned runs");
    let cases = json["cases"].as_array().unwrap();
    let mut warm_reads = 0;
    for case in cases {
        let runs = case["samples"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["excluded"].is_null())
            .count() as u64;
        assert!(
            (planned..=6).contains(&runs),
            "{runs} runs: {}",
            case["label"]
        );
        // The case's factors are flattened into it.
        let repeats = case["cache"] == "warm" && case["method"] == "read";
        if repeats {
            warm_reads += 1;
            assert_eq!(case["min_trial_ns"], 20_000_000, "{}", case["label"]);
        }
    }
    assert!(warm_reads > 0, "liege2018 has warm read cases");
    // Every claim is in the export, decided or unsettled with its reason.
    let claims = json["claims"].as_array().expect("a claims list");
    assert!(claims.len() >= 6, "{claims:?}");
    for c in claims {
        assert_eq!(c["study"], "liege2018");
        assert!(!c["id"].as_str().unwrap().is_empty());
        let verdict = c["verdict"].as_str().unwrap();
        if verdict == "unsettled" {
            let reason = &c["unsettled"];
            assert!(
                reason["reason"].is_string() && reason["settle"].is_string(),
                "{c}"
            );
        } else {
            assert!(c.get("unsettled").is_none(), "{c}");
        }
    }
    // --max-runs at the planned runs: nothing is added.
    let (_, json) = json_of("write2020", &["--max-runs", "2"]);
    for case in json["cases"].as_array().unwrap() {
        assert_eq!(
            case["samples"].as_array().unwrap().len(),
            2,
            "{}",
            case["label"]
        );
    }
    // A per-group precision target of one's own, or none.
    let (stdout, json) = json_of("write2020", &["--precision", "10%", "--max-time", "20s"]);
    let precision = &json["settings"]["statistics"]["precision"];
    assert_eq!(precision["target"], 0.1);
    assert_eq!(precision["max_time_s"], 20.0);
    assert!(stdout.contains("precision ±10.0%: "), "{stdout}");
    let bad = scratch
        .reproduce("write2020", ["--precision", "0%"])
        .output()
        .unwrap();
    one_line(&bad, 2, &["--precision", "above 0% and below 100%"]);
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
    // Only the I/O-bound machine is in the study's text; the others are marked.
    for m in ["Pentium II 400", "dual P2 Xeon 450"] {
        has(&t, &format!("published, outside the study text: {m}"), name);
    }
    has(&t, "published: Pentium 4M 1 GHz (I/O-bound)", name);
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
    // Up to four stacks of user and sys (a zero segment, or one below the
    // clock's resolution, is not drawn), and the legend.
    let segments = rects_filled(&svg, USER) + rects_filled(&svg, SYS);
    assert!((2 + 1..=2 + 8).contains(&segments), "{segments}");

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
    assert_eq!(
        rects_filled(&svg, WALL),
        3 + 1,
        "{name}: the post's write, mmap, the extra pre-faulted write, and the legend"
    );
    has(&t, "write (post)", name);
    has(&t, "write (extra)", name);

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

/// Its page-cache budget is a memory cgroup faultline creates, which needs
/// root (without root, only a `--size` larger than free memory gives one).
#[test]
#[ignore = "needs root"]
fn crotty2022_records_one_timeline_point_per_second_under_a_recorded_budget() {
    require_root("a memory cgroup for the page-cache budget");
    let scratch = Scratch::new();
    let json = scratch.path("crotty.json");
    let report = scratch.path("crotty.html");
    let csv = scratch.path("crotty.csv");
    let out = scratch
        .reproduce(
            "crotty2022",
            Flags::new()
                .flag("--scale-down", "256")
                .flag("--duration", "3")
                .export_json(&json)
                .flag("--report", &report)
                .flag("--export-csv", &csv),
        )
        .output()
        .expect("faultline runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("no memory cgroup faultline may create"),
        "as root, crotty2022 found no memory budget: {stderr}"
    );
    assert!(out.status.success(), "{stderr}\n{stdout}");
    assert!(
        stderr.contains("crotty2022: page-cache budget "),
        "{stderr}"
    );
    let results = read_json(&json);
    let samples = samples(&results);
    // 6 random ways and 3 scan ways, 2 planned runs each; settling may add
    // pairs to a claim's cases (never fewer).
    assert!(
        samples.len() >= 9 * 2,
        "9 cases, at least 2 runs: {}",
        samples.len()
    );
    assert_eq!(
        common::cases(&results).len(),
        9,
        "6 random ways, 3 scan ways"
    );
    for (case, sample) in &samples {
        assert_eq!(case["duration_s"], 3);
        let kind = case["memory_budget"]["kind"].as_str().unwrap();
        assert!(kind.starts_with("cgroup-v") || kind == "file-larger-than-memory");
        assert!(case["memory_budget"]["limit_bytes"].as_u64().unwrap() > 0);
        let timeline = sample["timeline"].as_array().expect("a timeline");
        assert_eq!(timeline.len(), 3, "one point per second of a 3 s trial");
        for (i, p) in timeline.iter().enumerate() {
            assert_eq!(p["second"], i as u64 + 1);
            let interval = p["interval_s"].as_f64().unwrap();
            assert!((0.9..1.6).contains(&interval), "{p}");
            assert!(
                p["reads"].as_u64().unwrap() > 0,
                "{} read nothing: {p}",
                case["label"]
            );
            assert!(p["reads_per_s"].as_f64().unwrap() > 0.0);
            assert!(p["major_faults_per_s"].as_f64().is_some());
            for key in [
                "tlb_shootdowns_per_s",
                "device_read_bytes_per_s",
                "cgroup_bytes",
            ] {
                assert!(p.get(key).is_some(), "{key} in {p}");
            }
        }
        // Bytes delivered are whole 4 KiB reads, at least those the timeline counted.
        let counted: u64 = timeline.iter().map(|p| p["reads"].as_u64().unwrap()).sum();
        let bytes = sample["bytes"].as_u64().unwrap();
        assert_eq!(bytes % 4096, 0);
        assert!(bytes / 4096 >= counted);
    }
    let section = stdout.split("== crotty2022 — ").nth(1).expect("a section");
    for text in [
        "~0.89 M reads/s",
        "before fill",
        "after fill",
        "peak TLB/s",
        "major faults/s",
        "Timeline: ",
        "100 threads, EPYC 7713",
        "sequential scan",
        "pgscan_kswapd",
    ] {
        assert!(section.contains(text), "crotty2022: {text}");
    }
    let verdicts: Vec<&str> = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("crotty2022: "))
        .collect();
    assert_eq!(verdicts.len(), 4, "{stdout}");
    for line in verdicts {
        let rest = line.trim_start().split_once(": ").unwrap().1;
        assert!(
            verdict_words_known()
                .iter()
                .any(|w| rest.starts_with(w.as_str())),
            "{line}"
        );
    }
    let timeline_csv = std::fs::read_to_string(scratch.path("crotty-timeline.csv")).unwrap();
    let mut rows = timeline_csv.lines();
    assert!(rows
        .next()
        .unwrap()
        .starts_with("case,method,run,sequence,second,"));
    assert_eq!(
        rows.count(),
        samples.len() * 3,
        "a row per second of every trial"
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("id=\"plot-crotty2022-timeline"));
    assert!(html.contains("id=\"plot-crotty2022-relative"));
}

#[test]
fn crotty2022_refuses_a_file_that_does_not_fit_on_the_disk() {
    let scratch = Scratch::new();
    // 1 TiB is larger than any cgroup budget and than MemAvailable here.
    let out = scratch
        .reproduce("crotty2022", ["--size", "1T"])
        .env("FAULTLINE_TEST_FREE_BYTES", "1000000")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("error: ")).count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("error: not enough disk space in ")
            && err.contains("the test file needs 1 TiB"),
        "{err}"
    );
    assert!(!holds_data_file(&scratch), "nothing generated");
}

#[test]
fn crotty2022_flags_are_refused_elsewhere_and_a_size_must_exceed_the_budget() {
    let out = faultline()
        .args(["reproduce", "liege2018", "--threads", "4"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("applies to crotty2022 only"), "{err}");

    let scratch = Scratch::new();
    let out = scratch
        .reproduce("crotty2022", ["--size", "1M"])
        .output()
        .unwrap();
    let err = one_line(&out, 2, &[]);
    assert!(
        err.contains("is not larger than the 128 MiB page-cache budget")
            || err.contains("pass --size larger than MemAvailable"),
        "{err}"
    );

    // A size that is not whole pages is refused before anything is made.
    let out = scratch
        .reproduce("crotty2022", ["--size", "1000000001"])
        .output()
        .unwrap();
    one_line(&out, 2, &["is not a whole number of 4 KiB pages"]);
    assert!(!holds_data_file(&scratch));
}

/// Whether the scratch's data directory holds a generated test file.
fn holds_data_file(scratch: &Scratch) -> bool {
    file_ending(&scratch.data_dir(), ".data").is_some()
}

#[test]
fn dry_run_describes_each_plan_and_runs_nothing() {
    let scratch = Scratch::new();
    let out = succeeded(&mut scratch.reproduce("all", ["--full", "--dry-run"]));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // fedorova2019 at full scale: the original's 4 GiB file, 3 runs.
    assert!(
        stdout.contains("fedorova2019: 26 cases x 3 runs") && stdout.contains("test files: 4 GiB"),
        "{stdout}"
    );
    // write2020 writes the original's 1000 MB (1000 MiB here) per trial.
    assert!(
        stdout.contains("largest file one write trial creates: 1000 MiB"),
        "{stdout}"
    );
    for name in ["sun2002", "dillon2004", "liege2018", "write2020"] {
        assert!(stdout.contains(&format!("{name}: ")), "{stdout}");
    }
    assert_eq!(stdout.matches("  disk: ").count(), 5, "{stdout}");
    assert!(!stdout.contains("Verdicts"), "{stdout}");
    assert!(!holds_data_file(&scratch), "nothing generated");
    // --full: each preset its own 10 minutes, nothing shared.
    assert!(!flat(&stdout).contains("shared by"), "{stdout}");
}

/// A quick `reproduce all` shares one settling budget among its presets and
/// says so in each power plan; one preset, or --max-time, keeps its own.
#[test]
fn a_quick_replay_of_every_study_shares_one_settling_budget() {
    let scratch = Scratch::new();
    let out = succeeded(&mut scratch.reproduce("all", ["--quick", "--dry-run"]));
    let stdout = flat(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        stdout
            .matches("at most 1 min 30 s of trials, from 3 min 20 s shared by the 5 presets")
            .count(),
        5,
        "{stdout}"
    );
    for (preset, flags) in [
        ("fedorova2019", vec!["--quick", "--dry-run"]),
        ("all", vec!["--quick", "--dry-run", "--max-time", "45s"]),
    ] {
        let out = succeeded(&mut scratch.reproduce(preset, flags));
        let stdout = flat(&String::from_utf8_lossy(&out.stdout));
        assert!(!stdout.contains("shared by"), "{stdout}");
        assert!(stdout.contains(" of trials)"), "{stdout}");
    }
}

#[test]
fn dry_run_names_the_image_a_scale_preset_reads_and_counts_every_thread() {
    let scratch = Scratch::new();
    let out = succeeded(&mut scratch.reproduce("sun2002", ["--full", "--dry-run"]));
    // Lines wrap at the console's width: read them as one.
    let stdout = flat(&String::from_utf8_lossy(&out.stdout));
    // The 1280 x 1024 PPM image the scale cases read, to be generated.
    let image = faultline::files::image::image_len(1280, 1024);
    let name = faultline::files::image::image_name(1280, 1024, 1);
    let size = faultline::size::format_size(image);
    assert!(
        stdout.contains(&format!(
            "test files: {size} (1280x1024 PPM image, {name}) ({size} to generate in "
        )),
        "{stdout}"
    );
    // 8 cases x 10 runs, each trial 10 replicate threads over the whole image.
    assert!(
        stdout.contains("sun2002: 8 cases x 10 runs (+0 warm-up)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "file bytes the trials pass over: {} in all",
            faultline::size::format_size(8 * 10 * 10 * image)
        )),
        "{stdout}"
    );
    assert!(
        !scratch.data_dir().join(&name).exists(),
        "nothing generated"
    );
}

#[test]
fn the_disk_check_counts_the_file_a_write_trial_creates() {
    let scratch = Scratch::new();
    // write2020 reads no test file; its quick trials each write 64 MB.
    let out = scratch
        .reproduce("write2020", Flags::new())
        .env("FAULTLINE_TEST_FREE_BYTES", "100000000")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: not enough disk space in ") && err.contains("needs 61.04 MiB"),
        "{err}"
    );
    assert!(!err.contains("journal:"), "refused before running: {err}");
}

#[test]
fn claims_are_in_every_export_and_report_rebuilds_them() {
    let scratch = Scratch::new();
    let (json, csv, md) = (
        scratch.path("w.json"),
        scratch.path("w.csv"),
        scratch.path("w.md"),
    );
    let out = succeeded(
        &mut scratch.reproduce(
            "write2020",
            Flags::new()
                .flag("--scale-down", "256")
                .export_json(&json)
                .flag("--export-csv", &csv)
                .flag("--export-markdown", &md),
        ),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let exported = read_json(&json);
    let claims = exported["claims"]
        .as_array()
        .expect("a top-level claims list");
    assert_eq!(claims.len(), 1, "{claims:?}");
    let claim = &claims[0];
    for field in [
        "study",
        "id",
        "claim",
        "verdict",
        "published",
        "kind",
        "level",
        "runs",
    ] {
        assert!(!claim[field].is_null(), "{field} in {claim}");
    }
    assert_eq!(claim["study"], "write2020");
    let verdict = claim["verdict"].as_str().unwrap();
    // The terminal's verdict list says the same verdict.
    let listed = verdict_words(&stdout, "write2020");
    assert_eq!(listed.len(), 1);
    assert!(
        listed[0].replace(' ', "-").starts_with(verdict),
        "{} vs {verdict}",
        listed[0]
    );
    // The CSV beside: a header and one row with the same id and verdict.
    let claims_csv = std::fs::read_to_string(scratch.path("w-claims.csv")).expect("claims CSV");
    let mut rows = csv::Reader::from_reader(claims_csv.as_bytes());
    let headers = rows.headers().unwrap().clone();
    let row = rows.records().next().expect("one row").unwrap();
    let cell = |name: &str| row[headers.iter().position(|h| h == name).unwrap()].to_string();
    assert_eq!(cell("id"), claim["id"].as_str().unwrap());
    assert_eq!(cell("verdict"), verdict);
    // Markdown: a Claims section with the claim's id.
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains("## Claims"), "{markdown}");
    assert!(markdown.contains(claim["id"].as_str().unwrap()));
    // `faultline report` rebuilds the claims from the samples: the same verdict.
    let html = scratch.path("w.html");
    let out = succeeded(faultline().arg("report").arg(&json).arg("-o").arg(&html));
    let printed = String::from_utf8_lossy(&out.stdout);
    let id = format!("write2020/{}: ", claim["id"].as_str().unwrap());
    let line = printed
        .lines()
        .find(|l| l.starts_with(&id))
        .expect("the claim");
    assert!(line.contains(&listed[0].to_string()), "{line}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<section id=\"claims\">"),
        "the claims section"
    );
}

/// `text` with every run of whitespace one space: wrapped lines read as one.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
