//! The access patterns through the real binary: every method touches the
//! same bytes in the same order on every new pattern (checksums agree, and
//! equal a checksum computed here from the file), a chase's path depends on
//! the file's bytes, footprints are recorded, and the refusals that go with
//! the patterns are one line each.
mod common;

use std::collections::BTreeMap;
use std::path::Path;

use clap::ValueEnum;
use common::{assert_no_failures, cases, samples, Flags, Scratch};
use faultline::method::{MethodKind, MethodOption};
use faultline::pattern::{BlockOrder, Layout, Pattern};
use faultline::workload::sum_bytes;

/// Every read method, from the registry: a new one is tested here without an edit.
fn read_methods() -> Vec<MethodKind> {
    MethodKind::value_variants()
        .iter()
        .copied()
        .filter(|m| !m.writes())
        .collect()
}

/// The `--method` list of every read method.
fn read_methods_flag() -> String {
    let names: Vec<String> = read_methods().iter().map(|m| m.to_string()).collect();
    names.join(",")
}

/// Every registered pattern besides the first three (`seq`, `random`,
/// `random-replace`) and the trace, by its example, and `zipf:0.8`: a new
/// pattern is tested here without an edit.
fn new_patterns() -> Vec<String> {
    let mut patterns: Vec<String> = Pattern::specs()
        .iter()
        .filter(|s| s.listed && !["seq", "random", "random-replace"].contains(&s.name))
        .map(|s| s.example.to_string())
        .collect();
    patterns.push("zipf:0.8".into());
    patterns
}

/// The sum workload's checksum of `pattern` over `file`, computed here from
/// the library's order (and, for a chase, its walk over the file's bytes).
fn expected_sum(file: &[u8], pattern: Pattern, layout: Layout, seed: u64) -> u64 {
    let order = BlockOrder::new(pattern, layout, seed).unwrap();
    let mut sum = 0u64;
    order
        .for_each_read(layout, |offset, len| {
            let block = &file[offset as usize..offset as usize + len];
            sum = sum.wrapping_add(sum_bytes(block));
            Ok::<u64, ()>(faultline::pattern::chase::chase_word(block))
        })
        .unwrap();
    sum
}

/// The checksums of a run's samples, by pattern, with the methods that gave them.
fn checksums_by_pattern(json: &serde_json::Value) -> BTreeMap<String, Vec<(String, u64)>> {
    let mut by = BTreeMap::<String, Vec<(String, u64)>>::new();
    for (case, sample) in samples(json) {
        by.entry(case["pattern"].as_str().unwrap().to_string())
            .or_default()
            .push((
                case["label"].as_str().unwrap().to_string(),
                sample["checksum"].as_u64().unwrap(),
            ));
    }
    by
}

#[test]
fn every_read_method_gives_the_same_checksum_on_every_new_pattern() {
    let s = Scratch::new();
    let json = s.run_json(
        Flags::new()
            .size("2M")
            .block("4k")
            .pattern(&new_patterns().join(","))
            .method(&read_methods_flag())
            .cache("warm")
            .runs(1)
            .flag("--depth", "1,8")
            .flag("--iov", "1,4"),
    );
    assert_no_failures(&json);
    let file = std::fs::read(
        s.data_dir()
            .join(faultline::files::dataset::generated_name(2 << 20, 1)),
    )
    .expect("the generated file");
    let layout = Layout {
        file_size: 2 << 20,
        block_size: 4096,
    };
    let by = checksums_by_pattern(&json);
    let patterns = new_patterns();
    assert_eq!(by.len(), patterns.len());
    // Each read method once; those that take --depth or --iov at both values,
    // except in a chase, which has one read in flight by construction.
    let methods = read_methods();
    let doubled = methods
        .iter()
        .filter(|m| m.takes(MethodOption::Depth) || m.takes(MethodOption::Iov))
        .count();
    for p in patterns.iter().map(String::as_str) {
        let runs = &by[p];
        let expected = expected_sum(&file, p.parse().unwrap(), layout, 1);
        for (label, sum) in runs {
            assert_eq!(*sum, expected, "{p}: {label}");
        }
        let labels: Vec<&str> = runs.iter().map(|(l, _)| l.as_str()).collect();
        if p == "chase" {
            assert_eq!(runs.len(), methods.len(), "{labels:?}");
            assert!(labels.contains(&"uring(depth=1)"), "{labels:?}");
            assert!(labels.contains(&"preadv(iov=1)"), "{labels:?}");
        } else {
            assert_eq!(runs.len(), methods.len() + doubled, "{p}: {labels:?}");
        }
    }
    // Parameters are part of a pattern: zipf:1.2 and zipf:0.8 are two groups
    // with two checksums.
    assert_ne!(by["zipf:1.2"][0].1, by["zipf:0.8"][0].1);
}

