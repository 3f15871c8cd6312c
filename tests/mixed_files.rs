//! Mixed read/write (`--read-share`) and many files (`--files`,
//! `--file-size`), end to end through the real binary on small files: every
//! method agrees on the checksum of what it read, the bytes written are
//! counted apart, a file set's open/close is inside the trial and its cache
//! state is reached over every file, each factor shows in the dry run and
//! every export, and bad values are refused in one line.
mod common;

use std::collections::{HashMap, HashSet};

use common::{assert_no_failures, samples, succeeded, Flags, Scratch};

/// The CSV's rows as maps from column to value.
fn csv_rows(path: &std::path::Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn a_mixed_run_agrees_on_checksums_across_methods_and_counts_writes_apart() {
    let scratch = Scratch::new();
    let csv = scratch.path("mixed.csv");
    let md = scratch.path("mixed.md");
    let results = scratch.run_json(
        Flags::new()
            .size("2M")
            .method("read,pread,mmap")
            .pattern("random,seq")
            .block("4k")
            .cache("warm,cold")
            .flag("--read-share", "70,0,100")
            .flag("--export-csv", &csv)
            .flag("--export-markdown", &md)
            .runs(1),
    );
    assert_no_failures(&results);
    // One checksum per (pattern, cache, share): the methods agree; the
    // cache state changes no byte read.
    let mut by_group: HashMap<(String, u64), HashSet<u64>> = HashMap::new();
    let mut methods_seen: HashMap<u64, HashSet<String>> = HashMap::new();
    for (case, s) in samples(&results) {
        let share = case["read_share"]
            .as_u64()
            .expect("a mixed case has its share");
        let label = case["label"].as_str().unwrap().to_string();
        let bytes = s["bytes"].as_u64().unwrap();
        let written = s["bytes_written"].as_u64().expect("bytes written counted");
        assert_eq!(bytes, 2 << 20, "{label}: every block once");
        match share {
            100 => assert_eq!(written, 0, "{label}"),
            0 => assert_eq!(written, bytes, "{label}"),
            70 => {
                // 512 operations, each a write with odds 0.3: far from 0 and from all.
                let share_written = written as f64 / bytes as f64;
                assert!(
                    (0.15..0.45).contains(&share_written),
                    "{label}: {share_written}"
                );
            }
            other => panic!("unexpected share {other}"),
        }
        let pattern = case["pattern"].as_str().unwrap().to_string();
        by_group
            .entry((pattern, share))
            .or_default()
            .insert(s["checksum"].as_u64().unwrap());
        methods_seen
            .entry(share)
            .or_default()
            .insert(case["method"].as_str().unwrap().to_string());
    }
    for (group, sums) in &by_group {
        assert_eq!(sums.len(), 1, "{group:?}: methods disagree: {sums:?}");
    }
    assert_eq!(by_group.len(), 6);
    assert!(methods_seen.values().all(|m| m.len() == 3));
    // A share of 0 reads nothing: its checksum is the empty sum's, unlike 70's.
    let random_70 = &by_group[&("random".to_string(), 70)];
    let random_100 = &by_group[&("random".to_string(), 100)];
    assert_ne!(random_70, random_100, "writes change what later reads see");
    // The factor in the group label, the CSV and the Markdown.
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(
        markdown.contains("random 4 KiB sum, 70% reads, overwrite, warm"),
        "{markdown}"
    );
    let rows = csv_rows(&csv);
    let shares: HashSet<&str> = rows.iter().map(|r| r["read_share"].as_str()).collect();
    assert_eq!(shares, HashSet::from(["0", "70", "100"]));
    for r in &rows {
        let written: u64 = r["bytes_written"].parse().unwrap();
        let bytes: u64 = r["bytes"].parse().unwrap();
        assert!(written <= bytes);
    }
}

#[test]
fn a_mixed_case_runs_paced_with_every_operation_timed() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("256k")
            .method("pread,mmap")
            .pattern("random")
            .block("4k")
            .cache("warm")
            .flag("--read-share", "50")
            .switch("--latency")
            .runs(1),
    );
    assert_no_failures(&results);
    for (case, s) in samples(&results) {
        // Reads and writes alike: 64 operations, 64 latencies.
        assert_eq!(s["latency"]["ops"], 64, "{}", case["label"]);
    }
}

