//! The conventions of a command-line tool, through the real binary: help
//! for a bare `faultline`, clap's own error format, completions, manual
//! pages, grouped `run --help`, `run --dry-run`, plan files, the journal's
//! lifetime, `clean`, `report`'s default output and the `--runs 1` notice.
mod common;

use std::path::Path;
use std::process::Output;

use common::{entries, faultline, one_line, succeeded, Flags, Scratch};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A tiny warm run: 64 KiB, two runs of read and mmap.
fn tiny() -> Flags {
    Flags::new().size("64k").cache("warm").runs(2)
}

#[test]
fn a_bare_faultline_prints_the_help_as_clap_formats_it_and_exits_2() {
    let out = faultline().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("Usage: faultline"), "{err}");
    assert!(err.contains("\nCommands:\n"), "one command a line: {err}");
    for command in ["run", "reproduce", "report", "completions", "man"] {
        assert!(
            err.lines().any(|l| l.trim_start().starts_with(command)),
            "{command}: {err}"
        );
    }
    assert!(err.lines().count() > 10, "not folded into one line: {err}");
}

#[test]
fn clap_errors_are_printed_as_clap_formats_them() {
    let out = faultline()
        .args(["run", "--method", "bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    let first = err.lines().next().unwrap();
    assert!(
        first.starts_with("error: invalid value 'bogus' for '--method <METHOD>'"),
        "{err}"
    );
    assert!(
        err.contains("\n\nFor more information, try '--help'."),
        "clap's hint on its own line: {err}"
    );
    let out = faultline()
        .args(["run", "--no-such-flag"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("error: unexpected argument '--no-such-flag' found\n"),
        "{err}"
    );
    assert!(err.contains("\nUsage: faultline run [OPTIONS]\n"), "{err}");
    // Help itself goes to stdout and exits 0.
    let out = succeeded(faultline().args(["run", "--help"]));
    assert!(text(&out.stdout).starts_with("Compare I/O methods"));
}

#[test]
fn completions_are_generated_for_each_shell() {
    for (shell, marker) in [
        ("bash", "_faultline()"),
        ("zsh", "#compdef faultline"),
        ("fish", "complete -c faultline"),
        ("elvish", "faultline"),
        ("powershell", "faultline"),
    ] {
        let out = succeeded(faultline().args(["completions", shell]));
        let script = text(&out.stdout);
        assert!(script.contains(marker), "{shell}: {}", &script[..200]);
        for flag in ["dry-run", "print-plan", "export-json"] {
            assert!(script.contains(flag), "{shell} completes --{flag}");
        }
    }
    let out = faultline().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error: invalid value 'tcsh'"));
}

#[test]
fn man_prints_roff_pages_for_faultline_and_each_subcommand() {
    let out = succeeded(faultline().arg("man"));
    let page = text(&out.stdout);
    assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{}", &page[..100]);
    assert!(page.contains(".TH faultline 1"), "{page}");
    assert!(page.contains("reproduce"), "subcommands listed");
    let out = succeeded(faultline().args(["man", "run"]));
    let page = text(&out.stdout);
    assert!(page.contains(".TH faultline-run 1"), "{}", &page[..300]);
    for flag in ["\\-\\-plan", "\\-\\-dry\\-run", "\\-\\-populate"] {
        assert!(page.contains(flag), "{flag} in the run page");
    }
    let out = faultline().args(["man", "bogus"]).output().unwrap();
    one_line(&out, 2, &["man: no subcommand \"bogus\"", "run"]);
}

#[test]
fn run_help_groups_its_flags_under_headings() {
    // -h: one line per flag, so a heading's flags run to the next blank line.
    let out = succeeded(faultline().args(["run", "-h"]));
    let help = text(&out.stdout);
    let headings = [
        "Methods:",
        "Workload:",
        "Write options:",
        "mmap options:",
        "io_uring:",
        "Statistics:",
        "Threads and processes:",
        "Plan and journal:",
        "Output:",
    ];
    let at = |h: &str| {
        help.lines()
            .position(|l| l == h)
            .unwrap_or_else(|| panic!("{h} missing: {help}"))
    };
    for pair in headings.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{pair:?} in order");
    }
    // Under the generic heading only --help remains.
    let options = help
        .split("\nOptions:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap_or("");
    assert!(
        options
            .lines()
            .all(|l| !l.trim_start().starts_with("--") || l.contains("--help")),
        "ungrouped flags: {options}"
    );
    // Each flag is under the heading it belongs to.
    let section = |h: &str| {
        help.split(&format!("\n{h}\n"))
            .nth(1)
            .unwrap()
            .split("\n\n")
            .next()
            .unwrap()
            .to_string()
    };
    assert!(section("mmap options:").contains("--populate"));
    assert!(section("io_uring:").contains("--depth"));
    assert!(section("Statistics:").contains("--runs"));
    assert!(section("Output:").contains("--export-json"));
    assert!(section("Plan and journal:").contains("--keep-journal"));
}

/// Every file under `dir`, recursively.
fn tree(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut all = Vec::new();
    for path in entries(dir) {
        if path.is_dir() {
            all.extend(tree(&path));
        }
        all.push(path);
    }
    all
}

#[test]
fn dry_run_describes_the_run_and_touches_nothing() {
    let scratch = Scratch::new();
    let cwd = scratch.path("cwd");
    std::fs::create_dir(&cwd).unwrap();
    let out = succeeded(
        scratch
            .run(
                Flags::new()
                    .method("read,mmap,write")
                    .size("8M")
                    .runs(3)
                    .export_json(&scratch.path("out.json")),
            )
            .args(["--export-csv", "out.csv", "--dry-run"])
            .current_dir(&cwd),
    );
    let stdout = text(&out.stdout);
    for needle in [
        "run: 10 cases x 3 runs (+0 warm-up) = 30 trials",
        "test files: 8 MiB (8 MiB to generate in ",
        "largest file one write trial creates: 8 MiB",
        "file bytes the trials pass over: 240 MiB in all",
        "disk: needs 16 MiB at its peak; ",
        "estimated time: about ",
        "case 1: read · ",
        "case 10: write · random 4 KiB fill pattern, fresh file",
    ] {
        assert!(stdout.contains(needle), "{needle:?} in {stdout}");
    }
    assert!(!scratch.data_dir().exists(), "no data directory made");
    assert!(!scratch.path("out.json").exists(), "no export");
    assert!(tree(&cwd).is_empty(), "nothing in the working directory");
    // An existing data directory is left as it was.
    std::fs::create_dir(scratch.data_dir()).unwrap();
    std::fs::write(scratch.data_dir().join("notes.txt"), b"mine").unwrap();
    succeeded(scratch.run(tiny()).arg("--dry-run"));
    assert_eq!(
        tree(&scratch.data_dir()),
        vec![scratch.data_dir().join("notes.txt")]
    );
}

/// The flags of a plan worth saving: lists, sizes, a switch, an option.
fn planned() -> Flags {
    Flags::new()
        .method("read,pread,mmap")
        .pattern("seq,random")
        .block("8k")
        .size("1M")
        .cache("warm,cold")
        .runs(3)
        .flag("--warmup", "1")
        .flag("--populate", "none,map")
        .switch("--latency")
        .switch("--drop-caches")
}

#[test]
fn a_printed_plan_runs_the_same_cases() {
    let scratch = Scratch::new();
    let out = succeeded(scratch.run(planned()).arg("--print-plan"));
    let toml = text(&out.stdout);
    for line in [
        "method = [\"read\", \"pread\", \"mmap\"]",
        "block = [\"8k\"]",
        "runs = 3",
        "latency = [\"on\"]",
        "drop-caches = true",
        "# keep = false",
        "# advice = [\"normal\"]",
        "# file =",
    ] {
        assert!(toml.lines().any(|l| l == line), "{line:?} in {toml}");
    }
    assert!(
        !scratch.data_dir().exists(),
        "printing a plan touches nothing"
    );
    let plan = scratch.path("plan.toml");
    std::fs::write(&plan, &toml).unwrap();
    // The same description, but for the free disk space (other processes write).
    let described = |out: &Output| -> String {
        text(&out.stdout)
            .lines()
            .filter(|l| !l.starts_with("  disk: "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let direct = succeeded(scratch.run(planned()).arg("--dry-run"));
    let from_plan = succeeded(scratch.run(["--dry-run", "--plan"]).arg(&plan));
    assert_eq!(described(&from_plan), described(&direct));
    assert!(
        described(&direct).contains("case 16: mmap(populate=map,latency) · "),
        "{}",
        described(&direct)
    );
    // Printing the plan read from the file gives the file back.
    let again = succeeded(scratch.run(["--print-plan", "--plan"]).arg(&plan));
    assert_eq!(text(&again.stdout), toml);
    // A flag on the command line overrides its key.
    let overridden = succeeded(
        scratch
            .run(["--dry-run", "--runs", "5", "--method", "mmap", "--plan"])
            .arg(&plan),
    );
    let stdout = text(&overridden.stdout);
    assert!(
        stdout.contains("run: 8 cases x 5 runs (+1 warm-up) = 48 trials"),
        "mmap alone: 2 patterns x 2 caches x 2 populates: {stdout}"
    );
}

#[test]
fn a_plan_file_takes_underscored_keys_and_plain_values() {
    let scratch = Scratch::new();
    let plan = scratch.path("plan.toml");
    std::fs::write(
        &plan,
        "method = \"read,mmap\"\nsize = \"1M\"\nwarm_by = [\"seq\", \"random\"]\nruns = 2\ncache = [\"warm\"]\n",
    )
    .unwrap();
    let out = succeeded(scratch.run(["--dry-run", "--plan"]).arg(&plan));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("run: 8 cases x 2 runs"),
        "2 methods x 2 patterns x 2 warm-bys: {stdout}"
    );
}

#[test]
fn a_bad_plan_is_one_line_and_exit_2() {
    let scratch = Scratch::new();
    let plan = scratch.path("plan.toml");
    for (content, needles) in [
        (
            "methd = [\"read\"]\n",
            &["--plan ", "unknown key `methd`", "--print-plan"][..],
        ),
        ("runs = \"many\"\n", &["'many'", "--runs"][..]),
        ("runs = 0\n", &["--runs"][..]),
        (
            "method = [\"read\", \"bogus\"]\n",
            &["bogus", "--method"][..],
        ),
        ("keep = 3\n", &["`keep`: must be true or false"][..]),
        (
            "seed = [1, 2]\n",
            &["`seed`: takes one value, not a list"][..],
        ),
        ("method = []\n", &["`method`: is an empty list"][..]),
        ("runs = 3\nruns = 4\n", &["line 2: "][..]),
        ("[table]\nx = 1\n", &["unknown key `table`"][..]),
        ("resume = \"x\"\n", &["unknown key `resume`"][..]),
    ] {
        std::fs::write(&plan, content).unwrap();
        let mut run = scratch.run(["--dry-run", "--plan"]);
        run.arg(&plan);
        let out = run.output().unwrap();
        let line = one_line(&out, 2, needles);
        assert!(line.starts_with("error: --plan "), "{content}: {line}");
    }
    let out = scratch
        .run(["--plan", "/nonexistent/plan.toml"])
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &["--plan /nonexistent/plan.toml: ", "no such plan"],
    );
    assert!(!scratch.data_dir().exists());
}

/// The journals under `dir`.
fn journals(dir: &Path) -> Vec<std::path::PathBuf> {
    tree(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "journal"))
        .collect()
}

#[test]
fn a_complete_run_removes_its_journal_unless_asked_to_keep_it() {
    let scratch = Scratch::new();
    let out = succeeded(&mut scratch.run(tiny()));
    assert!(
        !text(&out.stderr).contains("journal:"),
        "{}",
        text(&out.stderr)
    );
    assert!(journals(scratch.dir.path()).is_empty());
    // Beside a JSON export, too.
    succeeded(&mut scratch.run(tiny().export_json(&scratch.path("out.json"))));
    assert!(scratch.path("out.json").exists());
    assert!(journals(scratch.dir.path()).is_empty());
    // One named with --journal was asked for, and stays.
    let named = scratch.path("named.journal");
    succeeded(&mut scratch.run(tiny().journal(&named)));
    assert!(named.exists());
    std::fs::remove_file(&named).unwrap();
    // --keep-journal keeps it, and says where.
    let out = succeeded(scratch.run(tiny()).arg("--keep-journal"));
    let kept = journals(scratch.dir.path());
    assert_eq!(kept.len(), 1);
    assert!(text(&out.stderr).contains(&format!("journal: {}", kept[0].display())));
}

#[test]
fn clean_removes_the_journals_runs_kept() {
    let scratch = Scratch::new();
    succeeded(scratch.run(tiny()).arg("--keep-journal"));
    succeeded(scratch.run(tiny()).arg("--keep-journal"));
    let kept = journals(&scratch.data_dir());
    assert_eq!(kept.len(), 2);
    let out = succeeded(
        faultline()
            .arg("clean")
            .arg("--data-dir")
            .arg(scratch.data_dir()),
    );
    let stdout = text(&out.stdout);
    for journal in &kept {
        assert!(
            stdout.contains(&format!("removed {}", journal.display())),
            "{stdout}"
        );
        assert!(!journal.exists());
    }
}

#[test]
fn report_writes_beside_the_results_by_default_and_never_over_a_stranger() {
    let scratch = Scratch::new();
    let json = scratch.path("r.json");
    succeeded(&mut scratch.run(tiny().export_json(&json)));
    let out = succeeded(faultline().arg("report").arg(&json));
    let html = scratch.path("r.html");
    assert_eq!(text(&out.stdout), format!("wrote {}\n", html.display()));
    assert!(std::fs::read_to_string(&html).unwrap().contains("<html"));
    // Its own report it may write again.
    succeeded(faultline().arg("report").arg(&json));
    // Someone else's file of that name it leaves alone.
    let other = scratch.path("other.json");
    std::fs::copy(&json, &other).unwrap();
    std::fs::write(scratch.path("other.html"), b"my notes").unwrap();
    let out = faultline().arg("report").arg(&other).output().unwrap();
    one_line(
        &out,
        2,
        &["other.html exists and is not a faultline report", "-o FILE"],
    );
    assert_eq!(
        std::fs::read(scratch.path("other.html")).unwrap(),
        b"my notes"
    );
    // -o still goes where it is told.
    succeeded(
        faultline()
            .arg("report")
            .arg(&other)
            .arg("-o")
            .arg(scratch.path("o.html")),
    );
    assert!(scratch.path("o.html").exists());
}

#[test]
fn one_run_says_a_verdict_needs_two_pairs() {
    let scratch = Scratch::new();
    let out: Output = succeeded(&mut scratch.run(Flags::new().size("64k").cache("warm").runs(1)));
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: --runs 1: no verdicts: a verdict needs at least two pairs of runs (--runs 2 or more)"),
        "{err}"
    );
    let two = succeeded(&mut scratch.run(tiny()));
    assert!(!text(&two.stderr).contains("no verdicts"));
}
