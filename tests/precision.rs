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
        .runs(3)
        // The family is every comparison only when none is set aside as
        // interfered with (which the load decides): no record here.
        .flag("--interference-threshold", "off");
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
    // Holm is the default (it keeps a run's family-wise rate at 5%);
    // Benjamini-Hochberg is asked for.
    let out = succeeded(&mut scratch.run(flags.clone()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("verdicts: Holm adjusted over 2 comparison(s)"),
        "{stdout}"
    );
    let out = succeeded(&mut scratch.run(flags.flag("--fdr", "bh")));
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
        one_mib_warm_and_cold()
            .runs(2)
            .flag("--min-trial-time", "30ms"),
    );
    cold_once_warm_repeated(&json, 30_000_000);
}

/// read and mmap, seq 16 KiB over a 1 MiB file, warm and cold: the cases
/// the shortest-trial tests run.
fn one_mib_warm_and_cold() -> Flags {
    Flags::new()
        .method("read,mmap")
        .pattern("seq")
        .block("16k")
        .size("1M")
        .cache("warm,cold")
}

/// Checks the samples of a 1 MiB file's warm and cold cases run with a
/// shortest trial of `min_ns`: a cold trial made one pass (a second would be
/// warm), a warm one at least two, moving the file's bytes each time, for at
/// least `min_ns` in all.
#[track_caller]
fn cold_once_warm_repeated(json: &serde_json::Value, min_ns: u64) {
    for (case, s) in samples(json) {
        let bytes = s["bytes"].as_u64().unwrap();
        if case["cache"] == "cold" {
            assert!(s.get("passes").is_none(), "cold trials run one pass: {s}");
            assert_eq!(bytes, MIB);
            continue;
        }
        let passes = s["passes"].as_u64().expect("passes recorded");
        assert!(
            passes >= 2,
            "a 1 MiB warm pass is far under {min_ns} ns: {s}"
        );
        assert_eq!(bytes, passes * MIB, "bytes moved, every pass: {s}");
        let spent = s["setup_ns"].as_u64().unwrap()
            + s["wall_ns"].as_u64().unwrap()
            + s["teardown_ns"].as_u64().unwrap();
        assert!(spent >= min_ns, "{s}");
    }
}

/// Without --runs, a warm read trial repeats its pass to 40 ms (the default
/// shortest trial, said in the rules line), silently where it cannot apply;
/// with --runs, one pass a trial as asked.
#[test]
fn warm_trials_of_the_default_rules_repeat_their_pass_to_40_ms() {
    let scratch = Scratch::new();
    let flags = one_mib_warm_and_cold;
    let json_path = scratch.path("default.json");
    let out = succeeded(scratch.run(flags()).arg("--export-json").arg(&json_path));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("a warm read trial repeats its pass until its loops take 40 ms"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("--min-trial-time applies"), "{stderr}");
    cold_once_warm_repeated(&common::read_json(&json_path), 40_000_000);
    // --runs: the runs asked for, one pass each; and --min-trial-time off
    // under the default rules: one pass each, and the rules line says none.
    let json = scratch.run_json(flags().runs(2));
    for (_, s) in samples(&json) {
        assert!(s.get("passes").is_none(), "{s}");
        assert_eq!(s["bytes"].as_u64().unwrap(), MIB, "{s}");
    }
    let off_path = scratch.path("off.json");
    let out = succeeded(
        scratch
            .run(flags().cache("warm").flag("--min-trial-time", "off"))
            .arg("--export-json")
            .arg(&off_path),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("rules: "), "{stdout}");
    assert!(!stdout.contains("repeats its pass"), "{stdout}");
    for (_, s) in samples(&common::read_json(&off_path)) {
        assert!(s.get("passes").is_none(), "{s}");
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
    // One warning, a row per short case naming what would lengthen it
    // (wrapped at the console's width: read it flattened).
    let stderr = String::from_utf8_lossy(&out.stderr);
    let flat = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("warning: trials under 20 ms: results might be inaccurate")
            && flat.contains("read (seq 64 KiB sum, warm)")
            && flat.contains("--min-trial-time 20ms"),
        "{stderr}"
    );
    let row = stderr
        .lines()
        .find(|l| l.trim_start().starts_with("read (seq 64 KiB sum, warm)") && l.contains(" ms "))
        .unwrap_or_else(|| panic!("no row for read: {stderr}"));
    assert!(row.contains("--min-trial-time 20ms"), "{row}");
}