#[test]
fn a_file_set_is_read_whole_by_every_method_with_one_checksum() {
    let scratch = Scratch::new();
    let csv = scratch.path("files.csv");
    let results = scratch.run_json(
        Flags::new()
            .method("read,pread,mmap,mmap-copy")
            .pattern("seq,random")
            .cache("warm,cold")
            .flag("--files", "200")
            .flag("--file-size", "4k")
            .flag("--export-csv", &csv)
            .runs(1),
    );
    assert_no_failures(&results);
    let mut checksums = HashSet::new();
    let mut methods = HashSet::new();
    for (case, s) in samples(&results) {
        let label = case["label"].as_str().unwrap();
        assert_eq!(case["files"]["count"], 200, "{label}");
        assert_eq!(case["file_size"], 200 * 4096, "{label}");
        assert_eq!(s["bytes"], 200 * 4096, "{label}");
        assert_eq!(s["files_opened"], 200, "{label}");
        // Opening, mapping and closing are in the main loop: no setup apart.
        assert_eq!(s["setup_ns"], 0, "{label}");
        let before = s["residency_before"].as_f64().unwrap();
        match case["cache"].as_str().unwrap() {
            // Over every file of the set, not only the first.
            "warm" => assert!(before > 0.9, "{label}: {before}"),
            "cold" => assert!(before < 0.1, "{label}: {before}"),
            other => panic!("{other}"),
        }
        checksums.insert(s["checksum"].as_u64().unwrap());
        methods.insert(case["method"].as_str().unwrap().to_string());
    }
    assert_eq!(methods.len(), 4);
    assert_eq!(
        checksums.len(),
        1,
        "every method, order and cache state reads the same bytes"
    );
    let rows = csv_rows(&csv);
    assert!(rows.iter().all(|r| r["files"] == "200"
        && r["file_size_min"] == "4096"
        && r["files_opened"] == "200"));
    // The set is generated once, in the data directory, and reused.
    let sets: Vec<_> = std::fs::read_dir(scratch.data_dir())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("faultline-files-")
        })
        .collect();
    assert_eq!(sets.len(), 1);
    assert_eq!(std::fs::read_dir(sets[0].path()).unwrap().count(), 200);
}

#[test]
fn a_file_set_of_a_size_range_is_fixed_by_the_seed() {
    let scratch = Scratch::new();
    let run = |seed: &str| {
        scratch.run_json(
            Flags::new()
                .method("read,mmap")
                .cache("warm")
                .flag("--files", "50")
                .flag("--file-size", "1k..64k")
                .flag("--seed", seed)
                .runs(1),
        )
    };
    let a = run("1");
    assert_no_failures(&a);
    let sizes = |r: &serde_json::Value| {
        samples(r)
            .iter()
            .map(|(c, s)| {
                (
                    c["file_size"].as_u64().unwrap(),
                    s["checksum"].as_u64().unwrap(),
                )
            })
            .collect::<HashSet<_>>()
    };
    let first = sizes(&a);
    assert_eq!(first.len(), 1, "read and mmap agree: {first:?}");
    let (total, _) = *first.iter().next().unwrap();
    assert!((50 * 1024..=50 * 65536).contains(&total));
    assert_ne!(
        total % 4096,
        0,
        "sizes drawn from the range, not whole pages only"
    );
    assert_eq!(sizes(&run("1")), first, "the same seed, the same set");
    assert_ne!(sizes(&run("2")), first);
}

