//! `--profile` on the real binary: where warm reads spend their CPU time,
//! the fallback to user-only samples for an unprivileged user, threads and
//! duration-bounded trials, resume, and its bad input.
//!
//! The tests that need kernel samples need root here (this machine's
//! kernel.perf_event_paranoid is 2): they are `#[ignore = "needs root"]`.
mod common;

use std::path::Path;
use std::process::Command;

use common::{
    assert_no_failures, cases, faultline, read_json, require_root, samples, stderr_lines,
    succeeded, Flags, Scratch,
};
use serde_json::Value;

/// The summary profile of the case labelled `label`.
fn profile_of<'a>(results: &'a Value, label: &str) -> &'a Value {
    let case = cases(results)
        .iter()
        .find(|c| c["label"] == label)
        .unwrap_or_else(|| panic!("no case {label}"));
    &case["summary"]["profile"]
}

/// The mean share of `category` (an export id, `copy-to-user`), 0 if absent.
fn share(profile: &Value, category: &str) -> f64 {
    profile["shares"]
        .as_array()
        .expect("shares")
        .iter()
        .find(|s| s["category"] == category)
        .map_or(0.0, |s| s["share"]["mean"].as_f64().unwrap())
}

/// Samples of the folded stacks holding every one of `frames`.
fn stacks_with(profile: &Value, frames: &[&str]) -> u64 {
    profile["stacks"]
        .as_object()
        .expect("stacks")
        .iter()
        .filter(|(k, _)| frames.iter().all(|f| k.contains(f)))
        .map(|(_, v)| v.as_u64().unwrap())
        .sum()
}

/// The profiled samples (every sample but `--profile-control`'s control
/// trials), with their cases.
fn profiled_samples(results: &Value) -> Vec<(Value, Value)> {
    samples(results)
        .into_iter()
        .filter(|(_, s)| s["profile_control"] != true)
        .collect()
}

/// The control trials of the case labelled `label`.
fn controls_of(results: &Value, label: &str) -> Vec<Value> {
    samples(results)
        .into_iter()
        .filter(|(c, s)| c["label"] == label && s["profile_control"] == true)
        .map(|(_, s)| s)
        .collect()
}

/// A warm sequential 16 KiB profiled run of `methods`.
fn warm_seq_16k(scratch: &Scratch, methods: &str) -> Value {
    let flags = Flags::new()
        .size("64M")
        .method(methods)
        .pattern("seq")
        .block("16k")
        .cache("warm")
        .workload("touch")
        .runs(5)
        .switch("--profile")
        .flag("--profile-hz", "4000");
    let results = scratch.run_json(flags);
    assert_no_failures(&results);
    results
}