#[test]
fn write_methods_take_reverse_and_stride_and_write_every_block_once() {
    let s = Scratch::new();
    let json = s.run_json(
        Flags::new()
            .size("1M")
            .block("4k")
            .pattern("reverse,stride:3")
            .method("write,pwrite,mmap-write,direct-write,uring-write")
            .runs(1),
    );
    // Each written file was read back and checked against the fill
    // (faultline fails the run otherwise); the checksums agree.
    assert_no_failures(&json);
    for (p, runs) in checksums_by_pattern(&json) {
        assert_eq!(runs.len(), 5, "{p}");
        assert!(runs.iter().all(|(_, c)| *c == runs[0].1), "{p}: {runs:?}");
    }
}

#[test]
fn footprints_are_recorded_and_follow_the_skew() {
    let s = Scratch::new();
    let json = s.run_json(
        Flags::new()
            .size("4M")
            .block("4k")
            .pattern("random,random-replace,zipf:1.2,hotzone:90/10,chase")
            .method("pread")
            .cache("warm")
            .runs(1),
    );
    let share = |p: &str| {
        let case = cases(&json).iter().find(|c| c["pattern"] == p).unwrap();
        let f = &case["samples"][0]["footprint"];
        assert_eq!(f["units"], 1024, "{p}");
        assert_eq!(f["unit_bytes"], 4096, "{p}");
        assert_eq!(case["summary"]["footprint"]["share"], f["share"], "{p}");
        f["share"].as_f64().unwrap()
    };
    assert_eq!(share("random"), 1.0);
    let rr = share("random-replace");
    assert!((rr - 0.632).abs() < 0.05, "{rr}");
    assert!(share("zipf:1.2") < 0.3);
    // 90% of the reads in the first 10% of the file: about 10% + 10% of 63%.
    let zone = share("hotzone:90/10");
    assert!((0.12..0.25).contains(&zone), "{zone}");
    let chase = share("chase");
    assert!((0.55..0.7).contains(&chase), "{chase}");
}

/// Writes `len` random-looking bytes to `path`.
fn random_file(path: &Path, len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let bytes: Vec<u8> = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(path, &bytes).unwrap();
    bytes
}

#[test]
fn a_chase_follows_the_files_bytes() {
    let s = Scratch::new();
    let path = s.path("tree.bin");
    let mut bytes = random_file(&path, 1 << 20, 3);
    let run = |s: &Scratch| {
        let json = s.run_json(
            Flags::new()
                .file(&path)
                .block("4k")
                .pattern("chase")
                .method("pread,mmap,uring")
                .workload("touch")
                .cache("warm")
                .runs(1),
        );
        let by = checksums_by_pattern(&json);
        let runs = &by["chase"];
        assert!(runs.iter().all(|(_, c)| *c == runs[0].1), "{runs:?}");
        let distinct = samples(&json)[0].1["footprint"]["distinct"]
            .as_u64()
            .unwrap();
        (runs[0].1, distinct)
    };
    let before = run(&s);
    // Bytes 1 to 7 of every block steer the walk, and touch never reads
    // them (it reads byte 0 of each page): a data-independent order would
    // give the same checksum after this change; a chase goes elsewhere.
    for block in bytes.chunks_mut(4096) {
        for b in &mut block[1..8] {
            *b = b.wrapping_add(101);
        }
    }
    std::fs::write(&path, &bytes).unwrap();
    let after = run(&s);
    assert_ne!(before.0, after.0, "the path changed with the bytes");
    // The touched bytes the library's walk predicts, over the changed file.
    let layout = Layout {
        file_size: 1 << 20,
        block_size: 4096,
    };
    let path_now =
        faultline::pattern::chase::chase_path(std::io::Cursor::new(&bytes), layout, 1, 256)
            .unwrap();
    let touched = path_now.iter().fold(0u64, |sum, &b| {
        sum.wrapping_add(u64::from(bytes[(b * 4096) as usize]))
    });
    assert_eq!(after.0, touched);
    let mut distinct = path_now.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(
        after.1,
        distinct.len() as u64,
        "footprint of the walked path"
    );
}

