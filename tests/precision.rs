//! Precision chosen, not hoped for: `--precision` with its budget, the
//! FDR-adjusted verdicts, `--min-trial-time` and `faultline calibrate`,
//! through the real binary on small files.
mod common;

use common::{faultline, one_line, samples, succeeded, Flags, Scratch};

const MIB: u64 = 1 << 20;

#[test]
fn precision_adds_runs_until_the_target_or_max_runs_and_says_which() {
    let scratch = Scratch::new();
    let flags = Flags::new()
        .method("read,mmap")
        .pattern("seq")
        .block("16k")
        .size("2M")
        .cache("warm")
        .runs(2)
        .flag("--precision", "0.5%")
        .flag("--max-runs", "4");
    let json = scratch.run_json(flags.clone());
    let runs: Vec<u64> = samples(&json)
        .iter()
        .map(|(_, s)| s["run"].as_u64().unwrap())
        .collect();
    let groups = json["statistics"]["precision"]
        .as_array()
        .expect("precision report");
    assert_eq!(groups.len(), 1, "{groups:?}");
    let g = &groups[0];
    assert_eq!(g["target"].as_f64(), Some(0.005));
    // ±0.5% from 2 MiB trials on a shared machine: either reached or
    // --max-runs spent, and the runs match what the report says.
    let pairs = g["pairs"].as_u64().unwrap();
    match g["stopped_by"].as_str().unwrap() {
        "precision" => assert!(g["reached"].as_bool().unwrap() && (2..=4).contains(&pairs)),
        "max-runs" => assert_eq!(pairs, 4),
        other => panic!("stopped by {other}: {g}"),
    }
    assert_eq!(runs.iter().max().copied(), Some(pairs - 1), "{runs:?}");
    assert_eq!(runs.len() as u64, 2 * pairs);
    assert_eq!(json["settings"]["statistics"]["precision"]["max_runs"], 4);
    // The terminal says it too.
    let out = succeeded(&mut scratch.run(flags));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("precision ±0.50%: seq 16 KiB sum, warm: "),
        "{stdout}"
    );
}

#[test]
fn a_reachable_target_stops_before_max_runs() {
    let json = Scratch::new().run_json(
        Flags::new()
            .method("read,pread")
            .pattern("seq")
            .block("64k")
            .size("1M")
            .cache("warm")
            .runs(3)
            .flag("--precision", "99%")
            .flag("--max-runs", "30"),
    );
    // ±99% is reached long before 30 runs even by 1 MiB trials on a busy
    // machine (their A/A spread is about ±100%, docs/precision.md).
    let g = &json["statistics"]["precision"][0];
    assert_eq!(g["stopped_by"], "precision", "{g}");
    assert!(g["reached"].as_bool().unwrap() && g["half_width"].as_f64().unwrap() <= 0.99);
    let pairs = g["pairs"].as_u64().unwrap();
    assert!((3..30).contains(&pairs), "{g}");
    assert_eq!(samples(&json).len() as u64, 2 * pairs);
}

#[test]
fn verdicts_name_their_adjustment_in_the_output_and_the_export() {
    let scratch = Scratch::new();
    let flags = Flags::new()
        .method("read,mmap,pread")
        .pattern("seq")
        .block("64k")
        .size("1M")
        .cache("warm")
        .runs(3);
    let json = scratch.run_json(flags.clone().flag("--fdr", "holm"));
    assert_eq!(json["statistics"]["adjustment"], "holm");
    assert_eq!(json["statistics"]["family"], 2);
    for c in json["comparisons"].as_array().unwrap() {
        let (p, q) = (
            c["p_value"].as_f64().unwrap(),
            c["p_adjusted"].as_f64().unwrap(),
        );
        assert!(q >= p, "{c}");
    }
    let out = succeeded(&mut scratch.run(flags));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("verdicts: Benjamini-Hochberg adjusted over 2 comparison(s)"),
        "{stdout}"
    );
}

#[test]
fn min_trial_time_repeats_the_pass_and_reports_the_bytes_moved() {
    let scratch = Scratch::new();
    let json = scratch.run_json(
        Flags::new()
            .method("read,mmap")
            .pattern("seq")
            .block("16k")
            .size("1M")
            .cache("warm,cold")
            .runs(2)
            .flag("--min-trial-time", "30ms"),
    );
    for (case, s) in samples(&json) {
        let bytes = s["bytes"].as_u64().unwrap();
        if case["cache"] == "cold" {
            // A second pass would be warm: cold trials run once.
            assert!(s.get("passes").is_none(), "{s}");
            assert_eq!(bytes, MIB);
            continue;
        }
        let passes = s["passes"].as_u64().expect("passes recorded");
        assert!(passes >= 2, "a 1 MiB warm pass is far under 30 ms: {s}");
        assert_eq!(bytes, passes * MIB, "bytes moved, every pass: {s}");
        let spent = s["setup_ns"].as_u64().unwrap()
            + s["wall_ns"].as_u64().unwrap()
            + s["teardown_ns"].as_u64().unwrap();
        assert!(spent >= 30_000_000, "{s}");
    }
}

#[test]
fn short_trials_get_a_warning_naming_the_fix() {
    let out = succeeded(
        &mut Scratch::new().run(
            Flags::new()
                .method("read,mmap")
                .pattern("seq")
                .block("64k")
                .size("256k")
                .cache("warm")
                .runs(2),
        ),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: read (seq 64 KiB sum, warm): the main loop took")
            && stderr.contains("under 20 ms. Results might be inaccurate")
            && stderr.contains("--min-trial-time 20ms"),
        "{stderr}"
    );
}

