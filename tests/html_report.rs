//! `faultline report`: the HTML report of a real run, rendered in a real
//! headless Chromium.
//!
//! The browser tests are ignored, with their reason (they need Chromium),
//! and run with `--ignored` (`.ci/run` installs Chromium and runs them);
//! asked for without Chromium, they fail saying what to install, which is
//! tested here by running this test binary's browser test again without
//! Chromium on `PATH`. None returns early and passes.
mod browser;
mod common;

use browser::{probe_of, with_probe, Chromium, PixelStats};
use common::{faultline, read_json, succeeded, Flags, Scratch};
use serde_json::Value;

/// A path component with every character an HTML report must escape.
const HOSTILE_DIR: &str = "data <b>&amp;\"q\"'";
/// A method label with markup and an external image, put into the results.
const HOSTILE_LABEL: &str = "read <img src=\"http://example.invalid/x.png\"> & \"co\"";

/// Runs a tiny experiment into a data directory whose name needs escaping,
/// puts hostile text into its results, and returns the JSON path.
fn hostile_results(scratch: &Scratch) -> std::path::PathBuf {
    let data = scratch.path(HOSTILE_DIR);
    let json = scratch.path("results.json");
    succeeded(
        faultline()
            .arg("run")
            .arg("--data-dir")
            .arg(&data)
            .args(["--size", "1M", "--runs", "2", "--export-json"])
            .arg(&json),
    );
    let mut results = read_json(&json);
    results["cases"][0]["label"] = Value::from(HOSTILE_LABEL);
    results["warnings"]
        .as_array_mut()
        .expect("warnings")
        .push(Value::from("<script>document.title = 'pwned'</script>"));
    std::fs::write(&json, serde_json::to_vec_pretty(&results).unwrap()).unwrap();
    json
}

