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
use faultline::error::Error;
use faultline::files::dataset::{self, Dataset};
use faultline::files::scratch::{Needs, Scratch};
use faultline::measure::environment;
use faultline::plan::Plan;
use faultline::plan::{CacheState, WarmBy};
use faultline::report::{self, Exports};
use faultline::results::Settings;
use faultline::runner::journal::{self, Journal};
use faultline::runner::{self, RunnerOptions};
use faultline::stats::RunResults;

/// Exit code for bad usage or bad input.
const EXIT_USAGE: u8 = 2;
/// Exit code for a runtime failure.
const EXIT_FAILURE: u8 = 1;
/// Exit code after SIGINT or SIGTERM.
const EXIT_INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    // A file-size limit (RLIMIT_FSIZE) then fails a write with EFBIG, which
    // is reported, instead of killing faultline with SIGXFSZ.
    // SAFETY: setting a signal to SIG_IGN has no preconditions.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
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
        Command::Report(args) => cli::report::run(&args),
        Command::Reproduce(args) => cli::reproduce::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", one_line(&chain_text(&e)));
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

/// The error and its causes joined by ": ", leaving out a cause whose text
/// the message before it already ends with (library errors print their
/// source themselves).
fn chain_text(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause.to_string();
        if !text.ends_with(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
    }
    text
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
    let removed =
        faultline::files::clean::clean(&dir, &|p| faultline::runner::journal::read(p).is_ok())?;
    for path in &removed {
        println!("removed {}", path.display());
    }
    println!("{} file(s) removed from {}", removed.len(), dir.display());
    for cgroup in faultline::runner::cgroup::clean_stale() {
        println!("removed stale cgroup {}", cgroup.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Everything a run needs, from fresh flags or from a journal.
struct Setup {
    plan: faultline::plan::Plan,
    files: BTreeMap<u64, Dataset>,
    drop_caches: bool,
    command_line: Vec<String>,
    journal: Journal,
    resume: runner::Resume,
    exports: Exports,
    scratch: Option<Arc<Scratch>>,
    /// The study and mode, when `faultline reproduce` runs the plan.
    reproduction: Option<faultline::results::Reproduction>,
}

/// The scratch directory for the plan's write cases, checked (and `--dir`
/// validated) before anything runs; `None` when no case writes.
fn prepare_scratch(
    dir: Option<&std::path::Path>,
    keep: bool,
    plan: &Plan,
    data_dir: &std::path::Path,
) -> anyhow::Result<Option<Arc<Scratch>>> {
    if !plan.cases.iter().any(|c| c.method.writes()) {
        return Ok(None);
    }
    let needs = Needs::of(&plan.cases);
    let scratch = Scratch::create(dir, data_dir, keep, needs)?;
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
    check_export_dirs(&args)?;
    let setup = match &args.resume {
        Some(path) => setup_resumed(&args, path)?,
        None => setup_fresh(&args)?,
    };
    execute(setup, &args)
}

/// Refuses, before anything runs, an export or journal whose directory is missing.
fn check_export_dirs(args: &RunArgs) -> anyhow::Result<()> {
    let outputs = [
        ("--export-json", &args.export_json),
        ("--export-csv", &args.export_csv),
        ("--export-markdown", &args.export_markdown),
        ("--journal", &args.journal),
    ];
    for (flag, path) in outputs {
        let Some(path) = path else { continue };
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        if !parent.is_dir() {
            return Err(Error::Plan(format!(
                "{flag} {}: the directory {} does not exist",
                path.display(),
                parent.display()
            ))
            .into());
        }
    }
    Ok(())
}

fn exports_of(args: &RunArgs) -> Exports {
    Exports {
        json: args.export_json.clone(),
        csv: args.export_csv.clone(),
        markdown: args.export_markdown.clone(),
    }
}

/// The journal goes where the user said, else beside the JSON export, else
/// into `<data-dir>/runs/`.
fn journal_path(args: &RunArgs, dir: &std::path::Path) -> anyhow::Result<std::path::PathBuf> {
    if let Some(path) = &args.journal {
        return Ok(path.clone());
    }
    let runs = match args
        .export_json
        .as_deref()
        .and_then(std::path::Path::parent)
    {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        Some(_) => std::path::PathBuf::from("."),
        None => {
            let runs = dir.join("runs");
            dataset::ensure_private_dir(&runs)?;
            runs
        }
    };
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Ok(runs.join(format!(
        "faultline-run-{stamp}-{}.journal",
        std::process::id()
    )))
}

fn setup_fresh(args: &RunArgs) -> anyhow::Result<Setup> {
    setup_fresh_plan(args, None, None)
}

/// [`setup_fresh`] with the plan `given` (a preset's) instead of the one the
/// flags describe.
fn setup_fresh_plan(
    args: &RunArgs,
    given: Option<Plan>,
    reproduction: Option<faultline::results::Reproduction>,
) -> anyhow::Result<Setup> {
    let dir = data_dir(args.data_dir.clone());
    // Check the file and the plan before generating anything.
    let user_file = args.file.as_deref().map(dataset::user_file).transpose()?;
    if let (true, Some(d)) = (args.scales(), &user_file) {
        faultline::files::image::check_user_image(&d.path)?;
    }
    let sizes = match (&user_file, &given) {
        (Some(d), _) => vec![d.size],
        (None, Some(plan)) => {
            let mut sizes: Vec<u64> = plan.cases.iter().map(|c| c.file_size).collect();
            sizes.sort_unstable();
            sizes.dedup();
            sizes
        }
        (None, None) if args.scales() => {
            let (w, h) = args.image_size();
            vec![faultline::files::image::image_len(w, h)]
        }
        (None, None) => args.sizes(),
    };
    let plan = match given {
        Some(plan) => plan,
        None => args.plan(&sizes)?,
    };
    let target = user_file
        .as_ref()
        .map_or(dir.as_path(), |d| d.path.as_path());
    faultline::plan::preflight::check_plan(&plan, target)?;
    let scratch_dir = args
        .dir
        .clone()
        .unwrap_or_else(|| dir.join(faultline::files::scratch::SUBDIR));
    faultline::plan::preflight::check_write_dir(&plan, &scratch_dir)?;
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
    let scratch = prepare_scratch(args.dir.as_deref(), args.keep, &plan, &dir)?;
    let mut files: BTreeMap<u64, Dataset> = BTreeMap::new();
    match user_file {
        Some(d) => {
            files.insert(d.size, d);
        }
        None if args.scales() => {
            let (w, h) = args.image_size();
            let image = faultline::files::image::ensure_image(&dir, w, h, args.seed, |p| {
                eprintln!("generating {} ...", p.display())
            })
            .context("preparing the test image")?;
            files.insert(image.size, image);
        }
        None => {
            for size in sizes {
                let read = plan
                    .cases
                    .iter()
                    .any(|c| c.file_size == size && !c.method.writes());
                let scales = plan
                    .cases
                    .iter()
                    .any(|c| c.file_size == size && c.scale.is_some());
                if scales {
                    // A preset's scale cases read a generated PPM image of this length.
                    let (w, h) = image_dims(size).ok_or_else(|| {
                        Error::Plan(format!("no generated PPM image is {size} bytes long"))
                    })?;
                    let image = faultline::files::image::ensure_image(&dir, w, h, args.seed, |p| {
                        eprintln!("generating {} ...", p.display())
                    })
                    .context("preparing the test image")?;
                    files.insert(size, image);
                } else if read {
                    files.insert(size, generated(&dir, size, args.seed)?);
                } // else only write methods use this size: nothing to read
            }
        }
    }
    faultline::plan::preflight::check_files(&plan, &files)?;
    let exports = exports_of(args);
    let command_line: Vec<String> = std::env::args().collect();
    let header = journal::Header {
        faultline_journal: journal::FORMAT,
        plan: plan.clone(),
        files: files
            .values()
            .map(|d| journal::JournalFile {
                path: d.path.clone(),
                size: d.size,
                seed: d.seed,
            })
            .collect(),
        drop_caches: args.drop_caches,
        command_line: command_line.clone(),
        export_json: exports.json.clone(),
        export_csv: exports.csv.clone(),
        export_markdown: exports.markdown.clone(),
        scratch_parent: args.dir.clone(),
        keep: args.keep,
        reproduction: reproduction.clone(),
    };
    let journal = Journal::create(&journal_path(args, &dir)?, &header)?;
    Ok(Setup {
        plan,
        files,
        drop_caches: args.drop_caches,
        command_line,
        journal,
        resume: runner::Resume::default(),
        exports,
        scratch,
        reproduction,
    })
}

/// The generated image whose file is `size` bytes: of the width × height
/// pairs with that length, the one nearest to 5:4 (the 2002 study's
/// 1280 × 1024).
fn image_dims(size: u64) -> Option<(u32, u32)> {
    let mut best: Option<(u32, u32)> = None;
    let off = |(w, h): (u32, u32)| (f64::from(w) / f64::from(h) / 1.25).ln().abs();
    for h in 1..=65_535u32 {
        if 3 * u64::from(h) > size {
            break;
        }
        for digits in 1..=10u32 {
            let header =
                faultline::files::image::image_len(1, h) - 3 * u64::from(h) - 1 + u64::from(digits);
            let Some(pixels) = size.checked_sub(header) else {
                continue;
            };
            if pixels == 0 || pixels % (3 * u64::from(h)) != 0 {
                continue;
            }
            let Ok(w) = u32::try_from(pixels / (3 * u64::from(h))) else {
                continue;
            };
            if w.to_string().len() as u32 == digits
                && faultline::files::image::image_len(w, h) == size
                && best.is_none_or(|b| off((w, h)) < off(b))
            {
                best = Some((w, h));
            }
        }
    }
    best
}

fn generated(dir: &std::path::Path, size: u64, seed: u64) -> anyhow::Result<Dataset> {
    dataset::ensure_generated(dir, size, seed, |p| {
        eprintln!(
            "generating {} ({}) ...",
            p.display(),
            faultline::size::format_size(size)
        )
    })
    .context("preparing the test file")
}

fn setup_resumed(args: &RunArgs, path: &std::path::Path) -> anyhow::Result<Setup> {
    let replay = journal::read(path)?;
    for warning in &replay.warnings {
        eprintln!("warning: {warning}");
    }
    let header = replay.header;
    let dir = data_dir(args.data_dir.clone());
    let mut files = BTreeMap::new();
    for f in &header.files {
        let d = match f.seed {
            // Regenerated if it went missing or changed size.
            Some(seed) => generated(f.path.parent().unwrap_or(&dir), f.size, seed)?,
            None => {
                let d = dataset::user_file(&f.path)?;
                if d.size != f.size {
                    return Err(Error::BadFile {
                        path: f.path.clone(),
                        why: format!(
                            "is {} bytes now, not the {} the journal measured",
                            d.size, f.size
                        ),
                    }
                    .into());
                }
                d
            }
        };
        files.insert(f.size, d);
    }
    let mut resume = runner::Resume::default();
    resume.raw.warnings = replay.warnings;
    for entry in replay.entries {
        resume.done.insert(entry.slot());
        match entry {
            journal::Entry::Sample(s) => resume.raw.samples.push(*s),
            journal::Entry::Failure(f) => resume.raw.failures.push(f),
            journal::Entry::Warmup { .. } => {}
        }
    }
    let given = exports_of(args);
    let exports = Exports {
        json: given.json.or(header.export_json),
        csv: given.csv.or(header.export_csv),
        markdown: given.markdown.or(header.export_markdown),
    };
    eprintln!(
        "resuming {}: {} trial(s) already done",
        path.display(),
        resume.done.len()
    );
    let scratch = prepare_scratch(
        header.scratch_parent.as_deref(),
        header.keep,
        &header.plan,
        &dir,
    )?;
    Ok(Setup {
        scratch,
        plan: header.plan,
        files,
        drop_caches: header.drop_caches,
        command_line: header.command_line,
        journal: Journal::append_to(path)?,
        resume,
        exports,
        reproduction: header.reproduction,
    })
}

fn execute(setup: Setup, args: &RunArgs) -> anyhow::Result<ExitCode> {
    Ok(execute_with_results(setup, args)?.0)
}

/// Runs a plan (journal, exports, table and verdict lines) and hands back
/// the results with the exit code.
fn execute_with_results(setup: Setup, args: &RunArgs) -> anyhow::Result<(ExitCode, RunResults)> {
    let Setup {
        plan,
        files,
        drop_caches: asked_drop_caches,
        command_line,
        mut journal,
        resume,
        exports,
        scratch,
        reproduction,
    } = setup;
    let (measured, generated) = match (files.values().next(), &scratch) {
        (Some(first), _) => (first.path.clone(), first.generated()),
        (None, Some(s)) => (s.dir().to_path_buf(), true),
        (None, None) => anyhow::bail!("nothing to measure"),
    };
    // What continues this run after an interruption: a preset's run is
    // continued by `reproduce`, which gives the published tables and verdicts.
    let resume_command = match &reproduction {
        Some(r) if r.faithful => format!("faultline reproduce {} --faithful --resume", r.preset),
        Some(r) => format!("faultline reproduce {} --resume", r.preset),
        None => "faultline run --resume".to_string(),
    };
    let settings = Settings {
        file: measured.clone(),
        generated,
        scratch_dir: scratch.as_ref().map(|s| s.dir().to_path_buf()),
        runs: plan.runs,
        warmup: plan.warmup,
        order: plan.order,
        metric: plan.metric,
        drop_caches: asked_drop_caches,
        seed: plan.seed,
        reproduction,
    };
    let mut warnings = Vec::new();
    let mut drop_caches = asked_drop_caches;
    if drop_caches && faultline::system::current_uid() != 0 {
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
        keep_output: args.keep_output.clone(),
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
    let assemble = |raw: &faultline::results::RawResults| {
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
    let outcome = runner::run(
        &plan,
        &files,
        &options,
        &progress,
        resume,
        |entry| journal.append(entry),
        |raw| {
            if let Err(e) = exports.write_all(&assemble(raw)) {
                if !std::mem::replace(&mut export_warned, true) {
                    progress.suspend(|| eprintln!("warning: could not write the exports: {e}"));
                }
            }
        },
    );
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
    let journal_path = journal.path().display();
    if stop.load(Ordering::SeqCst) && !raw.complete {
        eprintln!(
            "interrupted: {} sample(s) kept in the journal {journal_path} and the exports; \
             resume with: {resume_command} {journal_path}",
            raw.samples.len()
        );
        return Ok((ExitCode::from(EXIT_INTERRUPTED), results));
    }
    eprintln!("journal: {journal_path}");
    Ok((ExitCode::SUCCESS, results))
}