/// A rate line's `K of N = P% [95% CI L–H%]: WORDS`: its numbers, checked
/// to agree with each other, and the words after them.
#[track_caller]
fn rate_in(line: &str) -> (u64, u64, String) {
    let (_, rest) = line.split_once(": ").expect("a label");
    let (k, rest) = rest.split_once(" of ").expect("K of");
    let (n, rest) = rest.split_once(" = ").expect("N =");
    let (p, rest) = rest.split_once("% [95% CI ").expect("P% [95% CI");
    let (lo, rest) = rest.split_once('–').expect("L–");
    let (hi, words) = rest.split_once("%]: ").expect("H%]");
    let num = |x: &str| {
        x.trim()
            .parse::<f64>()
            .unwrap_or_else(|_| panic!("{x}: {line}"))
    };
    let (k, n) = (num(k) as u64, num(n) as u64);
    let (p, lo, hi) = (num(p), num(lo), num(hi));
    assert!(n > 0 && k <= n, "{line}");
    assert!((p - 100.0 * k as f64 / n as f64).abs() < 0.06, "{line}");
    assert!(lo <= p && p <= hi && hi <= 100.0, "{line}");
    let expected = if hi <= 5.0 {
        "within the 5.0% target"
    } else if lo > 5.0 {
        "ABOVE the 5.0% target"
    } else {
        "not shown against the 5.0% target (needs more families"
    };
    assert!(words.starts_with(expected), "{line}");
    (k, n, words.to_string())
}

