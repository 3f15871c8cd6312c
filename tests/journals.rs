//! A journal is fully validated before a run resumes from it: every damaged
//! or edited line is refused by its line number, in one line, exit 2,
//! never a panic, and nothing is run or appended.
mod common;

use std::path::{Path, PathBuf};

use common::{faultline, one_line, succeeded, Flags, Scratch};
use serde_json::Value;

/// A finished run of 2 cases × 2 runs, and its journal.
fn journal(scratch: &Scratch) -> PathBuf {
    let journal = scratch.path("run.journal");
    succeeded(
        &mut scratch.run(
            Flags::new()
                .size("64k")
                .method("read,mmap")
                .block("16k")
                .cache("as-is")
                .runs(2)
                .journal(&journal),
        ),
    );
    journal
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// `--resume` of the journal after `edit`, expected refused in one line.
#[track_caller]
fn refused_after(edit: impl FnOnce(&mut Vec<Value>), needles: &[&str]) -> String {
    let scratch = Scratch::new();
    let path = journal(&scratch);
    let mut l = lines(&path);
    edit(&mut l);
    write(&path, &l);
    let before = std::fs::read(&path).unwrap();
    let out = faultline()
        .args(["run", "--data-dir"])
        .arg(scratch.data_dir())
        .arg("--resume")
        .arg(&path)
        .output()
        .unwrap();
    let line = one_line(&out, 2, needles);
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing appended");
    line
}

#[test]
fn a_sample_whose_case_is_not_in_the_plan_is_refused_by_line() {
    refused_after(
        |l| l[2]["sample"]["case"] = 99.into(),
        &[
            "run.journal: line 3: case 99 is not in the journal's plan (it has 2 case(s))",
            "cannot be resumed",
        ],
    );
}

#[test]
fn a_run_past_the_plan_s_runs_is_refused_by_line() {
    refused_after(
        |l| l[1]["sample"]["run"] = 7.into(),
        &["line 2: run 7 of case", "past the plan's 2 measured run(s)"],
    );
}

#[test]
fn a_trial_recorded_twice_is_refused_by_line() {
    refused_after(
        |l| {
            let again = l[1].clone();
            l.push(again);
        },
        &["line 6: case", "is already recorded on line 2"],
    );
}

#[test]
fn a_header_outside_faultline_s_bounds_is_refused() {
    refused_after(
        |l| l[0]["plan"]["runs"] = 0.into(),
        &["line 1: runs 0 is not in 1..=10000"],
    );
    refused_after(
        |l| l[0]["plan"]["warmup"] = 4_000_000_000u64.into(),
        &["line 1: warmup 4000000000 is not in 0..=10000"],
    );
    refused_after(
        |l| l[0]["plan"]["cases"][1]["block_size"] = 0.into(),
        &["line 1: case 1 has a block of 0 bytes"],
    );
}

#[test]
fn a_journal_that_is_not_a_regular_file_or_missing_is_bad_input() {
    let out = faultline()
        .args(["run", "--resume", "/dev/zero"])
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &["/dev/zero: is a character device, not a regular file, so not a faultline journal"],
    );
    let out = faultline()
        .args(["run", "--resume", "/nonexistent/run.journal"])
        .output()
        .unwrap();
    one_line(&out, 2, &["/nonexistent/run.journal: no such journal"]);
}

#[test]
fn a_corrupted_middle_line_is_skipped_and_its_trial_runs_again() {
    let scratch = Scratch::new();
    let path = journal(&scratch);
    let mut text = std::fs::read_to_string(&path).unwrap();
    let second = text.find('\n').unwrap() + 1;
    text.replace_range(second..second + 5, "#####");
    std::fs::write(&path, text).unwrap();
    let json = scratch.path("out.json");
    let out = resume_exporting(&scratch, &path, &json);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("skipped corrupted line 2"), "{stderr}");
    assert_eq!(common::samples(&common::read_json(&json)).len(), 4);
}

/// With `--exclude-interfered` the precision rule makes up for a trial it
/// left out with a round past `--max-runs`; a journal holding that round
/// resumes, and the round is in the results. The journal is built from a
/// real run's entries, with the interference set by hand (the load decides
/// it otherwise): run 1 of case 0 interfered, runs 0-3 of both cases, and
/// `--exclude-interfered` in the header.
/// A small read/mmap run whose unreachable ±0.01% target adds precision
/// rounds up to `--max-runs 3`, journalled at `path`.
fn run_to_max_runs(scratch: &Scratch, path: &std::path::Path) {
    succeeded(
        &mut scratch.run(
            Flags::new()
                .size("64k")
                .method("read,mmap")
                .block("16k")
                .cache("as-is")
                .runs(2)
                .flag("--precision", "0.01%")
                .flag("--max-runs", "3")
                .journal(path),
        ),
    );
}

