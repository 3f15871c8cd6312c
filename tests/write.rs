//! The write methods, end to end: the real binary on small files (16 MiB at most).
mod common;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use common::{
    assert_no_failures, cases, entries, failures, labels, one_line_besides_damon, read_json,
    samples, trial_spec, with_file_size_limit, Flags, Mount, Scratch,
};

const WRITERS: &str = "write,pwrite,mmap-write";

/// The sum of the `pattern` fill's bytes over a file of `len` bytes.
fn pattern_sum(len: usize) -> u64 {
    let mut bytes = vec![0u8; len];
    faultline::workload::fill_pattern(0, &mut bytes);
    bytes.iter().map(|&b| b as u64).sum()
}

#[test]
fn checksums_agree_across_write_methods_and_equal_the_patterns_sum() {
    let scratch = Scratch::new();
    let size = 3 << 20;
    let results = scratch.run_json(
        Flags::new()
            .size("3M")
            .method(WRITERS)
            .pattern("seq,random")
            .block("4k,12345")
            .fill("zero,pattern")
            .target("fresh,overwrite")
            .cache("as-is")
            .runs(2),
    );
    let expected = pattern_sum(size);
    let mut by_key: HashMap<String, Vec<(String, u64)>> = HashMap::new();
    for (case, sample) in samples(&results) {
        assert_eq!(case["workload"], "fill");
        assert_eq!(sample["bytes"], size as u64);
        let key = format!(
            "{} {} {} {}",
            case["pattern"], case["block_size"], case["fill"], case["target"]
        );
        by_key.entry(key).or_default().push((
            case["method"].as_str().unwrap().to_string(),
            sample["checksum"].as_u64().unwrap(),
        ));
    }
    assert_eq!(by_key.len(), 2 * 2 * 2 * 2, "every combination measured");
    for (key, sums) in by_key {
        let methods: HashSet<_> = sums.iter().map(|s| s.0.clone()).collect();
        assert_eq!(methods.len(), 3, "all three methods for {key}");
        let want = if key.contains("zero") { 0 } else { expected };
        assert!(
            sums.iter().all(|s| s.1 == want),
            "checksums for {key}: {sums:?}, want {want}"
        );
    }
    assert_no_failures(&results);
    assert!(
        entries(&scratch.data_dir().join("scratch")).is_empty(),
        "scratch files removed"
    );
}

#[test]
fn a_pattern_written_by_each_method_reads_back_as_its_sum() {
    let scratch = Scratch::new();
    let dir = tempfile::tempdir().unwrap();
    let size = (1 << 20) + 3;
    let written = scratch.run_json(
        Flags::new()
            .size(size.to_string())
            .method(WRITERS)
            .block("64k")
            .runs(1)
            .dir(dir.path())
            .switch("--keep"),
    );
    let sum = pattern_sum(size);
    for (_, sample) in samples(&written) {
        assert_eq!(sample["checksum"].as_u64().unwrap(), sum);
    }
    // --keep: faultline's own directory in --dir holds one file per case.
    let own = entries(dir.path());
    assert_eq!(own.len(), 1, "{own:?}");
    let name = own[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("faultline-scratch-"), "{name}");
    let kept = entries(&own[0]);
    assert_eq!(kept.len(), 3, "{kept:?}");
    for file in kept {
        let read = scratch.run_json(
            Flags::new()
                .file(&file)
                .method("read,mmap")
                .workload("sum")
                .block("16k")
                .cache("as-is")
                .runs(1),
        );
        for (_, sample) in samples(&read) {
            assert_eq!(sample["checksum"].as_u64().unwrap(), sum, "{file:?}");
        }
    }
}

#[test]
fn random_one_byte_writes_work_for_every_write_method() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("2M")
            .method(WRITERS)
            .pattern("random")
            .block("1")
            .runs(1),
    );
    let all = samples(&results);
    assert_eq!(all.len(), 3);
    let sum = pattern_sum(2 << 20);
    for (case, sample) in all {
        assert_eq!(
            sample["checksum"].as_u64().unwrap(),
            sum,
            "{}",
            case["method"]
        );
        assert_eq!(sample["bytes"], 2 << 20);
        if case["method"] == "mmap-write" {
            assert_eq!(sample["syscalls"], 0);
        } else {
            // pwrite: one call per byte; write: an lseek and a write per byte.
            assert!(sample["syscalls"].as_u64().unwrap() >= 2 << 20);
        }
    }
}

