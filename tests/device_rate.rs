//! `--device-rate`: each trial child reads its file's disk through an I/O
//! cgroup that throttles it (as root), the limit is recorded with each case
//! and said by the dry run; bad rates, and a machine where no I/O cgroup can
//! be made, are refused in one line before any trial.
mod common;

use common::{require_root, samples, Flags, Scratch};

/// 16 MiB read cold at 8 MB/s takes 2.1 s: whatever the load, never much
/// less (the throttle is a token bucket; a first slice may pass early).
#[test]
#[ignore = "needs root"]
fn a_throttled_cold_read_takes_at_least_its_bytes_over_the_rate() {
    require_root("an I/O cgroup for --device-rate");
    let s = Scratch::new();
    let flags = Flags::new()
        .size("16M")
        .method("read")
        .pattern("seq")
        .cache("cold")
        .runs(2)
        .flag("--device-rate", "8MB/s");
    // The dry run says the limit, on the case's line.
    let dry = s.run(flags.clone().switch("--dry-run")).output().unwrap();
    let text = String::from_utf8_lossy(&dry.stdout);
    assert!(dry.status.success(), "{text}");
    assert!(
        text.contains("device throttled to 8 MB/s (cgroup v"),
        "{text}"
    );
    let results = s.run_json(flags);
    let all = samples(&results);
    assert_eq!(all.len(), 2);
    let least_s = (16u64 << 20) as f64 / 8e6 * 0.7;
    for (case, sample) in &all {
        let kind = case["device_rate"]["kind"].as_str().unwrap();
        assert!(kind.starts_with("cgroup-v"), "{kind}");
        assert_eq!(case["device_rate"]["bytes_per_s"], 8_000_000);
        assert!(sample["residency_before"].as_f64().unwrap() <= 0.01);
        let took = sample["total_ns"].as_f64().unwrap() / 1e9;
        assert!(
            took >= least_s,
            "a cold 16 MiB read at 8 MB/s took {took} s"
        );
    }
    // No cgroup of this run is left behind.
    for dir in ["/sys/fs/cgroup/blkio", "/sys/fs/cgroup/unified"] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let pids: Vec<String> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let pid = name
                    .strip_prefix("faultline-")?
                    .split('-')
                    .next()?
                    .to_string();
                Some(pid)
            })
            .collect();
        for pid in pids {
            assert!(
                std::path::Path::new(&format!("/proc/{pid}")).exists(),
                "a cgroup of the finished faultline {pid} is left in {dir}"
            );
        }
    }
}

/// A file on no block device (tmpfs) cannot be throttled: refused before
/// any trial.
#[test]
#[ignore = "needs root"]
fn a_file_on_tmpfs_is_refused_before_anything_runs() {
    require_root("an I/O cgroup for --device-rate");
    let shm = tempfile::tempdir_in("/dev/shm").expect("/dev/shm (tmpfs)");
    let file = shm.path().join("input");
    std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    let s = Scratch::new();
    s.refused(
        Flags::new()
            .method("read")
            .cache("cold")
            .flag("--file", &file)
            .flag("--device-rate", "8MB/s"),
        &["--device-rate cannot throttle", "is on no block device"],
    );
    assert_eq!(std::fs::read(&file).unwrap(), vec![7u8; 1 << 20]);
}

/// Without root no I/O cgroup can be made: one line, exit 2, before any trial.
#[test]
#[ignore = "needs root"]
fn without_root_a_device_rate_is_refused_in_one_line() {
    require_root("running faultline as another user");
    let s = Scratch::new();
    let (mut nobody, home) = common::faultline_as_nobody(&s);
    let out = nobody
        .arg("run")
        .args(
            Flags::new()
                .size("1M")
                .method("read")
                .cache("cold")
                .runs(1)
                .flag("--device-rate", "8MB/s")
                .flag("--data-dir", home.join("data"))
                .export_json(&home.join("out.json")),
        )
        .output()
        .expect("setpriv (util-linux) runs faultline as nobody");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--device-rate runs each trial in an I/O cgroup")
            && stderr.contains("run as root"),
        "{stderr}"
    );
    assert!(!home.join("out.json").exists());
    assert!(!home.join("data").exists(), "nothing generated");
}

#[test]
fn bad_rates_are_refused_in_one_line() {
    let s = Scratch::new();
    let small = Flags::new().method("read").size("1M");
    s.refused(
        small.clone().flag("--device-rate", "fast"),
        &[
            "invalid value 'fast' for '--device-rate <RATE>'",
            "is not a rate",
        ],
    );
    s.refused(
        small.clone().flag("--device-rate", "1k/s"),
        &["below the 64 KiB/s minimum of --device-rate"],
    );
    s.refused(
        small.flag("--device-rate", "8MB/s").flag("--procs", "2"),
        &["--device-rate throttles the one trial process; not with --procs"],
    );
}
