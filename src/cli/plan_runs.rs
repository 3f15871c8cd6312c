//! A plan of several named runs (`[run.NAME]` tables, as a fio job file
//! holds several jobs): each run's flags parsed on their own, the outputs
//! the command names once given one file per run (`out.json` becomes
//! `out-NAME.json`), every run planned and checked, and their files checked
//! against each other, before the first starts; then the runs one after
//! another, each with its own journal.
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{ArgMatches, FromArgMatches};

use faultline::error::Error;
use faultline::files::outputs::Files;
use faultline::session::{dry_run, Session, EXIT_INTERRUPTED};

use super::plan_file::{per_run, PlannedRun, OUTPUT_KEYS};
use super::{Cli, Command};

/// One of the runs of a plan with several, ready to run.
#[derive(Debug)]
pub struct NamedRun {
    /// Its `[run.NAME]`.
    pub name: String,
    /// Its flags: the plan's shared keys, its own, the command line's.
    pub args: Box<super::run::RunArgs>,
}

/// The command line's own `run` (as typed, the plan not read in), with the
/// plan's runs in its `plan.named`, each with its flags and its outputs
/// named after it.
pub fn parse(matches: &ArgMatches, planned: Vec<PlannedRun>) -> anyhow::Result<Cli> {
    let parsed = |m: &ArgMatches| {
        Cli::from_arg_matches(m).map_err(|e| {
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or_default().to_string();
            Error::Plan(first.trim_start_matches("error: ").to_string())
        })
    };
    let mut cli = parsed(matches)?;
    let Command::Run(outer) = &mut cli.command else {
        unreachable!("only `run` reads a plan");
    };
    let names: Vec<&str> = planned.iter().filter_map(|p| p.name.as_deref()).collect();
    let plan = outer.plan.plan.clone().unwrap_or_default();
    if outer.plan.print_plan {
        return Err(Error::Plan(format!(
            "--print-plan prints one run, and --plan {} holds {} ({}); pick one with --run NAME",
            plan.display(),
            names.len(),
            names.join(", ")
        ))
        .into());
    }
    let mut named = Vec::new();
    for run in planned {
        let name = run.name.clone().expect("a plan's runs are named");
        let Command::Run(mut args) = parsed(&run.matches)?.command else {
            unreachable!("only `run` reads a plan");
        };
        args.plan.run_name = Some(name.clone());
        // An output the run's own table names is its own; one the plan's
        // shared keys or the command line name is named after the run.
        let inherited = |key: &str| !run.own_keys.iter().any(|k| k == key);
        let rename = |path: &mut Option<PathBuf>, key: &str| {
            debug_assert!(OUTPUT_KEYS.contains(&key));
            if inherited(key) {
                *path = path.as_deref().map(|p| per_run(p, &name));
            }
        };
        rename(&mut args.exports.export_json, "export-json");
        rename(&mut args.exports.export_csv, "export-csv");
        rename(&mut args.exports.export_markdown, "export-markdown");
        rename(&mut args.journal, "journal");
        rename(&mut args.sweep.keep_output, "keep-output");
        named.push(NamedRun { name, args });
    }
    cli.named_runs = named;
    Ok(cli)
}

/// Runs (or with `dry_run`, describes) the plan's runs in order. Every run
/// is planned and checked first, so that a refusal in the last one comes
/// before the first has run. A run with failed trials does not stop the
/// others (the exit code says so at the end); an interrupted one does, and
/// the runs not started are named.
pub fn execute(named: &[NamedRun], dry_run: bool) -> anyhow::Result<ExitCode> {
    let total = named.len();
    let mut ready = Vec::with_capacity(total);
    for run in named {
        faultline::console::set_quiet(run.args.output.output.quiet);
        let planned =
            super::run::ready(&run.args).with_context(|| format!("run `{}`", run.name))?;
        Session::check(&planned.plan, &planned.config)
            .with_context(|| format!("run `{}`", run.name))?;
        ready.push(planned);
    }
    check_across(named, &ready)?;
    if dry_run {
        let mut seconds = 0.0;
        for (i, (run, planned)) in named.iter().zip(&ready).enumerate() {
            super::plan_args::print_dry_run(
                &format!("run {} ({} of {total})", run.name, i + 1),
                &planned.plan,
                &planned.config,
            )?;
            seconds += dry_run::estimated_run_seconds(&planned.plan, &planned.config);
        }
        let trials: u64 = ready
            .iter()
            .map(|r| r.plan.cases.len() as u64 * u64::from(r.plan.runs + r.plan.warmup))
            .sum();
        let text = format!(
            "total: {total} runs, {trials} trials, estimated time about {} (the runs' estimates added up)",
            dry_run::format_duration(seconds)
        );
        print!(
            "{}",
            faultline::console::wrap_lines(&text, faultline::console::width_of_terminal())
        );
        println!();
        return Ok(ExitCode::SUCCESS);
    }
    let mut code = ExitCode::SUCCESS;
    for (i, (run, planned)) in named.iter().zip(ready).enumerate() {
        faultline::console::set_quiet(run.args.output.output.quiet);
        println!("run {} ({} of {total}):", run.name, i + 1);
        let ended =
            super::run::start(&run.args, planned).with_context(|| format!("run `{}`", run.name));
        let rest: Vec<&str> = named[i + 1..].iter().map(|r| r.name.as_str()).collect();
        let not_started = || {
            if !rest.is_empty() {
                eprintln!(
                    "not started: {} (`--run {}` runs them)",
                    rest.join(", "),
                    rest.join(",")
                );
            }
        };
        match ended {
            Ok(c) if c == ExitCode::from(EXIT_INTERRUPTED) => {
                not_started();
                return Ok(c);
            }
            Ok(c) if c != ExitCode::SUCCESS => code = c,
            Ok(_) => {}
            Err(e) => {
                not_started();
                return Err(e);
            }
        }
    }
    Ok(code)
}

/// Refuses a file one run writes that another run reads or writes (by
/// identity, as each run's own check does): two runs never write one file,
/// and no run writes another's input.
fn check_across(named: &[NamedRun], ready: &[super::run::Ready]) -> anyhow::Result<()> {
    let mut files = Files::new(&[]);
    for (run, planned) in named.iter().zip(ready) {
        let flag = |f: &str| format!("{f} (run {})", run.name);
        let config = &planned.config;
        files.input(&flag("the data directory"), &config.data_dir)?;
        if let Some(file) = &config.file {
            files.input(&flag("--file"), file)?;
        }
        for (f, path) in &config.inputs {
            files.input(&flag(f), path)?;
        }
        for case in &planned.plan.cases {
            if let Some(trace) = &case.trace {
                files.input(&flag("--trace"), &trace.path)?;
            }
        }
    }
    for (run, planned) in named.iter().zip(ready) {
        let flag = |f: &str| format!("{f} (run {})", run.name);
        for (f, path) in Session::written_files(&planned.plan, &planned.config) {
            files.output(&flag(f), &path)?;
        }
        if let Some(journal) = &planned.config.journal {
            files.output(&flag("--journal"), journal)?;
        }
    }
    Ok(())
}