#[test]
fn random_one_byte_reads_work_for_every_read_method() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("2M")
            .method("read,pread,mmap,mmap-copy")
            .pattern("random")
            .block("1")
            .cache("as-is")
            .runs(1),
    );
    let sums: HashSet<u64> = samples(&results)
        .iter()
        .map(|(_, s)| s["checksum"].as_u64().unwrap())
        .collect();
    assert_eq!(samples(&results).len(), 4);
    assert_eq!(sums.len(), 1, "{sums:?}");
}

#[test]
fn sync_time_is_reported_apart_and_added_to_the_total() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("1M")
            .method(WRITERS)
            .block("256k")
            .sync("none,end,each")
            .flag("--sync-call", "fsync,fdatasync")
            .flag("--size-with", "truncate,fallocate")
            .runs(1),
    );
    let labels = labels(&results);
    for label in [
        "write",
        "write(sync=end)",
        "write(sync=each,sync-call=fdatasync)",
        "pwrite(sync=end,sync-call=fdatasync)",
        "mmap-write",
        "mmap-write(size-with=fallocate)",
        "mmap-write(sync=each,size-with=fallocate)",
    ] {
        assert!(labels.contains(label), "{label} missing from {labels:?}");
    }
    // 2 methods x (none + 2 syncs x 2 calls) + mmap-write x 3 syncs x 2 sizings.
    assert_eq!(labels.len(), 2 * 5 + 3 * 2);
    for (case, s) in samples(&results) {
        let parts: u64 = ["setup_ns", "wall_ns", "sync_ns", "teardown_ns"]
            .iter()
            .map(|f| s[*f].as_u64().unwrap())
            .sum();
        assert_eq!(s["total_ns"].as_u64().unwrap(), parts, "{}", case["label"]);
        let sync_ns = s["sync_ns"].as_u64().unwrap();
        match case["sync"].as_str().unwrap() {
            "none" => assert_eq!(sync_ns, 0, "{}", case["label"]),
            _ => assert!(sync_ns > 0, "{}", case["label"]),
        }
        let syncs_per_block = case["sync"] == "each";
        if case["method"] == "mmap-write" {
            assert!(case["sync_call"].is_null());
            let msyncs = if syncs_per_block { 4 } else { 0 };
            assert_eq!(s["syscalls"], msyncs);
        } else {
            assert!(case["size_with"].is_null());
            let calls = if syncs_per_block { 8 } else { 4 };
            assert_eq!(s["syscalls"], calls, "{}", case["label"]);
        }
    }
}

#[test]
fn overwrite_targets_take_the_cache_state_and_fresh_ones_are_as_is() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("4M")
            .method(WRITERS)
            .block("64k")
            .target("fresh,overwrite")
            .cache("warm,cold")
            .runs(2),
    );
    // fresh: one as-is group; overwrite: a warm and a cold group.
    assert_eq!(cases(&results).len(), 3 * 3);
    for (case, s) in samples(&results) {
        let before = s["residency_before"].as_f64().unwrap();
        match (
            case["target"].as_str().unwrap(),
            case["cache"].as_str().unwrap(),
        ) {
            ("fresh", "as-is") => {}
            ("overwrite", "warm") => assert!(before >= 0.99, "{before}"),
            ("overwrite", "cold") => assert!(before <= 0.01, "{before}"),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(s["cache_reached"], true);
    }
    let groups: HashSet<String> = results["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["group"].as_str().unwrap().to_string())
        .collect();
    assert!(
        groups.contains("seq 64 KiB fill pattern, fresh file"),
        "{groups:?}"
    );
    assert!(
        groups.contains("seq 64 KiB fill pattern, overwrite, cold"),
        "{groups:?}"
    );
}

#[test]
fn dir_gets_a_private_directory_of_faultlines_own_and_is_left_as_it_was() {
    let scratch = Scratch::new();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("precious.txt"), b"mine").unwrap();
    let results = scratch.run_json(
        Flags::new()
            .size("1M")
            .method(WRITERS)
            .target("fresh,overwrite")
            .block("64k")
            .runs(1)
            .dir(dir.path()),
    );
    let used = results["settings"]["scratch_dir"].as_str().unwrap();
    assert!(Path::new(used).starts_with(dir.path()), "{used}");
    assert_eq!(entries(dir.path()), vec![dir.path().join("precious.txt")]);
    assert_eq!(
        std::fs::read(dir.path().join("precious.txt")).unwrap(),
        b"mine"
    );
    // The data directory holds the run's lock, and no test file.
    assert!(
        common::file_ending(&scratch.data_dir(), ".data").is_none(),
        "no test file generated for write methods"
    );
}

