//! `--procs`: processes at once share a mapping's pages, while read() copies
//! the file into each.
mod common;

use common::{samples, user_file, Flags, Scratch};

#[test]
fn a_shared_mapping_costs_each_process_less_pss_than_a_whole_read_copy() {
    let s = Scratch::new();
    let file = s.path("data.bin");
    user_file(&file, 8 << 20);
    let json = s.run_json(
        Flags::new()
            .file(&file)
            // One block = the file, so read holds a whole private copy.
            .block("8M")
            .method("read,mmap")
            .workload("sum")
            .flag("--procs", "2")
            .cache("warm")
            .runs(3),
    );
    let mut pss = std::collections::BTreeMap::<String, Vec<u64>>::new();
    for (case, sample) in samples(&json) {
        let procs = sample["procs"].as_array().expect("per-process figures");
        assert_eq!(procs.len(), 2);
        for p in procs {
            assert!(p["max_rss_kib"].as_u64().unwrap() > 0);
            assert!(p["total_ns"].as_u64().unwrap() > 0);
            pss.entry(case["method"].as_str().unwrap().to_string())
                .or_default()
                .push(p["pss_kib"].as_u64().expect("PSS read"));
        }
    }
    let median = |v: &mut Vec<u64>| {
        v.sort();
        v[v.len() / 2]
    };
    let read = median(pss.get_mut("read").unwrap());
    let mmap = median(pss.get_mut("mmap").unwrap());
    // read holds its own 8 MiB; two mappings split 8 MiB of page cache: ~4 MiB less each.
    assert!(
        mmap + 2048 < read,
        "mmap's PSS {mmap} KiB should be clearly below read's {read} KiB"
    );
}

#[test]
fn procs_are_refused_for_write_methods() {
    Scratch::new().refused(
        ["--size", "256k", "--method", "write", "--procs", "2"],
        &["--procs is for read methods"],
    );
}