/// warm sequential 16 KiB read(): copying to user space is the largest
/// category. With `touch` (one byte per page) the workload is negligible,
/// so the kernel's work shows; with `sum` the checksum, about as fast as the
/// kernel's copy on this machine, takes the first place (docs/profile.md).
#[test]
#[ignore = "needs root"]
fn warm_sequential_read_spends_most_copying_to_user() {
    require_root("kernel samples (kernel.perf_event_paranoid is above 1 here)");
    let scratch = Scratch::new();
    let results = warm_seq_16k(&scratch, "read");
    let p = profile_of(&results, "read");
    assert_eq!(p["mode"], "kernel+user");
    assert_eq!(p["trials"], 5);
    // ~40 ms of main loop at 4 kHz: ~160 samples, fewer on a loaded machine.
    assert!(p["samples"].as_u64().unwrap() >= 50, "{}", p["samples"]);
    assert_eq!(
        p["shares"][0]["category"], "copy-to-user",
        "{}",
        p["shares"]
    );
    assert!(share(p, "copy-to-user") > 0.3, "{}", p["shares"]);
    // The kernel's read path is in the flame graph's stacks, under faultline's loop.
    assert!(stacks_with(p, &["ReadMethod", "filemap_read_[k]"]) > 0);
    // Every trial recorded its own samples and counts in the export.
    for (_, s) in profiled_samples(&results) {
        let trial = &s["profile"];
        assert_eq!(trial["frequency_hz"], 4000);
        assert!(trial["samples"].as_u64().unwrap() > 0);
        assert_eq!(trial["threads"], 1);
        assert!(trial["categories"]["copy-to-user"].as_u64().unwrap() > 0);
        // Every sample is in exactly one category, [unknown] ones included.
        let in_categories: u64 = trial["categories"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(in_categories, trial["samples"].as_u64().unwrap(), "{trial}");
        assert!(trial.get("stacks").is_none(), "merged into the case's");
    }
    assert_eq!(results["settings"]["profile"]["frequency_hz"], 4000);
    assert_eq!(results["settings"]["profile"]["mode"], "kernel+user");
}

/// A `--min-trial-time` trial repeats its pass, and the profile covers every
/// pass's main loop, not only the first: the samples follow the trial's CPU
/// time (both are CPU time, so a loaded machine lowers them together).
#[test]
#[ignore = "needs root"]
fn every_pass_of_a_min_trial_time_trial_is_profiled() {
    require_root("kernel samples (kernel.perf_event_paranoid is above 1 here)");
    let scratch = Scratch::new();
    let flags = Flags::new()
        .size("4M")
        .method("pread")
        .pattern("seq")
        .block("16k")
        .cache("warm")
        .workload("touch")
        .runs(2)
        .switch("--profile")
        .flag("--profile-hz", "4000")
        .flag("--min-trial-time", "200ms");
    let results = scratch.run_json(flags);
    assert_no_failures(&results);
    for (_, s) in profiled_samples(&results) {
        let passes = s["passes"].as_u64().expect("passes");
        assert!(passes >= 5, "a 4 MiB warm pass is short: {passes} passes");
        let cpu_s = (s["user_ns"].as_u64().unwrap() + s["sys_ns"].as_u64().unwrap()) as f64 / 1e9;
        let samples = s["profile"]["samples"].as_u64().unwrap() as f64;
        // Only the first pass sampled would give about 1/passes of this.
        assert!(
            samples >= 0.4 * 4000.0 * cpu_s,
            "{samples} samples for {cpu_s:.3} s of CPU over {passes} passes"
        );
    }
}

/// mmap-copy: the copies are user-space memcpy, and the first touch of each
/// page range faults (fault-around maps its neighbours).
#[test]
#[ignore = "needs root"]
fn mmap_copy_spends_its_time_in_user_memcpy_and_page_faults() {
    require_root("kernel samples (kernel.perf_event_paranoid is above 1 here)");
    let scratch = Scratch::new();
    let results = warm_seq_16k(&scratch, "read,mmap-copy");
    let p = profile_of(&results, "mmap-copy");
    assert_eq!(p["shares"][0]["category"], "user-memcpy", "{}", p["shares"]);
    assert!(share(p, "page-fault") > 0.0, "{}", p["shares"]);
    assert!(stacks_with(p, &["asm_exc_page_fault_[k]"]) > 0);
    assert!(stacks_with(p, &["memcpy"]) + stacks_with(p, &["memmove"]) > 0);
    // read() copies in the kernel, mmap-copy in user space.
    assert_eq!(share(p, "copy-to-user"), 0.0);
    // The verdict cites both profiles. Each profile needs many samples for
    // its order to be stable: at 32 MiB, one pass a trial and 997 Hz, an
    // mmap-copy trial gave a handful of samples, once all page faults. So
    // trials of at least 100 ms at 4 kHz: about 400 samples each.
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .size("64M")
                .method("read,mmap-copy")
                .pattern("seq")
                .block("16k")
                .cache("warm")
                .workload("touch")
                .runs(5)
                .flag("--min-trial-time", "0.1")
                .switch("--profile")
                .flag("--profile-hz", "4000")
                // The whole verdict, with the profile behind it.
                .switch("--verbose"),
        ),
    );
    // The verdict, decided or unsettled, wraps over lines: its words, whole.
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The verdict's first line starts with its group (the passes note names
    // the group too, after its own words).
    let verdict = stdout
        .lines()
        .skip_while(|l| !l.starts_with("seq 16 KiB touch, warm:"))
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with(' '))
        .map(|(_, l)| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        verdict.contains("; profile: read spends ") && verdict.contains("copying to user"),
        "{verdict}"
    );
    assert!(verdict.contains("in user memcpy"), "{verdict}");
    assert!(stdout.contains("Where the cycles go:"), "{stdout}");
}

