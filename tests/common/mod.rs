//! Shared helpers for the integration tests: run the real binary on small
//! files ([`Scratch`], [`Flags`]), check what it printed ([`output`]), read
//! its exports, and the processes, files and root-only set-ups tests share.
#![allow(dead_code, unused_imports)]
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A short profiled run of read and mmap-copy (warm, sequential 16 KiB,
/// 32 MiB, 3 runs at 4 kHz), ending in `--export-json`: the caller adds
/// the export's path.
pub const PROFILED_WARM_SEQ: &[&str] = &[
    "--size",
    "32M",
    "--method",
    "read,mmap-copy",
    "--pattern",
    "seq",
    "--block",
    "16k",
    "--cache",
    "warm",
    "--workload",
    "sum",
    "--runs",
    "3",
    "--profile",
    "--profile-hz",
    "4000",
    "--export-json",
];

pub mod files;
pub mod flags;
pub mod output;
pub mod procs;
pub mod root;

pub use files::{entries, file_ending, user_file};
pub use flags::Flags;
pub use output::{one_line, one_line_besides_damon, stderr_lines, succeeded};
pub use procs::{spawn_piped, trial_children, wait_until, with_file_size_limit};
pub use root::{faultline_as_nobody, require_root, Mount};

/// A scratch area: a data directory and a place for exports.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        Scratch {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `faultline run` with this scratch's data dir and the given extra flags.
    pub fn run<I, S>(&self, flags: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = faultline();
        cmd.arg("run")
            .arg("--data-dir")
            .arg(self.data_dir())
            .args(flags);
        cmd
    }

    /// `faultline reproduce PRESET` with this scratch's data dir and the
    /// given extra flags.
    pub fn reproduce<I, S>(&self, preset: &str, flags: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = faultline();
        cmd.args(["reproduce", preset])
            .arg("--data-dir")
            .arg(self.data_dir())
            .args(flags);
        cmd
    }

    /// Runs, expects success, and returns the JSON export.
    pub fn run_json<I, S>(&self, flags: I) -> Value
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let json = self.path("out.json");
        let _ = std::fs::remove_file(&json);
        succeeded(self.run(flags).arg("--export-json").arg(&json));
        read_json(&json)
    }

    /// Runs a plan in which trials fail: expects exit 1 (the run said how
    /// many failed and why on its last line, which is returned with the
    /// JSON export, which keeps every trial).
    #[track_caller]
    pub fn run_json_failing<I, S>(&self, flags: I) -> (Value, String)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let json = self.path("out.json");
        let _ = std::fs::remove_file(&json);
        let out = self
            .run(flags)
            .arg("--export-json")
            .arg(&json)
            .output()
            .expect("faultline runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let last = stderr.lines().last().unwrap_or_default().to_string();
        assert!(
            last.starts_with("error: ") && last.contains("failed"),
            "{stderr}"
        );
        (read_json(&json), last)
    }

    /// Runs `faultline run` with `flags` and expects it refused as bad
    /// input: exit 2, no panic, and exactly one line on stderr, holding every
    /// needle. Returns that line.
    #[track_caller]
    pub fn refused<I, S>(&self, flags: I, needles: &[&str]) -> String
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let flags: Vec<_> = flags
            .into_iter()
            .map(|f| f.as_ref().to_os_string())
            .collect();
        let out = self.run(&flags).output().expect("faultline runs");
        output::expect_one_line(&out, 2, needles, stderr_lines(&out), &format!("{flags:?}"))
    }
}

/// The read methods of the registry whose names pass `keep`, comma-separated
/// as `--method` takes them: tests of "every method" follow the registry, so
/// a method added to it is tested without anyone editing a list.
pub fn read_methods(keep: impl Fn(faultline::method::MethodKind) -> bool) -> String {
    use clap::ValueEnum;
    faultline::method::MethodKind::value_variants()
        .iter()
        .filter(|m| !m.writes() && keep(**m))
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The faultline binary this test suite was built with.
/// The binary, without the caller's `COLUMNS` (the width is then 100 into
/// a pipe, as the tests expect, unless a test sets it).
pub fn faultline() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("faultline"));
    cmd.env_remove("COLUMNS");
    cmd
}

/// How many trial-time records the runs left in `data_dir` for later dry
/// runs: 1, or 0 when every case's trials were mostly interfered with (a
/// busy machine's times are not recorded, and the load decides that).
#[allow(dead_code)]
pub fn trial_times_recorded(data_dir: &Path) -> usize {
    usize::from(data_dir.join("trial-times.json").is_file())
}

/// A JSON export.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("export written")).expect("valid JSON")
}

/// Every sample of every case, with its case.
pub fn samples(results: &Value) -> Vec<(Value, Value)> {
    results["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .flat_map(|c| {
            c["samples"]
                .as_array()
                .expect("samples")
                .iter()
                .map(move |s| (c.clone(), s.clone()))
        })
        .collect()
}

/// The cases of a JSON export.
pub fn cases(results: &Value) -> &Vec<Value> {
    results["cases"].as_array().expect("cases")
}

/// The labels of a JSON export's cases.
pub fn labels(results: &Value) -> std::collections::HashSet<String> {
    cases(results)
        .iter()
        .map(|c| c["label"].as_str().expect("a label").to_string())
        .collect()
}

/// The failed trials of a JSON export.
pub fn failures(results: &Value) -> &Vec<Value> {
    results["failures"].as_array().expect("failures")
}

/// Expects a JSON export without a failed trial.
#[track_caller]
pub fn assert_no_failures(results: &Value) {
    assert!(failures(results).is_empty(), "{}", results["failures"]);
}

/// A trial spec for running one trial in this process: `method` over
/// `path`, in sequential `block_size` blocks, summed, cache as it is.
pub fn trial_spec(
    path: &Path,
    method: faultline::method::MethodKind,
    file_size: u64,
    block_size: u64,
) -> faultline::trial::TrialSpec {
    faultline::trial::TrialSpec {
        path: path.to_path_buf(),
        case: faultline::plan::Case::new(
            method,
            faultline::pattern::Pattern::Seq,
            block_size,
            file_size,
            faultline::workload::WorkloadKind::Sum,
            faultline::plan::CacheState::AsIs,
        ),
        keep_output: None,
        cgroup_usage: None,
        content_seed: None,
        profile: None,
    }
}
