//! `--threads`: split covers every block once, replicate agrees with one
//! thread, and each thread's time is reported within the trial's.
mod common;

use common::{faultline, samples, succeeded, Flags, Scratch};

#[test]
fn split_and_replicate_checksums_equal_the_one_thread_checksum() {
    let s = Scratch::new();
    for workload in ["sum", "touch"] {
        let json = s.run_json(
            Flags::new()
                .size("1M")
                .block("4k")
                .pattern("seq,random")
                .method("read,pread,mmap")
                .workload(workload)
                .threads("1,2,3")
                .thread_mode("split,replicate")
                .cache("warm")
                .runs(1),
        );
        let all = samples(&json);
        // 2 patterns x 3 methods x (1 thread + 2 counts x 2 modes)
        assert_eq!(all.len(), 2 * 3 * 5);
        let one = all
            .iter()
            .find(|(c, _)| c["threads"].is_null())
            .map(|(_, s)| s["checksum"].clone())
            .unwrap();
        assert_ne!(one, 0);
        for (case, sample) in &all {
            assert_eq!(sample["checksum"], one, "{workload} {}", case["label"]);
            let Some(t) = case["threads"].as_object() else {
                assert!(sample.get("thread_ns").is_none());
                continue;
            };
            let n = t["count"].as_u64().unwrap() as usize;
            let per: Vec<u64> = sample["thread_ns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(per.len(), n);
            assert!(per.iter().all(|&ns| ns > 0));
            let total = sample["total_ns"].as_u64().unwrap();
            assert!(total >= *per.iter().max().unwrap(), "{total} vs {per:?}");
            let bytes = sample["bytes"].as_u64().unwrap();
            let expected = match t["mode"].as_str().unwrap() {
                "split" => 1 << 20,
                _ => n as u64 * (1 << 20),
            };
            assert_eq!(bytes, expected, "{}", case["label"]);
        }
    }
}

#[test]
fn digests_replicate_but_refuse_split() {
    let s = Scratch::new();
    let json = s.run_json(
        Flags::new()
            .size("256k")
            .block("16k")
            .method("read,mmap")
            .workload("md5")
            .threads("1,4")
            .thread_mode("replicate")
            .cache("warm")
            .runs(1),
    );
    let sums: Vec<_> = samples(&json)
        .iter()
        .map(|(_, s)| s["checksum"].clone())
        .collect();
    assert_eq!(sums.len(), 4);
    assert!(sums.iter().all(|c| *c == sums[0]), "{sums:?}");

    s.refused(
        ["--size", "256k", "--workload", "md5", "--threads", "2"],
        &["--thread-mode split needs a workload"],
    );
}

#[test]
fn threads_are_refused_for_write_methods() {
    Scratch::new().refused(
        ["--size", "256k", "--method", "write", "--threads", "2"],
        &["--threads is for read methods"],
    );
}

#[test]
fn a_thread_mode_without_threads_is_refused_not_ignored() {
    Scratch::new().refused(
        ["--size", "256k", "--thread-mode", "replicate"],
        &["--threads"],
    );
}

#[test]
fn the_table_and_reports_show_each_threaded_or_multi_process_case_spread() {
    let s = Scratch::new();
    let md = s.path("out.md");
    let html = s.path("out.html");
    let out = succeeded(
        &mut s.run(
            Flags::new()
                .size("1M")
                .block("64k")
                .method("read,mmap")
                .threads("2")
                .cache("warm")
                .runs(2)
                .flag("--export-markdown", &md),
        ),
    );
    // Long lines wrap at the terminal's width: compare the words.
    let table = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let section = table
        .split("Threads and processes:")
        .nth(1)
        .unwrap_or_else(|| panic!("no spread section in:\n{table}"));
    for method in ["read", "mmap"] {
        assert!(
            section.contains(&format!(
                ": {method}: 2 threads × 2 trials, each thread's time median "
            )),
            "{section}"
        );
    }
    assert!(std::fs::read_to_string(&md)
        .unwrap()
        .contains("## Threads and processes"));
    // The HTML report of the same results lists them too.
    let procs = succeeded(
        &mut s.run(
            Flags::new()
                .size("256k")
                .method("mmap")
                .flag("--procs", "2")
                .runs(1)
                .export_json(&s.path("procs.json")),
        ),
    );
    let procs_table = String::from_utf8_lossy(&procs.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        procs_table.contains("2 processes × 1 trials") && procs_table.contains("peak RSS "),
        "{procs_table}"
    );
    succeeded(
        faultline()
            .arg("report")
            .arg(s.path("procs.json"))
            .arg("-o")
            .arg(&html),
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<section id=\"spread\">") && page.contains("2 processes"));
}
