//! The other paths bytes take: O_DIRECT, io_uring, stdio and preadv, run
//! end to end through the real binary on small files.
mod common;

use std::collections::{HashMap, HashSet};

use common::{
    assert_no_failures, one_line, read_json, samples, succeeded, trial_spec, user_file, Flags,
    Mount, Scratch,
};
use faultline::method::MethodKind;

/// Runs the file, block sizes, methods (`read` and the ones it is compared
/// with) and options in `flags` over seq, random and random-replace orders
/// with touch and sum, and checks that every method gave the same checksum
/// for the same bytes. Returns the method labels seen.
fn checksums_agree(scratch: &Scratch, flags: Flags) -> HashSet<String> {
    let results = scratch.run_json(
        flags
            .pattern("seq,random,random-replace")
            .workload("touch,sum")
            .cache("as-is")
            .runs(1),
    );
    let mut by_key: HashMap<String, Vec<(String, u64)>> = HashMap::new();
    let mut labels = HashSet::new();
    for (case, sample) in samples(&results) {
        let key = format!(
            "{} {} {}",
            case["pattern"], case["block_size"], case["workload"]
        );
        let label = case["label"].as_str().unwrap().to_string();
        labels.insert(label.clone());
        let checksum = sample["checksum"].as_u64().unwrap();
        assert_ne!(checksum, 0, "{label} {key}");
        assert_eq!(sample["bytes"], sample["bytes"].as_u64().unwrap().max(1));
        by_key.entry(key).or_default().push((label, checksum));
    }
    assert_no_failures(&results);
    assert!(!by_key.is_empty());
    for (key, sums) in &by_key {
        assert!(
            sums.iter().all(|s| s.1 == sums[0].1),
            "checksums differ for {key}: {sums:?}"
        );
        assert!(sums.len() > 1, "only one method for {key}");
    }
    labels
}

#[test]
fn direct_agrees_with_read_on_aligned_blocks_and_a_short_last_block() {
    let scratch = Scratch::new();
    // 5 MiB + 1000 bytes: the last block is short and not aligned, which
    // O_DIRECT reads as a short read at the end of the file.
    let file = scratch.path("odd.bin");
    user_file(&file, (5 << 20) + 1000);
    let labels = checksums_agree(
        &scratch,
        Flags::new()
            .file(&file)
            .block("4k,64k")
            .method("read,direct"),
    );
    assert!(labels.contains("direct"));
}

#[test]
fn direct_with_a_misaligned_block_is_refused_with_the_alignment() {
    let scratch = Scratch::new();
    let line = scratch.refused(
        ["--size", "1M", "--method", "read,direct", "--block", "1000"],
        &[
            "error: --method direct:",
            "is not a multiple of",
            "try 512 or 1024",
        ],
    );
    // The device's logical block size, or the stated fallback.
    assert!(
        line.contains("logical block size of device") || line.contains("assumed"),
        "{line}"
    );
    let line = scratch.refused(
        ["--size", "1M", "--method", "direct", "--block", "100"],
        &["try 512"],
    );
    assert!(line.contains("--block 100 is not"), "{line}");
}

#[test]
#[ignore = "needs root"]
fn a_file_system_that_refuses_o_direct_is_named() {
    // ramfs has no direct I/O at all. (tmpfs refused O_DIRECT too until
    // Linux 6.6, which gave it a trivial direct I/O path.)
    let mount = Mount::new("ramfs", "rw");
    let file = mount.path().join("data.bin");
    user_file(&file, 1 << 20);
    let scratch = Scratch::new();
    for method in ["direct", "read,direct"] {
        scratch.refused(
            Flags::new()
                .file(&file)
                .method(method)
                .block("4k")
                .cache("as-is"),
            &[
                "the ramfs file system refuses O_DIRECT",
                "use --method pread",
            ],
        );
    }
    // The trial refuses it too (a plan resumed elsewhere skips the preflight).
    let err = faultline::trial::run_trial(&trial_spec(&file, MethodKind::Direct, 1 << 20, 4096))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("O_DIRECT refused") && err.contains("(file system: ramfs)"),
        "{err}"
    );
}

#[test]
#[ignore = "needs root"]
fn tmpfs_either_refuses_o_direct_clearly_or_agrees_with_read() {
    let mount = Mount::new("tmpfs", "rw");
    let file = mount.path().join("data.bin");
    user_file(&file, 1 << 20);
    let scratch = Scratch::new();
    let flags = Flags::new().file(&file).method("read,direct").block("4k");
    let once = flags.clone().cache("as-is").runs(1);
    let out = scratch.run(&once).output().unwrap();
    if out.status.success() {
        // Linux 6.6 and later: tmpfs accepts O_DIRECT.
        checksums_agree(&scratch, flags);
    } else {
        scratch.refused(&once, &["the tmpfs file system refuses O_DIRECT"]);
    }
}

