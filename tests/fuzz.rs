//! Generated hostile input through the real binary: command lines, plan
//! files, trace files and JSON exports, each run with a deadline. Whatever
//! the input, faultline ends by itself (no hang), with exit 0, 1 or 2 (no
//! panic, 101; no abort, 134; no signal), and never says it panicked.
//! Runs are dry runs or reports, so no case measures anything.
mod common;

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;

use common::{faultline, succeeded, Flags, Scratch};

/// Longest any one case may run before it is called a hang.
const DEADLINE: Duration = Duration::from_secs(90);

/// Runs `cmd` and fails the case on a hang, a panic, an abort or a signal.
fn ends_cleanly(mut cmd: Command) -> Result<(), TestCaseError> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("faultline starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            return Err(TestCaseError::fail(format!("{cmd:?} hung")));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stderr = {
        use std::io::Read;
        let mut s = Vec::new();
        child.stderr.take().unwrap().read_to_end(&mut s).unwrap();
        String::from_utf8_lossy(&s).into_owned()
    };
    prop_assert!(
        status.signal().is_none(),
        "{cmd:?} died of signal {:?}: {stderr}",
        status.signal()
    );
    prop_assert!(
        matches!(status.code(), Some(0..=2)),
        "{cmd:?} exited {:?}: {stderr}",
        status.code()
    );
    prop_assert!(!stderr.contains("panicked"), "{cmd:?}: {stderr}");
    Ok(())
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Flags of `run` and values, odd ones included.
const FLAGS: &[&str] = &[
    "--method",
    "--pattern",
    "--block",
    "--size",
    "--workload",
    "--cache",
    "--threads",
    "--thread-mode",
    "--procs",
    "--iov",
    "--depth",
    "--stdio-buffer",
    "--factor",
    "--image",
    "--duration",
    "--precision",
    "--max-runs",
    "--max-time",
    "--min-effect",
    "--min-trial-time",
    "--trial-timeout",
    "--interference-threshold",
    "--retry-interfered",
    "--runs",
    "--warmup",
    "--seed",
    "--fadvise",
    "--memory-budget",
    "--export-json",
    "--export-csv",
    "--journal",
    "--trace-format",
    "--trace-path",
    "--trace-fd",
    "--fill",
    "--sync",
    "--target",
];
const VALUES: &[&str] = &[
    "read,mmap",
    "write",
    "uring,preadv",
    "seq",
    "random",
    "zipf:0",
    "zipf:1.2",
    "hotset:90/10",
    "stride:0",
    "chase",
    "0",
    "1",
    "-1",
    "-5%",
    "64k",
    "64M",
    "65M",
    "1E",
    "16E",
    "4kk",
    "NaN",
    "inf",
    "1e400",
    "18446744073709551615",
    "1024",
    "1025",
    "replicate",
    "split",
    "scale",
    "-2",
    "-100000",
    "0x4",
    "1280x1024",
    "4294967295x4294967295",
    "5%",
    "100%",
    "0.001",
    "1e-9",
    "off",
    "warm,cold,as-is",
    "",
    ",",
    "\u{1b}[2J",
    "x\ny",
    "crc",
    "fio",
    "strace",
    "csv",
];

fn token() -> impl Strategy<Value = OsString> {
    prop_oneof![
        4 => proptest::sample::select(VALUES).prop_map(OsString::from),
        1 => "\\PC{0,8}".prop_map(OsString::from),
        1 => proptest::collection::vec(1u8..=255, 0..8).prop_map(OsString::from_vec),
    ]
}

proptest! {
    #![proptest_config(config(256))]

    /// `run --dry-run` with generated flags: every parser and every check
    /// before the run, none of them measuring.
    #[test]
    fn generated_command_lines(
        pairs in proptest::collection::vec((proptest::sample::select(FLAGS), token()), 0..6),
    ) {
        let scratch = Scratch::new();
        let mut cmd = faultline();
        cmd.arg("run").arg("--data-dir").arg(scratch.data_dir());
        for (flag, value) in pairs {
            let mut arg = OsString::from(format!("{flag}="));
            arg.push(value);
            cmd.arg(arg);
        }
        cmd.arg("--dry-run").current_dir(scratch.dir.path());
        ends_cleanly(cmd)?;
    }

    /// `run --plan P --dry-run` with generated plans: keys of `run`, odd
    /// values, tables, arrays, and bytes that are not TOML.
    #[test]
    fn generated_plan_files(
        lines in proptest::collection::vec(
            prop_oneof![
                (proptest::sample::select(FLAGS), proptest::sample::select(VALUES))
                    .prop_map(|(k, v)| format!("{} = {v:?}", k.trim_start_matches('-'))),
                (proptest::sample::select(FLAGS), proptest::collection::vec(proptest::sample::select(VALUES), 0..3))
                    .prop_map(|(k, v)| format!("{} = {v:?}", k.trim_start_matches('-'))),
                (proptest::sample::select(FLAGS), -5i64..70000)
                    .prop_map(|(k, n)| format!("{} = {n}", k.trim_start_matches('-'))),
                Just("[table]".to_string()),
                Just("keep = \"yes\"".to_string()),
                "\\PC{0,30}",
            ],
            0..8,
        ),
        garbage in proptest::collection::vec(any::<u8>(), 0..16),
    ) {
        let scratch = Scratch::new();
        let plan = scratch.path("plan.toml");
        let mut bytes = lines.join("\n").into_bytes();
        bytes.extend(garbage);
        std::fs::write(&plan, bytes).unwrap();
        let mut cmd = faultline();
        cmd.arg("run").arg("--data-dir").arg(scratch.data_dir())
            .arg("--plan").arg(&plan).arg("--dry-run");
        ends_cleanly(cmd)?;
    }

    /// `run --trace T --dry-run` with generated traces of every format,
    /// broken lines and bytes.
    #[test]
    fn generated_trace_files(
        lines in proptest::collection::vec(
            prop_oneof![
                (0u64..1 << 20, 0u64..70000).prop_map(|(o, l)| format!("{o},{l}")),
                Just("fio version 2 iolog".to_string()),
                Just("fio version 3 iolog".to_string()),
                (0u64..1 << 20, 0u64..70000).prop_map(|(o, l)| format!("/f read {o} {l}")),
                (0u64..1 << 20, 0u64..70000)
                    .prop_map(|(o, l)| format!("pread64(3, \"\"..., {l}, {o}) = {l}")),
                Just("openat(AT_FDCWD, \"/f\", O_RDONLY) = 3".to_string()),
                Just("lseek(3, 0, SEEK_END) = ?".to_string()),
                "\\PC{0,40}",
            ],
            0..12,
        ),
        garbage in proptest::collection::vec(any::<u8>(), 0..32),
    ) {
        let scratch = Scratch::new();
        let trace = scratch.path("trace.txt");
        let mut bytes = lines.join("\n").into_bytes();
        bytes.extend(garbage);
        std::fs::write(&trace, bytes).unwrap();
        let mut cmd = faultline();
        cmd.arg("run").arg("--data-dir").arg(scratch.data_dir())
            .args(["--size", "1M", "--runs", "2"])
            .arg("--trace").arg(&trace).arg("--dry-run");
        ends_cleanly(cmd)?;
    }
}