#[test]
fn pattern_refusals_are_one_line() {
    let s = Scratch::new();
    s.refused(["--pattern", "zipf:0"], &["zipf:THETA needs THETA > 0"]);
    s.refused(
        ["--pattern", "hotset:90"],
        &["hotset:P/Q needs two percentages"],
    );
    s.refused(
        ["--pattern", "stride:0"],
        &["stride:N needs a whole number N >= 1"],
    );
    s.refused(
        ["--pattern", "trace", "--size", "1M"],
        &["--pattern trace is what --trace FILE replays"],
    );
    s.refused(
        Flags::new()
            .method("pwrite")
            .pattern("zipf:1.2")
            .size("1M")
            .block("4k"),
        &["--pattern zipf:1.2 writes some blocks twice and others never"],
    );
    s.refused(
        Flags::new()
            .method("pwrite")
            .pattern("chase")
            .size("1M")
            .block("4k"),
        &["--pattern chase reads each block to find the next"],
    );
    s.refused(
        Flags::new()
            .method("pread")
            .pattern("chase")
            .size("1M")
            .block("4k")
            .threads("2"),
        &["--pattern chase is one dependent walk and cannot be split between threads"],
    );
    let small = Flags::new().method("pread").size("1M");
    s.refused(
        small.clone().flag("--fadvise", "often"),
        &[
            "invalid value 'often' for '--fadvise <FADVISE>'",
            "willneed",
        ],
    );
    s.refused(
        small.clone().flag("--duration", "0"),
        &["invalid value '0' for '--duration <SECONDS>': 0 is not in 1..=86400"],
    );
    s.refused(
        small.flag("--memory-budget", "1M"),
        &["--memory-budget 1 MiB is below the 32 MiB minimum"],
    );
}

#[test]
fn a_chase_on_threads_replicates_the_one_thread_walk() {
    let s = Scratch::new();
    let json = s.run_json(
        Flags::new()
            .size("1M")
            .block("4k")
            .pattern("chase")
            .method("pread,mmap")
            .threads("1,3")
            .thread_mode("replicate")
            .cache("warm")
            .runs(1),
    );
    assert_no_failures(&json);
    let all = samples(&json);
    assert_eq!(all.len(), 4);
    assert!(all
        .iter()
        .all(|(_, s)| s["checksum"] == all[0].1["checksum"]));
}

#[test]
fn fadvise_multiplies_only_the_methods_that_take_it() {
    let s = Scratch::new();
    let json = s.run_json(
        Flags::new()
            .size("1M")
            .block("4k")
            .pattern("random")
            .method("read,pread,preadv,stdio,uring,mmap,direct,uring-direct")
            .flag("--fadvise", "normal,sequential,random,noreuse,willneed")
            .cache("cold")
            .runs(1),
    );
    assert_no_failures(&json);
    let labels = common::labels(&json);
    for method in [
        "read",
        "pread",
        "preadv(iov=4)",
        "stdio(buffer=8 KiB)",
        "uring(depth=1)",
    ] {
        for hint in ["normal", "sequential", "random", "noreuse", "willneed"] {
            let want = match method.strip_suffix(')') {
                Some(open) => format!("{open},fadvise={hint})"),
                None => format!("{method}(fadvise={hint})"),
            };
            assert!(labels.contains(&want), "{want} in {labels:?}");
        }
    }
    for plain in ["mmap", "direct", "uring-direct(depth=1)"] {
        assert!(labels.contains(plain), "{plain} in {labels:?}");
    }
    assert_eq!(labels.len(), 5 * 5 + 3);
    let with_hint = cases(&json)
        .iter()
        .filter(|c| c["fadvise"].is_string())
        .count();
    assert_eq!(with_hint, 25, "the hint is recorded with each case");
}

