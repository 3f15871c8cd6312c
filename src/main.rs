//! The `faultline` command: options, then plan, then run, then report.
mod cli;

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;

use cli::{Cli, Command, RunArgs};
use faultline::cache::{CacheState, WarmBy};
use faultline::dataset::{self, Dataset};
use faultline::error::Error;
use faultline::measure::environment;
use faultline::plan::Plan;
use faultline::report::{self, Exports};
use faultline::results::{RunResults, Settings};
use faultline::runner::{self, RunnerOptions};
use faultline::scratch::{Needs, Scratch};

/// Exit code for bad usage or bad input.
const EXIT_USAGE: u8 = 2;
/// Exit code for a runtime failure.
const EXIT_FAILURE: u8 = 1;
/// Exit code after SIGINT or SIGTERM.
const EXIT_INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("{}", one_line(&e.render().to_string()));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let result = match cli.command {
        Command::Trial => return ExitCode::from(faultline::trial::child_main() as u8),
        Command::Run(args) => run(*args),
        Command::Env { file, data_dir } => print_env(file, data_dir),
        Command::Clean { data_dir } => clean(data_dir),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", one_line(&format!("{e:#}")));
            let usage = e.chain().any(|c| {
                matches!(
                    c.downcast_ref::<Error>(),
                    Some(Error::Plan(_) | Error::Size { .. } | Error::BadFile { .. })
                )
            });
            ExitCode::from(if usage { EXIT_USAGE } else { EXIT_FAILURE })
        }
    }
}

/// Folds a multi-line message (clap's, for one) into one line, dropping the
/// "For more information" hint.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn data_dir(given: Option<std::path::PathBuf>) -> std::path::PathBuf {
    given.unwrap_or_else(dataset::default_data_dir)
}

fn print_env(
    file: Option<std::path::PathBuf>,
    dir: Option<std::path::PathBuf>,
) -> anyhow::Result<ExitCode> {
    let target = match file {
        Some(f) => {
            dataset::user_file(&f)?;
            f
        }
        None => {
            let dir = data_dir(dir);
            if dir.exists() {
                dir
            } else {
                std::env::temp_dir()
            }
        }
    };
    let env = environment::capture(Some(&target));
    for (label, value) in env.describe() {
        println!("{label:<22} {value}");
    }
    Ok(ExitCode::SUCCESS)
}

fn clean(dir: Option<std::path::PathBuf>) -> anyhow::Result<ExitCode> {
    let dir = data_dir(dir);
    let mut removed = dataset::clean(&dir)?;
    removed.extend(dataset::clean(&dir.join(faultline::scratch::SUBDIR))?);
    for path in &removed {
        println!("removed {}", path.display());
    }
    println!("{} file(s) removed from {}", removed.len(), dir.display());
    Ok(ExitCode::SUCCESS)
}

/// The scratch directory for the plan's write cases, checked (and `--dir`
/// validated) before anything runs; `None` when no case writes.
fn prepare_scratch(
    args: &RunArgs,
    plan: &Plan,
    data_dir: &std::path::Path,
) -> anyhow::Result<Option<Arc<Scratch>>> {
    if !plan.cases.iter().any(|c| c.method.writes()) {
        return Ok(None);
    }
    let needs = Needs::of(&plan.cases);
    let scratch = Scratch::create(args.dir.as_deref(), data_dir, args.keep, needs)?;
    Ok(Some(Arc::new(scratch)))
}

/// Removes the scratch files (a failure is a warning), or says where `--keep` kept them.
fn finish_scratch(scratch: Option<&Scratch>) {
    let Some(scratch) = scratch else { return };
    if scratch.keep() {
        eprintln!(
            "kept the written files in {} (--keep)",
            scratch.dir().display()
        );
    } else if let Err(e) = scratch.cleanup() {
        eprintln!("warning: could not remove the scratch files: {e}");
    }
}

fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let dir = data_dir(args.data_dir.clone());
    // Check the file and the plan before generating anything.
    let user_file = args.file.as_deref().map(dataset::user_file).transpose()?;
    let sizes = match &user_file {
        Some(d) => vec![d.size],
        None => args.sizes(),
    };
    let plan = args.plan(&sizes)?;
    let rewrites = plan
        .cases
        .iter()
        .any(|c| c.cache == CacheState::Warm && c.warm_by == WarmBy::Written);
    if let (true, Some(d)) = (rewrites, &user_file) {
        return Err(Error::Plan(format!(
            "--warm-by written rewrites the file, and {} is not a file faultline created; use --warm-by seq or random",
            d.path.display()
        ))
        .into());
    }
    let scratch = prepare_scratch(&args, &plan, &dir)?;
    let mut files: BTreeMap<u64, Dataset> = BTreeMap::new();
    match user_file {
        Some(d) => {
            files.insert(d.size, d);
        }
        None => {
            for size in sizes {
                if !plan
                    .cases
                    .iter()
                    .any(|c| c.file_size == size && !c.method.writes())
                {
                    continue; // only write methods use this size: nothing to read
                }
                let d = dataset::ensure_generated(&dir, size, args.seed, |p| {
                    eprintln!(
                        "generating {} ({}) ...",
                        p.display(),
                        faultline::size::format_size(size)
                    )
                })
                .context("preparing the test file")?;
                files.insert(size, d);
            }
        }
    }
    let (measured, generated) = match (files.values().next(), &scratch) {
        (Some(first), _) => (first.path.clone(), first.generated()),
        (None, Some(s)) => (s.dir().to_path_buf(), true),
        (None, None) => anyhow::bail!("nothing to measure"),
    };
    let settings = Settings {
        file: measured.clone(),
        generated,
        scratch_dir: scratch.as_ref().map(|s| s.dir().to_path_buf()),
        runs: plan.runs,
        warmup: plan.warmup,
        order: plan.order,
        metric: plan.metric,
        drop_caches: args.drop_caches,
        seed: plan.seed,
    };
    let mut warnings = Vec::new();
    let mut drop_caches = args.drop_caches;
    if drop_caches && dataset::current_uid() != 0 {
        let w = "--drop-caches needs root; falling back to evicting the file with posix_fadvise(DONTNEED)".to_string();
        eprintln!("warning: {w}");
        warnings.push(w);
        drop_caches = false;
    }
    let environment = environment::capture(Some(&measured));
    if let Some(n @ 1..) = environment.damon_kdamonds_running {
        let w = format!(
            "{n} DAMON kdamond(s) running: idle page-cache pages may be reclaimed between and during trials; \
             residency is checked before and after each one"
        );
        eprintln!("warning: {w}");
        warnings.push(w);
    }
    let command_line: Vec<String> = std::env::args().collect();
    let exports = Exports {
        json: args.export_json.clone(),
        csv: args.export_csv.clone(),
        markdown: args.export_markdown.clone(),
    };

    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second signal while stopping exits at once.
        signal_hook::flag::register_conditional_shutdown(
            signal,
            EXIT_INTERRUPTED as i32,
            Arc::clone(&stop),
        )?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let options = RunnerOptions {
        exe: std::env::current_exe().context("finding faultline's own binary")?,
        drop_caches,
        trial_timeout: args.trial_timeout.map(Duration::from_secs_f64),
        stop: Arc::clone(&stop),
        scratch: scratch.clone(),
    };
    let trials = plan.cases.len() as u64 * u64::from(plan.runs + plan.warmup);
    let progress = indicatif::ProgressBar::with_draw_target(
        Some(trials),
        indicatif::ProgressDrawTarget::stderr(),
    );
    progress.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} trials, {elapsed} elapsed, ~{eta} left  {msg}",
        )
        .expect("valid template"),
    );
    let assemble = |raw: &runner::RawResults| {
        let mut raw = raw.clone();
        raw.warnings.splice(0..0, warnings.iter().cloned());
        RunResults::assemble(
            &plan,
            &raw,
            environment.clone(),
            settings.clone(),
            command_line.clone(),
        )
    };
    let mut export_warned = false;
    let outcome = runner::run(&plan, &files, &options, &progress, |raw| {
        if let Err(e) = exports.write_all(&assemble(raw)) {
            if !std::mem::replace(&mut export_warned, true) {
                progress.suspend(|| eprintln!("warning: could not write the exports: {e}"));
            }
        }
    });
    progress.finish_and_clear();
    let raw = outcome?;
    let results = assemble(&raw);
    exports.write_all(&results).context("writing the exports")?;

    println!("{}", report::render_table(&results));
    for line in report::verdict_lines(&results) {
        println!("{line}");
    }
    for line in report::failure_lines(&results) {
        eprintln!("failed: {line}");
    }
    finish_scratch(scratch.as_deref());
    if stop.load(Ordering::SeqCst) {
        eprintln!(
            "interrupted: the exports hold the {} finished trials",
            raw.samples.len()
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}