/// A real export, made once: the seed every generated JSON input is cut from.
fn real_export() -> &'static (Scratch, PathBuf) {
    static EXPORT: std::sync::OnceLock<(Scratch, PathBuf)> = std::sync::OnceLock::new();
    EXPORT.get_or_init(|| {
        let scratch = Scratch::new();
        let json = scratch.path("real.json");
        succeeded(
            &mut scratch.run(
                Flags::new()
                    .size("64k")
                    .method("read,mmap")
                    .pattern("seq")
                    .block("4k")
                    .cache("as-is")
                    .runs(2)
                    .export_json(&json),
            ),
        );
        (scratch, json)
    })
}

/// `value` with the node at `path` (a walk of indices) replaced by `with`.
fn replace_at(value: &mut serde_json::Value, path: &[usize], with: serde_json::Value) {
    let Some((&step, rest)) = path.split_first() else {
        *value = with;
        return;
    };
    let child = match value {
        serde_json::Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(step % map.len()).unwrap().clone();
            map.get_mut(&key)
        }
        serde_json::Value::Array(items) if !items.is_empty() => {
            let n = items.len();
            items.get_mut(step % n)
        }
        _ => None,
    };
    match child {
        Some(child) => replace_at(child, rest, with),
        None => *value = with,
    }
}

fn odd_json() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        Just(serde_json::json!(1e308)),
        Just(serde_json::json!(-0.0)),
        "\\PC{0,12}".prop_map(serde_json::Value::from),
        Just(serde_json::json!([])),
        Just(serde_json::json!({})),
        Just(serde_json::json!("\u{1b}[2J\r")),
    ]
}

proptest! {
    #![proptest_config(config(128))]

    /// `report` and `compare` over a real export with generated damage:
    /// fields replaced by odd values, the file cut short, bytes flipped.
    #[test]
    fn generated_json_inputs(
        edits in proptest::collection::vec(
            (proptest::collection::vec(any::<usize>(), 1..5), odd_json()),
            0..4,
        ),
        cut in proptest::option::of(any::<proptest::sample::Index>()),
        flip in proptest::option::of((any::<proptest::sample::Index>(), any::<u8>())),
    ) {
        let (_, real) = real_export();
        let mut value: serde_json::Value =
            serde_json::from_slice(&std::fs::read(real).unwrap()).unwrap();
        for (path, with) in edits {
            replace_at(&mut value, &path, with);
        }
        let mut bytes = serde_json::to_vec(&value).unwrap();
        if let Some(at) = cut {
            bytes.truncate(at.index(bytes.len() + 1));
        }
        if let Some((at, byte)) = flip {
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                bytes[i] = byte;
            }
        }
        let scratch = Scratch::new();
        let input = scratch.path("damaged.json");
        std::fs::write(&input, &bytes).unwrap();
        let mut report = faultline();
        report.arg("report").arg(&input).arg("-o").arg(scratch.path("r.html"))
            .arg("--plots").arg(scratch.path("plots"));
        ends_cleanly(report)?;
        let mut compare = faultline();
        compare.arg("compare").arg(real).arg(&input);
        ends_cleanly(compare)?;
        let mut baseline = faultline();
        baseline.arg("run").arg("--data-dir").arg(scratch.data_dir())
            .args(["--size", "64k", "--runs", "2", "--cache", "as-is", "--dry-run", "--baseline"])
            .arg(&input);
        ends_cleanly(baseline)?;
    }
}

#[test]
fn the_property_tests_catch_a_hang_and_a_signal() {
    // The checks themselves fail when they should: a command that sleeps
    // past a short deadline is not tested here (it would take the deadline),
    // but one killed by a signal and one exiting 101 are refused.
    let mut killed = Command::new("sh");
    killed.args(["-c", "kill -SEGV $$"]);
    assert!(ends_cleanly(killed).is_err());
    let mut panicked = Command::new("sh");
    panicked.args(["-c", "echo \"thread 'main' panicked\" >&2; exit 101"]);
    assert!(ends_cleanly(panicked).is_err());
    let mut fine = Command::new("true");
    fine.arg("x");
    assert!(ends_cleanly(fine).is_ok());
}