/// The one line of `stdout` that starts with `prefix`.
#[track_caller]
fn line_of<'a>(stdout: &'a str, prefix: &str) -> &'a str {
    let found: Vec<&str> = stdout.lines().filter(|l| l.starts_with(prefix)).collect();
    assert_eq!(found.len(), 1, "{prefix}: {stdout}");
    found[0]
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
            .args([
                "--families",
                "2",
                "--claims",
                "--max-runs",
                "5",
                "--data-dir",
            ])
            .arg(scratch.data_dir())
            .arg("--export-json")
            .arg(&json),
    );
    // A completed A/A run removed its journal: no path of it is printed
    // (the one it printed had been deleted), and none is left.
    let stderr = String::from_utf8_lossy(&out.stderr);
    for line in stderr.lines().filter(|l| l.starts_with("journal: ")) {
        let path = std::path::Path::new(line.trim_start_matches("journal: "));
        assert!(path.exists(), "printed a journal that is gone: {stderr}");
    }
    assert!(!stderr.contains("journal: "), "{stderr}");
    let journals = |dir: &std::path::Path| {
        std::fs::read_dir(dir).map_or(0, |d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().ends_with(".journal"))
                .count()
        })
    };
    assert_eq!(journals(scratch.dir.path()), 0);
    assert_eq!(journals(&scratch.data_dir().join("runs")), 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "calibrate: read vs itself, seq 16 KiB sum, warm",
        "A/A: 4 comparisons of 3.0 pairs on average, in 2 families",
        "noise floor: ±",
        // A run's smallest effect unless told otherwise.
        "run verdicts, a difference called only when its CI lies beyond ±5.0% (--min-effect):",
        "  false verdicts per comparison: raw ",
        "  beside real effects (half of each family's comparisons given an effect",
        "at the current settings (Holm):",
    ] {
        assert!(stdout.contains(needle), "{needle}: {stdout}");
    }
    // Per comparison and per family, each with its interval and target.
    assert_eq!(rate_in(line_of(&stdout, "  per comparison: ")).1, 4);
    assert_eq!(rate_in(line_of(&stdout, "  per family: ")).1, 2);
    assert_eq!(
        rate_in(line_of(&stdout, "  per family beside real effects: ")).1,
        2
    );
    // The claim rates, fixed and settled, for each A/A claim.
    let heading = line_of(&stdout, "A/A claims, judged as reproduce judges");
    let interfered: f64 = heading
        .rsplit_once("; ")
        .and_then(|(_, tail)| tail.split_once("% of the pairs had an interfered trial"))
        .map(|(pct, _)| pct.parse().expect("a share"))
        .unwrap_or_else(|| panic!("{heading}"));
    for cut in [
        "A/A claims, fixed comparisons of 3 pairs, each judged once:",
        "A/A claims, settled as reproduce settles a claim (a pilot of 3 pairs, then one more \
         pair at a time while the settling rule asks, up to 5):",
    ] {
        assert_eq!(
            stdout.lines().filter(|l| *l == cut).count(),
            1,
            "{cut}: {stdout}"
        );
    }
    for claim in [
        "  ratio \"B is 1.2x faster than A\" (published 1.09–1.32x; right: no effect): ",
        "  range \"B is 2-6x faster than A\" (published 2–6x; right: no effect): ",
        "  similar \"A and B are similar, within 1.5x\" (published 0.67–1.50x; right: holds): ",
    ] {
        let n = stdout.lines().filter(|l| l.starts_with(claim)).count();
        // Fixed and settled, and both again with interference not checked
        // when any pair had an interfered trial (the load decides which).
        assert_eq!(n, if interfered > 0.0 { 4 } else { 2 }, "{claim}: {stdout}");
    }
    let named: Vec<_> = stdout
        .lines()
        .filter(|l| l.starts_with("    false holds or reversed: "))
        .map(rate_in)
        .collect();
    assert!(named.len() >= 4, "{stdout}");
    // The fixed comparisons: 12 pairs in 3s.
    assert_eq!(named[0].1, 4, "{stdout}");
    assert!(stdout.contains("    false not similar: "), "{stdout}");
    for line in stdout
        .lines()
        .filter(|l| l.starts_with("    any false verdict: "))
    {
        rate_in(line);
    }
    // Two identical cases, alternating, 12 pairs.
    let results = common::read_json(&json);
    assert_eq!(samples(&results).len(), 24);
    let labels = common::labels(&results);
    assert!(
        labels.contains("read(copy=A)") && labels.contains("read(copy=B)"),
        "{labels:?}"
    );
    // The same trials read back give the same analysis, and another cut.
    let again = succeeded(
        faultline()
            .args(["calibrate", "--runs", "3", "--comparisons", "2", "--from"])
            .arg(&json),
    );
    let again = String::from_utf8_lossy(&again.stdout);
    let verdicts = |s: &str| {
        s.lines()
            .skip_while(|l| !l.starts_with("A/A: "))
            .take_while(|l| !l.starts_with("A/A claims"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(&again), verdicts(&stdout));
    assert!(!again.contains("A/A claims"), "no --claims: {again}");
    let recut = succeeded(
        faultline()
            .args([
                "calibrate",
                "--runs",
                "2",
                "--comparisons",
                "3",
                "--min-effect",
                "0",
                "--from",
            ])
            .arg(&json),
    );
    let recut = String::from_utf8_lossy(&recut.stdout);
    for needle in [
        "A/A: 6 comparisons of 2.0 pairs on average, in 2 families",
        "run verdicts, any difference the CI shows called (--min-effect 0):",
    ] {
        assert!(recut.contains(needle), "{needle}: {recut}");
    }
}

/// Without --families, calibrate adds families, looking at 10, 20, 40, 80
/// and 160, until both rates are shown within or above the 5% target.
#[test]
fn calibrate_without_families_runs_until_both_rates_are_shown() {
    let scratch = Scratch::new();
    let args = [
        "calibrate",
        "--size",
        "256k",
        "--runs",
        "2",
        "--comparisons",
        "1",
    ];
    let dry = succeeded(
        faultline()
            .args(args)
            .arg("--dry-run")
            .arg("--data-dir")
            .arg(scratch.data_dir()),
    );
    let dry = String::from_utf8_lossy(&dry.stdout);
    let then = line_of(
        &dry,
        "  then: a family at a time until both false-verdict rates",
    );
    assert!(
        then.contains("looking at 10, 20, 40, 80 and 160 families: up to 320 pairs in all"),
        "{then}"
    );
    let out = succeeded(
        faultline()
            .args(args)
            .arg("--data-dir")
            .arg(scratch.data_dir()),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("20 alternating pairs (10 families of 1 comparisons of 2 pairs), then a family at a time up to 160"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let families: usize = line_of(&stdout, "A/A: ")
        .rsplit_once(" in ")
        .and_then(|(_, n)| n.strip_suffix(" families")?.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    // It stopped at a look; before the last, only with both rates shown.
    assert!([10, 20, 40, 80, 160].contains(&families), "{stdout}");
    let comparison = rate_in(line_of(&stdout, "  per comparison: "));
    let family = rate_in(line_of(&stdout, "  per family: "));
    assert_eq!(family.1 as usize, families);
    if families < 160 {
        for (_, _, words) in [&comparison, &family] {
            assert!(!words.starts_with("not shown"), "{stdout}");
        }
    }
    // A rate within 5% needs at least 72 families (0 of 72: upper end
    // 4.99%); fewer stop only on a rate shown above the target.
    if families < 72 {
        assert!(family.2.starts_with("ABOVE"), "{stdout}");
    }
}

#[test]
fn calibrate_refuses_what_it_cannot_analyse_in_one_line() {
    let scratch = Scratch::new();
    let junk = scratch.path("junk.json");
    std::fs::write(&junk, "not json").unwrap();
    // A run's export: two cases, not two copies of one.
    let run = scratch.path("run.json");
    succeeded(
        scratch
            .run(
                Flags::new()
                    .method("read,mmap")
                    .pattern("seq")
                    .block("64k")
                    .size("256k")
                    .cache("warm")
                    .runs(2),
            )
            .arg("--export-json")
            .arg(&run),
    );
    let gone = scratch.path("gone.json");
    let cases: [(Vec<std::ffi::OsString>, &str); 8] = [
        (
            vec!["--from".into(), gone.into()],
            "gone.json: cannot be read",
        ),
        (
            vec!["--from".into(), junk.clone().into()],
            "is not a faultline JSON export",
        ),
        (
            vec!["--from".into(), run.clone().into()],
            "is not a faultline calibrate export: it holds 2 case(s), not the two copies",
        ),
        (
            vec!["--from".into(), junk.into(), "--size".into(), "1M".into()],
            "cannot be used with",
        ),
        (
            vec![
                "--claims".into(),
                "--runs".into(),
                "5".into(),
                "--max-runs".into(),
                "3".into(),
            ],
            "--max-runs 3 is below --runs 5",
        ),
        (
            vec!["--from".into(), run.clone().into(), "--dry-run".into()],
            "cannot be used with",
        ),
        (vec!["--max-runs".into(), "10".into()], "--claims"),
        (vec!["--min-effect".into(), "100%".into()], "--min-effect"),
    ];
    for (args, needle) in cases {
        let out = faultline()
            .arg("calibrate")
            .args(&args)
            .arg("--data-dir")
            .arg(scratch.data_dir())
            .output()
            .unwrap();
        one_line(&out, 2, &[needle]);
    }
    assert!(
        !scratch.data_dir().join("noise.json").exists(),
        "nothing measured"
    );
}

#[test]
fn a_smallest_effect_keeps_small_differences_within_noise_and_is_said() {
    // read and pread do the same work: their ratio is near 1, far inside a
    // ±90% margin, so the test against the margin's edge gives p = 1
    // exactly, whatever the noise; without a margin p is below 1.
    let scratch = Scratch::new();
    // Trials of at least 20 ms and 5 pairs, so that a loaded machine's
    // stalls do not push the two identical methods' ratio out of ×/÷ 1.9.
    let flags = Flags::new()
        .method("read,pread")
        .pattern("seq")
        .block("64k")
        .size("4M")
        .cache("warm")
        .flag("--min-trial-time", "20ms")
        .runs(5)
        // p-values of every pair: none set aside as interfered with.
        .flag("--interference-threshold", "off");
    let wide = scratch.run_json(flags.clone().flag("--min-effect", "90%"));
    assert_eq!(wide["settings"]["statistics"]["min_effect"], 0.9);
    let c = &wide["comparisons"][0];
    assert_eq!(c["p_value"].as_f64(), Some(1.0), "{c}");
    assert_eq!(c["verdict"], "within-noise", "{c}");
    // Every run calls differences from ±5% unless told otherwise.
    let default = scratch.run_json(flags.clone());
    assert_eq!(default["settings"]["statistics"]["min_effect"], 0.05);
    let plain = scratch.run_json(flags.clone().flag("--min-effect", "0"));
    assert_eq!(plain["settings"]["statistics"]["min_effect"], 0.0);
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
            .flag("--max-runs", "5"),
    );
    assert!(
        with_precision.contains("beyond ±20.0% (--min-effect)"),
        "{with_precision}"
    );
    let zero = stdout(
        flags
            .flag("--precision", "20%")
            .flag("--max-runs", "5")
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
            "invalid value 'write' for '--method",
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

/// The complete lines of a journal, parsed.
fn journal_entries(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_precision_run_cut_after_its_extra_rounds_resumes_and_keeps_them() {
    let scratch = Scratch::new();
    let journal = scratch.path("run.journal");
    // ±0.01% is out of reach: the run adds rounds up to --max-runs 5.
    succeeded(
        &mut scratch.run(
            Flags::new()
                .method("read,pread")
                .pattern("seq")
                .block("64k")
                .size("1M")
                .cache("warm")
                .runs(2)
                .flag("--precision", "0.01%")
                .flag("--max-runs", "5")
                .journal(&journal),
        ),
    );
    let whole = journal_entries(&journal);
    assert_eq!(whole.len(), 1 + 2 * 5, "header + 2 cases × 5 runs");
    assert_eq!(whole[0]["statistics"]["precision"]["max_runs"], 5);
    // Cut as a SIGKILL in the middle of extra round 3 would: runs 0-2,
    // the first trial of run 3, and a torn line.
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut cut = lines[..8].join("\n");
    cut.push('\n');
    cut.push_str(&lines[8][..lines[8].len() / 2]);
    std::fs::write(&journal, cut).unwrap();
    let kept: Vec<serde_json::Value> = whole[1..8].iter().map(|l| l["sample"].clone()).collect();
    assert!(kept.iter().any(|s| s["run"] == 3) && kept.iter().any(|s| s["run"] == 2));

    let json = scratch.path("out.json");
    let out = succeeded(
        faultline()
            .args(["run", "--data-dir"])
            .arg(scratch.data_dir())
            .arg("--resume")
            .arg(&journal)
            .arg("--export-json")
            .arg(&json)
            .arg("--keep-journal"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("7 trial(s) already done") && stderr.contains("skipped a torn last line"),
        "{stderr}"
    );
    let results = common::read_json(&json);
    for case in common::cases(&results) {
        let mut runs: Vec<u64> = case["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["run"].as_u64().unwrap())
            .collect();
        runs.sort_unstable();
        assert_eq!(runs, [0, 1, 2, 3, 4], "{}: each run once", case["label"]);
    }
    // The journalled trials are in the results as they were measured.
    for k in &kept {
        let (_, s) = samples(&results)
            .into_iter()
            .find(|(c, s)| c["id"] == k["case"] && s["run"] == k["run"])
            .expect("kept");
        for field in ["sequence", "total_ns", "wall_ns", "checksum"] {
            assert_eq!(s[field], k[field], "{field} of {k}");
        }
    }
    let g = &results["statistics"]["precision"][0];
    assert_eq!(
        (g["pairs"].as_u64(), g["stopped_by"].as_str()),
        (Some(5), Some("max-runs")),
        "{g}"
    );
    // The journal: each trial once, the resumed ones appended.
    let after = journal_entries(&journal);
    assert_eq!(after.len(), 1 + 10);
    assert_eq!(after[1..8], whole[1..8]);
}

#[test]
fn resume_takes_precision_from_the_journal_not_the_command_line() {
    let out = faultline()
        .args(["run", "--resume", "x.journal", "--precision", "5%"])
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &["the argument '--resume <JOURNAL>' cannot be used with '--precision <P>'"],
    );
    let out = faultline()
        .args(["run", "--resume", "x.journal", "--min-trial-time", "20ms"])
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &["'--resume <JOURNAL>' cannot be used with '--min-trial-time <TIME|off>'"],
    );
}

#[test]
fn the_csv_carries_the_statistics_the_json_has() {
    let scratch = Scratch::new();
    let (json, csv) = (scratch.path("out.json"), scratch.path("out.csv"));
    succeeded(
        scratch
            .run(
                Flags::new()
                    .method("read,pread,mmap")
                    .pattern("seq")
                    .block("64k")
                    .size("1M")
                    .cache("warm")
                    .runs(2)
                    .flag("--precision", "40%")
                    .flag("--max-runs", "5")
                    .flag("--fdr", "holm")
                    .export_json(&json),
            )
            .arg("--export-csv")
            .arg(&csv),
    );
    let results = common::read_json(&json);
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), samples(&results).len());
    // A cell against a JSON value: the same number, boolean or name, or
    // empty where the JSON has none.
    let same = |row: &csv::StringRecord, name: &str, value: &serde_json::Value| {
        let cell = &row[col(name)];
        match value {
            serde_json::Value::Null => assert_eq!(cell, "", "{name}"),
            // The same number: serde_json (without its float_roundtrip
            // feature) may read the export's digits one ulp off.
            serde_json::Value::Number(n) => {
                let (c, j) = (cell.parse::<f64>().unwrap(), n.as_f64().unwrap());
                assert!((c - j).abs() <= 1e-12 * j.abs(), "{name}: {cell} vs {n}")
            }
            serde_json::Value::Bool(b) => assert_eq!(cell, b.to_string(), "{name}"),
            serde_json::Value::String(s) => assert_eq!(cell, s, "{name}"),
            other => panic!("{name}: {other}"),
        }
    };
    let stats = &results["statistics"];
    let groups = stats["precision"].as_array().expect("a precision report");
    let mut compared = 0;
    for row in &rows {
        let id: u64 = row[col("case_id")].parse().unwrap();
        let case = common::cases(&results)
            .iter()
            .find(|c| c["id"] == id)
            .unwrap();
        same(row, "fdr_method", &stats["adjustment"]);
        assert_eq!(&row[col("fdr_method")], "holm");
        same(row, "fdr_family", &stats["family"]);
        let comparison = results["comparisons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["other"] == id);
        let none = serde_json::Value::Null;
        let of = |field: &str| comparison.map_or(&none, |c| &c[field]);
        let ratio = |field: &str| comparison.map_or(&none, |c| &c["throughput_ratio"][field]);
        same(row, "compared_with", of("baseline"));
        same(row, "verdict", of("verdict"));
        same(row, "p_value", of("p_value"));
        same(row, "p_adjusted", of("p_adjusted"));
        same(row, "throughput_ratio", ratio("ratio"));
        same(row, "ratio_ci95_low", ratio("ci95_low"));
        same(row, "ratio_ci95_high", ratio("ci95_high"));
        same(row, "pairs", ratio("pairs"));
        if let Some(c) = comparison {
            same(row, "group", &c["group"]);
            compared += 1;
        }
        let group = groups
            .iter()
            .find(|g| g["group"].as_str() == Some(&row[col("group")]))
            .expect("the row's group has a precision line");
        for (column, field) in [
            ("precision_target", "target"),
            ("precision_reached", "reached"),
            ("precision_half_width", "half_width"),
            ("precision_pairs", "pairs"),
            ("precision_stopped_by", "stopped_by"),
        ] {
            same(row, column, &group[field]);
        }
        same(row, "case_runs", &case["summary"]["runs"]);
        let tally = &case["interference"];
        same(row, "case_interfered_trials", &tally["interfered"]);
        let share = tally["interfered"].as_f64().unwrap() / tally["trials"].as_f64().unwrap();
        let cell = row[col("case_interfered_share")].parse::<f64>().unwrap();
        assert!((cell - share).abs() <= 1e-12, "{cell} vs {share}");
        same(
            row,
            "exclude_interfered",
            &results["settings"]["interference"]["exclude"],
        );
    }
    assert!(compared > 0, "rows of compared cases");
}

/// The dry run says what the precision target takes at the noise the last
/// `calibrate` measured, and what would reach it when the runs allowed do not.
#[test]
fn the_dry_run_plans_the_precision_target_from_the_calibrated_noise() {
    let scratch = Scratch::new();
    let dry_run = |extra: &[&str]| -> String {
        let out = succeeded(scratch.run(["--dry-run", "--size", "1M"]).args(extra));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    // No calibrate yet: said, and nothing is made up.
    let unknown = dry_run(&[]);
    assert!(
        unknown.contains("noise: not yet measured here"),
        "{unknown}"
    );
    std::fs::create_dir_all(scratch.data_dir()).unwrap();
    let noise = |sd: f64| {
        std::fs::write(
            scratch.data_dir().join("noise.json"),
            format!(r#"{{"pair_sd": {sd}, "when": "2026-11-26T10:00:00Z", "what": "read, seq 16 KiB sum, warm"}}"#),
        )
        .unwrap();
    };
    // ±11.7% per pair: ±5% needs more than the 20 runs allowed.
    noise(0.117);
    let noisy = dry_run(&[]);
    assert!(noisy.contains("noise: ±11.7% per pair"), "{noisy}");
    assert!(noisy.contains("more than the 20 allowed"), "{noisy}");
    assert!(noisy.contains("--max-runs"), "{noisy}");
    // ±2% per pair: within the runs allowed.
    noise(0.02);
    let quiet = dry_run(&[]);
    assert!(quiet.contains("within the 20 allowed"), "{quiet}");
    // Fixed runs (no precision target): nothing to plan.
    let fixed = dry_run(&["--runs", "3"]);
    assert!(!fixed.contains("noise:"), "{fixed}");
}

/// The rules given no --runs stop a group's runs once its verdicts are
/// decided; an explicit --precision stops on the CI's width alone, and
/// --runs adds no runs. The dry run says which, as the output does.
#[test]
fn the_default_rules_stop_a_group_once_its_verdicts_are_decided_and_say_so() {
    let scratch = Scratch::new();
    let rules = |extra: &[&str]| -> String {
        let out = succeeded(scratch.run(["--dry-run", "--size", "1M"]).args(extra));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let start = flat.find("rules: ").expect("a rules line");
        flat[start..].split(" noise:").next().unwrap().to_string()
    };
    let default = rules(&[]);
    assert!(
        default
            .contains("within ±5.0% or its verdict is decided (at most 20 per case, 30 s in all)"),
        "{default}"
    );
    let asked = rules(&["--precision", "5%"]);
    assert!(
        asked.contains("within ±5.0% (at most 30 per case)"),
        "{asked}"
    );
    assert!(!asked.contains("decided ("), "{asked}");
    let fixed = rules(&["--runs", "4"]);
    assert!(
        fixed.contains("4 runs per case (--runs; no runs added)"),
        "{fixed}"
    );
}
