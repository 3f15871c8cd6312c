//! A plan of several named runs (`[run.NAME]` tables): every run in the
//! plan's order, each exported on its own (`out.json` → `out-NAME.json`),
//! one picked by `--run`, a dry run of each with their total, and bad plans
//! refused in one line before anything runs.
mod common;

use common::{one_line, read_json, succeeded, Scratch};

/// Two named runs of one read and one mmap case each, sharing their flags.
const TWO_RUNS: &str = r#"# shared by every run
size = "1M"
method = ["read", "mmap"]
cache = "warm"
runs = 2

[run.seq]
pattern = "seq"

[run.rand]
pattern = "random"
block = "4k"
"#;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn every_named_run_runs_in_order_and_exports_on_its_own() {
    let scratch = Scratch::new();
    let plan = scratch.path("two.toml");
    std::fs::write(&plan, TWO_RUNS).unwrap();
    let out = succeeded(
        scratch
            .run(["--plan"])
            .arg(&plan)
            .arg("--export-json")
            .arg(scratch.path("out.json"))
            .arg("--export-csv")
            .arg(scratch.path("out.csv")),
    );
    let stdout = text(&out.stdout);
    let first = stdout.find("run seq (1 of 2):").expect("seq announced");
    let second = stdout.find("run rand (2 of 2):").expect("rand announced");
    assert!(first < second, "in the plan's order: {stdout}");
    assert!(
        !scratch.path("out.json").exists(),
        "no export under the shared name"
    );
    for (name, pattern, block) in [("seq", "seq", 16384), ("rand", "random", 4096)] {
        let json = read_json(&scratch.path(&format!("out-{name}.json")));
        let cases = common::cases(&json);
        assert_eq!(cases.len(), 2, "{name}: read and mmap");
        for case in cases {
            assert_eq!(case["pattern"], pattern, "{name}: {case}");
            assert_eq!(case["block_size"], block, "{name}: {case}");
            assert_eq!(case["file_size"], 1 << 20, "{name}: {case}");
        }
        assert!(scratch.path(&format!("out-{name}.csv")).is_file(), "{name}");
    }
    // Each run's journal was its own, and went when the run completed.
    let left: Vec<_> = std::fs::read_dir(scratch.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".journal"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn run_picks_one_named_run_which_keeps_the_export_name_given() {
    let scratch = Scratch::new();
    let plan = scratch.path("two.toml");
    std::fs::write(&plan, TWO_RUNS).unwrap();
    let json = scratch.path("one.json");
    let out = succeeded(
        scratch
            .run(["--run", "rand", "--keep-journal", "--plan"])
            .arg(&plan)
            .arg("--export-json")
            .arg(&json),
    );
    assert!(!text(&out.stdout).contains("run seq"));
    let results = read_json(&json);
    for case in common::cases(&results) {
        assert_eq!(case["pattern"], "random", "{case}");
    }
    // Its journal carries its name.
    let journals: Vec<String> = std::fs::read_dir(scratch.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".journal"))
        .collect();
    assert!(
        journals.len() == 1 && journals[0].starts_with("faultline-run-rand-"),
        "{journals:?}"
    );
}

#[test]
fn the_dry_run_shows_each_run_and_their_total_and_touches_nothing() {
    let scratch = Scratch::new();
    let plan = scratch.path("two.toml");
    std::fs::write(&plan, TWO_RUNS).unwrap();
    let out = succeeded(
        scratch
            .run(["--dry-run", "--plan"])
            .arg(&plan)
            .arg("--export-json")
            .arg(scratch.path("out.json")),
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("run seq (1 of 2): 2 cases x 2 runs"),
        "{stdout}"
    );
    assert!(
        stdout.contains("run rand (2 of 2): 2 cases x 2 runs"),
        "{stdout}"
    );
    assert!(stdout.contains("random 4 KiB"), "{stdout}");
    assert!(stdout.contains(&format!(
        "writes --export-json {}",
        scratch.path("out-seq.json").display()
    )));
    assert!(stdout.contains(&format!(
        "writes --export-json {}",
        scratch.path("out-rand.json").display()
    )));
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("total: 2 runs, 8 trials, estimated time about "),
        "{stdout}"
    );
    for line in stdout.lines() {
        assert!(line.chars().count() <= 100, "{line}");
    }
    assert!(!scratch.data_dir().exists(), "a dry run touches nothing");
}

