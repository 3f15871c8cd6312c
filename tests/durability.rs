//! The durability options (`--open-sync`, `--sync-call sync-file-range`,
//! `--msync`) and the buffered writer (`stdio-write`), end to end: the real
//! binary on small files (1 MiB at most).
mod common;

use std::collections::HashSet;

use clap::ValueEnum;
use common::{assert_no_failures, entries, labels, samples, Flags, Scratch};
use faultline::method::{MethodKind, MethodOption};

/// The sum of the `pattern` fill's bytes over a file of `len` bytes.
fn pattern_sum(len: usize) -> u64 {
    let mut bytes = vec![0u8; len];
    faultline::workload::fill_pattern(0, &mut bytes);
    bytes.iter().map(|&b| b as u64).sum()
}

/// Every write method that writes through the page cache, from the
/// registry: a new one is tested here without an edit.
fn buffered_write_methods() -> Vec<MethodKind> {
    MethodKind::value_variants()
        .iter()
        .copied()
        .filter(|m| m.writes() && !m.direct_write())
        .collect()
}

#[test]
fn every_durability_option_writes_the_same_bytes_with_every_method() {
    let scratch = Scratch::new();
    let size = 1 << 20;
    let methods = buffered_write_methods();
    let names: Vec<String> = methods.iter().map(|m| m.to_string()).collect();
    let csv = scratch.path("out.csv");
    let markdown = scratch.path("out.md");
    let results = scratch.run_json(
        Flags::new()
            .size("1M")
            .method(&names.join(","))
            .pattern("seq,random")
            .block("256k")
            .sync("none,end,each")
            .flag("--sync-call", "fsync,sync-file-range")
            .flag("--open-sync", "none,dsync,sync")
            .flag("--msync", "sync,async")
            .flag("--export-csv", &csv)
            .flag("--export-markdown", &markdown)
            .runs(1),
    );
    // The runner read every written file back: a wrong byte fails the trial.
    assert_no_failures(&results);
    let want = pattern_sum(size);
    let mut per_block_syncs = 0;
    for (case, s) in samples(&results) {
        let label = case["label"].as_str().unwrap();
        assert_eq!(s["checksum"].as_u64().unwrap(), want, "{label}");
        assert_eq!(s["bytes"], size as u64, "{label}");
        let method = case["method"].as_str().unwrap();
        let kind = MethodKind::from_str(method, false).unwrap();
        // Each option is set on the methods that take it, and only those.
        assert_eq!(
            case["open_sync"].is_null(),
            !kind.takes(MethodOption::OpenSync),
            "{label}"
        );
        let syncs = case["sync"] != "none";
        assert_eq!(
            case["msync"].is_null(),
            !kind.takes(MethodOption::Msync) || !syncs,
            "{label}"
        );
        // write and pwrite: one call per block, and one sync_file_range per
        // block with --sync each.
        if (method == "write" || method == "pwrite")
            && case["sync"] == "each"
            && case["sync_call"] == "sync-file-range"
            && case["pattern"] == "seq"
        {
            assert_eq!(s["syscalls"], 8, "{label}");
            assert!(s["sync_ns"].as_u64().unwrap() > 0, "{label}");
            per_block_syncs += 1;
        }
    }
    assert_eq!(per_block_syncs, 2 * 3, "write and pwrite × 3 open flags");
    let labels = labels(&results);
    for label in [
        "write(open-sync=dsync)",
        "pwrite(sync=each,sync-call=sync-file-range,open-sync=sync)",
        "stdio-write(open-sync=dsync,buffer=8 KiB)",
        "uring-write(sync=each,sync-call=sync-file-range,depth=1)",
        "mmap-write(sync=each,msync=async)",
        "mmap-write(sync=end)",
    ] {
        assert!(labels.contains(label), "{label} missing from {labels:?}");
    }
    // Per method: its open flags (3 when it takes --open-sync) × (no sync +
    // 2 syncs × its 2 sync calls or 2 msyncs), as before: 4 × 3 × 5 + 5.
    let expected: usize = methods
        .iter()
        .map(|m| {
            let open = if m.takes(MethodOption::OpenSync) {
                3
            } else {
                1
            };
            let calls =
                usize::from(m.takes(MethodOption::SyncCall) || m.takes(MethodOption::Msync));
            open * (1 + 2 * (1 + calls))
        })
        .sum();
    assert_eq!(labels.len(), expected);
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (open_sync, msync) = (column("open_sync"), column("msync"));
    let cells: Vec<(String, String)> = reader
        .records()
        .map(|row| {
            let row = row.unwrap();
            (row[open_sync].to_string(), row[msync].to_string())
        })
        .collect();
    assert!(cells.iter().any(|(o, _)| o == "dsync"), "{cells:?}");
    assert!(cells.iter().any(|(_, m)| m == "async"), "{cells:?}");
    let markdown = std::fs::read_to_string(&markdown).unwrap();
    assert!(markdown.contains("open-sync=dsync"));
    assert!(markdown.contains("msync=async"));
    assert!(entries(&scratch.data_dir().join("scratch")).is_empty());
}

