//! Shared helpers for the integration tests: run the real binary on small files.
#![allow(dead_code)]
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

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
    pub fn run(&self, flags: &[&str]) -> Command {
        let mut cmd = faultline();
        cmd.arg("run")
            .arg("--data-dir")
            .arg(self.data_dir())
            .args(flags);
        cmd
    }

    /// Runs, expects success, and returns the JSON export.
    pub fn run_json(&self, flags: &[&str]) -> Value {
        let json = self.path("out.json");
        let _ = std::fs::remove_file(&json);
        let out = self
            .run(flags)
            .arg("--export-json")
            .arg(&json)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "faultline failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        read_json(&json)
    }
}

pub fn faultline() -> Command {
    Command::cargo_bin("faultline").expect("binary built")
}

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

/// A trial spec for running one trial in this process.
pub fn trial_spec(
    path: &Path,
    method: faultline::method::MethodKind,
    file_size: u64,
    block_size: u64,
) -> faultline::trial::TrialSpec {
    faultline::trial::TrialSpec {
        path: path.to_path_buf(),
        case: faultline::plan::Case {
            method,
            pattern: faultline::pattern::Pattern::Seq,
            block_size,
            file_size,
            workload: faultline::workload::WorkloadKind::Sum,
            cache: faultline::plan::CacheState::AsIs,
            warm_by: faultline::plan::WarmBy::Seq,
            populate: None,
            advice: None,
            share: None,
            sync: None,
            sync_call: None,
            target: None,
            size_with: None,
            fill: None,
            seed: 1,
            io: Default::default(),
            latency: false,
            scale: None,
            scale_unit: None,
            threads: None,
            procs: None,
            duration_s: None,
            memory_budget: None,
        },
        keep_output: None,
        cgroup_usage: None,
        content_seed: None,
    }
}
