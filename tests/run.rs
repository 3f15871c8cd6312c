//! End-to-end runs of the real binary on small generated files.
mod common;

use std::collections::{HashMap, HashSet};

use common::{
    cases, entries, failures, faultline, read_json, samples, spawn_piped, succeeded,
    trial_children, user_file, wait_until, Flags, Scratch,
};

const METHODS: &str = "read,pread,mmap,mmap-copy";

#[test]
fn checksums_agree_across_every_method_and_pattern() {
    let scratch = Scratch::new();
    // Every read method of the registry but O_DIRECT's, which needs blocks
    // aligned to the device (12345 is not; paths.rs checks them at 4 KiB).
    let methods = common::read_methods(|m| !m.direct_io());
    let count = methods.split(',').count();
    assert!(count >= 7, "{methods}");
    let results = scratch.run_json(
        Flags::new()
            .size("3M")
            .method(&methods)
            .pattern("seq,random,random-replace")
            .block("4k,12345")
            .workload("touch,sum")
            .cache("as-is")
            .runs(2),
    );
    let mut by_key: HashMap<String, Vec<(String, u64)>> = HashMap::new();
    for (case, sample) in samples(&results) {
        let key = format!(
            "{} {} {}",
            case["pattern"], case["block_size"], case["workload"]
        );
        by_key.entry(key).or_default().push((
            case["method"].to_string(),
            sample["checksum"].as_u64().unwrap(),
        ));
    }
    assert_eq!(
        by_key.len(),
        3 * 2 * 2,
        "every (pattern, block, workload) measured"
    );
    for (key, sums) in by_key {
        let methods: HashSet<_> = sums.iter().map(|s| s.0.clone()).collect();
        assert_eq!(methods.len(), count, "every method for {key}");
        assert!(
            sums.iter().all(|s| s.1 == sums[0].1),
            "checksums differ for {key}: {sums:?}"
        );
        assert_ne!(sums[0].1, 0);
    }
}

#[test]
fn sum_checksum_is_the_sum_of_the_files_bytes() {
    let scratch = Scratch::new();
    let file = scratch.path("mine.bin");
    let bytes = user_file(&file, 1_000_003);
    let expected: u64 = bytes.iter().map(|&b| b as u64).sum();
    let results = scratch.run_json(
        Flags::new()
            .file(&file)
            .method(METHODS)
            .block("64k")
            .cache("as-is")
            .runs(1),
    );
    for (_, sample) in samples(&results) {
        assert_eq!(sample["checksum"].as_u64().unwrap(), expected);
        assert_eq!(sample["bytes"].as_u64().unwrap(), bytes.len() as u64);
    }
    assert_eq!(
        std::fs::read(&file).unwrap(),
        bytes,
        "the user's file is unchanged"
    );
}

#[test]
fn cold_is_cold_and_warm_is_warm() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("8M")
            .method("read,mmap")
            .cache("cold,warm")
            .flag("--warm-by", "seq,random,written")
            .runs(2),
    );
    let all = samples(&results);
    assert!(!all.is_empty());
    for (case, sample) in all {
        let before = sample["residency_before"].as_f64().unwrap();
        match case["cache"].as_str().unwrap() {
            "cold" => assert!(before <= 0.01, "cold trial started {before} resident"),
            "warm" => assert!(before >= 0.99, "warm trial started {before} resident"),
            other => panic!("unexpected cache {other}"),
        }
        assert_eq!(sample["cache_reached"], true);
        assert!(!sample["cache_prepared_by"].as_str().unwrap().is_empty());
        assert!(["cachestat", "mincore"].contains(&sample["residency_source"].as_str().unwrap()));
        // A sum reads every byte, so after the trial the file is resident.
        assert!(sample["residency_after"].as_f64().unwrap() >= 0.99);
    }
}

/// A warm file the last trial only read, and left whole in the cache, is
/// not evicted and read back for the next trial of the same warm state: it
/// is kept, and says so. Every other trial is prepared afresh: the first
/// of each warm group, and any after a cold trial or a warm trial of
/// another kind (`--warm-by`).
#[test]
fn a_warm_file_is_kept_between_trials_that_only_read_it() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("8M")
            .method("read,mmap")
            .cache("cold,warm")
            .flag("--warm-by", "seq,random")
            .runs(3),
    );
    let mut all = samples(&results);
    all.sort_by_key(|(_, s)| s["sequence"].as_u64().unwrap());
    let case_count = results["cases"].as_array().unwrap().len();
    assert_eq!(all.len(), case_count * 3, "3 runs of every case");
    let mut kept = 0;
    let mut previous: Option<(String, String)> = None;
    for (case, sample) in &all {
        let by = sample["cache_prepared_by"].as_str().unwrap();
        let cache = case["cache"].as_str().unwrap();
        let warm_by = case["warm_by"].as_str().unwrap_or("seq").to_string();
        if cache == "warm" {
            let fresh = format!("evict+{warm_by}-read");
            let keep = format!("kept-from-evict+{warm_by}-read");
            let same_before = previous == Some(("warm".to_string(), warm_by.clone()));
            if by == keep {
                kept += 1;
                assert!(same_before, "kept after {previous:?}: {sample}");
                assert_eq!(sample["residency_before"].as_f64(), Some(1.0));
            } else {
                assert!(by.starts_with(&fresh), "{by} for a {warm_by} warm trial");
            }
            if !same_before {
                assert!(by.starts_with(&fresh), "first after {previous:?}: {by}");
            }
        } else {
            assert!(!by.starts_with("kept"), "a cold trial kept: {by}");
        }
        previous = Some((cache.to_string(), warm_by));
    }
    // Each warm group's 5 trials after its first had every page left
    // resident by a read; reclaim might take a page now and then, but not
    // from all of them.
    assert!(kept >= 2, "{kept} kept of the warm trials");
}