#[test]
fn a_round_made_up_for_an_excluded_trial_past_max_runs_resumes() {
    // As written by --exclude-interfered: on a busy machine every trial may
    // be interfered, and with none counted its rounds would go on without end.
    let runs = resume_a_round_made_up_for_run_1(true);
    let expected: Vec<(u64, u64, bool)> = (0..2)
        .flat_map(|case| (0..4).map(move |run| (case, run, case == 0 && run == 1)))
        .collect();
    assert_eq!(
        runs, expected,
        "the round past --max-runs is kept, run 1 left out, nothing more was due"
    );
}

/// `--exclude-interfered` given to a `--resume` alone is not in the
/// journal's header: the round it made up must read back when the run is
/// resumed again without the flag (it was refused as "past --max-runs").
#[test]
fn a_round_made_up_under_a_resumes_exclude_interfered_resumes_without_it() {
    let runs = resume_a_round_made_up_for_run_1(false);
    let expected: Vec<(u64, u64, bool)> = (0..2)
        .flat_map(|case| (0..4).map(move |run| (case, run, false)))
        .collect();
    assert_eq!(
        runs, expected,
        "every run is kept; without the flag now, run 1 counts and is not left out"
    );
}

/// A small `--precision --max-runs 3` journal rebuilt with four runs of
/// each case, run 1 of case 0 interfered and run 3 the round made up for
/// it, its header's `--exclude-interfered` set to `header_excludes`; then
/// resumed with no flag. The (case, run, left out) of every sample.
fn resume_a_round_made_up_for_run_1(header_excludes: bool) -> Vec<(u64, u64, bool)> {
    let scratch = Scratch::new();
    let path = scratch.path("run.journal");
    run_to_max_runs(&scratch, &path);
    let l = lines(&path);
    let mut header = l[0].clone();
    assert_eq!(header["interference"]["exclude"], false, "{header}");
    header["interference"]["exclude"] = header_excludes.into();
    assert_eq!(header["statistics"]["precision"]["max_runs"], 3, "{header}");
    let first_of = |case: u64| {
        l.iter()
            .find(|e| e["sample"]["case"] == case && e["sample"]["run"] == 0)
            .unwrap_or_else(|| panic!("run 0 of case {case} in {l:?}"))
            .clone()
    };
    let templates = [first_of(0), first_of(1)];
    let mut rebuilt = vec![header];
    for run in 0..4u64 {
        for (case, template) in templates.iter().enumerate() {
            let mut e = template.clone();
            let s = &mut e["sample"];
            s["run"] = run.into();
            s["attempt"] = 0.into();
            s["sequence"] = (run * 2 + case as u64).into();
            assert!(s["interference"].is_object(), "recorded by default: {s}");
            s["interference"]["interfered"] = (case == 0 && run == 1).into();
            rebuilt.push(e);
        }
    }
    write(&path, &rebuilt);
    let json = scratch.path("out.json");
    let out = resume_exporting(&scratch, &path, &json);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("8 trial(s) already done"), "{stderr}");
    let results = common::read_json(&json);
    let mut runs: Vec<(u64, u64, bool)> = common::samples(&results)
        .iter()
        .map(|(_, s)| {
            (
                s["case"].as_u64().unwrap(),
                s["run"].as_u64().unwrap(),
                s["excluded"] == "interfered",
            )
        })
        .collect();
    runs.sort();
    runs
}

#[test]
fn a_run_past_max_runs_is_refused_by_line() {
    let scratch = Scratch::new();
    let path = scratch.path("run.journal");
    run_to_max_runs(&scratch, &path);
    let mut l = lines(&path);
    assert_eq!(l.len(), 1 + 6, "rounds added up to --max-runs");
    // Every trial clean, whatever the load: an interfered one may be left
    // out by a resume's --exclude-interfered, and a round past --max-runs
    // would then be one the run could have made up for it.
    for entry in &mut l[1..] {
        entry["sample"]["interference"]["interfered"] = false.into();
    }
    l[6]["sample"]["run"] = 3.into();
    write(&path, &l);
    let before = std::fs::read(&path).unwrap();
    let out = faultline()
        .args(["run", "--data-dir"])
        .arg(scratch.data_dir())
        .arg("--resume")
        .arg(&path)
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &[
            "run.journal: line 7: run 3 of case",
            "is past the 3 measured run(s) its --max-runs allows",
            "cannot be resumed",
        ],
    );
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing appended");
}

/// Resumes the journal at `path` with `--export-json json`, which must succeed.
fn resume_exporting(
    scratch: &Scratch,
    path: &std::path::Path,
    json: &std::path::Path,
) -> std::process::Output {
    succeeded(
        faultline()
            .args(["run", "--data-dir"])
            .arg(scratch.data_dir())
            .arg("--resume")
            .arg(path)
            .arg("--export-json")
            .arg(json),
    )
}