// ---- bad input and faults ------------------------------------------------

#[test]
fn a_missing_dir_is_refused() {
    Scratch::new().refused(
        ["--method", "write", "--dir", "/nonexistent/faultline"],
        &["no such directory"],
    );
}

#[test]
fn a_dir_that_is_a_file_is_refused() {
    let file = tempfile::NamedTempFile::new().unwrap();
    Scratch::new().refused(
        Flags::new().method("pwrite").dir(file.path()),
        &["is not a directory"],
    );
}

#[test]
fn a_dir_that_is_not_writable_is_refused() {
    let scratch = Scratch::new();
    if faultline::system::current_uid() == 0 {
        // Root writes through permission bits: use a read-only file system.
        let ro = Mount::new("tmpfs", "ro,size=1m");
        scratch.refused(
            Flags::new().method("write").dir(ro.path()),
            &["is not writable"],
        );
        assert!(entries(ro.path()).is_empty());
    } else {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o500)).unwrap();
        let out = scratch
            .run(Flags::new().method("write").dir(dir.path()))
            .output()
            .unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        common::one_line(&out, 2, &["is not writable"]);
    }
}

#[test]
#[ignore = "needs root"]
fn a_file_system_that_refuses_mmap_writes_is_refused() {
    // The POSIX message-queue file system creates files but has no mmap.
    let mq = Mount::new("mqueue", "rw");
    Scratch::new().refused(
        Flags::new().method("mmap-write").dir(mq.path()),
        &["refuses shared writable mappings"],
    );
    assert!(entries(mq.path()).is_empty(), "the probe file is removed");
}

#[test]
fn a_write_method_with_a_users_file_is_refused_and_the_file_untouched() {
    let scratch = Scratch::new();
    let file = scratch.path("mine.bin");
    std::fs::write(&file, vec![9u8; 100_000]).unwrap();
    for method in ["write", "pwrite", "mmap-write", "read,write"] {
        scratch.refused(
            Flags::new().method(method).file(&file),
            &["write methods only write files faultline creates; --file is for read methods"],
        );
    }
    assert_eq!(std::fs::read(&file).unwrap(), vec![9u8; 100_000]);
}

#[test]
fn write_methods_need_the_fill_workload_and_a_permutation() {
    let scratch = Scratch::new();
    scratch.refused(
        ["--method", "write", "--workload", "sum"],
        &["need --workload fill"],
    );
    scratch.refused(
        ["--method", "read", "--workload", "fill"],
        &["--workload fill is for write methods"],
    );
    scratch.refused(
        ["--method", "mmap-write", "--pattern", "random-replace"],
        &["write methods take seq or random"],
    );
}

#[test]
fn a_full_disk_fails_the_trial_with_a_reason_and_leaves_no_file() {
    for (method, target) in [
        ("write", "fresh"),
        ("pwrite", "fresh"),
        ("mmap-write", "fresh"),
        ("pwrite", "overwrite"),
    ] {
        let scratch = Scratch::new();
        let dir = tempfile::tempdir().unwrap();
        let json = scratch.path("out.json");
        let flags = Flags::new()
            .size("4M")
            .method(method)
            .target(target)
            .block("64k")
            .runs(2)
            .dir(dir.path())
            .export_json(&json);
        let out = with_file_size_limit(&mut scratch.run(flags), 1 << 20)
            .output()
            .unwrap();
        let line = one_line_besides_damon(&out, 1, &["disk full (", "File too large"]);
        assert!(
            entries(dir.path()).is_empty(),
            "{method} {target}: left {:?}",
            entries(dir.path())
        );
        if target == "fresh" {
            // The trial ran and failed: it is in the exports, with its reason.
            assert!(line.contains(&format!("{method} (seq 64 KiB")), "{line}");
            let results = read_json(&json);
            let failures = failures(&results);
            assert_eq!(failures.len(), 1, "{failures:?}");
            assert!(failures[0]["reason"]
                .as_str()
                .unwrap()
                .starts_with("disk full ("));
        }
    }
}