#[test]
fn json_export_holds_every_field_with_plausible_values() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("2M")
            .method("read,mmap")
            .cache("warm")
            .runs(3),
    );
    let env = &results["environment"];
    for field in ["kernel", "cpu_model", "page_size", "ram_bytes"] {
        assert!(!env[field].is_null(), "environment.{field} missing: {env}");
    }
    assert!(results["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "--runs"));
    let cases = cases(&results);
    assert_eq!(cases.len(), 4, "read and mmap, seq 16k and random 4k");
    for case in cases {
        for f in [
            "method",
            "pattern",
            "block_size",
            "file_size",
            "workload",
            "cache",
            "populate",
            "advice",
            "share",
        ] {
            assert!(case.get(f).is_some(), "case field {f} missing");
        }
        assert_eq!(case["file_size"], 2 << 20);
        assert_eq!(case["samples"].as_array().unwrap().len(), 3);
        assert!(!case["summary"].is_null());
    }
    for (case, s) in samples(&results) {
        for f in [
            "wall_ns",
            "setup_ns",
            "teardown_ns",
            "user_ns",
            "sys_ns",
            "minflt",
            "majflt",
            "nvcsw",
            "nivcsw",
            "inblock",
            "oublock",
            "residency_before",
            "residency_after",
            "bytes",
            "checksum",
            "max_rss_kib",
        ] {
            assert!(s.get(f).is_some(), "sample field {f} missing: {s}");
        }
        assert_eq!(s["bytes"], 2 << 20);
        assert!(s["wall_ns"].as_u64().unwrap() > 0);
        assert!(s["max_rss_kib"].as_u64().unwrap() > 0);
        let vm = s["vmstat"].as_object().unwrap();
        for k in [
            "pgfault",
            "pgmajfault",
            "pgpgin",
            "pgpgout",
            "workingset_refault_file",
        ] {
            assert!(vm.contains_key(k), "vmstat.{k} missing");
        }
        if case["method"] == "mmap" {
            assert!(
                s["setup_ns"].as_u64().unwrap() > 0,
                "the mapping's setup is timed"
            );
            assert_eq!(s["syscalls"], 0);
        } else {
            assert!(s["syscalls"].as_u64().unwrap() >= (2 << 20) / (16 << 10));
        }
    }
    assert_eq!(results["comparisons"].as_array().unwrap().len(), 2);
}

#[test]
fn a_trial_killed_by_a_signal_fails_alone_and_the_run_goes_on() {
    let scratch = Scratch::new();
    let json = scratch.path("out.json");
    // 1-byte reads of 4 MiB: millions of syscalls, long enough to catch the child.
    let run = spawn_piped(
        &mut scratch.run(
            Flags::new()
                .size("4M")
                .method("read")
                .block("1")
                .cache("as-is")
                .runs(2)
                .export_json(&json),
        ),
    );
    let mut victim = None;
    wait_until("no trial child appeared", || {
        victim = trial_children(run.id()).first().copied();
        victim.is_some()
    });
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(victim.unwrap()),
        nix::sys::signal::Signal::SIGUSR1,
    )
    .unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The run goes on, and then says a trial failed: exit 1.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: 1 trial(s) failed and 1 were measured: 1× killed by SIGUSR1"),
        "{stderr}"
    );
    let results = read_json(&json);
    let failures = failures(&results);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0]["reason"].as_str().unwrap().contains("SIGUSR1"));
    assert_eq!(samples(&results).len(), 1, "the other run was measured");
}

#[test]
fn env_prints_the_environment() {
    let out = succeeded(faultline().arg("env"));
    let text = String::from_utf8_lossy(&out.stdout);
    for label in [
        "kernel",
        "cpu_model",
        "page_size",
        "thp_enabled",
        "filesystem",
        "read_ahead_kb",
        "faultline_version",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(label)),
            "{label} missing from:\n{text}"
        );
    }
}