#[test]
fn the_dry_run_shows_the_read_share_and_the_file_set() {
    let scratch = Scratch::new();
    let dry = |flags: &[&str]| {
        let out = scratch.run(flags).env("COLUMNS", "400").output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = dry(&[
        "--dry-run",
        "--size",
        "1M",
        "--method",
        "pread,mmap",
        "--read-share",
        "70",
    ]);
    assert!(
        text.contains("pread · seq 16 KiB sum, 70% reads, overwrite, warm"),
        "{text}"
    );
    let text = dry(&[
        "--dry-run",
        "--method",
        "read,mmap",
        "--files",
        "10000",
        "--file-size",
        "4k..8k",
    ]);
    assert!(
        text.contains("mmap · seq 16 KiB sum, 10000 files of 4 KiB..8 KiB, cold"),
        "{text}"
    );
}

#[test]
fn bad_read_shares_and_file_sets_are_refused_in_one_line() {
    let scratch = Scratch::new();
    for share in ["101", "-1", "x"] {
        scratch.refused(
            ["--size", "1M", "--method", "pread", "--read-share", share],
            &["invalid value", "--read-share"],
        );
    }
    for files in ["0", "100001", "many"] {
        scratch.refused(["--files", files], &["invalid value", "--files"]);
    }
    for size in ["0", "2G", "64k..4k", "4k..x"] {
        scratch.refused(
            ["--files", "10", "--file-size", size],
            &["invalid value", "--file-size"],
        );
    }
    let refusals: [(&[&str], &[&str]); 9] = [
        (
            &[
                "--size",
                "1M",
                "--method",
                "pread,stdio",
                "--read-share",
                "70",
            ],
            &[
                "--read-share is for read, pread, mmap",
                "stdio does not take it",
            ],
        ),
        (
            &[
                "--size",
                "1M",
                "--method",
                "pread,pwrite",
                "--read-share",
                "70",
            ],
            &["pwrite does not take it"],
        ),
        (
            &[
                "--method",
                "pread",
                "--read-share",
                "70",
                "--threads",
                "2",
                "--size",
                "1M",
            ],
            &["--read-share", "not with --threads"],
        ),
        (
            &[
                "--method",
                "mmap",
                "--read-share",
                "70",
                "--share",
                "private",
                "--size",
                "1M",
            ],
            &["MAP_SHARED", "--share private"],
        ),
        (
            &["--method", "pread", "--read-share", "70", "--files", "10"],
            &["not with --files"],
        ),
        (
            &["--method", "read,stdio", "--files", "10"],
            &[
                "--files is for read, pread, mmap, mmap-copy",
                "stdio does not take it",
            ],
        ),
        (
            &["--method", "read", "--files", "10", "--size", "1M"],
            &["--files generates its own files", "--file-size"],
        ),
        (
            &["--method", "read", "--files", "10", "--pattern", "zipf:1.2"],
            &["--files visits its files", "zipf"],
        ),
        (
            &["--method", "read", "--file-size", "4k"],
            &["--file-size is the size of each of --files N files"],
        ),
    ];
    for (flags, needles) in refusals {
        scratch.refused(flags, needles);
    }
    let user = scratch.path("mine.bin");
    std::fs::write(&user, vec![7u8; 8192]).unwrap();
    scratch.refused(
        [
            "--method".as_ref(),
            "pread".as_ref(),
            "--read-share".as_ref(),
            "70".as_ref(),
            "--file".as_ref(),
            user.as_os_str(),
        ],
        &["faultline never writes a file it did not create"],
    );
    assert_eq!(std::fs::read(&user).unwrap(), vec![7u8; 8192]);
}

#[test]
fn a_file_set_over_its_bound_is_refused() {
    let scratch = Scratch::new();
    let line = scratch.refused(
        ["--method", "read", "--files", "100000", "--file-size", "1G"],
        &[
            "--files 100000 of 1 GiB hold",
            "more than the 64 GiB a set may hold",
        ],
    );
    assert!(line.starts_with("error: "), "{line}");
    // Nothing was generated.
    let made = std::fs::read_dir(scratch.data_dir())
        .map(|d| {
            d.flatten()
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with("faultline-files-")
                })
                .count()
        })
        .unwrap_or(0);
    assert_eq!(made, 0);
}

/// The dry run's line of test files.
fn test_files_line(scratch: &Scratch, flags: &[&str]) -> String {
    let out = scratch
        .run(["--dry-run"].iter().chain(flags))
        .env("COLUMNS", "400")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .find(|l| l.trim_start().starts_with("test files:"))
        .unwrap_or_else(|| panic!("{text}"))
        .trim()
        .to_string()
}