#[test]
fn a_bad_multi_run_plan_is_one_line_and_exit_2_before_anything_runs() {
    let scratch = Scratch::new();
    let plan = scratch.path("plan.toml");
    let same = scratch.path("same.json");
    let same_plan = format!(
        "runs = 2\nsize = \"1M\"\n[run.a]\nexport-json = \"{0}\"\n[run.b]\nexport-json = \"{0}\"\n",
        same.display()
    );
    let onto_plan = format!(
        "runs = 2\n[run.a]\n[run.b]\nexport-json = \"{}\"\n",
        plan.display()
    );
    let missing_file = format!(
        "runs = 2\n[run.a]\nsize = \"1M\"\n[run.b]\nfile = \"{}\"\n",
        scratch.path("missing.bin").display()
    );
    let cases: Vec<(String, Vec<&str>)> = vec![
        (
            "runs = 2\n[run.a]\nmethod = \"read\"\n[run.a]\nmethod = \"mmap\"\n".into(),
            vec!["line 4: duplicate key", "[run.a]"],
        ),
        (
            "runs = 2\n[run]\n".into(),
            vec!["line 2: ", "holds no runs"],
        ),
        (
            "[run.a]\n[run.b]\nmethd = \"mmap\"\n".into(),
            vec!["[run.b]: line 3: unknown key `methd`"],
        ),
        (
            "run = 3\n".into(),
            vec!["line 1: `run` holds the plan's named runs"],
        ),
        (
            "[runs.a]\nmethod = \"read\"\n".into(),
            vec!["`runs` is a table", "[run.NAME]"],
        ),
        (
            "[run.\"a/b\"]\n".into(),
            vec!["run name `a/b`", "letters, digits"],
        ),
        (
            "[run.a]\n[run.b]\nmethod = \"bogus\"\n".into(),
            vec!["[run.b]: ", "bogus"],
        ),
        (
            // Refused before run a runs, though only run b is wrong.
            missing_file,
            vec!["run `b`: ", "no such file"],
        ),
        (same_plan, vec!["(run b)", "is the same file as", "(run a)"]),
        (onto_plan, vec!["is the same file as --plan"]),
    ];
    for (content, needles) in &cases {
        std::fs::write(&plan, content).unwrap();
        let out = scratch.run(["--plan"]).arg(&plan).output().unwrap();
        let line = one_line(&out, 2, needles);
        assert!(line.starts_with("error: "), "{content}: {line}");
        assert!(
            !scratch.data_dir().exists(),
            "{content}: nothing ran: {line}"
        );
        assert!(!same.exists());
    }

    // --run: a name the plan does not hold; a plan without named runs;
    // --print-plan of several runs.
    std::fs::write(&plan, TWO_RUNS).unwrap();
    let out = scratch
        .run(["--run", "nope", "--plan"])
        .arg(&plan)
        .output()
        .unwrap();
    one_line(&out, 2, &["--run nope: no run of that name", "seq, rand"]);
    let out = scratch
        .run(["--print-plan", "--plan"])
        .arg(&plan)
        .output()
        .unwrap();
    one_line(&out, 2, &["--print-plan prints one run", "--run NAME"]);
    std::fs::write(&plan, "runs = 2\n").unwrap();
    let out = scratch
        .run(["--run", "a", "--plan"])
        .arg(&plan)
        .output()
        .unwrap();
    one_line(&out, 2, &["--run a: this plan has no named runs"]);
    let out = scratch.run(["--run", "a"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--plan"));
    assert!(!scratch.data_dir().exists());
}

#[test]
fn print_plan_of_a_picked_run_holds_its_keys_over_the_shared_ones() {
    let scratch = Scratch::new();
    let plan = scratch.path("two.toml");
    std::fs::write(&plan, TWO_RUNS).unwrap();
    let out = succeeded(
        scratch
            .run(["--run", "rand", "--print-plan", "--plan"])
            .arg(&plan),
    );
    let stdout = text(&out.stdout);
    for key in [
        "pattern = [\"random\"]",
        "block = [\"4k\"]",
        "size = [\"1M\"]",
        "runs = 2",
    ] {
        assert!(stdout.lines().any(|l| l == key), "{key}: {stdout}");
    }
}

/// A named run interrupted keeps its own journal (named after it), says
/// which runs were not started, and is resumed on its own into its own
/// export.
#[test]
fn an_interrupted_named_run_keeps_its_journal_and_names_the_runs_not_started() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let scratch = Scratch::new();
    let plan = scratch.path("slow.toml");
    // Slow trials (1-byte blocks), so that the signal comes mid-run.
    std::fs::write(
        &plan,
        "size = \"2M\"\nmethod = [\"read\", \"pread\"]\nblock = \"1\"\ncache = \"as-is\"\nruns = 3\n\
         [run.first]\npattern = \"seq\"\n[run.second]\npattern = \"reverse\"\n",
    )
    .unwrap();
    let run = common::spawn_piped(
        scratch
            .run(["--plan"])
            .arg(&plan)
            .arg("--export-json")
            .arg(scratch.path("out.json")),
    );
    let journal = || {
        std::fs::read_dir(scratch.dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(".journal"))
    };
    common::wait_until("the first run's journal holds a trial", || {
        journal()
            .and_then(|j| std::fs::read_to_string(j).ok())
            .is_some_and(|t| t.lines().count() > 1)
    });
    kill(Pid::from_raw(run.id() as i32), Signal::SIGINT).unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let journal = journal().expect("the journal is kept");
    let name = journal.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("faultline-run-first-"), "{name}");
    assert!(
        stderr.contains("not started: second (`--run second` runs them)"),
        "{stderr}"
    );
    assert!(!scratch.path("out-second.json").exists());
    // Resumed, the first run finishes into its own export.
    succeeded(
        common::faultline()
            .arg("run")
            .arg("--resume")
            .arg(&journal)
            .arg("--data-dir")
            .arg(scratch.data_dir()),
    );
    let first = read_json(&scratch.path("out-first.json"));
    assert_eq!(first["complete"], true);
    assert_eq!(common::samples(&first).len(), 6, "2 methods x 3 runs");
}