/// Threads created after the sampler opens are sampled, in threaded trials
/// and duration-bounded ones; only the main loop is.
///
/// Each worker must do enough work to be sampled many times: at 997 Hz and
/// 32 MiB a worker took only ~6 ms of CPU (6 samples), and the test expected
/// exactly 2 sampled threads, which a worker with no sample, or a sample of
/// the coordinating thread while it released or joined them, breaks. So:
/// 64 MiB at 4 kHz (~50 samples a worker), and the check is per thread:
/// the two busiest threads (the workers) each have many samples, and any
/// other (the coordinating thread) at most a stray one or two.
#[test]
#[ignore = "needs root"]
fn threads_and_timed_trials_are_profiled() {
    require_root("kernel samples (kernel.perf_event_paranoid is above 1 here)");
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("64M")
            .method("pread")
            .pattern("seq")
            .block("16k")
            .cache("warm")
            .workload("sum")
            .threads("2")
            .thread_mode("replicate")
            .runs(2)
            .switch("--profile")
            .flag("--profile-hz", "4000")
            .flag("--profile-control", "0"),
    );
    assert_no_failures(&results);
    for (_, s) in profiled_samples(&results) {
        let p = &s["profile"];
        let each: Vec<u64> = p["thread_samples"]
            .as_array()
            .expect("samples per thread")
            .iter()
            .map(|n| n.as_u64().unwrap())
            .collect();
        assert_eq!(each.len() as u64, p["threads"].as_u64().unwrap(), "{p}");
        assert_eq!(
            each.iter().sum::<u64>(),
            p["samples"].as_u64().unwrap(),
            "{p}"
        );
        assert!(
            each.len() >= 2 && each[1] >= 10,
            "both workers sampled: {p}"
        );
        assert!(
            each[2..].iter().all(|&n| n <= 2),
            "no third busy thread: {p}"
        );
    }
    // A duration-bounded trial, in this process: two workers for a second.
    let file = scratch.path("timed.data");
    std::fs::write(&file, vec![7u8; 8 << 20]).unwrap();
    let mut spec = common::trial_spec(&file, faultline::method::MethodKind::Pread, 8 << 20, 4096);
    spec.case.pattern = faultline::pattern::Pattern::RandomReplace;
    spec.case.workload = faultline::workload::WorkloadKind::Touch;
    spec.case.duration_s = Some(1);
    spec.case.threads = Some(faultline::plan::Threads {
        count: 2,
        mode: faultline::plan::ThreadMode::Split,
    });
    spec.profile = Some(faultline::measure::profile::ProfileRequest {
        frequency_hz: 997,
        mode: faultline::measure::profile::ProfileMode::KernelUser,
    });
    let report = faultline::trial::run_trial(&spec).unwrap();
    let raw = report.raw_profile.expect("a profile");
    // Both workers, and the coordinating thread when a sample caught it
    // taking its per-second timeline reading (part of the timed window).
    assert!((2..=3).contains(&raw.threads), "{} threads", raw.threads);
    // Two busy workers for about a second: near 2 × 997 samples when they
    // have both cores (fewer on a loaded machine), never more than the
    // loop's time allows.
    let most = 2.0 * 997.0 * report.wall_ns as f64 / 1e9 * 1.1 + 20.0;
    assert!(
        raw.samples > 50 && (raw.samples as f64) < most,
        "{}",
        raw.samples
    );
    let profile = faultline::measure::profile::Namer::new().name(&raw);
    let copy = profile.categories[&faultline::measure::profile::Category::CopyToUser];
    assert!(copy > 0, "{:?}", profile.categories);
}