#[test]
fn stdio_agrees_with_read_with_blocks_below_and_above_its_buffer() {
    let scratch = Scratch::new();
    let labels = checksums_agree(
        &scratch,
        Flags::new()
            .size("3M")
            .block("4k,12345")
            .method("read,stdio")
            .flag("--stdio-buffer", "8k,64k"),
    );
    assert!(labels.contains("stdio(buffer=8 KiB)"), "{labels:?}");
    assert!(labels.contains("stdio(buffer=64 KiB)"), "{labels:?}");
}

#[test]
fn stdio_makes_one_read_per_buffer_in_order() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("1M")
            .method("stdio")
            .pattern("seq")
            .block("4k")
            .flag("--stdio-buffer", "64k")
            .cache("as-is")
            .runs(1),
    );
    for (_, sample) in samples(&results) {
        // 1 MiB through a 64 KiB buffer: 16 reads, no seeks.
        assert_eq!(sample["syscalls"], 16);
    }
    let case = &results["cases"][0];
    assert_eq!(case["stdio_buffer"], 65536);
}

#[test]
fn out_of_range_method_options_are_refused() {
    let scratch = Scratch::new();
    scratch.refused(
        ["--size", "1M", "--method", "stdio", "--stdio-buffer", "0"],
        &["error: --stdio-buffer", "must be between 1 byte and 64 MiB"],
    );
    scratch.refused(
        [
            "--size", "128M", "--method", "preadv", "--block", "64M", "--iov", "32",
        ],
        &["error: --iov 32 with --block 64 MiB needs 2 GiB of buffers"],
    );
    scratch.refused(
        ["--method", "preadv", "--iov", "0"],
        &["--iov", "0 is not in 1..=1024"],
    );
}

#[test]
fn preadv_agrees_with_read_and_reads_n_blocks_per_call_in_order() {
    let scratch = Scratch::new();
    let labels = checksums_agree(
        &scratch,
        Flags::new()
            .size("3M")
            .block("4k,12345")
            .method("read,preadv")
            .flag("--iov", "1,7"),
    );
    assert!(
        labels.contains("preadv(iov=1)") && labels.contains("preadv(iov=7)"),
        "{labels:?}"
    );
    let results = scratch.run_json(
        Flags::new()
            .size("1M")
            .method("preadv")
            .pattern("seq")
            .block("4k")
            .flag("--iov", "16")
            .cache("as-is")
            .runs(1),
    );
    for (_, sample) in samples(&results) {
        // 256 blocks, 16 per call.
        assert_eq!(sample["syscalls"], 16);
    }
}

#[test]
fn uring_agrees_with_read_at_depths_1_and_32_with_and_without_registered_buffers() {
    let scratch = Scratch::new();
    let labels = checksums_agree(
        &scratch,
        Flags::new()
            .size("3M")
            .block("4k,12345")
            .method("read,uring")
            .depth("1,32")
            .flag("--uring-registered", "off,on"),
    );
    for label in [
        "uring(depth=1)",
        "uring(depth=32)",
        "uring(depth=1,registered)",
        "uring(depth=32,registered)",
    ] {
        assert!(labels.contains(label), "{label} missing from {labels:?}");
    }
}

#[test]
fn uring_direct_agrees_with_read_at_depths_1_and_32() {
    let scratch = Scratch::new();
    let file = scratch.path("odd.bin");
    // A short, unaligned last block, read by O_DIRECT as a short read at the end.
    user_file(&file, (3 << 20) + 777);
    let labels = checksums_agree(
        &scratch,
        Flags::new()
            .file(&file)
            .block("4k,64k")
            .method("read,uring-direct,direct")
            .depth("1,32")
            .switch("--uring-registered"),
    );
    assert!(
        labels.contains("uring-direct(depth=32,registered)"),
        "{labels:?}"
    );
    scratch.refused(
        [
            "--size",
            "1M",
            "--method",
            "uring-direct",
            "--block",
            "1000",
        ],
        &["error: --method uring-direct:", "not a multiple of"],
    );
}