// ---- direct-write, uring-write and uring-direct-write --------------------

/// The O_DIRECT and io_uring write methods beside `write`.
const NEW_WRITERS: &str = "write,direct-write,uring-write,uring-direct-write";

#[test]
fn direct_and_uring_writes_agree_with_write_and_read_back() {
    let scratch = Scratch::new();
    // 3 MiB: a multiple of every logical block size, as O_DIRECT needs.
    let size = 3 << 20;
    let results = scratch.run_json(
        Flags::new()
            .size("3M")
            .method(NEW_WRITERS)
            .pattern("seq,random")
            .block("4k,64k")
            .fill("zero,pattern")
            .target("fresh,overwrite")
            .depth("1,32")
            .flag("--uring-registered", "off,on")
            .cache("as-is")
            .runs(1),
    );
    // Every trial's file was read back by the runner: a wrong byte fails it.
    assert_no_failures(&results);
    let expected = pattern_sum(size);
    let mut by_key: HashMap<String, HashSet<String>> = HashMap::new();
    let mut batched = 0;
    for (case, sample) in samples(&results) {
        let label = case["label"].as_str().unwrap().to_string();
        assert_eq!(sample["bytes"], size as u64, "{label}");
        let want = if case["fill"] == "zero" { 0 } else { expected };
        assert_eq!(sample["checksum"].as_u64().unwrap(), want, "{label}");
        let blocks = size as u64 / case["block_size"].as_u64().unwrap();
        let syscalls = sample["syscalls"].as_u64().unwrap();
        if label.contains("depth=32") {
            // At most one io_uring_enter per write; how many writes each
            // one carries depends on how they complete (docs/paths.md).
            assert!(syscalls <= blocks, "{label}: {syscalls} for {blocks}");
            if syscalls * 4 <= blocks {
                batched += 1;
            }
        } else if label.starts_with("direct-write") || label.contains("depth=1") {
            assert_eq!(syscalls, blocks, "{label}");
        }
        let key = format!(
            "{} {} {} {}",
            case["pattern"], case["block_size"], case["fill"], case["target"]
        );
        by_key.entry(key).or_default().insert(label);
    }
    assert!(
        batched > 0,
        "no depth-32 trial carried 4 writes per system call"
    );
    assert_eq!(by_key.len(), 2 * 2 * 2 * 2, "every combination measured");
    for (key, labels) in by_key {
        // write, direct-write, and 2 depths x 2 registrations of each uring method.
        assert_eq!(labels.len(), 2 + 2 * 4, "{key}: {labels:?}");
        for label in [
            "direct-write",
            "uring-write(depth=1)",
            "uring-write(depth=32,registered)",
            "uring-direct-write(depth=32)",
            "uring-direct-write(depth=1,registered)",
        ] {
            assert!(labels.contains(label), "{label} missing for {key}");
        }
    }
    assert!(entries(&scratch.data_dir().join("scratch")).is_empty());
}

#[test]
fn files_written_by_direct_and_uring_writes_read_back_with_read_and_mmap() {
    let scratch = Scratch::new();
    let dir = tempfile::tempdir().unwrap();
    let size = 1 << 20;
    scratch.run_json(
        Flags::new()
            .size("1M")
            .method("direct-write,uring-write,uring-direct-write")
            .pattern("random")
            .block("16k")
            .depth("32")
            .runs(1)
            .dir(dir.path())
            .switch("--keep"),
    );
    let own = entries(dir.path());
    assert_eq!(own.len(), 1, "{own:?}");
    let kept = entries(&own[0]);
    assert_eq!(kept.len(), 3, "{kept:?}");
    let mut want = vec![0u8; size];
    faultline::workload::fill_pattern(0, &mut want);
    for file in kept {
        assert!(std::fs::read(&file).unwrap() == want, "{file:?}");
    }
}