#[test]
fn calibrate_runs_an_a_a_test_and_reports_the_noise_floor_and_false_verdicts() {
    let scratch = Scratch::new();
    let json = scratch.path("aa.json");
    let out = succeeded(
        faultline()
            .args([
                "calibrate",
                "--size",
                "1M",
                "--runs",
                "3",
                "--comparisons",
                "2",
            ])
            .args(["--families", "2", "--data-dir"])
            .arg(scratch.data_dir())
            .arg("--export-json")
            .arg(&json),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "calibrate: read vs itself, seq 16 KiB sum, warm",
        "A/A: 4 comparisons of 3.0 pairs on average, in 2 families",
        "noise floor: ±",
        "false verdicts per comparison: raw ",
        "at the current settings (Benjamini-Hochberg): ",
    ] {
        assert!(stdout.contains(needle), "{needle}: {stdout}");
    }
    // Two identical cases, alternating, 12 pairs.
    let results = common::read_json(&json);
    assert_eq!(samples(&results).len(), 24);
    let labels = common::labels(&results);
    assert!(
        labels.contains("read(copy=A)") && labels.contains("read(copy=B)"),
        "{labels:?}"
    );
}

#[test]
fn a_smallest_effect_keeps_small_differences_within_noise_and_is_said() {
    // read and pread do the same work: their ratio is near 1, far inside a
    // ±90% margin, so the test against the margin's edge gives p = 1
    // exactly, whatever the noise; without a margin p is below 1.
    let scratch = Scratch::new();
    let flags = Flags::new()
        .method("read,pread")
        .pattern("seq")
        .block("64k")
        .size("1M")
        .cache("warm")
        .runs(3);
    let wide = scratch.run_json(flags.clone().flag("--min-effect", "90%"));
    assert_eq!(wide["settings"]["statistics"]["min_effect"], 0.9);
    let c = &wide["comparisons"][0];
    assert_eq!(c["p_value"].as_f64(), Some(1.0), "{c}");
    assert_eq!(c["verdict"], "within-noise", "{c}");
    let plain = scratch.run_json(flags.clone());
    assert!(plain["settings"]["statistics"].get("min_effect").is_none());
    assert!(plain["comparisons"][0]["p_value"].as_f64().unwrap() < 1.0);
    // The statistics line says the margin, and a --precision target is the
    // margin unless --min-effect says otherwise.
    let stdout = |flags: Flags| {
        let out = succeeded(&mut scratch.run(flags));
        // Statistics lines wrap at the terminal's width: read them whole.
        String::from_utf8_lossy(&out.stdout).replace("\n  ", " ")
    };
    let said = "a difference is called only when its CI lies beyond ±90.0% (--min-effect)";
    assert!(stdout(flags.clone().flag("--min-effect", "90%")).contains(said));
    let with_precision = stdout(
        flags
            .clone()
            .flag("--precision", "20%")
            .flag("--max-runs", "3"),
    );
    assert!(
        with_precision.contains("beyond ±20.0% (--min-effect)"),
        "{with_precision}"
    );
    let zero = stdout(
        flags
            .flag("--precision", "20%")
            .flag("--max-runs", "3")
            .flag("--min-effect", "0"),
    );
    assert!(!zero.contains("--min-effect"), "{zero}");
}

#[test]
fn bad_precision_values_are_refused_in_one_line() {
    let scratch = Scratch::new();
    let small = ["--size", "1M", "--pattern", "seq", "--cache", "warm"];
    let refuse = |extra: &[&str], needles: &[&str]| {
        let flags: Vec<&str> = small.iter().chain(extra).copied().collect();
        scratch.refused(flags, needles);
    };
    refuse(
        &["--precision", "0%"],
        &["--precision", "above 0% and below 100%"],
    );
    refuse(
        &["--precision", "two"],
        &["--precision", "is not a precision"],
    );
    refuse(&["--max-runs", "9"], &["--precision"]);
    refuse(
        &["--precision", "2%", "--max-time", "0s"],
        &["--max-time", "not a time above 0"],
    );
    refuse(
        &["--min-trial-time", "0.1ms"],
        &["--min-trial-time", "from 1ms to 60s"],
    );
    refuse(&["--fdr", "bonferroni"], &["--fdr", "bonferroni"]);
    refuse(
        &["--min-effect", "100%"],
        &["--min-effect", "from 0% to below 100%"],
    );
    refuse(
        &["--min-effect", "NaN"],
        &["--min-effect", "from 0% to below 100%"],
    );
    refuse(
        &["--min-effect", "big"],
        &["--min-effect", "is not a smallest effect"],
    );
    refuse(
        &["--runs", "5", "--precision", "2%", "--max-runs", "3"],
        &["--max-runs 3 is below the 5 planned runs"],
    );
    for (args, needle) in [
        (&["calibrate", "--runs", "1"][..], "--runs"),
        (
            &["calibrate", "--method", "write"][..],
            "calibrate measures read methods",
        ),
        (&["calibrate", "--families", "0"][..], "--families"),
        (
            &["calibrate", "--cache", "cold", "--min-trial-time", "20ms"][..],
            "--min-trial-time repeats warm passes",
        ),
    ] {
        let out = faultline()
            .args(args)
            .arg("--data-dir")
            .arg(scratch.data_dir())
            .output()
            .unwrap();
        one_line(&out, 2, &[needle]);
    }
}