#[test]
fn digests_agree_across_every_method_in_a_random_order() {
    // Digests depend on the order of the bytes, so this checks that uring
    // at depth 32 hands blocks over in submission order. Cold, so that the
    // device completes reads out of order. Every read method of the registry.
    let scratch = Scratch::new();
    let methods = common::read_methods(|_| true);
    let results = scratch.run_json(
        Flags::new()
            .size("2M")
            .method(&methods)
            .depth("32")
            .pattern("random,random-replace")
            .block("4k")
            .workload("sha256")
            .cache("cold")
            .runs(1),
    );
    let mut by_pattern: HashMap<String, HashSet<u64>> = HashMap::new();
    for (case, sample) in samples(&results) {
        by_pattern
            .entry(case["pattern"].to_string())
            .or_default()
            .insert(sample["checksum"].as_u64().unwrap());
    }
    assert_eq!(by_pattern.len(), 2);
    for (pattern, sums) in by_pattern {
        assert_eq!(sums.len(), 1, "{pattern}: {sums:?}");
    }
    let measured: HashSet<String> = samples(&results)
        .iter()
        .map(|(case, _)| case["method"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(measured.len(), methods.split(',').count(), "{measured:?}");
}

#[test]
fn uring_depth_32_keeps_many_reads_per_system_call() {
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("1M")
            .method("uring")
            .depth("1,32")
            .pattern("seq")
            .block("4k")
            .cache("as-is")
            .runs(1),
    );
    for (case, sample) in samples(&results) {
        let calls = sample["syscalls"].as_u64().unwrap();
        match case["depth"].as_u64().unwrap() {
            1 => assert_eq!(calls, 256, "one io_uring_enter per block"),
            32 => assert!(calls < 256 / 4, "{calls} io_uring_enter calls at depth 32"),
            d => panic!("depth {d}"),
        }
    }
}

#[test]
fn out_of_range_depths_are_refused() {
    let scratch = Scratch::new();
    scratch.refused(
        ["--method", "uring", "--depth", "0"],
        &["--depth", "0 is not in 1..=256"],
    );
    scratch.refused(
        ["--method", "uring", "--depth", "257"],
        &["257 is not in 1..=256"],
    );
}

/// Makes io_uring_setup fail with EPERM in this process and its children,
/// as a container runtime's seccomp profile does.
fn forbid_io_uring() -> std::io::Result<()> {
    const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    let filter = [
        // seccomp_data.nr is at offset 0.
        libc::sock_filter {
            code: LD_W_ABS,
            jt: 0,
            jf: 0,
            k: 0,
        },
        libc::sock_filter {
            code: JEQ_K,
            jt: 0,
            jf: 1,
            k: libc::SYS_io_uring_setup as u32,
        },
        libc::sock_filter {
            code: RET_K,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
        },
        libc::sock_filter {
            code: RET_K,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ALLOW,
        },
    ];
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr() as *mut _,
    };
    // SAFETY: prctl with valid arguments; `prog` outlives the calls.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            || libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &prog as *const _,
            ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[test]
fn a_seccomp_policy_that_refuses_io_uring_is_explained() {
    use std::os::unix::process::CommandExt;
    let scratch = Scratch::new();
    let mut cmd = scratch.run(["--size", "1M", "--method", "read,uring", "--runs", "1"]);
    // SAFETY: forbid_io_uring only calls prctl, which is async-signal-safe.
    unsafe { cmd.pre_exec(forbid_io_uring) };
    let line = one_line(&cmd.output().unwrap(), 2, &["seccomp"]);
    assert!(
        line.starts_with(
            "error: io_uring is not available: io_uring_setup failed (Operation not permitted"
        ),
        "{line}"
    );
    assert!(
        line.ends_with("use --method pread or direct instead"),
        "{line}"
    );
    assert!(
        !scratch.data_dir().exists(),
        "refused before generating anything"
    );
}

#[test]
fn latency_is_recorded_per_block_for_every_method_only_when_asked() {
    let scratch = Scratch::new();
    let csv = scratch.path("samples.csv");
    // Every read method of the registry.
    let methods = common::read_methods(|_| true);
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .size("2M")
                .method(&methods)
                .depth("32")
                .pattern("seq,random")
                .block("16k")
                .cache("as-is")
                .runs(2)
                // Every column, whatever the width.
                .switch("--verbose")
                .flag("--latency", "off,on")
                .export_json(&scratch.path("out.json"))
                .flag("--export-csv", &csv),
        ),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let header = stdout.lines().next().unwrap();
    assert!(
        header.contains("p50 µs") && header.contains("p99 µs"),
        "{header}"
    );
    assert!(
        stdout.contains("read(latency)") && stdout.contains("uring(depth=32,latency)"),
        "{stdout}"
    );
    let results = read_json(&scratch.path("out.json"));
    let mut with = 0;
    for (case, sample) in samples(&results) {
        let latency = &sample["latency"];
        if case["latency"] == false {
            assert!(latency.is_null(), "{}: {latency}", case["label"]);
            continue;
        }
        with += 1;
        // 2 MiB in 16 KiB blocks: 128 operations.
        assert_eq!(latency["ops"], 128, "{}", case["label"]);
        let p: Vec<u64> = ["p50_ns", "p90_ns", "p99_ns", "p999_ns"]
            .iter()
            .map(|k| latency[k].as_u64().unwrap())
            .collect();
        let max = latency["max_ns"].as_u64().unwrap();
        assert!(
            p[0] > 0 && p.windows(2).all(|w| w[0] <= w[1]),
            "{}: {latency}",
            case["label"]
        );
        // The histogram rounds up by at most 0.1%.
        assert!(
            p[3] as f64 <= max as f64 * 1.001,
            "{}: {latency}",
            case["label"]
        );
        // Every operation lies inside the main loop.
        assert!(
            max <= sample["wall_ns"].as_u64().unwrap(),
            "{}",
            case["label"]
        );
        let summary = &case["summary"]["latency"];
        assert_eq!(summary["trials"], 2, "{}", case["label"]);
    }
    assert_eq!(
        with,
        methods.split(',').count() * 2 * 2,
        "every method, both patterns, both runs"
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.lines().next().unwrap().contains("latency_p99_ns"));
    // The wrapper changes no checksum.
    checksums_agree(
        &scratch,
        Flags::new()
            .size("1M")
            .block("4k")
            .method("read,mmap,uring")
            .flag("--latency", "off,on"),
    );
}
