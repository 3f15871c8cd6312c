//! `--procs`: processes at once share a mapping's pages, while read() copies
//! the file into each.
mod common;

use common::{samples, Scratch};

#[test]
fn a_shared_mapping_costs_each_process_less_pss_than_a_whole_read_copy() {
    let s = Scratch::new();
    let file = s.path("data.bin");
    let bytes: Vec<u8> = (0..8u32 << 20)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(&file, &bytes).unwrap();
    let json = s.run_json(&[
        "--file",
        file.to_str().unwrap(),
        // One block = the file, so read holds a whole private copy.
        "--block",
        "8M",
        "--method",
        "read,mmap",
        "--workload",
        "sum",
        "--procs",
        "2",
        "--cache",
        "warm",
        "--runs",
        "3",
    ]);
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
    let s = Scratch::new();
    let out = s
        .run(&["--size", "256k", "--method", "write", "--procs", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--procs is for read methods"), "{stderr}");
}