#[test]
fn sync_policies_apply_to_direct_and_uring_writes() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("1M")
            .method("direct-write,uring-write,uring-direct-write")
            .block("256k")
            .sync("none,end,each")
            .flag("--sync-call", "fsync,fdatasync")
            .target("fresh,overwrite")
            .cache("as-is")
            .runs(1),
    );
    assert_no_failures(&results);
    let labels = labels(&results);
    for label in [
        "direct-write",
        "direct-write(sync=end)",
        "direct-write(sync=each,sync-call=fdatasync)",
        "uring-write(sync=end,depth=1)",
        "uring-write(sync=each,sync-call=fdatasync,depth=1)",
        "uring-direct-write(sync=each,depth=1)",
    ] {
        assert!(labels.contains(label), "{label} missing from {labels:?}");
    }
    // 3 methods x (none + 2 syncs x 2 calls).
    assert_eq!(labels.len(), 3 * 5);
    for (case, s) in samples(&results) {
        let label = case["label"].as_str().unwrap();
        assert!(case["size_with"].is_null(), "{label}");
        let sync_ns = s["sync_ns"].as_u64().unwrap();
        let syscalls = s["syscalls"].as_u64().unwrap();
        let uring = case["method"] != "direct-write";
        match case["sync"].as_str().unwrap() {
            "none" => {
                assert_eq!(sync_ns, 0, "{label}");
                assert_eq!(syscalls, 4, "{label}");
            }
            "end" => {
                assert!(sync_ns > 0, "{label}");
                assert_eq!(syscalls, 4, "{label}");
            }
            _ if uring => {
                // Each write is linked to an IORING_OP_FSYNC inside the
                // ring: the pair takes one io_uring_enter at depth 1, and
                // its time is in the main loop, not in sync_ns.
                assert_eq!(sync_ns, 0, "{label}");
                assert_eq!(syscalls, 4, "{label}");
                // The syncs happened: the data reached the device during the
                // trial (a buffered write alone leaves it dirty in the cache).
                if let Some(written) = s["device"]["write_bytes"].as_u64() {
                    assert!(written >= 1 << 20, "{label}: {written} bytes");
                }
            }
            _ => {
                assert!(sync_ns > 0, "{label}");
                assert_eq!(syscalls, 8, "a pwrite and a sync per block: {label}");
            }
        }
    }
}

#[test]
fn direct_writes_with_a_misaligned_block_or_file_size_are_refused_with_the_alignment() {
    let scratch = Scratch::new();
    for method in ["direct-write", "uring-direct-write", "write,direct-write"] {
        scratch.refused(
            ["--method", method, "--block", "1000", "--size", "1M"],
            &[
                "is not a multiple of",
                "--block 1000 is not",
                "aligned to",
                "try",
            ],
        );
    }
    // An aligned block, but a file whose end is not aligned.
    let line = scratch.refused(
        [
            "--method",
            "uring-direct-write",
            "--block",
            "4k",
            "--size",
            "1000001",
        ],
        &["--size 1000001 is not a multiple of"],
    );
    assert!(
        line.starts_with("error: --method uring-direct-write: O_DIRECT writes need"),
        "{line}"
    );
    assert!(
        line.contains("logical block size of device") || line.contains("assumed"),
        "{line}"
    );
    assert!(
        !scratch.data_dir().join("scratch").exists(),
        "refused before anything was created"
    );
}

