//! The other paths bytes take: O_DIRECT, io_uring, stdio and preadv, run
//! end to end through the real binary on small files.
mod common;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use common::{samples, trial_spec, Scratch};
use faultline::method::MethodKind;

/// Runs faultline and checks: exit code, exactly one line on stderr that
/// contains every needle, and no panic.
fn refused(scratch: &Scratch, args: &[&str], needles: &[&str], code: i32) -> String {
    let out = scratch.run(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(code),
        "exit code for {args:?}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line for {args:?}, got: {stderr}");
    for needle in needles {
        assert!(
            lines[0].contains(needle),
            "{needle:?} not in {:?}",
            lines[0]
        );
    }
    lines[0].to_string()
}

/// Runs every method given against `read` over seq, random and
/// random-replace orders with touch and sum, and checks that every method
/// gave the same checksum for the same bytes. Returns the method labels seen.
fn checksums_agree(
    scratch: &Scratch,
    file_flags: &[&str],
    methods: &str,
    extra: &[&str],
) -> HashSet<String> {
    let mut flags = file_flags.to_vec();
    flags.extend([
        "--method",
        methods,
        "--pattern",
        "seq,random,random-replace",
        "--workload",
        "touch,sum",
        "--cache",
        "as-is",
        "--runs",
        "1",
    ]);
    flags.extend(extra);
    let results = scratch.run_json(&flags);
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
    assert!(
        results["failures"].as_array().unwrap().is_empty(),
        "{}",
        results["failures"]
    );
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
    let bytes: Vec<u8> = (0..(5u32 << 20) + 1000)
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    std::fs::write(&file, &bytes).unwrap();
    let labels = checksums_agree(
        &scratch,
        &["--file", file.to_str().unwrap(), "--block", "4k,64k"],
        "read,direct",
        &[],
    );
    assert!(labels.contains("direct"));
}

#[test]
fn direct_with_a_misaligned_block_is_refused_with_the_alignment() {
    let scratch = Scratch::new();
    let line = refused(
        &scratch,
        &["--size", "1M", "--method", "read,direct", "--block", "1000"],
        &[
            "error: --method direct:",
            "is not a multiple of",
            "try 512 or 1024",
        ],
        2,
    );
    // The device's logical block size, or the stated fallback.
    assert!(
        line.contains("logical block size of device") || line.contains("assumed"),
        "{line}"
    );
    let line = refused(
        &scratch,
        &["--size", "1M", "--method", "direct", "--block", "100"],
        &["try 512"],
        2,
    );
    assert!(line.contains("--block 100 is not"), "{line}");
}

/// A mount of `fstype` that the test unmounts when dropped.
struct Mount {
    dir: tempfile::TempDir,
}

impl Mount {
    /// Mounts a fresh `fstype` (root only); `None` when that is not possible.
    fn new(fstype: &str) -> Option<Mount> {
        if faultline::system::current_uid() != 0 {
            return None;
        }
        let dir = tempfile::tempdir().ok()?;
        let ok = StdCommand::new("mount")
            .args(["-t", fstype, "none"])
            .arg(dir.path())
            .status()
            .ok()?
            .success();
        ok.then_some(Mount { dir })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = StdCommand::new("umount").arg(self.dir.path()).status();
    }
}