/// `--duration` with `--memory-budget` (as root): each trial reads for the
/// given seconds in a memory cgroup of its own, the budget and its cgroup
/// version are recorded, and every second has a timeline point whose
/// cgroup usage stays under the budget.
#[test]
#[ignore = "needs root"]
fn a_timed_run_under_a_memory_budget_has_a_timeline_within_the_budget() {
    common::require_root("a memory cgroup for --memory-budget");
    let s = Scratch::new();
    let json = s.path("budget.json");
    let out = s
        .run(
            Flags::new()
                .size("64M")
                .block("4k")
                .pattern("zipf:0.9")
                .method("pread,mmap")
                .cache("cold")
                .runs(1)
                .flag("--duration", "2")
                .flag("--memory-budget", "32M")
                .export_json(&json),
        )
        .output()
        .expect("faultline runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{stdout}");
    assert!(!stderr.contains("has no effect"), "{stderr}");
    assert!(stdout.contains("Per-second timeline:"), "{stdout}");
    assert!(stdout.contains("ops/s; footprint "), "{stdout}");
    let results = common::read_json(&json);
    assert_no_failures(&results);
    let all = samples(&results);
    assert_eq!(all.len(), 2, "pread and mmap, one run each");
    for (case, sample) in &all {
        assert_eq!(case["duration_s"], 2);
        let kind = case["memory_budget"]["kind"].as_str().unwrap();
        assert!(kind.starts_with("cgroup-v"), "{kind}");
        let limit = case["memory_budget"]["limit_bytes"].as_u64().unwrap();
        assert_eq!(limit, 32 << 20);
        let timeline = sample["timeline"].as_array().expect("a timeline");
        assert_eq!(timeline.len(), 2, "one point per second: {timeline:?}");
        for p in timeline {
            assert!(
                p["reads"].as_u64().unwrap() > 0,
                "{} read nothing: {p}",
                case["label"]
            );
            let used = p["cgroup_bytes"].as_u64().expect("the cgroup's usage");
            assert!(
                used > 0 && used <= limit,
                "{} used {used} of {limit}",
                case["label"]
            );
        }
        let ops = sample["ops"].as_u64().unwrap();
        let counted: u64 = timeline.iter().map(|p| p["reads"].as_u64().unwrap()).sum();
        assert!(
            ops >= counted,
            "{ops} operations, {counted} in the timeline"
        );
        assert!(sample["footprint"]["distinct"].as_u64().unwrap() > 0);
    }
}

/// A budget the file fits in is allowed, with a warning that it has no
/// effect (as root, who may create the cgroup).
#[test]
#[ignore = "needs root"]
fn a_budget_larger_than_the_file_warns_that_it_has_no_effect() {
    common::require_root("a memory cgroup for --memory-budget");
    let s = Scratch::new();
    let out = s
        .run(
            Flags::new()
                .size("4M")
                .method("pread")
                .cache("warm")
                .runs(1)
                .flag("--memory-budget", "64M"),
        )
        .output()
        .expect("faultline runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Warnings wrap at the console's width: read them flattened.
    let flat = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(flat.matches("has no effect").count(), 1, "{stderr}");
    assert!(
        flat.contains("warning: memory budget 64 MiB is not smaller than the 4 MiB file: every page fits, so the budget has no effect on it"),
        "{stderr}"
    );
}