#[test]
fn stdio_write_writes_every_order_and_buffer_size_byte_for_byte() {
    let scratch = Scratch::new();
    // Not a multiple of a page or of a block; small, for the 1-byte blocks.
    let size = 300_007;
    let results = scratch.run_json(
        Flags::new()
            .size(size.to_string())
            .method("write,stdio-write")
            .pattern("seq,random,reverse")
            .block("1,12345")
            .flag("--stdio-buffer", "4k,64k")
            .target("fresh,overwrite")
            .cache("as-is")
            .runs(1),
    );
    assert_no_failures(&results);
    let want = pattern_sum(size);
    let mut buffers = HashSet::new();
    for (case, s) in samples(&results) {
        let label = case["label"].as_str().unwrap();
        assert_eq!(s["checksum"].as_u64().unwrap(), want, "{label}");
        if case["method"] == "stdio-write" {
            buffers.insert(case["stdio_buffer"].as_u64().unwrap());
            let blocks = (size as u64).div_ceil(case["block_size"].as_u64().unwrap());
            let calls = s["syscalls"].as_u64().unwrap();
            if case["pattern"] == "seq" {
                // A sequential write goes out a buffer at a time.
                let buffer = case["stdio_buffer"].as_u64().unwrap();
                assert!(
                    calls <= (size as u64).div_ceil(buffer) + 1,
                    "{label}: {calls}"
                );
            } else {
                // Each jump is a write of what was buffered and an lseek.
                assert!(calls <= 2 * blocks + 1, "{label}: {calls}");
            }
        }
    }
    assert_eq!(buffers, HashSet::from([4096, 65536]));
}

#[test]
fn durability_options_without_a_method_to_take_them_are_refused() {
    let scratch = Scratch::new();
    scratch.refused(
        [
            "--size",
            "1M",
            "--method",
            "mmap-write",
            "--open-sync",
            "dsync",
        ],
        &["--open-sync is for", "write, pwrite", "--msync"],
    );
    scratch.refused(
        [
            "--size",
            "1M",
            "--method",
            "read,mmap",
            "--open-sync",
            "sync",
        ],
        &["--open-sync is for"],
    );
    scratch.refused(
        ["--size", "1M", "--method", "write", "--msync", "async"],
        &["--msync is for --method mmap-write"],
    );
    scratch.refused(
        ["--size", "1M", "--method", "mmap-write", "--msync", "async"],
        &["--sync none never does", "--sync end"],
    );
    scratch.refused(
        ["--size", "1M", "--method", "write", "--open-sync", "always"],
        &["invalid value 'always' for '--open-sync"],
    );
}

#[test]
fn the_dry_run_lists_the_durability_options_of_each_case() {
    let scratch = Scratch::new();
    let out = scratch
        .run([
            "--dry-run",
            "--size",
            "1M",
            "--method",
            "pwrite,stdio-write,mmap-write",
            "--sync",
            "each",
            "--sync-call",
            "sync-file-range",
            "--open-sync",
            "dsync",
            "--msync",
            "async",
        ])
        .env("COLUMNS", "400")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for label in [
        "pwrite(sync=each,sync-call=sync-file-range,open-sync=dsync)",
        "stdio-write(sync=each,sync-call=sync-file-range,open-sync=dsync,buffer=8 KiB)",
        "mmap-write(sync=each,msync=async)",
    ] {
        assert!(text.contains(label), "{label} missing from {text}");
    }
}

/// The comparisons of a run's JSON export, as (baseline, other) cases.
fn compared(results: &serde_json::Value) -> Vec<(serde_json::Value, serde_json::Value)> {
    let cases = results["cases"].as_array().unwrap();
    let case = |id: &serde_json::Value| cases.iter().find(|c| c["id"] == *id).cloned().unwrap();
    results["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (case(&c["baseline"]), case(&c["other"])))
        .collect()
}

/// When a write case's data is durable: a file opened with O_DSYNC/O_SYNC
/// is durable after each write, whatever --sync says.
fn sync_level(case: &serde_json::Value) -> String {
    match case["open_sync"].as_str() {
        Some("dsync" | "sync") => "each".to_string(),
        _ => case["sync"].as_str().unwrap_or("none").to_string(),
    }
}

#[test]
fn write_cases_are_compared_with_cases_that_sync_alike_unless_asked_otherwise() {
    let scratch = Scratch::new();
    let flags = || {
        Flags::new()
            .size("256k")
            .method("write,pwrite,mmap-write")
            .pattern("seq")
            .block("64k")
            .sync("none,end,each")
            .flag("--open-sync", "none,dsync")
            .flag("--interference-threshold", "off")
            .runs(2)
    };
    let results = scratch.run_json(flags());
    assert_no_failures(&results);
    let pairs = compared(&results);
    // write, pwrite and mmap-write at each of three levels: every case but
    // the level's baseline is compared, and only with a case of its level.
    let cases = results["cases"].as_array().unwrap().len();
    let levels: HashSet<String> = results["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(sync_level)
        .collect();
    assert_eq!(levels.len(), 3, "{levels:?}");
    assert_eq!(pairs.len(), cases - levels.len());
    for (baseline, other) in &pairs {
        assert_eq!(
            sync_level(baseline),
            sync_level(other),
            "{baseline} vs {other}"
        );
    }
    // An O_DSYNC write is compared with the per-block syncs, mmap-write's
    // msync after each block among them.
    assert!(pairs
        .iter()
        .any(|(b, o)| [b, o].iter().any(|c| c["open_sync"] == "dsync")
            && [b, o].iter().any(|c| c["method"] == "mmap-write")));
    // The groups say how their cases sync.
    let groups: HashSet<&str> = results["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["group"].as_str().unwrap())
        .collect();
    assert!(
        groups.iter().any(|g| g.contains("synced at the end")),
        "{groups:?}"
    );
    assert!(
        groups.iter().any(|g| g.contains("synced after each block")),
        "{groups:?}"
    );
    // Asked otherwise: one group, every case compared with the first.
    let across = scratch.run_json(flags().switch("--pair-across-sync"));
    let pairs = compared(&across);
    assert_eq!(pairs.len(), across["cases"].as_array().unwrap().len() - 1);
    assert!(pairs.iter().any(|(b, o)| sync_level(b) != sync_level(o)));
}