#[test]
fn a_file_set_is_named_for_what_it_is_and_the_dry_run_counts_it_once_made() {
    let scratch = Scratch::new();
    let set = [
        "--method",
        "read,mmap",
        "--pattern",
        "seq",
        "--cache",
        "warm",
        "--files",
        "50",
        "--file-size",
        "4k",
    ];
    let data = scratch.data_dir().display().to_string();
    assert_eq!(
        test_files_line(&scratch, &set),
        format!("test files: 50 files of 4 KiB, 200 KiB in all (200 KiB to generate in {data})")
    );
    let md = scratch.path("r.md");
    let json = scratch.path("r.json");
    let out = succeeded(
        scratch
            .run(set)
            .args(["--runs", "1", "--export-markdown"])
            .arg(&md)
            .arg("--export-json")
            .arg(&json),
    );
    let heading = "seq 16 KiB sum, 50 files of 4 KiB, warm; 200 KiB in all";
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(heading), "{stdout}");
    assert!(!stdout.contains("KiB file"), "{stdout}");
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains(&format!("### {heading}\n")), "{markdown}");
    let html_path = scratch.path("r.html");
    succeeded(
        common::faultline()
            .arg("report")
            .arg(&json)
            .arg("-o")
            .arg(&html_path),
    );
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(html.contains(heading), "the group headings");
    assert!(
        html.contains(&format!(
            "file set {data}/faultline-files-50-4096-4096-0000000000000001 (generated: 50 files of 4 KiB, 200 KiB in all)"
        )),
        "the line under the title"
    );
    // Made, the set is found and reused: nothing to generate.
    assert_eq!(
        test_files_line(&scratch, &set),
        format!("test files: 50 files of 4 KiB, 200 KiB in all (0 B to generate in {data})")
    );
    // Not whole, it would be generated again; another seed is another set.
    let dir = scratch
        .data_dir()
        .join("faultline-files-50-4096-4096-0000000000000001");
    std::fs::remove_file(dir.join("faultline-000049.data")).unwrap();
    assert!(test_files_line(&scratch, &set).contains("(200 KiB to generate in"));
    let seed2: Vec<&str> = set.iter().copied().chain(["--seed", "2"]).collect();
    assert!(test_files_line(&scratch, &seed2).contains("(200 KiB to generate in"));
}

#[test]
fn clean_removes_the_file_sets_it_made_and_nothing_else() {
    let scratch = Scratch::new();
    let run = |seed: &str| {
        succeeded(&mut scratch.run([
            "--method",
            "read",
            "--pattern",
            "seq",
            "--cache",
            "warm",
            "--files",
            "50",
            "--file-size",
            "4k",
            "--runs",
            "1",
            "--seed",
            seed,
        ]));
    };
    run("1");
    run("2");
    let data = scratch.data_dir();
    let one = data.join("faultline-files-50-4096-4096-0000000000000001");
    let two = data.join("faultline-files-50-4096-4096-0000000000000002");
    // The user's files: one in the data directory, one put in a set's.
    std::fs::write(data.join("notes.txt"), b"mine").unwrap();
    std::fs::write(two.join("mine.txt"), b"mine too").unwrap();
    let times = common::trial_times_recorded(&data);
    let out = succeeded(
        common::faultline()
            .arg("clean")
            .arg("--data-dir")
            .arg(&data),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "removed the file set {} (50 file(s))",
            one.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "removed 50 file(s) of the file set {}; kept the directory: it holds files faultline did not make",
            two.display()
        )),
        "{stdout}"
    );
    // The file sets' 100 files and the trial times the runs recorded.
    assert!(
        stdout.contains(&format!(
            "{} file(s) removed from {} (100 of them in 2 file set(s)), 40",
            100 + times,
            data.display()
        )) && stdout.trim_end().ends_with(" KiB freed"),
        "{stdout}"
    );
    assert!(!one.exists());
    let left: Vec<String> = std::fs::read_dir(&two)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["mine.txt"]);
    assert_eq!(std::fs::read(data.join("notes.txt")).unwrap(), b"mine");
}