#[test]
fn generated_file_is_reused_and_clean_removes_only_faultlines_files() {
    let scratch = Scratch::new();
    let once = Flags::new().size("64k").cache("as-is").runs(1);
    let first = scratch.run(&once).arg("--keep-journal").output().unwrap();
    assert!(String::from_utf8_lossy(&first.stderr).contains("generating"));
    let second = succeeded(&mut scratch.run(&once));
    assert!(
        !String::from_utf8_lossy(&second.stderr).contains("generating"),
        "reused, not regenerated"
    );
    let keep = scratch.data_dir().join("notes.txt");
    std::fs::write(&keep, b"mine").unwrap();
    let removed = 2 + common::trial_times_recorded(&scratch.data_dir());
    let out = succeeded(
        faultline()
            .arg("clean")
            .arg("--data-dir")
            .arg(scratch.data_dir()),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{removed} file(s) removed")),
        "the data file, the kept journal (the other run removed its own) and the trial times \
         the runs recorded for later dry runs: {stdout}"
    );
    assert!(keep.exists());
    let files_left = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
        // The data directory's lock file stays: it is never removed.
        entries(dir)
            .into_iter()
            .filter(|p| p.is_file() && !p.ends_with(".faultline-lock"))
            .collect()
    };
    assert_eq!(files_left(&scratch.data_dir()), vec![keep]);
    assert!(files_left(&scratch.data_dir().join("runs")).is_empty());
}

#[test]
fn exports_csv_and_markdown_and_prints_a_verdict_per_pair() {
    let scratch = Scratch::new();
    let csv = scratch.path("out.csv");
    let md = scratch.path("out.md");
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .size("1M")
                .method("read,pread,mmap")
                .pattern("seq")
                .block("64k")
                .cache("warm")
                .runs(3)
                .flag("--export-csv", &csv)
                .flag("--export-markdown", &md),
        ),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let verdicts: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("seq 64 KiB sum, warm:"))
        .collect();
    assert_eq!(
        verdicts.len(),
        2,
        "pread and mmap each against read:\n{stdout}"
    );
    for v in verdicts {
        assert!(
            v.contains("than read")
                || v.contains("within noise")
                || v.contains("unsettled against read"),
            "{v}"
        );
        // One line, with at most the strongest reason; the full counter
        // comparison is in the Markdown report (and behind --verbose).
        assert!(v.chars().count() <= 100, "one short line: {v}");
    }
    assert!(
        std::fs::read_to_string(&md).unwrap().contains("syscalls"),
        "the report names every counter"
    );
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        rows.lines().count(),
        1 + 3 * 3,
        "a header and one row per sample"
    );
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains("## Verdicts"));
}

#[test]
fn digests_agree_across_methods() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("1M")
            .method(METHODS)
            .pattern("seq")
            .block("8k,64k")
            .workload("md5,sha256,blake3")
            .cache("as-is")
            .runs(1),
    );
    let mut sums: HashMap<String, HashSet<u64>> = HashMap::new();
    for (case, sample) in samples(&results) {
        sums.entry(case["workload"].to_string())
            .or_default()
            .insert(sample["checksum"].as_u64().unwrap());
    }
    assert_eq!(sums.len(), 3);
    for (workload, set) in sums {
        assert_eq!(
            set.len(),
            1,
            "{workload}: one digest whatever the method and block size"
        );
    }
}

#[test]
fn loop_faults_per_mib_leave_out_map_populates_untimed_prefault() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("4M")
            .method("mmap")
            .pattern("seq")
            .block("64k")
            .cache("warm")
            .flag("--populate", "none,map")
            .flag("--metric", "loop")
            .runs(2),
    );
    let mib = 1_048_576.0;
    let mut populated = 0;
    for case in cases(&results) {
        let per_sample: Vec<(f64, f64)> = case["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let setup = s["setup_faults"]["minflt"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("setup faults counted apart: {s}"));
                let all = s["minflt"].as_u64().unwrap();
                assert!(setup <= all, "{s}");
                let mibs = s["bytes"].as_f64().unwrap() / mib;
                ((all - setup) as f64 / mibs, all as f64 / mibs)
            })
            .collect();
        let mean = |f: fn(&(f64, f64)) -> f64| {
            per_sample.iter().map(f).sum::<f64>() / per_sample.len() as f64
        };
        let shown = case["summary"]["per_mib"]["minflt"].as_f64().unwrap();
        // Under --metric loop, the faults per MiB are the loop's own.
        assert!((shown - mean(|p| p.0)).abs() < 1e-9, "{shown} {case}");
        if case["populate"] == "map" {
            populated += 1;
            // MAP_POPULATE's prefault is taken in setup, outside the clock,
            // and left out of what the table shows.
            assert!(mean(|p| p.1) > shown, "{case}");
        }
    }
    assert_eq!(populated, 1);
}
