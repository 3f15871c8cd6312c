//! `run`'s flags about the plan itself rather than what it measures: read
//! it from a TOML file, print it as one, describe it without running it,
//! and keep the journal of a run that completed.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use faultline::plan::Plan;
use faultline::session::{dry_run, RunSpec};

/// The plan-file, dry-run and journal flags of `faultline run`.
#[derive(Debug, Default, Args)]
#[command(next_help_heading = "Plan and journal")]
pub struct PlanArgs {
    /// Read the run's flags from a TOML plan: one key per flag (`method = ["read", "mmap"]`,
    /// `runs = 5`, `drop-caches = true`). A flag given on the command line overrides its key.
    #[arg(long, value_name = "FILE.toml", conflicts_with = "resume")]
    pub plan: Option<PathBuf>,
    /// Run only these of the plan's named runs (`[run.NAME]` tables), in the plan's order
    /// [default: every one].
    #[arg(long, value_name = "NAME", value_delimiter = ',', requires = "plan")]
    pub run: Vec<String>,
    /// Print the plan of these flags as TOML (every flag a key; defaults commented out)
    /// and exit, running nothing.
    #[arg(long, conflicts_with_all = ["resume", "dry_run"])]
    pub print_plan: bool,
    /// Print what the run would do (its cases, trials, bytes, disk space and an estimated
    /// time) and exit, touching nothing.
    #[arg(long, conflicts_with = "resume")]
    pub dry_run: bool,
    /// Keep the journal of a run that completes (it is removed then, unless --journal named
    /// it; an interrupted run's journal is always kept, for --resume).
    #[arg(long)]
    pub keep_journal: bool,
    /// The plan as TOML, when --print-plan asked for it (filled in after parsing).
    #[arg(skip)]
    pub printed: Option<String>,
    /// The name of the plan's `[run.NAME]` this run is (filled in after parsing).
    #[arg(skip)]
    pub run_name: Option<String>,
}

/// `run --dry-run` (and `calibrate --dry-run`): what the plan would run and need, and its cases; nothing
/// is generated, created or measured.
/// The run's own refusals come first ([`faultline::session::Session::check`]),
/// word for word: an export the run would refuse is refused here too.
pub fn print_dry_run(name: &str, plan: &Plan, config: &RunSpec) -> anyhow::Result<ExitCode> {
    faultline::session::Session::check(plan, config)?;
    let width = faultline::console::width_of_terminal();
    let mut text = dry_run::describe(name, plan, config);
    text.push('\n');
    for line in dry_run::case_lines(plan) {
        text.push_str(&line);
        text.push('\n');
    }
    for line in written_lines(plan, config) {
        text.push_str(&line);
        text.push('\n');
    }
    print!("{}", faultline::console::wrap_lines(&text, width));
    Ok(ExitCode::SUCCESS)
}

/// The files a run of `plan` would write, one line each: its exports (and
/// the CSV's timeline file, `--keep-output`), and its journal.
pub fn written_lines(plan: &Plan, config: &RunSpec) -> Vec<String> {
    let mut lines: Vec<String> = faultline::session::Session::written_files(plan, config)
        .into_iter()
        .map(|(flag, path)| format!("  writes {flag} {}", path.display()))
        .collect();
    let journal =
        match &config.journal {
            Some(path) => format!("  writes --journal {} (kept)", path.display()),
            None => format!(
            "  writes the journal in {} (removed when the run completes, unless --keep-journal)",
            config
                .export_json
                .as_deref()
                .and_then(std::path::Path::parent)
                .map_or_else(|| config.data_dir.join("runs"), std::path::Path::to_path_buf)
                .display()
        ),
        };
    lines.push(journal);
    lines
}

/// Says, before a run starts, when its plan cannot give a verdict: one run
/// per case gives one pair, and a ratio's confidence interval needs two.
pub fn warn_without_verdicts(plan: &Plan) {
    let compared = plan.cases.iter().any(|c| c.method != plan.cases[0].method);
    if plan.runs < 2 && compared {
        faultline::console::warning(&format!(
            "--runs {}: no verdicts: a verdict needs at least two pairs of runs \
             (--runs 2 or more)",
            plan.runs
        ));
    }
}