#[test]
#[ignore = "needs a headless Chromium (apt-get install chromium, or FAULTLINE_CHROMIUM=path); run with --ignored"]
fn the_report_renders_in_a_headless_browser() {
    let chromium = Chromium::require("the_report_renders_in_a_headless_browser");
    let scratch = Scratch::new();
    let json = hostile_results(&scratch);
    let html_path = scratch.path("report.html");
    let plots_dir = scratch.path("plots");
    let out = succeeded(
        faultline()
            .arg("report")
            .arg(&json)
            .arg("-o")
            .arg(&html_path)
            .arg("--plots")
            .arg(&plots_dir),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("report.html"), "{stdout}");
    let html = std::fs::read_to_string(&html_path).unwrap();
    let results = read_json(&json);
    let comparisons = results["comparisons"].as_array().unwrap().len();
    let cases = results["cases"].as_array().unwrap().len();
    assert_eq!((cases, comparisons), (8, 4), "the default plan");

    // The plot files: an SVG and an 800 px wide PNG per plot.
    // The time plot is split per group when the times span more than 30x.
    let time = if plots_dir.join("time.svg").exists() {
        "time"
    } else {
        "time-1"
    };
    for name in ["throughput", "ratios", time] {
        let svg = std::fs::read_to_string(plots_dir.join(format!("{name}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{name}.svg");
        let (png, _) = PixelStats::of(&plots_dir.join(format!("{name}.png")), &[]);
        assert_eq!(png.width, 800, "{name}.png");
        assert!(
            png.variance > 100.0 && png.inked > 0.02,
            "{name}.png is drawn"
        );
    }

    // (a) The report as written loads with nothing on the console: its
    // strict CSP would log any attempt to load or run anything.
    let shot = scratch.path("shot.png");
    let run = chromium.screenshot(&html_path, &shot, (1000, 2000));
    assert!(
        run.console_messages().is_empty(),
        "console messages:\n{}",
        run.console_messages().join("\n")
    );

    // (c) The screenshot is a page, not a blank: text and the plots' colours.
    let blue = [0, 114, 178]; // the first method's bars
    let green = [0, 158, 115]; // faster verdicts
    let (stats, counts) = PixelStats::of(&shot, &[blue, green]);
    assert_eq!((stats.width, stats.height), (1000, 2000));
    assert!(
        stats.variance > 200.0,
        "luminance variance {}",
        stats.variance
    );
    assert!(stats.inked > 0.03, "inked fraction {}", stats.inked);
    assert!(counts[0] > 500, "{} pixels of the bars' blue", counts[0]);

    // (b) With a probe added, the DOM after load: every plot drawn with a
    // real size, nothing fetched, no error, the hostile text inert.
    let probed = scratch.path("probed.html");
    std::fs::write(&probed, with_probe(&html)).unwrap();
    let run = chromium.dump_dom(&probed, (1000, 2000));
    assert!(
        run.console_messages().is_empty(),
        "console messages:\n{}",
        run.console_messages().join("\n")
    );
    let probe = probe_of(&run.stdout);
    let plots = probe["plots"].as_array().unwrap();
    let ids: Vec<&str> = plots.iter().map(|p| p["id"].as_str().unwrap()).collect();
    // One time plot, or one per group when the times span more than 30x.
    assert_eq!(
        ids[..3],
        ["plot-throughput", "plot-samples", "plot-ratios"],
        "{probe}"
    );
    assert!(
        ids[3..] == ["plot-time"]
            || (ids.len() > 4 && ids[3..].iter().all(|id| id.starts_with("plot-time-"))),
        "{probe}"
    );
    for plot in plots {
        let (w, h) = (
            plot["width"].as_f64().unwrap(),
            plot["height"].as_f64().unwrap(),
        );
        assert!((700.0..=900.0).contains(&w) && h >= 150.0, "{plot}");
        assert!(plot["texts"].as_u64().unwrap() >= 10, "{plot}");
        assert!(plot["shapes"].as_u64().unwrap() >= 10, "{plot}");
    }
    assert_eq!(probe["resources"], Value::Array(vec![]), "nothing fetched");
    assert_eq!(probe["errors"], Value::Array(vec![]));
    assert_eq!(probe["violations"], Value::Array(vec![]));
    assert_eq!(
        probe["title"], "faultline results",
        "no injected script ran"
    );
    assert_eq!(probe["images"], 0, "no injected image");
    assert_eq!(probe["scripts"], 2, "only the probe's scripts");
    assert_eq!(probe["verdicts"].as_u64().unwrap() as usize, comparisons);
    assert_eq!(probe["case_rows"].as_u64().unwrap() as usize, cases);
    let sections: Vec<&str> = probe["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    for id in [
        "verdicts",
        "statistics",
        "plots",
        "results",
        "warnings",
        "settings",
        "environment",
    ] {
        assert!(sections.contains(&id), "{id}: {sections:?}");
    }
    let dom = &run.stdout;
    assert!(dom.contains("read &lt;img src=\"http://example.invalid/x.png\"&gt; &amp; \"co\""));
    assert!(
        dom.contains("data &lt;b&gt;&amp;amp;\"q\"'"),
        "the data directory, as text"
    );
    assert!(dom.contains("&lt;script&gt;document.title = 'pwned'&lt;/script&gt;"));

    // In a narrow window (headless Chromium's narrowest is 500 px) the
    // plots shrink to fit and the page does not scroll sideways.
    let run = chromium.dump_dom(&probed, (500, 900));
    let probe = probe_of(&run.stdout);
    let viewport = probe["viewport_width"].as_f64().unwrap();
    assert!(viewport <= 500.0, "{probe}");
    assert!(
        probe["scroll_width"].as_f64().unwrap() <= viewport,
        "{probe}"
    );
    for plot in probe["plots"].as_array().unwrap() {
        let w = plot["width"].as_f64().unwrap();
        assert!(w > 200.0 && w < viewport, "{plot}");
    }
}

/// A `--precision` run's report, checked against the terminal's lines:
/// (its scratch, the page, and the adjustment, precision and runs lines).
fn precision_report() -> (Scratch, String, &'static str, String, String) {
    let scratch = Scratch::new();
    let json = scratch.path("results.json");
    let run = succeeded(
        scratch
            .run(
                Flags::new()
                    .method("read,pread,mmap")
                    .pattern("seq")
                    .block("64k")
                    .size("1M")
                    .cache("warm")
                    .runs(2)
                    .flag("--precision", "40%")
                    .flag("--max-runs", "3")
                    .flag("--fdr", "holm")
                    // Both comparisons in the family: none set aside as
                    // interfered with (which the load decides).
                    .flag("--interference-threshold", "off"),
            )
            .arg("--export-json")
            .arg(&json),
    );
    let html_path = scratch.path("report.html");
    succeeded(
        faultline()
            .arg("report")
            .arg(&json)
            .arg("-o")
            .arg(&html_path),
    );
    let html = std::fs::read_to_string(&html_path).unwrap();
    let results = read_json(&json);
    let group = &results["statistics"]["precision"][0];
    let pairs = group["pairs"].as_u64().unwrap();
    let precision = format!(
        "precision ±40.0%: {}: {}",
        group["group"].as_str().unwrap(),
        if group["reached"].as_bool().unwrap() {
            "reached"
        } else {
            "NOT reached: --max-runs spent"
        }
    );
    let runs = format!("{pairs} runs)");
    let adjustment =
        "verdicts: Holm adjusted over 2 comparison(s) (family-wise error 5%; see --fdr)";
    // The terminal's lines (wrapped there at 100 columns), in the page's
    // Statistics section.
    let stdout = String::from_utf8_lossy(&run.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for needle in [adjustment, &precision, &runs] {
        assert!(stdout.contains(needle), "terminal: {needle}: {stdout}");
        assert!(html.contains(needle), "page: {needle}");
    }
    let section = &html[html
        .find("<section id=\"statistics\">")
        .expect("a Statistics section")..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(
        section.contains(adjustment) && section.contains(&precision),
        "{section}"
    );
    assert!(html.contains("<a href=\"#statistics\">Statistics</a>"));
    (scratch, html, adjustment, precision, runs)
}

#[test]
fn the_report_shows_the_precision_and_the_adjustment_as_the_terminal_does() {
    precision_report();
}

#[test]
#[ignore = "needs a headless Chromium (apt-get install chromium, or FAULTLINE_CHROMIUM=path); run with --ignored"]
fn a_browser_shows_the_precision_and_the_adjustment_as_the_terminal_does() {
    let (scratch, html, adjustment, precision, runs) = precision_report();
    // As a browser shows it.
    let chromium =
        Chromium::require("a_browser_shows_the_precision_and_the_adjustment_as_the_terminal_does");
    let probed = scratch.path("probed.html");
    std::fs::write(&probed, with_probe(&html)).unwrap();
    let run = chromium.dump_dom(&probed, (1000, 2000));
    let probe = probe_of(&run.stdout);
    let lines: Vec<&str> = probe["statistics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        // The rules line comes first; the adjustment line follows it.
        .filter(|l| !l.starts_with("rules: "))
        .collect();
    // The adjustment line, and the smallest effect its --precision implies.
    assert!(lines[0].starts_with(adjustment), "{lines:?}");
    assert!(lines[0].ends_with("(--min-effect)"), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&precision) && l.ends_with(&runs)),
        "{lines:?}"
    );
}

#[test]
#[ignore = "needs a headless Chromium (apt-get install chromium, or FAULTLINE_CHROMIUM=path); run with --ignored"]
fn the_reproduce_report_draws_every_presets_plots_in_a_browser() {
    let chromium = Chromium::require("the_reproduce_report_draws_every_presets_plots_in_a_browser");
    let scratch = Scratch::new();
    let html_path = scratch.path("reproduce.html");
    succeeded(
        scratch
            .reproduce("all", ["--quick", "--scale-down", "256", "--report"])
            .arg(&html_path),
    );
    let html = std::fs::read_to_string(&html_path).unwrap();
    let probed = scratch.path("probed.html");
    std::fs::write(&probed, with_probe(&html)).unwrap();
    let run = chromium.dump_dom(&probed, (1000, 2000));
    assert!(
        run.console_messages().is_empty(),
        "console messages:\n{}",
        run.console_messages().join("\n")
    );
    let probe = probe_of(&run.stdout);
    let plots = probe["plots"].as_array().unwrap();
    let ids: Vec<&str> = plots.iter().map(|p| p["id"].as_str().unwrap()).collect();
    // Every figure in the page is probed, and the bar charts are among them.
    assert_eq!(plots.len(), html.matches("<figure class=\"plot\"").count());
    for id in [
        "plot-dillon2004-times",
        "plot-liege2018-fig5-user-sys",
        "plot-fedorova2019-throughput",
        "plot-write2020-times",
        "plot-sun2002-ratio",
    ] {
        assert!(ids.contains(&id), "{id}: {ids:?}");
    }
    for plot in plots {
        let (w, h) = (
            plot["width"].as_f64().unwrap(),
            plot["height"].as_f64().unwrap(),
        );
        assert!((700.0..=900.0).contains(&w) && h >= 150.0, "{plot}");
        assert!(plot["texts"].as_u64().unwrap() >= 10, "{plot}");
        assert!(plot["shapes"].as_u64().unwrap() >= 10, "{plot}");
    }
    assert_eq!(probe["resources"], Value::Array(vec![]), "nothing fetched");
    assert_eq!(probe["errors"], Value::Array(vec![]));
}

/// A profiled run's report in a real browser: the stacked-bar plot of where
/// the cycles go is drawn, each profiled case's flame graph is linked, and
/// each linked flame graph (inferno's interactive SVG, with its script)
/// loads with nothing on the console and shows named frames. Works without
/// root: unprivileged, the samples are user-only, and faultline's own
/// frames are named either way.
#[test]
#[ignore = "needs a headless Chromium (apt-get install chromium, or FAULTLINE_CHROMIUM=path); run with --ignored"]
fn the_profile_plot_and_flame_graphs_render_in_a_browser() {
    let chromium = Chromium::require("the_profile_plot_and_flame_graphs_render_in_a_browser");
    let scratch = Scratch::new();
    let json = scratch.path("profiled.json");
    succeeded(scratch.run(common::PROFILED_WARM_SEQ).arg(&json));
    let results = read_json(&json);
    let profiled = results["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["summary"]["profile"]["samples"].as_u64() > Some(0))
        .count();
    assert_eq!(profiled, 2, "both cases profiled");
    let html_path = scratch.path("report.html");
    let plots_dir = scratch.path("plots");
    succeeded(
        faultline()
            .arg("report")
            .arg(&json)
            .arg("-o")
            .arg(&html_path)
            .arg("--plots")
            .arg(&plots_dir),
    );
    let html = std::fs::read_to_string(&html_path).unwrap();

    // The page: the cycles plot drawn at a real size, a link per case.
    let run = chromium.screenshot(&html_path, &scratch.path("shot.png"), (1000, 2000));
    assert!(
        run.console_messages().is_empty(),
        "console messages:\n{}",
        run.console_messages().join("\n")
    );
    let probed = scratch.path("probed.html");
    std::fs::write(&probed, with_probe(&html)).unwrap();
    let run = chromium.dump_dom(&probed, (1000, 2000));
    assert!(
        run.console_messages().is_empty(),
        "console messages:\n{}",
        run.console_messages().join("\n")
    );
    let probe = probe_of(&run.stdout);
    let cycles = probe["plots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "plot-cycles")
        .unwrap_or_else(|| panic!("no cycles plot: {probe}"));
    assert!(cycles["width"].as_f64().unwrap() >= 700.0, "{cycles}");
    assert!(cycles["height"].as_f64().unwrap() >= 150.0, "{cycles}");
    assert!(cycles["texts"].as_u64().unwrap() >= 10, "{cycles}");
    assert!(cycles["shapes"].as_u64().unwrap() >= 10, "{cycles}");
    assert!(probe["sections"]
        .as_array()
        .unwrap()
        .contains(&Value::from("cycles")));
    assert_eq!(probe["errors"], Value::Array(vec![]));
    assert_eq!(probe["resources"], Value::Array(vec![]), "nothing fetched");
    let links: Vec<&str> = probe["flame_links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(links.len(), profiled, "{probe}");

    // Each linked flame graph, opened on its own as a reader would.
    for link in links {
        let svg = html_path.parent().unwrap().join(link);
        assert!(svg.is_file(), "{link} links to nothing");
        let run = chromium.dump_dom(&svg, (1200, 800));
        assert!(
            run.console_messages().is_empty(),
            "{link}: console messages:\n{}",
            run.console_messages().join("\n")
        );
        let dom = &run.stdout;
        assert!(dom.contains("<svg"), "{link}: not an SVG document: {dom}");
        let rects = dom.matches("<rect").count();
        let texts = dom.matches("<text").count();
        assert!(
            rects >= 5 && texts >= 5,
            "{link}: {rects} rects, {texts} texts"
        );
        // Named frames: the trial's own code at the root and the workload's
        // checksum, in every mode (user frames are named without root).
        for frame in ["faultline::trial::run_trial", "faultline::workload"] {
            assert!(dom.contains(frame), "{link}: no frame {frame}");
        }
        // inferno's script ran: it lays the frames' names out on load.
        assert!(dom.contains("samples"), "{link}: no sample counts");
    }
}

#[test]
fn report_errors_are_one_line_with_the_right_exit_code() {
    let scratch = Scratch::new();
    // A missing results file is a runtime failure naming it.
    let out = faultline()
        .args(["report", "/nonexistent/results.json", "-o"])
        .arg(scratch.path("r.html"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    // As `compare` says it (docs/bad-input.md row 205), from the one opener
    // of inputs (a regular file only).
    assert!(
        err.starts_with("error: /nonexistent/results.json: cannot be read (no such")
            && err.lines().count() == 1,
        "{err}"
    );
    // Something that is not a JSON export.
    let bad = scratch.path("bad.json");
    std::fs::write(&bad, "{\"cases\": [").unwrap();
    let out = faultline()
        .arg("report")
        .arg(&bad)
        .arg("-o")
        .arg(scratch.path("r.html"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not a faultline JSON export"), "{err}");
    // Without -o the report goes beside the results: not written when they
    // cannot be read.
    let out = faultline().arg("report").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!scratch.path("bad.html").exists());
    // Usage: an output directory that does not exist.
    let out = faultline()
        .arg("report")
        .arg(&bad)
        .arg("-o")
        .arg(scratch.path("missing/r.html"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not exist"), "{err}");
    assert!(!scratch.path("r.html").exists());
}

/// This test binary's (ignored) browser test, asked for with `--ignored`,
/// run again with no Chromium to find (an empty `PATH`, no
/// `FAULTLINE_CHROMIUM`).
fn browser_test_without_chromium() -> std::process::Output {
    let empty = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "the_report_renders_in_a_headless_browser",
        "--ignored",
        "--test-threads=1",
    ])
    .env("PATH", empty.path())
    .env_remove("FAULTLINE_CHROMIUM");
    cmd.output().unwrap()
}

#[test]
fn a_browser_test_asked_for_without_chromium_fails_saying_what_to_install() {
    let out = browser_test_without_chromium();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(
        stdout.contains("1 failed")
            && stdout.contains("chromium not found")
            && stdout.contains("apt-get install -y chromium"),
        "{stdout}"
    );
}