/// The fallback, for real: the binary run as `nobody` (with setpriv) samples
/// user time only and says so in one line, printed once; the export records
/// the mode. Root is needed to switch users.
#[test]
#[ignore = "needs root"]
fn an_unprivileged_user_falls_back_to_user_only_samples_in_one_line() {
    require_root("switching to another user with setpriv");
    let scratch = Scratch::new();
    let home = scratch.path("nobody");
    std::fs::create_dir(&home).unwrap();
    let chown = |p: &Path| {
        std::os::unix::fs::chown(p, Some(65534), Some(65534)).unwrap();
    };
    chown(&home);
    std::fs::set_permissions(
        scratch.dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let json = home.join("out.json");
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(assert_cmd::cargo::cargo_bin!("faultline"))
        .args(["run", "--data-dir"])
        .arg(home.join("data"))
        .args(common::PROFILED_WARM_SEQ)
        .arg(&json)
        .env("HOME", &home)
        .output()
        .expect("setpriv runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let paranoid: i32 = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let notes: Vec<String> = stderr_lines(&out)
        .into_iter()
        .filter(|l| l.starts_with("profile: "))
        .collect();
    let results = read_json(&json);
    if paranoid > 1 {
        assert_eq!(notes.len(), 1, "once per run: {stderr}");
        assert!(
            notes[0].contains("user-only samples")
                && notes[0].contains(&format!("kernel.perf_event_paranoid is {paranoid}"))
                && notes[0].contains("not running as root"),
            "{}",
            notes[0]
        );
        assert_eq!(results["settings"]["profile"]["mode"], "user-only");
        assert_eq!(
            results["settings"]["profile"]["note"].as_str(),
            Some(notes[0].as_str())
        );
        for label in ["read", "mmap-copy"] {
            let p = profile_of(&results, label);
            assert_eq!(p["mode"], "user-only");
            assert_eq!(stacks_with(p, &["_[k]"]), 0, "no kernel frame");
            assert!(p["samples"].as_u64().unwrap() > 0);
        }
        // Named without privileges: the user-space work is found.
        assert!(share(profile_of(&results, "read"), "workload") > 0.5);
        let mmap = profile_of(&results, "mmap-copy");
        assert!(share(mmap, "user-memcpy") > 0.1, "{}", mmap["shares"]);
        assert!(share(mmap, "workload") > 0.1, "{}", mmap["shares"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("user time only"), "{stdout}");
    } else {
        assert!(notes.is_empty(), "{stderr}");
        assert_eq!(results["settings"]["profile"]["mode"], "kernel+user");
    }
}

/// Every profiled run measures what profiling costs: per case, unprofiled
/// control trials beside the profiled trials of the same runs (alternating
/// which goes first), kept and marked in the export, never counted in the
/// case's statistics; each case's `profile_cost` pairs them, and the run's
/// line pools the warm cases. `--profile-control 0` measures nothing and
/// says so. Works unprivileged (user-only samples) as well as as root.
#[test]
fn a_profiled_run_measures_its_own_cost_with_marked_control_trials() {
    let scratch = Scratch::new();
    // 4 kHz as the other profiled runs here: an 8 MiB warm mmap loop takes
    // about a millisecond, which at the default 499 Hz may get no sample
    // (and a case whose trials have none has no profile summary).
    let flags = || {
        Flags::new()
            .size("8M")
            .method("read,mmap")
            .pattern("seq")
            .block("16k")
            .cache("warm")
            .switch("--profile")
            .flag("--profile-hz", "4000")
    };
    let json = scratch.path("cost.json");
    let out = succeeded(&mut scratch.run(flags().runs(3).export_json(&json)));
    let results = read_json(&json);
    assert_no_failures(&results);
    assert_eq!(results["settings"]["profile"]["control_trials"], 3);
    for case in cases(&results) {
        let label = case["label"].as_str().unwrap();
        let controls = controls_of(&results, label);
        assert_eq!(controls.len(), 3, "{label}: the default, 3");
        let profiled: Vec<Value> = profiled_samples(&results)
            .into_iter()
            .filter(|(c, _)| c["label"] == label)
            .map(|(_, s)| s)
            .collect();
        assert_eq!(profiled.len(), 3);
        for control in &controls {
            assert_eq!(control["excluded"], "profile-control", "{control}");
            assert!(control.get("profile").is_none(), "unprofiled: {control}");
            // Beside its run's profiled trial: profiled first in even runs,
            // the control first in odd ones.
            let run = control["run"].as_u64().unwrap();
            let twin = profiled.iter().find(|s| s["run"] == run).unwrap();
            let (p, u) = (
                twin["sequence"].as_i64().unwrap(),
                control["sequence"].as_i64().unwrap(),
            );
            assert_eq!(u - p, if run % 2 == 0 { 1 } else { -1 }, "run {run}");
            assert_eq!(control["checksum"], twin["checksum"]);
        }
        for s in &profiled {
            assert!(s.get("excluded").is_none(), "{s}");
            assert!(s["profile"]["samples"].as_u64().is_some(), "{s}");
        }
        // The case's statistics are its profiled trials' only.
        let summary = &case["summary"];
        assert_eq!(summary["runs"], 3, "{label}");
        assert_eq!(summary["profile"]["trials"], 3, "{label}");
        let cost = &summary["profile_cost"];
        assert_eq!(cost["pairs"], 3, "{cost}");
        assert_eq!(cost["throughput_ratio"]["pairs"], 3, "{cost}");
        let r = cost["throughput_ratio"]["ratio"].as_f64().unwrap();
        assert!(r > 0.0 && r.is_finite(), "{cost}");
        assert!(cost["cpu_per_byte_ratio"].is_object() || cost["cpu_per_byte_ratio"].is_null());
    }
    assert_eq!(results["comparisons"][0]["throughput_ratio"]["pairs"], 3);
    let run_cost = &results["statistics"]["profile_cost"];
    assert_eq!(run_cost["status"], "measured", "{run_cost}");
    assert_eq!(run_cost["scope"], "warm");
    assert_eq!(run_cost["pairs"], 6);
    assert_eq!(run_cost["cases"].as_array().unwrap().len(), 2);
    assert_eq!(run_cost["target"], 0.05);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("profiling cost: throughput")
            && stdout.contains("over 3 pairs per case, 2 warm cases (6 pairs)"),
        "{stdout}"
    );

    // At most one control per measured run: --runs 2 gets 2 pairs.
    let results = scratch.run_json(flags().runs(2));
    assert_eq!(results["settings"]["profile"]["control_trials"], 2);
    assert_eq!(controls_of(&results, "read").len(), 2);
    assert_eq!(results["statistics"]["profile_cost"]["pairs"], 4);

    // --profile-control 0: no control trial, and the export says so.
    let results = scratch.run_json(flags().runs(2).flag("--profile-control", "0"));
    assert_eq!(samples(&results).len(), 4);
    assert!(controls_of(&results, "read").is_empty());
    assert_eq!(
        results["statistics"]["profile_cost"],
        serde_json::json!({"status": "not measured", "why": "--profile-control 0"})
    );
    assert!(cases(&results)[0]["summary"].get("profile_cost").is_none());
}

/// A resumed run profiles as its journal says, and its exports hold a
/// profile for every profiled sample; the control trials the journal kept
/// stay, and only the missing ones run.
#[test]
fn a_resumed_run_keeps_profiling() {
    let scratch = Scratch::new();
    let journal = scratch.path("run.journal");
    let json = scratch.path("out.json");
    succeeded(
        &mut scratch.run(
            Flags::new()
                .size("8M")
                .method("read,mmap")
                .pattern("seq")
                .block("16k")
                .cache("warm")
                .runs(3)
                .switch("--profile")
                .flag("--profile-hz", "1500")
                .flag("--journal", &journal)
                .export_json(&json),
        ),
    );
    // An interruption just after the first control trial (after its
    // run's profiled trial, and the warm-ups).
    let text = std::fs::read_to_string(&journal).unwrap();
    let first_control = text
        .lines()
        .position(|l| l.contains("\"profile_control\":true"))
        .expect("a control trial in the journal");
    let kept: Vec<&str> = text.lines().take(first_control + 1).collect();
    let kept_control: Value = serde_json::from_str(kept[first_control]).unwrap();
    let label = if kept_control["sample"]["case"] == 0 {
        "read"
    } else {
        "mmap"
    };
    std::fs::write(&journal, kept.join("\n") + "\n").unwrap();
    std::fs::remove_file(&json).unwrap();
    succeeded(
        faultline()
            .args(["run", "--data-dir"])
            .arg(scratch.data_dir())
            .arg("--resume")
            .arg(&journal),
    );
    let results = read_json(&json);
    assert_eq!(profiled_samples(&results).len(), 6);
    for (_, s) in profiled_samples(&results) {
        assert_eq!(s["profile"]["frequency_hz"], 1500, "{s}");
    }
    assert_eq!(results["settings"]["profile"]["frequency_hz"], 1500);
    assert_eq!(results["settings"]["profile"]["control_trials"], 3);
    // The journal's control trial is kept, not run again; the rest ran.
    assert_eq!(controls_of(&results, "read").len(), 3);
    assert_eq!(controls_of(&results, "mmap").len(), 3);
    let controls = controls_of(&results, label);
    let run0: Vec<&Value> = controls.iter().filter(|s| s["run"] == 0).collect();
    assert_eq!(run0.len(), 1);
    assert_eq!(run0[0]["sequence"], kept_control["sample"]["sequence"]);
    assert_eq!(run0[0]["total_ns"], kept_control["sample"]["total_ns"]);
    for case in cases(&results) {
        assert_eq!(
            case["summary"]["profile_cost"]["pairs"], 3,
            "{}",
            case["label"]
        );
    }
}

#[test]
fn bad_profile_flags_are_refused_in_one_line() {
    let scratch = Scratch::new();
    scratch.refused(["--profile", "--profile-hz", "0"], &["--profile-hz", "0"]);
    scratch.refused(
        ["--profile", "--profile-hz", "10001"],
        &["--profile-hz", "10001"],
    );
    scratch.refused(
        ["--profile", "--profile-hz", "fast"],
        &["--profile-hz", "fast"],
    );
    scratch.refused(["--profile-hz", "997"], &["--profile"]);
    scratch.refused(
        ["--profile", "--profile-control", "many"],
        &["--profile-control", "many"],
    );
    scratch.refused(
        ["--profile", "--profile-control", "10001"],
        &["--profile-control", "10001", "0..=10000"],
    );
    scratch.refused(["--profile-control", "2"], &["--profile"]);
    scratch.refused(
        ["--profile", "--resume", "x.journal"],
        &["--profile", "--resume"],
    );
    let out = faultline()
        .args([
            "reproduce",
            "fedorova2019",
            "--profile-hz",
            "20000",
            "--profile",
        ])
        .output()
        .unwrap();
    common::one_line(&out, 2, &["--profile-hz", "20000"]);
}
