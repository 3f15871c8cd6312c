//! Paced load (`--rate`, `--think-time`) and per-operation latency of the
//! write methods, end to end: the real binary on small files (4 MiB at most).
//! Times are only ever bounded from below (a sleep never ends early; how
//! much later it ends, the machine's load decides).
mod common;

use std::collections::HashSet;

use common::{assert_no_failures, samples, Flags, Scratch};

#[test]
fn a_paced_run_keeps_its_rate_records_latency_and_agrees_on_checksums() {
    let scratch = Scratch::new();
    let csv = scratch.path("paced.csv");
    let results = scratch.run_json(
        Flags::new()
            .size("4M")
            .method("pread,mmap,read")
            .block("64k")
            .cache("warm")
            .flag("--rate", "2000,64M/s")
            .flag("--export-csv", &csv)
            .runs(2),
    );
    assert_no_failures(&results);
    let mut checksums = HashSet::new();
    for (case, s) in samples(&results) {
        let label = case["label"].as_str().unwrap();
        assert_eq!(
            case["latency"], true,
            "a paced case records latency: {label}"
        );
        // 64 blocks: the last starts 63 intervals after the first.
        let min_ns = match &case["pace"]["rate"] {
            r if r["ops_per_s"] == 2000 => 63 * 500_000,
            r if r["bytes_per_s"] == 64 << 20 => 63 * 976_562,
            other => panic!("unexpected rate {other}"),
        };
        let wall = s["wall_ns"].as_u64().unwrap();
        assert!(wall >= min_ns, "{label}: {wall} ns < {min_ns}");
        assert_eq!(s["latency"]["ops"], 64, "{label}");
        checksums.insert(s["checksum"].as_u64().unwrap());
    }
    assert_eq!(checksums.len(), 1, "every method, every pace: one checksum");
    let comparisons: HashSet<String> = results["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["group"].as_str().unwrap().to_string())
        .collect();
    assert!(
        comparisons.contains("seq 64 KiB sum, paced 2000 ops/s, warm"),
        "{comparisons:?}"
    );
    assert!(
        comparisons.contains("seq 64 KiB sum, paced 64 MiB/s, warm"),
        "{comparisons:?}"
    );
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let header = reader.headers().unwrap().clone();
    let rate = header.iter().position(|h| h == "rate").unwrap();
    let rates: HashSet<String> = reader
        .records()
        .map(|r| r.unwrap()[rate].to_string())
        .collect();
    assert_eq!(
        rates,
        HashSet::from(["2000 ops/s".to_string(), "64 MiB/s".to_string()])
    );
}

#[test]
fn a_think_time_paces_write_methods_and_their_latency_is_recorded() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("1M")
            .method("pwrite,mmap-write,stdio-write")
            .block("256k")
            .flag("--think-time", "0.002")
            .runs(1),
    );
    assert_no_failures(&results);
    for (case, s) in samples(&results) {
        let label = case["label"].as_str().unwrap();
        assert_eq!(case["pace"]["think_ns"], 2_000_000, "{label}");
        // 4 blocks, a think time between each: at least 3 of them.
        assert!(s["wall_ns"].as_u64().unwrap() >= 6_000_000, "{label}");
        assert_eq!(s["latency"]["ops"], 4, "{label}");
    }
}

#[test]
fn write_methods_record_latency_unpaced_too() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("1M")
            .method("write,pwrite,mmap-write,uring-write,stdio-write")
            .block("64k")
            .switch("--latency")
            .runs(1),
    );
    assert_no_failures(&results);
    for (case, s) in samples(&results) {
        assert_eq!(s["latency"]["ops"], 16, "{}", case["label"]);
    }
}

#[test]
fn bad_paces_are_refused_in_one_line() {
    let scratch = Scratch::new();
    for (rate, needle) in [
        ("0", "out of range"),
        ("fast", "is not a rate"),
        ("64M", "is not a rate"),
        ("0M/s", "would never finish"),
    ] {
        scratch.refused(
            ["--size", "1M", "--rate", rate],
            &["invalid value", "--rate", needle],
        );
    }
    scratch.refused(
        ["--size", "1M", "--think-time", "0"],
        &["--think-time", "0 seconds"],
    );
    for (flag, value) in [("--threads", "2"), ("--procs", "2")] {
        scratch.refused(
            ["--size", "1M", "--rate", "1000", flag, value],
            &["--rate and --think-time pace one thread's main loop", flag],
        );
    }
}

#[test]
fn the_dry_run_shows_the_pace_of_each_group() {
    let scratch = Scratch::new();
    let out = scratch
        .run([
            "--dry-run",
            "--size",
            "1M",
            "--method",
            "pread,mmap",
            "--rate",
            "1000",
            "--think-time",
            "0.005",
        ])
        .env("COLUMNS", "400")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("paced 1000 ops/s, think 5 ms"),
        "no pace in {text}"
    );
    assert!(text.contains("pread(latency)"), "{text}");
}