#[test]
#[ignore = "needs root"]
fn a_file_system_that_refuses_o_direct_writes_is_named() {
    // ramfs has no direct I/O at all (tmpfs has had one since Linux 6.6).
    let ramfs = Mount::new("ramfs", "rw");
    let scratch = Scratch::new();
    for method in ["direct-write", "uring-direct-write", "pwrite,direct-write"] {
        scratch.refused(
            Flags::new()
                .method(method)
                .block("4k")
                .size("1M")
                .dir(ramfs.path()),
            &[
                "the ramfs file system refuses O_DIRECT",
                "use --method pwrite or uring-write",
            ],
        );
        assert!(
            entries(ramfs.path()).is_empty(),
            "the probe file is removed"
        );
    }
    // The trial refuses it too (a plan resumed elsewhere skips the probe).
    let target = ramfs.path().join("faultline-fresh-1-case0.data");
    std::fs::write(&target, b"").unwrap();
    let mut spec = trial_spec(
        &target,
        faultline::method::MethodKind::DirectWrite,
        1 << 20,
        4096,
    );
    spec.case.workload = faultline::workload::WorkloadKind::Fill;
    spec.case.sync = Some(faultline::method::SyncPolicy::None);
    spec.case.target = Some(faultline::plan::Target::Fresh);
    spec.case.fill = Some(faultline::workload::FillContent::Pattern);
    let err = faultline::trial::run_trial(&spec).unwrap_err().to_string();
    assert!(
        err.contains("O_DIRECT refused")
            && err.contains("use --method pwrite or uring-write")
            && err.contains("(file system: ramfs)"),
        "{err}"
    );
    assert_eq!(std::fs::read(&target).unwrap(), b"", "nothing written");
    std::fs::remove_file(&target).unwrap();
    // Without O_DIRECT, io_uring writes run there.
    let results = scratch.run_json(
        Flags::new()
            .method("uring-write")
            .block("4k")
            .size("1M")
            .runs(1)
            .dir(ramfs.path()),
    );
    assert_no_failures(&results);
}

#[test]
fn a_full_disk_fails_a_direct_or_uring_write_trial_with_its_reason() {
    for (method, depth, limit) in [
        ("direct-write", "1", 1 << 20),
        ("uring-write", "1", 1 << 20),
        ("uring-direct-write", "1", 1 << 20),
        // The write that crosses an unaligned limit is short: the rest is
        // resubmitted, and only then refused, at the limit.
        ("uring-write", "1", (1 << 20) + 1000),
        // Several writes past the limit in flight: whichever completes first is reported.
        ("uring-write", "8", 1 << 20),
        ("uring-direct-write", "8", 1 << 20),
    ] {
        let scratch = Scratch::new();
        let dir = tempfile::tempdir().unwrap();
        let json = scratch.path("out.json");
        let flags = Flags::new()
            .size("4M")
            .method(method)
            .depth(depth)
            .block("64k")
            .runs(2)
            .dir(dir.path())
            .export_json(&json);
        let out = with_file_size_limit(&mut scratch.run(flags), limit)
            .output()
            .unwrap();
        let line = one_line_besides_damon(&out, 1, &["disk full (", "File too large"]);
        let at: u64 = line
            .split("at byte ")
            .nth(1)
            .and_then(|rest| rest.split(':').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no byte in {line}"));
        if depth == "1" {
            assert_eq!(at, limit, "{line}");
        } else {
            assert!(at >= limit, "{line}");
        }
        assert!(entries(dir.path()).is_empty(), "{method}: left files");
        let results = read_json(&json);
        let failures = failures(&results);
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(failures[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("disk full ("));
    }
}

#[test]
#[ignore = "needs root"]
fn mmap_write_on_a_full_file_system_stops_the_run_as_write_does() {
    // A 1 MiB tmpfs: write() gets ENOSPC; a store into a shared mapping of
    // a sparse file gets SIGBUS, which the trial turns into the same line.
    let mount = common::Mount::new("tmpfs", "size=1m");
    for method in ["write", "mmap-write"] {
        let scratch = Scratch::new();
        let out = scratch
            .run(
                Flags::new()
                    .method(method)
                    .size("4M")
                    .block("64k")
                    .runs(2)
                    .dir(mount.path()),
            )
            .output()
            .unwrap();
        let line = common::one_line_besides_damon(
            &out,
            1,
            &[
                &format!(
                    "error: {method} (seq 64 KiB fill pattern, fresh file), run 0: disk full ("
                ),
                "the run stopped and removed its files",
                "resume with: faultline run --resume",
            ],
        );
        assert!(!line.contains("killed by SIGBUS"), "{line}");
        assert!(
            common::entries(mount.path()).is_empty(),
            "{method} left files behind"
        );
    }
}
