//! The interference record (docs/interference.md), driven through the real
//! binary: what a CPU hog beside the trials looks like in the exports,
//! another process's disk reads kept off a warm trial's account, retries
//! kept and marked, exclusion said, and the threshold's bad input.
mod common;

use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use common::{cases, samples, stderr_lines, succeeded, Flags, Scratch};
use serde_json::Value;

/// A background shell loop in a process group of its own, killed (the
/// whole group) when dropped, even when the test fails.
struct Helper(Child);

impl Helper {
    fn start(script: &str) -> Helper {
        let child = Command::new("sh")
            .args(["-c", script])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("sh starts");
        Helper(child)
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        // SAFETY: kill has no memory preconditions; the group is this test's.
        unsafe { libc::kill(-(self.0.id() as i32), libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

/// `faultline run` in `scratch`, with its own registry of active runs (so
/// that the other tests' runs are not "other faultline runs" here).
fn run(scratch: &Scratch, flags: Flags) -> Command {
    let mut cmd = scratch.run(flags);
    cmd.env("XDG_RUNTIME_DIR", scratch.path("runtime"));
    cmd
}

fn warm_read(size: &str, runs: u32) -> Flags {
    Flags::new()
        .method("read,pread")
        .pattern("seq")
        .block("64k")
        .cache("warm")
        .size(size)
        .runs(runs)
}

fn record(sample: &Value) -> &Value {
    assert!(
        sample["interference"].is_object(),
        "no interference record: {sample}"
    );
    &sample["interference"]
}

#[test]
fn a_cpu_busy_helper_beside_the_trials_is_recorded_and_warned_about() {
    let scratch = Scratch::new();
    let json = scratch.path("out.json");
    let csv = scratch.path("out.csv");
    // Two busy loops on a machine of any size keep at least a good part of
    // a core busy beside every trial.
    let _hogs = [
        Helper::start("while :; do :; done"),
        Helper::start("while :; do :; done"),
    ];
    std::thread::sleep(std::time::Duration::from_millis(100));
    // Trials of at least 150 ms: well past the 20 ms resolution of
    // /proc/stat, which a window of a few ms cannot tell the hogs from.
    let out = succeeded(
        run(&scratch, warm_read("32M", 3))
            .args(["--min-trial-time", "150ms"])
            .arg("--export-json")
            .arg(&json)
            .arg("--export-csv")
            .arg(&csv),
    );
    let results = common::read_json(&json);
    let all = samples(&results);
    assert_eq!(all.len(), 6);
    for (_, s) in &all {
        let r = record(s);
        let others = r["other_cpu_cores"].as_f64().expect("others' CPU");
        assert!(others >= 0.5, "the hogs are not in others' CPU: {r}");
        assert!(r["interfered"].as_bool().unwrap(), "{r}");
        // Named by the hogs' CPU, or, in a window too short for /proc/stat
        // to tell their CPU apart from its 20 ms resolution, by the trial's
        // own wait for a CPU beside them.
        assert!(
            r["reasons"].as_array().unwrap().iter().any(|x| {
                let x = x.as_str().unwrap();
                x.starts_with("other processes used") || x.starts_with("the trial waited for a CPU")
            }),
            "{r}"
        );
        // The trial's own CPU is not counted as others'.
        assert!(r["own_cpu_ns"].as_u64().unwrap() > 0, "{r}");
        // A one-thread trial records its own thread's wait for a CPU, over
        // a span inside the window.
        let wait = &r["own_cpu_wait"];
        let span = wait["span_ns"].as_u64().expect("own_cpu_wait.span_ns");
        let waited = wait["waited_ns"].as_u64().expect("own_cpu_wait.waited_ns");
        assert!(span > 0 && span <= r["window_ns"].as_u64().unwrap(), "{r}");
        assert!(waited <= span, "{r}");
    }
    for case in cases(&results) {
        let tally = &case["interference"];
        assert_eq!(tally["trials"], 3, "{tally}");
        assert_eq!(tally["interfered"], 3, "{tally}");
    }
    // One warning, a row per case, with the advice.
    let stderr = stderr_lines(&out);
    let rows = stderr
        .iter()
        .filter(|l| l.contains("3 of 3 (100%)"))
        .count();
    assert_eq!(rows, 2, "one row per case: {stderr:?}");
    let flat = stderr
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("warning: trials interfered") && flat.contains("--retry-interfered N"),
        "{flat}"
    );
    assert!(results["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("trials interfered")));
    // The CSV carries the record too.
    // Read as CSV: a group label holds commas inside its quotes.
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let mut rows = 0;
    for row in reader.records() {
        let row = row.unwrap();
        rows += 1;
        assert_eq!(&row[column("interfered")], "true", "{row:?}");
        let others: f64 = row[column("other_cpu_cores")].parse().unwrap();
        assert!(others >= 0.5, "{row:?}");
        let waited: u64 = row[column("own_cpu_waited_ns")].parse().unwrap();
        let span: u64 = row[column("own_cpu_wait_span_ns")].parse().unwrap();
        assert!(span > 0 && waited <= span, "{row:?}");
    }
    assert_eq!(rows, 6);
}

#[test]
fn another_process_reads_are_not_charged_to_a_warm_trial() {
    // A disk, not tmpfs: /var/tmp.
    let scratch = Scratch {
        dir: tempfile::tempdir_in("/var/tmp").expect("a temp dir in /var/tmp"),
    };
    assert!(
        on_block_device(scratch.dir.path()),
        "this test needs /var/tmp on a block device"
    );
    // A cold file another process reads all along, with O_DIRECT so that
    // every pass reaches the disk.
    let cold = scratch.path("cold");
    std::fs::write(&cold, vec![5u8; 32 << 20]).unwrap();
    let _reader = Helper::start(&format!(
        "while :; do dd if={} of=/dev/null bs=1M iflag=direct 2>/dev/null; done",
        cold.display()
    ));
    std::thread::sleep(std::time::Duration::from_millis(100));
    let json = scratch.path("out.json");
    let out = succeeded(
        run(&scratch, warm_read("16M", 3))
            // Every counter behind the verdict, not only the strongest.
            .arg("--verbose")
            .arg("--export-json")
            .arg(&json),
    );
    let results = common::read_json(&json);
    let mut others_seen = 0u64;
    for (_, s) in samples(&results) {
        // The warm trial read nothing from storage itself...
        assert!(
            s["inblock"].as_u64().unwrap() * 512 < 1 << 20,
            "the trial was charged for reads: {s}"
        );
        let r = record(&s);
        assert!(r["own_read_bytes"].as_u64().unwrap() < 1 << 20, "{r}");
        // ...while the disk served the reader.
        others_seen += r["other_device_read_bytes"].as_u64().unwrap();
    }
    assert!(others_seen >= 1 << 20, "the reader's reads were not seen");
    for case in cases(&results) {
        let summary = &case["summary"];
        assert!(
            summary["read_amplification"].as_f64().unwrap() < 0.05,
            "{summary}"
        );
        assert!(summary["read_bytes_source"]
            .as_str()
            .unwrap()
            .starts_with("own: "));
    }
    // The device-wide figure saw the reader; it is labelled, and no
    // verdict blames the device for a warm trial.
    let device_wide: f64 = cases(&results)
        .iter()
        .filter_map(|c| c["summary"]["device_wide_read_amplification"].as_f64())
        .sum();
    assert!(device_wide > 0.0, "the device-wide counters saw nothing");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The verdict (decided or unsettled: the reader makes the machine
    // busy), wrapped over lines: its words, flattened.
    let at = stdout
        .find("seq 64 KiB sum, warm: ")
        .expect("a verdict line");
    let verdict = stdout[at..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        verdict.contains("own storage reads 0.00 vs 0.00 B/B"),
        "{verdict}"
    );
    assert!(!verdict.contains("device reads dominate"), "{verdict}");
    assert!(!verdict.contains("device request count"), "{verdict}");
}

fn on_block_device(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).unwrap().dev();
    Path::new(&format!(
        "/sys/dev/block/{}:{}",
        libc::major(dev),
        libc::minor(dev)
    ))
    .exists()
}

/// Pretends another faultline run is active in `scratch`'s registry: a
/// registration file this test process holds locked, as a live run does.
fn another_run(scratch: &Scratch) -> std::fs::File {
    let dir = scratch.path("runtime").join("faultline").join("active");
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .unwrap();
    let file = std::fs::File::create(dir.join("4242-1.lock")).unwrap();
    file.lock().unwrap();
    use std::io::Write;
    writeln!(&file, "pid=4242 started=1 cmd=faultline run").unwrap();
    file
}

#[test]
fn interfered_trials_are_retried_and_every_attempt_is_kept_marked() {
    let scratch = Scratch::new();
    let _other = another_run(&scratch);
    let json = scratch.path("out.json");
    let csv = scratch.path("out.csv");
    let out = succeeded(
        run(&scratch, warm_read("1M", 2))
            .args(["--retry-interfered", "2", "--export-json"])
            .arg(&json)
            .arg("--export-csv")
            .arg(&csv),
    );
    let results = common::read_json(&json);
    for case in cases(&results) {
        let attempts: Vec<(u64, u64, Option<&str>)> = case["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let r = record(s);
                assert!(r["interfered"].as_bool().unwrap(), "{r}");
                assert_eq!(r["other_runs"], 1, "{r}");
                (
                    s["run"].as_u64().unwrap(),
                    s["attempt"].as_u64().unwrap_or(0),
                    s["excluded"].as_str(),
                )
            })
            .collect();
        // Each run: the original and two retries; the last one counts.
        assert_eq!(
            attempts,
            [
                (0, 0, Some("retried")),
                (0, 1, Some("retried")),
                (0, 2, None),
                (1, 0, Some("retried")),
                (1, 1, Some("retried")),
                (1, 2, None),
            ],
            "{}",
            case["label"]
        );
        assert_eq!(case["summary"]["runs"], 2);
        assert_eq!(case["interference"]["retries"], 4);
    }
    let stderr = stderr_lines(&out).join("\n");
    let flat = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(flat.matches("6 of 6 (100%)").count(), 2, "{stderr}");
    let reasons = samples(&results)
        .iter()
        .flat_map(|(_, s)| s["interference"]["reasons"].as_array().unwrap().clone())
        .filter(|r| {
            r.as_str().unwrap().starts_with(
                "1 other faultline run(s) active: 4242-1 (pid 4242, started at 1 (Unix time))",
            )
        })
        .count();
    assert_eq!(reasons, 12, "every attempt names the other run");
    assert!(
        flat.contains("after 4 re-run(s), 2 of 2 runs still interfered"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 1 + 12);
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let marked: Vec<(String, String)> = text
        .lines()
        .skip(1)
        .map(|row| {
            let cells: Vec<&str> = row.split(',').collect();
            (
                cells[at("attempt")].to_string(),
                cells[at("excluded")].to_string(),
            )
        })
        .collect();
    assert_eq!(marked.iter().filter(|(_, e)| e == "retried").count(), 8);
    assert_eq!(
        marked
            .iter()
            .filter(|(a, e)| a == "2" && e.is_empty())
            .count(),
        4
    );
}

#[test]
fn excluding_interfered_trials_is_said_and_leaves_no_comparison_to_make() {
    let scratch = Scratch::new();
    let _other = another_run(&scratch);
    let json = scratch.path("out.json");
    let out = succeeded(
        run(&scratch, warm_read("1M", 2))
            .arg("--exclude-interfered")
            .arg("--export-json")
            .arg(&json),
    );
    let results = common::read_json(&json);
    for case in cases(&results) {
        assert!(case["summary"].is_null(), "{}", case["summary"]);
        assert!(case["samples"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["excluded"] == "interfered"));
    }
    assert_eq!(results["comparisons"].as_array().unwrap().len(), 0);
    assert_eq!(results["settings"]["interference"]["exclude"], true);
    let stderr = stderr_lines(&out).join("\n");
    assert!(
        stderr.contains("note: statistics exclude interfered trials (--exclude-interfered): 4 of 4 sample(s) left out"),
        "{stderr}"
    );
    // Without the other run nothing is left out for it.
    drop(_other);
}

#[test]
fn threshold_off_takes_no_record() {
    let scratch = Scratch::new();
    let _other = another_run(&scratch);
    let json = scratch.path("out.json");
    let out = succeeded(
        run(&scratch, warm_read("1M", 2))
            .args(["--interference-threshold", "off", "--export-json"])
            .arg(&json),
    );
    let results = common::read_json(&json);
    for (_, s) in samples(&results) {
        assert!(s.get("interference").is_none(), "{s}");
    }
    assert_eq!(
        results["settings"]["interference"]["threshold"],
        Value::Null
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("interfered"), "{stderr}");
}

#[test]
fn a_bad_threshold_or_retry_count_is_one_line_and_exit_2() {
    let scratch = Scratch::new();
    for (flags, needle) in [
        (
            ["--interference-threshold", "ten"],
            "not a threshold: \"ten\" (e.g. 10% or 0.1)",
        ),
        (
            ["--interference-threshold", "0"],
            "must be above 0 and at most 800%",
        ),
        (
            ["--interference-threshold", "-5%"],
            "must be above 0 and at most 800%",
        ),
        (
            ["--interference-threshold", "900%"],
            "must be above 0 and at most 800%",
        ),
        (["--retry-interfered", "101"], "101 is not in 0..=100"),
        (["--retry-interfered", "x"], "--retry-interfered"),
    ] {
        scratch.refused(flags, &[needle]);
    }
    assert!(!scratch.data_dir().exists(), "nothing was generated");
}

#[test]
fn a_run_cut_before_its_retries_resumes_with_every_attempt_once() {
    let scratch = Scratch::new();
    let _other = another_run(&scratch);
    let journal = scratch.path("run.journal");
    succeeded(
        run(&scratch, warm_read("1M", 2))
            .args(["--retry-interfered", "2", "--journal"])
            .arg(&journal),
    );
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 12, "2 cases × 2 runs × 3 attempts");
    // Cut after the first attempt of run 1's first trial: its two re-runs
    // and the other case's three attempts are still to come.
    std::fs::write(&journal, format!("{}\n", lines[..8].join("\n"))).unwrap();
    let json = scratch.path("out.json");
    let mut resume = common::faultline();
    resume
        .args(["run", "--data-dir"])
        .arg(scratch.data_dir())
        .arg("--resume")
        .arg(&journal)
        .arg("--export-json")
        .arg(&json)
        .arg("--keep-journal")
        .env("XDG_RUNTIME_DIR", scratch.path("runtime"));
    succeeded(&mut resume);
    let results = common::read_json(&json);
    for case in cases(&results) {
        let mut attempts: Vec<(u64, u64)> = case["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["run"].as_u64().unwrap(),
                    s["attempt"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        attempts.sort_unstable();
        assert_eq!(
            attempts,
            [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)],
            "{}",
            case["label"]
        );
        assert_eq!(case["interference"]["retries"], 4);
    }
    let after = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(
        after.lines().count(),
        1 + 12,
        "each attempt journalled once"
    );
    assert!(after.starts_with(&format!("{}\n", lines[..8].join("\n"))));
}

#[test]
fn a_comparison_every_trial_of_which_was_interfered_with_is_unsettled_not_decided() {
    // Another run beside every trial: no clean pair is left, so neither
    // "faster", "slower" nor "within noise" may be said.
    let scratch = Scratch::new();
    let _other = another_run(&scratch);
    let json = scratch.path("out.json");
    let out = succeeded(
        run(&scratch, warm_read("1M", 3))
            .arg("--export-json")
            .arg(&json),
    );
    let results = common::read_json(&json);
    let comparisons = results["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 1, "{results}");
    let c = &comparisons[0];
    assert_eq!(c["verdict"], "unsettled", "{c}");
    assert_eq!(c["interfered_share"], 1.0, "{c}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("unsettled against read"), "{stdout}");
    assert!(
        flat.contains("machine busy: 100% of its paired runs"),
        "{stdout}"
    );
    // The full reason and its advice are in the export's verdict lines too.
    assert!(results["warnings"].is_array());
    assert!(!flat.contains("faster than"), "{stdout}");
    assert!(!flat.contains("slower than"), "{stdout}");
    // Without the other run, the same comparison is decided or within noise.
    drop(_other);
    let quiet = scratch.path("quiet.json");
    succeeded(
        run(&scratch, warm_read("1M", 3))
            .arg("--interference-threshold")
            .arg("off")
            .arg("--export-json")
            .arg(&quiet),
    );
    let results = common::read_json(&quiet);
    assert_ne!(results["comparisons"][0]["verdict"], "unsettled");
    assert!(results["comparisons"][0].get("interfered_share").is_none());
}