fn write_file(path: &Path, len: usize) {
    let bytes: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_file_system_that_refuses_o_direct_is_named() {
    // ramfs has no direct I/O at all. (tmpfs refused O_DIRECT too until
    // Linux 6.6, which gave it a trivial direct I/O path.)
    let Some(mount) = Mount::new("ramfs") else {
        eprintln!("skipped: needs root to mount ramfs");
        return;
    };
    let file = mount.path("data.bin");
    write_file(&file, 1 << 20);
    let scratch = Scratch::new();
    for method in ["direct", "read,direct"] {
        refused(
            &scratch,
            &[
                "--file",
                file.to_str().unwrap(),
                "--method",
                method,
                "--block",
                "4k",
                "--cache",
                "as-is",
            ],
            &[
                "the ramfs file system refuses O_DIRECT",
                "use --method pread",
            ],
            2,
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
fn tmpfs_either_refuses_o_direct_clearly_or_agrees_with_read() {
    let Some(mount) = Mount::new("tmpfs") else {
        eprintln!("skipped: needs root to mount tmpfs");
        return;
    };
    let file = mount.path("data.bin");
    write_file(&file, 1 << 20);
    let scratch = Scratch::new();
    let args = [
        "--file",
        file.to_str().unwrap(),
        "--method",
        "read,direct",
        "--block",
        "4k",
        "--cache",
        "as-is",
        "--runs",
        "1",
    ];
    let out = scratch.run(&args).output().unwrap();
    if out.status.success() {
        // Linux 6.6 and later: tmpfs accepts O_DIRECT.
        checksums_agree(
            &scratch,
            &["--file", file.to_str().unwrap(), "--block", "4k"],
            "read,direct",
            &[],
        );
    } else {
        refused(
            &scratch,
            &args,
            &["the tmpfs file system refuses O_DIRECT"],
            2,
        );
    }
}

#[test]
fn stdio_agrees_with_read_with_blocks_below_and_above_its_buffer() {
    let scratch = Scratch::new();
    let labels = checksums_agree(
        &scratch,
        &["--size", "3M", "--block", "4k,12345"],
        "read,stdio",
        &["--stdio-buffer", "8k,64k"],
    );
    assert!(labels.contains("stdio(buffer=8 KiB)"), "{labels:?}");
    assert!(labels.contains("stdio(buffer=64 KiB)"), "{labels:?}");
}

#[test]
fn stdio_makes_one_read_per_buffer_in_order() {
    let scratch = Scratch::new();
    let results = scratch.run_json(&[
        "--size",
        "1M",
        "--method",
        "stdio",
        "--pattern",
        "seq",
        "--block",
        "4k",
        "--stdio-buffer",
        "64k",
        "--cache",
        "as-is",
        "--runs",
        "1",
    ]);
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
    let line = refused(
        &scratch,
        &["--size", "1M", "--method", "stdio", "--stdio-buffer", "0"],
        &["error: --stdio-buffer", "must be between 1 byte and 64 MiB"],
        2,
    );
    println!("{line}");
    refused(
        &scratch,
        &[
            "--size", "128M", "--method", "preadv", "--block", "64M", "--iov", "32",
        ],
        &["error: --iov 32 with --block 64 MiB needs 2 GiB of buffers"],
        2,
    );
    refused(
        &scratch,
        &["--method", "preadv", "--iov", "0"],
        &["--iov", "0 is not in 1..=1024"],
        2,
    );
}

#[test]
fn preadv_agrees_with_read_and_reads_n_blocks_per_call_in_order() {
    let scratch = Scratch::new();
    let labels = checksums_agree(
        &scratch,
        &["--size", "3M", "--block", "4k,12345"],
        "read,preadv",
        &["--iov", "1,7"],
    );
    assert!(
        labels.contains("preadv(iov=1)") && labels.contains("preadv(iov=7)"),
        "{labels:?}"
    );
    let results = scratch.run_json(&[
        "--size",
        "1M",
        "--method",
        "preadv",
        "--pattern",
        "seq",
        "--block",
        "4k",
        "--iov",
        "16",
        "--cache",
        "as-is",
        "--runs",
        "1",
    ]);
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
        &["--size", "3M", "--block", "4k,12345"],
        "read,uring",
        &["--depth", "1,32", "--uring-registered", "off,on"],
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
    write_file(&file, (3 << 20) + 777);
    let labels = checksums_agree(
        &scratch,
        &["--file", file.to_str().unwrap(), "--block", "4k,64k"],
        "read,uring-direct,direct",
        &["--depth", "1,32", "--uring-registered"],
    );
    assert!(
        labels.contains("uring-direct(depth=32,registered)"),
        "{labels:?}"
    );
    refused(
        &scratch,
        &[
            "--size",
            "1M",
            "--method",
            "uring-direct",
            "--block",
            "1000",
        ],
        &["error: --method uring-direct:", "not a multiple of"],
        2,
    );
}

#[test]
fn digests_agree_across_every_method_in_a_random_order() {
    // Digests depend on the order of the bytes, so this checks that uring
    // at depth 32 hands blocks over in submission order. Cold, so that the
    // device completes reads out of order.
    let scratch = Scratch::new();
    let results = scratch.run_json(&[
        "--size",
        "2M",
        "--method",
        "read,direct,uring,uring-direct,stdio,preadv,mmap",
        "--depth",
        "32",
        "--pattern",
        "random,random-replace",
        "--block",
        "4k",
        "--workload",
        "sha256",
        "--cache",
        "cold",
        "--runs",
        "1",
    ]);
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
}

#[test]
fn uring_depth_32_keeps_many_reads_per_system_call() {
    let scratch = Scratch::new();
    let results = scratch.run_json(&[
        "--size",
        "1M",
        "--method",
        "uring",
        "--depth",
        "1,32",
        "--pattern",
        "seq",
        "--block",
        "4k",
        "--cache",
        "as-is",
        "--runs",
        "1",
    ]);
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
    refused(
        &scratch,
        &["--method", "uring", "--depth", "0"],
        &["--depth", "0 is not in 1..=256"],
        2,
    );
    refused(
        &scratch,
        &["--method", "uring", "--depth", "257"],
        &["257 is not in 1..=256"],
        2,
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
    let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("faultline"));
    cmd.arg("run")
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .args(["--size", "1M", "--method", "read,uring", "--runs", "1"]);
    // SAFETY: forbid_io_uring only calls prctl, which is async-signal-safe.
    unsafe { cmd.pre_exec(forbid_io_uring) };
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with(
            "error: io_uring is not available: io_uring_setup failed (Operation not permitted"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].contains("seccomp") && lines[0].ends_with("use --method pread or direct instead"),
        "{}",
        lines[0]
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
    let out = scratch
        .run(&[
            "--size",
            "2M",
            "--method",
            "read,mmap,direct,uring,stdio,preadv",
            "--depth",
            "32",
            "--pattern",
            "seq,random",
            "--block",
            "16k",
            "--cache",
            "as-is",
            "--runs",
            "2",
            "--latency",
            "off,on",
            "--export-json",
        ])
        .arg(scratch.path("out.json"))
        .arg("--export-csv")
        .arg(&csv)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let header = stdout.lines().next().unwrap();
    assert!(
        header.contains("p50 µs") && header.contains("p99 µs"),
        "{header}"
    );
    assert!(
        stdout.contains("read(latency)") && stdout.contains("uring(depth=32,latency)"),
        "{stdout}"
    );
    let results = common::read_json(&scratch.path("out.json"));
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
    assert_eq!(with, 6 * 2 * 2, "every method, both patterns, both runs");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.lines().next().unwrap().contains("latency_p99_ns"));
    // The wrapper changes no checksum.
    checksums_agree(
        &scratch,
        &["--size", "1M", "--block", "4k"],
        "read,mmap,uring",
        &["--latency", "off,on"],
    );
}
