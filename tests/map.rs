//! `faultline map` and `faultline advise` through the real binary on small
//! files: bad input refused in one line, the export's crossovers and
//! samples, a map's verdicts not contradicted by `run` at the ends of its
//! range and of each bracket, and advise's ranking from its own runs.
mod common;

use std::process::Command;

use common::{faultline, one_line, read_json, succeeded, Scratch};
use serde_json::Value;

/// `faultline map` with the scratch's data directory.
fn map(scratch: &Scratch, flags: &[&str]) -> Command {
    let mut cmd = faultline();
    cmd.arg("map")
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .args(flags);
    cmd
}

/// read against stdio (an 8 KiB buffer) along the block size on a warm
/// 1 MiB file: a 1-byte read() per byte against a buffered reader is tens
/// of times slower, at 64 KiB both make the same calls.
const STDIO_MAP: &[&str] = &[
    "--method",
    "read,stdio",
    "--over",
    "block=1..64k",
    "--pattern",
    "seq",
    "--size",
    "1M",
    "--runs",
    "3",
    "--max-runs",
    "6",
    "--min-effect",
    "20%",
    "--max-time",
    "60s",
];

#[test]
fn bad_map_and_advise_input_is_one_line_and_exit_2() {
    let scratch = Scratch::new();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--method", "read", "--over", "block=4k..1M"],
            &["two different methods"],
        ),
        (
            &["--method", "read,read", "--over", "block=4k..1M"],
            &["two different methods"],
        ),
        (
            &["--method", "read,mmap", "--over", "colour=1..2"],
            &["unknown factor 'colour'", "block"],
        ),
        (
            &["--method", "read,mmap", "--over", "block=1M..4k"],
            &["LOW must be below HIGH"],
        ),
        (
            &["--method", "read,mmap", "--over", "block4k..1M"],
            &["FACTOR=LOW..HIGH"],
        ),
        (
            &["--method", "read,mmap", "--over", "block=4k-1M"],
            &["LOW..HIGH"],
        ),
        (
            &["--method", "read,mmap", "--over", "block=4k..1G"],
            &["block takes"],
        ),
        (
            &["--method", "read,mmap", "--over", "block=4kk..1M"],
            &["--over block=4kk..1M"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "block=4k..1M",
                "--resolution",
                "0.5",
            ],
            &["--resolution 0.5", "above 1"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "zipf=0.5..1.5",
                "--resolution",
                "1.25x",
            ],
            &["--resolution 1.25x", "differences"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "block=4k..1M",
                "--over",
                "size=1M..8M",
                "--over",
                "threads=1..4",
            ],
            &["at most two factors"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "block=4k..1M",
                "--over",
                "block=8k..64k",
            ],
            &["the same factor twice"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "zipf=0.5..1.5",
                "--over",
                "stride=1..64",
            ],
            &["both set the access pattern"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "block=4k..1M",
                "--over",
                "size=1M..8M",
                "--resolution",
                "1.25,2,3",
            ],
            &["one per --over"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "block=4k..1M",
                "--block",
                "8k",
            ],
            &["--block and --over block"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "stride=1..64",
                "--pattern",
                "seq",
            ],
            &["--pattern and --over stride"],
        ),
        (
            &["--method", "read,mmap", "--over", "depth=1..64"],
            &["io_uring methods only"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "working-set=1M..64M",
                "--size",
                "16M",
            ],
            &["not below the file's 16 MiB"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "block=4k..1M",
                "--export-json",
                "/dev/null",
            ],
            &["--export-json /dev/null"],
        ),
        (
            &[
                "--method",
                "read,mmap",
                "--over",
                "block=4k..1M",
                "--runs",
                "8",
                "--max-runs",
                "4",
            ],
            &["--max-runs 4 is below --runs 8"],
        ),
    ];
    for (flags, needles) in cases {
        let out = map(&scratch, flags).output().expect("faultline runs");
        one_line(&out, 2, needles);
    }
    // The same export and report: refused before anything runs.
    let same = scratch.path("same.out");
    let out = map(
        &scratch,
        &["--method", "read,mmap", "--over", "block=4k..1M"],
    )
    .arg("--export-json")
    .arg(&same)
    .arg("--report")
    .arg(&same)
    .output()
    .unwrap();
    one_line(&out, 2, &["--report"]);
    assert!(!same.exists(), "nothing written");
    // advise: a missing file, no pattern, a pattern with a trace.
    let missing = scratch.path("missing.bin");
    let out = faultline()
        .args(["advise", "--pattern", "random", "--file"])
        .arg(&missing)
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .output()
        .unwrap();
    one_line(&out, 2, &["missing.bin"]);
    let file = scratch.path("user.bin");
    std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    let out = faultline()
        .arg("advise")
        .arg("--file")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "no pattern and no trace");
    let out = faultline()
        .args([
            "advise",
            "--pattern",
            "random",
            "--trace",
            "t.csv",
            "--file",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a pattern and a trace");
    // advise --plan: a plan with two patterns, with none, and one beside --pattern.
    let plan = |name: &str, text: &str| {
        let p = scratch.path(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let two = plan("two.toml", "pattern = [\"seq\", \"random\"]\n");
    let none = plan("none.toml", "block = \"4k\"\n");
    let runs = plan(
        "runs.toml",
        "[run.seq]\npattern = \"seq\"\n[run.rand]\npattern = \"random\"\n",
    );
    let cases: &[(&std::path::Path, &[&str], &[&str])] = &[
        (&two, &[], &["advise takes one `pattern`", "gives 2"]),
        (
            &runs,
            &[],
            &["2 named runs", "seq, rand", "a plan of one run"],
        ),
        (&none, &[], &["no `pattern` and no `trace`"]),
        (&two, &["--pattern", "seq"], &["--pattern"]),
    ];
    for (p, extra, needles) in cases {
        let out = faultline()
            .arg("advise")
            .arg("--plan")
            .arg(p)
            .arg("--file")
            .arg(&file)
            .args(*extra)
            .arg("--data-dir")
            .arg(scratch.data_dir())
            .output()
            .unwrap();
        one_line(&out, 2, needles);
    }
}

/// The side of a `run` comparison of B against A: `b`, `a` or `-` (within noise).
fn run_side(scratch: &Scratch, block: u64) -> String {
    let json = scratch.path(&format!("run-{block}.json"));
    succeeded(
        scratch
            .run([
                "--method",
                "read,stdio",
                "--pattern",
                "seq",
                "--size",
                "1M",
                "--cache",
                "warm",
                "--runs",
                "5",
                "--min-effect",
                "20%",
            ])
            .arg("--block")
            .arg(block.to_string())
            .arg("--export-json")
            .arg(&json),
    );
    let run = read_json(&json);
    match run["comparisons"][0]["verdict"].as_str().unwrap() {
        "faster" => "b".into(),
        "slower" => "a".into(),
        _ => "-".into(),
    }
}

/// The side a map point says, as [`run_side`] writes it (`b`, `a`, or `-`
/// for no difference and unsettled, which no run verdict contradicts).
fn map_side(side: &str) -> &'static str {
    match side {
        "b-faster" => "b",
        "a-faster" => "a",
        _ => "-",
    }
}

#[test]
fn a_map_exports_its_crossovers_and_points_and_run_does_not_contradict_it() {
    let scratch = Scratch::new();
    let json_path = scratch.path("map.json");
    let html = scratch.path("map.html");
    let out = succeeded(
        map(&scratch, STDIO_MAP)
            .arg("--export-json")
            .arg(&json_path)
            .arg("--report")
            .arg(&html),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let json: Value = read_json(&json_path);
    assert_eq!(json["faultline_map"], 1);
    assert_eq!(json["factor"], "block");
    let crossovers = json["crossovers"].as_array().expect("a crossovers list");
    let points = json["points"].as_array().expect("points");
    assert!(points.len() >= 3, "the coarse grid at least");
    for p in points {
        let samples = p["baseline"]["samples"].as_array().unwrap().len()
            + p["other"]["samples"].as_array().unwrap().len();
        assert!(samples >= 6, "every point with its samples: {p}");
        assert_eq!(p["trials"].as_u64().unwrap() as usize, samples);
    }
    assert_eq!(
        json["trials"].as_u64().unwrap(),
        points
            .iter()
            .map(|p| p["trials"].as_u64().unwrap())
            .sum::<u64>()
    );
    // 1-byte read() calls against a buffered reader: decided for the
    // buffered reader at the low end, unless the machine was too busy to
    // decide it (every trial interfered with); never the other way.
    let first = points
        .iter()
        .find(|p| p["value"].as_f64() == Some(1.0))
        .expect("LOW measured");
    let busy = first["baseline"]["interference"]["interfered"].as_u64() > Some(0);
    assert!(
        first["side"] == "b-faster" || (busy && first["side"] == "unsettled"),
        "{first}"
    );
    // The answer in words first, then the table and the cost.
    assert!(text.contains("along block"), "{text}");
    assert!(
        text.contains("a full grid at 1.25x would be 51 points"),
        "{text}"
    );
    // The cost, from real counts: the trials are the points' samples; the
    // grid's are its 51 points of 2 cases at 3 (--runs) to 6 (--max-runs)
    // runs each; the shares printed are computed from those.
    let grid = &json["grid_trials"];
    assert_eq!(grid["points"], json["grid_points"]);
    assert_eq!(grid["points"], 51);
    assert_eq!(
        (grid["least"].as_u64(), grid["most"].as_u64()),
        (Some(306), Some(612))
    );
    let trials = json["trials"].as_u64().unwrap();
    for p in points {
        for case in ["baseline", "other"] {
            let runs = p[case]["samples"].as_array().unwrap().len();
            assert!((3..=6).contains(&runs), "3 to 6 runs per case: {p}");
        }
    }
    let cost = format!("{} measurement(s), {trials} trials) in", points.len());
    assert!(text.contains(&cost), "{cost} not in {text}");
    let shares = format!(
        "306 to 612 trials under the same rules (3 to 6 runs of each of its 2 cases per point): \
         {:.0}% of its points and {:.0}% of its most trials ({:.0}% of its fewest)",
        100.0 * json["distinct_points"].as_f64().unwrap() / 51.0,
        100.0 * trials as f64 / 612.0,
        100.0 * trials as f64 / 306.0
    );
    assert!(text.contains(&shares), "{shares} not in {text}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg") && page.contains("along block"));
    for c in crossovers {
        assert_eq!(c["factor"], "block");
        assert!(
            c["low"].as_f64().unwrap() < c["high"].as_f64().unwrap(),
            "{c}"
        );
        for key in ["below", "above", "low_label", "high_label"] {
            assert!(c[key].is_string(), "{c}");
        }
    }
    // `run` at the ends of each bracket, and at the ends of the range, is
    // never decided the other way from the map's verdict there.
    let mut checks: Vec<(u64, &str)> = Vec::new();
    let side_at = |x: f64| {
        points
            .iter()
            .filter(|p| p["value"].as_f64() == Some(x))
            .map(|p| map_side(p["side"].as_str().unwrap()))
            .next()
            .unwrap()
    };
    for c in crossovers {
        let (low, high) = (c["low"].as_f64().unwrap(), c["high"].as_f64().unwrap());
        checks.push((low as u64, map_side(c["below"].as_str().unwrap())));
        checks.push((high as u64, map_side(c["above"].as_str().unwrap())));
    }
    checks.push((1, side_at(1.0)));
    checks.push((65536, side_at(65536.0)));
    for (block, side) in checks {
        if side == "-" {
            continue;
        }
        let ran = run_side(&scratch, block);
        let opposite = if side == "a" { "b" } else { "a" };
        assert_ne!(
            ran, opposite,
            "block {block}: map says {side}, run decided the other way"
        );
    }
}

#[test]
fn advise_ranks_the_candidates_it_measured_and_exports_them() {
    let scratch = Scratch::new();
    let file = scratch.path("user.bin");
    std::fs::write(
        &file,
        (0..(4u32 << 20)).map(|i| i as u8).collect::<Vec<u8>>(),
    )
    .unwrap();
    let json_path = scratch.path("advise.json");
    let out = succeeded(
        faultline()
            .args([
                "advise",
                "--pattern",
                "random",
                "--runs",
                "2",
                "--max-time",
                "30s",
                "--file",
            ])
            .arg(&file)
            .arg("--data-dir")
            .arg(scratch.data_dir())
            .arg("--export-json")
            .arg(&json_path),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let json = read_json(&json_path);
    let ranking = json["ranking"].as_array().expect("a ranking");
    // read, pread, preadv and four mmap variants run anywhere.
    assert!(ranking.len() >= 7, "{ranking:?}");
    let medians: Vec<f64> = ranking
        .iter()
        .map(|r| r["median_bps"].as_f64().unwrap())
        .collect();
    assert!(
        medians.windows(2).all(|w| w[0] >= w[1]),
        "fastest first: {medians:?}"
    );
    // Every ranked candidate was measured: its case has samples in the run.
    let cases = json["run"]["cases"].as_array().unwrap();
    for r in ranking {
        let case = &cases[r["case"].as_u64().unwrap() as usize];
        assert!(case["samples"].as_array().unwrap().len() >= 2, "{case}");
    }
    assert!(text.contains("advise: random 4 KiB reads of"), "{text}");
    assert!(text.contains("  1. "), "{text}");
    assert!(
        text.contains("not mapped: file size against the memory available"),
        "{text}"
    );
}

/// read against stdio with a 16 MiB buffer along the block size, on a warm
/// 16 MiB file: a buffered reader is several times faster for 64-byte
/// blocks (one read() call per block against a copy), several times slower
/// for 16 KiB ones (it faults in and fills its 16 MiB buffer, then copies
/// again). Measured here by a full sweep (docs/map.md): the verdict changes
/// between about 512 B and 1 KiB. The interference record is off, so the
/// verdicts rest on every pair, loaded machine or not: the effects at the
/// ends are 5x, which a loaded machine does not reverse.
const CROSSING: &[&str] = &[
    "--method",
    "read,stdio",
    "--stdio-buffer",
    "16M",
    "--pattern",
    "seq",
    "--size",
    "16M",
    "--runs",
    "5",
    "--min-effect",
    "5%",
    "--interference-threshold",
    "off",
];

/// `run`'s verdict of stdio against read at `block`, with the map's flags:
/// `b-faster`, `a-faster`, or `-` (within noise or unsettled).
fn crossing_run_side(scratch: &Scratch, block: u64) -> String {
    let json = scratch.path(&format!("crossing-run-{block}.json"));
    succeeded(
        scratch
            .run(CROSSING)
            .args(["--cache", "warm", "--precision", "3%", "--max-runs", "8"])
            .arg("--block")
            .arg(block.to_string())
            .arg("--export-json")
            .arg(&json),
    );
    let run = read_json(&json);
    match run["comparisons"][0]["verdict"].as_str().unwrap() {
        "faster" => "b-faster".into(),
        "slower" => "a-faster".into(),
        _ => "-".into(),
    }
}

#[test]
fn a_crossing_map_reports_agrees_with_run_at_both_ends_of_its_bracket() {
    let scratch = Scratch::new();
    let json_path = scratch.path("crossing.json");
    succeeded(
        map(&scratch, CROSSING)
            .args([
                "--over",
                "block=64..16k",
                "--max-runs",
                "8",
                "--max-time",
                "120s",
            ])
            .arg("--export-json")
            .arg(&json_path),
    );
    let json = read_json(&json_path);
    let points = json["points"].as_array().unwrap();
    let side_at = |x: f64| -> Vec<String> {
        points
            .iter()
            .filter(|p| p["value"].as_f64() == Some(x))
            .map(|p| p["side"].as_str().unwrap().to_string())
            .collect()
    };
    // The ends: stdio faster at 64 B, read at 16 KiB; a point may be
    // unsettled, never reversed.
    for (x, expected, reversed) in [
        (64.0, "b-faster", "a-faster"),
        (16384.0, "a-faster", "b-faster"),
    ] {
        let sides = side_at(x);
        assert!(!sides.is_empty(), "{x} measured");
        assert!(
            !sides.iter().any(|s| s == reversed),
            "{x}: {sides:?}, expected {expected} or unsettled"
        );
    }
    let crossovers = json["crossovers"].as_array().unwrap();
    // Settled opposite winners at the two ends make at least one bracket
    // between them: the search splits until it holds one.
    let settled_ends = side_at(64.0).iter().all(|s| s == "b-faster")
        && side_at(16384.0).iter().all(|s| s == "a-faster");
    if settled_ends {
        assert!(!crossovers.is_empty(), "winners differ at the ends: {json}");
    }
    // `run` at each end of each bracket says what the map says there, or
    // leaves it undecided (within noise, unsettled); never the other winner.
    for c in crossovers {
        for (end, side) in [("low", "below"), ("high", "above")] {
            let block = c[end].as_f64().unwrap() as u64;
            let map_says = c[side].as_str().unwrap();
            let ran = crossing_run_side(&scratch, block);
            assert!(
                ran == map_says || ran == "-",
                "block {block}: the map says {map_says} at the bracket's {end} end, run says {ran}"
            );
        }
    }
}

#[test]
fn a_map_over_two_factors_refines_along_the_boundary_and_draws_a_heat_map() {
    let scratch = Scratch::new();
    let json_path = scratch.path("plane.json");
    let html = scratch.path("plane.html");
    let out = succeeded(
        map(
            &scratch,
            &[
                "--method",
                "read,stdio",
                "--stdio-buffer",
                "4M",
                "--pattern",
                "seq",
                "--over",
                "block=64..16k",
                "--over",
                "size=1M..4M",
                "--resolution",
                "4x",
                "--runs",
                "2",
                "--max-runs",
                "2",
                "--interference-threshold",
                "off",
                "--max-time",
                "120s",
            ],
        )
        .arg("--export-json")
        .arg(&json_path)
        .arg("--report")
        .arg(&html),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let json = read_json(&json_path);
    assert_eq!(json["faultline_map"], 1);
    assert_eq!(json["dimensions"], 2);
    assert_eq!(json["factors"][0]["name"], "block");
    assert_eq!(json["factors"][1]["name"], "size");
    let cells = json["cells"].as_array().unwrap();
    // The coarse grid: 5 blocks (64 B to 16 KiB by 4x) by 2 sizes; at 4x it
    // is also the full grid, so nothing is added but repeats of lone verdicts.
    assert_eq!(json["grid_points"], 10);
    assert!(cells.len() >= 10, "{}", cells.len());
    for c in cells {
        let samples = c["baseline"]["samples"].as_array().unwrap().len()
            + c["other"]["samples"].as_array().unwrap().len();
        assert_eq!(c["trials"].as_u64().unwrap() as usize, samples, "{c}");
        assert!(c["y"].as_f64().is_some() && c["value"].as_f64().is_some());
    }
    let boundary = json["boundary"].as_array().unwrap();
    for b in boundary {
        assert!(b["low"].as_f64() < b["high"].as_f64(), "{b}");
        assert!(["block", "size"].contains(&b["factor"].as_str().unwrap()));
        assert!(b["at_factor"] != b["factor"], "{b}");
        // Each bracket's ends are measured cells with the sides it names.
        let along_block = b["factor"] == "block";
        for (end, side) in [("low", "below"), ("high", "above")] {
            let v = b[end].as_f64().unwrap();
            let at = b["at"].as_f64().unwrap();
            let found = cells.iter().any(|c| {
                let (x, y) = (c["value"].as_f64().unwrap(), c["y"].as_f64().unwrap());
                let here = if along_block {
                    x == v && y == at
                } else {
                    x == at && y == v
                };
                here && c["side"] == b[side]
            });
            assert!(found, "{b}: no cell at its {end} end with {}", b[side]);
        }
    }
    // Words first (a line per row), the grid as a table, the cost.
    assert!(text.contains("over block and size"), "{text}");
    assert!(text.contains("at size 1 MiB: "), "{text}");
    assert!(text.contains("size \\ block"), "{text}");
    assert!(
        text.contains("a full grid at 4x in block by 4x in size would be 10 cells"),
        "{text}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("id=\"plot-map-heat\""), "a heat map");
    assert!(page.contains("<svg"));
}

/// `advise` on a 4 MiB file with `extra` flags; its export.
fn advise_json(scratch: &Scratch, extra: &[&str]) -> (Value, String) {
    let file = scratch.path("plan-user.bin");
    if !file.exists() {
        std::fs::write(
            &file,
            (0..(4u32 << 20))
                .map(|i| (i * 7) as u8)
                .collect::<Vec<u8>>(),
        )
        .unwrap();
    }
    let json_path = scratch.path("plan-advise.json");
    let _ = std::fs::remove_file(&json_path);
    let out = succeeded(
        faultline()
            .args(["advise", "--runs", "2", "--file"])
            .arg(&file)
            .args(extra)
            .arg("--data-dir")
            .arg(scratch.data_dir())
            .arg("--export-json")
            .arg(&json_path),
    );
    (
        read_json(&json_path),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn advise_takes_the_workload_from_a_run_plan() {
    let scratch = Scratch::new();
    let plan = scratch.path("seq64k.toml");
    std::fs::write(
        &plan,
        "method = [\"read\", \"mmap\"]\npattern = \"seq\"\nblock = \"64k\"\ncache = \"warm\"\n",
    )
    .unwrap();
    let plan_arg = plan.to_str().unwrap().to_string();
    let (json, text) = advise_json(&scratch, &["--plan", &plan_arg, "--max-time", "20s"]);
    assert!(text.contains("advise: seq 64 KiB reads of"), "{text}");
    // Every candidate ran the plan's pattern and block.
    let comparisons = json["run"]["comparisons"].as_array().unwrap();
    assert!(!comparisons.is_empty());
    for c in comparisons {
        let group = c["group"].as_str().unwrap();
        assert!(group.starts_with("seq 64 KiB"), "{group}");
    }
}

#[test]
#[ignore = "needs root"]
fn advise_maps_the_file_size_against_a_memory_budget() {
    let scratch = Scratch::new();
    let (json, text) = advise_json(
        &scratch,
        &[
            "--pattern",
            "random",
            "--memory-budget",
            "32M",
            "--max-time",
            "60s",
        ],
    );
    let map = &json["size_map"];
    if map.is_null() {
        // Too little time was left after the ranking: said so.
        assert!(
            text.contains("not mapped: file size against the memory available"),
            "{text}"
        );
        return;
    }
    assert_eq!(map["factor"], "size");
    assert_eq!(map["axis"]["low"].as_f64(), Some(8.0 * 1048576.0));
    assert_eq!(map["axis"]["high"].as_f64(), Some(128.0 * 1048576.0));
    assert!(!map["points"].as_array().unwrap().is_empty());
    assert!(
        text.contains("where it changes along the file size"),
        "{text}"
    );
}
