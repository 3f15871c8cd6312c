//! `faultline reproduce`: replays a published study's experiment through
//! the same run loop as `faultline run`, then sets the study's tables beside
//! the measured ones and checks each of its claims.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser};

use faultline::error::Error;
use faultline::results::Reproduction;
use faultline::studies::crotty2022::{Choices, Crotty2022};
use faultline::studies::outcome::PresetOutcome;
use faultline::studies::{self, Preset, Scale};

use crate::cli::{Cli, Command, RunArgs};

/// Flags of `faultline reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// The study: dillon2004, liege2018, fedorova2019, write2020, sun2002,
    /// or all of those; or crotty2022 (not in all: it needs root or a --size
    /// larger than memory, and takes a few minutes).
    #[arg(value_name = "PRESET")]
    pub preset: String,
    /// Smaller sizes and fewer runs (the default; `all` takes a few minutes).
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// The original sizes and run counts (can take hours).
    #[arg(long)]
    pub full: bool,
    /// Replay the original's quirks where a preset can (each preset's fidelity
    /// notes say which), instead of faultline's like-for-like comparison.
    #[arg(long)]
    pub faithful: bool,
    /// Write an HTML report with every preset's tables, verdicts and plots.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Write every preset's plots into this directory, as SVG and PNG (`<plot>.svg`, `<plot>.png`).
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
    /// Export the results as JSON (with `all`: one file per preset, `<stem>-<preset>.json`).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Export one row per sample as CSV (with `all`: `<stem>-<preset>.csv`);
    /// crotty2022 also writes its per-second timeline to `<stem>-timeline.csv`.
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Export the results as a Markdown report (with `all`: one file per preset, `<stem>-<preset>.md`).
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Continue an interrupted reproduction from its journal (one preset at a time).
    #[arg(long, value_name = "JOURNAL")]
    pub resume: Option<PathBuf>,
    /// Cold cache by dropping all caches (root) instead of evicting the file.
    #[arg(long)]
    pub drop_caches: bool,
    /// faultline's data directory.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Print what each preset would run (cases, trials, test files, disk
    /// space) and exit without running anything.
    #[arg(long, conflicts_with = "resume")]
    pub dry_run: bool,
    /// crotty2022: reading threads per trial (default: the CPUs available).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// crotty2022: the file size (without a memory cgroup it must exceed MemAvailable).
    #[arg(long, value_parser = faultline::size::clap_size)]
    pub size: Option<u64>,
    /// crotty2022: seconds per trial (default: 10 quick, 60 full).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub duration: Option<u32>,
    /// Divides every file size (test-only).
    #[arg(long, hide = true, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub scale_down: u64,
}

/// Runs `faultline reproduce`.
pub fn run(args: &ReproduceArgs) -> anyhow::Result<ExitCode> {
    let scale = Scale::new(args.full, args.scale_down).faithful(args.faithful);
    let crotty_flags = args.threads.is_some() || args.size.is_some() || args.duration.is_some();
    if crotty_flags && args.preset != "crotty2022" {
        return Err(Error::Plan(
            "--threads, --size and --duration apply to crotty2022 only".into(),
        )
        .into());
    }
    let chosen: Vec<Box<dyn Preset>> = if args.preset == "all" {
        studies::all()
    } else if args.preset == "crotty2022" && args.resume.is_none() {
        let choices = Choices {
            threads: args.threads,
            size: args.size,
            duration_s: args.duration,
        };
        let preset = Crotty2022::prepare(scale, choices)?;
        if let Some(s) = &preset.setup {
            eprintln!(
                "crotty2022: page-cache budget {} ({} file, {} threads, {} s per trial)",
                s.budget,
                faultline::size::format_size(s.file_size),
                s.threads,
                s.duration_s
            );
        }
        vec![Box::new(preset)]
    } else if let Some(p) = studies::find(&args.preset) {
        vec![p]
    } else {
        return Err(Error::Plan(format!(
            "no preset {:?}; choose one of: {}, all",
            args.preset,
            studies::names().join(", ")
        ))
        .into());
    };
    if args.resume.is_some() && chosen.len() > 1 {
        return Err(Error::Plan(
            "--resume continues one preset's journal: name the preset, not all".into(),
        )
        .into());
    }
    let mut outcomes = Vec::new();
    let mut code = ExitCode::SUCCESS;
    for preset in &chosen {
        let reproduction = Reproduction {
            preset: preset.name().to_string(),
            faithful: args.faithful,
        };
        if let Some(path) = &args.resume {
            check_resumable(path, &reproduction)?;
        }
        eprintln!(
            "reproducing {} ({}), mode: {}",
            preset.name(),
            preset.source(),
            reproduction.mode_line()
        );
        let run_args = run_args(args, preset.name(), chosen.len() > 1)?;
        let setup = match &args.resume {
            Some(path) => {
                // A journal from before --faithful was recorded is a default-mode one.
                let mut setup = crate::setup_resumed(&run_args, path)?;
                setup
                    .reproduction
                    .get_or_insert_with(|| reproduction.clone());
                setup
            }
            None => {
                let plan = preset.plan(scale);
                if args.dry_run {
                    println!("{}", describe_plan(preset.as_ref(), &plan, &run_args));
                    continue;
                }
                check_disk_space(&plan, &run_args)?;
                crate::setup_fresh_plan(&run_args, Some(plan), Some(reproduction.clone()))?
            }
        };
        let (c, results) = crate::execute_with_results(setup, &run_args)?;
        let outcome = PresetOutcome::build(preset.as_ref(), &results);
        println!("{}", outcome.render_text());
        if let Some(dir) = &args.plots {
            let written = faultline::report::plot::write_plot_files(&outcome.plots, dir)?;
            eprintln!("plots: {} files in {}", written.len(), dir.display());
        }
        outcomes.push(outcome);
        if c != ExitCode::SUCCESS {
            code = c;
            break;
        }
    }
    if args.dry_run {
        return Ok(code);
    }
    println!("Verdicts:");
    for o in &outcomes {
        for c in &o.claims {
            println!("  {}: {} — {}", o.name, c.verdict, c.claim);
        }
    }
    if let Some(path) = &args.report {
        let html = faultline::report::html::render_preset_html(&outcomes);
        faultline::files::atomic::write_atomically(
            path,
            faultline::files::atomic::SHARED_MODE,
            |w| std::io::Write::write_all(w, html.as_bytes()),
        )?;
        eprintln!("report: {}", path.display());
    }
    Ok(code)
}

/// Refuses to continue a journal of another preset, or of the other mode
/// (a journal without a record is a default-mode one: it predates `--faithful`).
fn check_resumable(path: &Path, wanted: &Reproduction) -> anyhow::Result<()> {
    let header = faultline::runner::journal::read(path)?.header;
    let recorded = header.reproduction.unwrap_or(Reproduction {
        preset: wanted.preset.clone(),
        faithful: false,
    });
    if recorded.preset != wanted.preset {
        return Err(Error::Plan(format!(
            "--resume {}: that journal reproduces {}, not {}",
            path.display(),
            recorded.preset,
            wanted.preset
        ))
        .into());
    }
    if recorded.faithful != wanted.faithful {
        let (was, give) = if recorded.faithful {
            ("a --faithful", "add --faithful")
        } else {
            ("a default-mode (not --faithful)", "leave out --faithful")
        };
        return Err(Error::Plan(format!(
            "--resume {}: that journal is {was} reproduction of {}; {give} to continue it (modes cannot be mixed)",
            path.display(),
            recorded.preset
        ))
        .into());
    }
    Ok(())
}

/// The `run` flags a preset's run uses: defaults, plus the data directory,
/// cache dropping and exports asked for here.
fn run_args(args: &ReproduceArgs, preset: &str, several: bool) -> anyhow::Result<RunArgs> {
    let Command::Run(mut run) = Cli::try_parse_from(["faultline", "run"])?.command else {
        unreachable!("parsed a run command");
    };
    run.data_dir = args.data_dir.clone();
    // One journal per preset, named after it (runs in the same second would
    // otherwise share a name).
    let runs = crate::data_dir(args.data_dir.clone()).join("runs");
    faultline::files::dataset::ensure_private_dir(&runs)?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    run.journal = Some(runs.join(format!(
        "faultline-reproduce-{preset}-{stamp}-{}.journal",
        std::process::id()
    )));
    run.drop_caches = args.drop_caches;
    let export = |path: &Option<PathBuf>| {
        path.as_deref().map(|p| {
            if several {
                per_preset(p, preset)
            } else {
                p.to_path_buf()
            }
        })
    };
    run.export_json = export(&args.export_json);
    run.export_csv = export(&args.export_csv);
    run.export_markdown = export(&args.export_markdown);
    Ok(*run)
}

/// `dir/stem-preset.ext` for `dir/stem.ext`.
fn per_preset(path: &Path, preset: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or("results".into(), |s| s.to_string_lossy());
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{preset}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{preset}"),
    };
    path.with_file_name(name)
}

/// Refuses, before anything is generated, a plan whose test files do not
/// fit on the data directory's file system (files already there count as 0).
fn check_disk_space(plan: &faultline::plan::Plan, run: &RunArgs) -> anyhow::Result<()> {
    let need = DiskNeed::of(plan, run);
    if let Some(available) = need.available {
        faultline::files::disk_space::check(need.total(), available, &need.dir)?;
    }
    Ok(())
}

/// What a plan needs of the data directory's file system.
struct DiskNeed {
    /// The data directory.
    dir: PathBuf,
    /// The test files the plan reads, by size: generated data files, and
    /// the PPM images of its scale cases.
    files: Vec<TestFile>,
    /// Bytes of those files not generated yet.
    to_generate: u64,
    /// The largest file one write trial creates (scratch files are removed
    /// after each trial, so only one exists at a time).
    largest_write: u64,
    /// Free bytes on its file system, when known.
    available: Option<u64>,
}

impl DiskNeed {
    fn of(plan: &faultline::plan::Plan, run: &RunArgs) -> DiskNeed {
        let dir = crate::data_dir(run.data_dir.clone());
        let mut sizes: Vec<u64> = plan
            .cases
            .iter()
            .filter(|c| !c.method.writes() || c.scale.is_some())
            .map(|c| c.file_size)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        let files: Vec<TestFile> = sizes
            .into_iter()
            .map(|size| TestFile::of(plan, size, run.seed))
            .collect();
        let to_generate = files
            .iter()
            .filter(|f| std::fs::metadata(dir.join(&f.name)).map_or(true, |m| m.len() != f.size))
            .map(|f| f.size)
            .sum();
        let largest_write = plan
            .cases
            .iter()
            .filter(|c| c.method.writes())
            .map(|c| c.file_size)
            .max()
            .unwrap_or(0);
        // The data directory may not exist yet: ask about its nearest ancestor.
        let probe = dir
            .ancestors()
            .find(|p| p.exists())
            .unwrap_or(std::path::Path::new("/"));
        let available = faultline::files::disk_space::available_bytes(probe);
        DiskNeed {
            dir,
            files,
            to_generate,
            largest_write,
            available,
        }
    }

    /// Bytes the run will add to the file system at its peak.
    fn total(&self) -> u64 {
        self.to_generate + self.largest_write
    }
}

/// One test file a plan reads, as the run prepares it.
struct TestFile {
    /// Its length in bytes.
    size: u64,
    /// Its name in the data directory.
    name: String,
    /// The PPM image's width and height, for a scale case's image.
    image: Option<(u32, u32)>,
}

impl TestFile {
    /// The file of length `size` that `plan`'s cases read: the generated PPM
    /// image of that length when a scale case uses the size (as the run
    /// prepares it), else generated data from `seed`.
    fn of(plan: &faultline::plan::Plan, size: u64, seed: u64) -> TestFile {
        let scales = plan
            .cases
            .iter()
            .any(|c| c.file_size == size && c.scale.is_some());
        match scales.then(|| crate::image_dims(size)).flatten() {
            Some((w, h)) => TestFile {
                size,
                name: faultline::files::image::image_name(w, h, seed),
                image: Some((w, h)),
            },
            None => TestFile {
                size,
                name: faultline::files::dataset::generated_name(size, seed),
                image: None,
            },
        }
    }

    /// `4 GiB`, or `3.75 MiB (1280x1024 PPM image, NAME)`.
    fn describe(&self) -> String {
        let size = faultline::size::format_size(self.size);
        match self.image {
            Some((w, h)) => format!("{size} ({w}x{h} PPM image, {})", self.name),
            None => size,
        }
    }
}

/// How many times one trial of `case` passes over its file: once per
/// process, and once per thread when each thread runs the whole workload
/// (split threads share one pass).
fn passes(case: &faultline::plan::Case) -> u64 {
    let threads = case.threads.map_or(1, |t| match t.mode {
        faultline::plan::ThreadMode::Split => 1,
        faultline::plan::ThreadMode::Replicate => u64::from(t.count),
    });
    threads * u64::from(case.procs.unwrap_or(1).max(1))
}

/// `--dry-run`: what a preset's plan would run and need, without running it.
fn describe_plan(preset: &dyn Preset, plan: &faultline::plan::Plan, run: &RunArgs) -> String {
    use faultline::size::format_size;
    let need = DiskNeed::of(plan, run);
    let per_case = u64::from(plan.runs + plan.warmup);
    let sizes: Vec<String> = need.files.iter().map(TestFile::describe).collect();
    let mut lines = vec![
        format!(
            "{}: {} cases x {} runs (+{} warm-up) = {} trials, each in its own process",
            preset.name(),
            plan.cases.len(),
            plan.runs,
            plan.warmup,
            plan.cases.len() as u64 * per_case
        ),
        format!(
            "  test files: {} ({} to generate in {})",
            if sizes.is_empty() {
                "none".to_string()
            } else {
                sizes.join(", ")
            },
            format_size(need.to_generate),
            need.dir.display()
        ),
        format!(
            "  largest file one write trial creates: {}",
            format_size(need.largest_write)
        ),
    ];
    let (timed, counted): (Vec<_>, Vec<_>) =
        plan.cases.iter().partition(|c| c.duration_s.is_some());
    if !counted.is_empty() {
        let volume: u64 = counted
            .iter()
            .map(|c| c.file_size * passes(c) * per_case)
            .sum();
        let repeated = counted.iter().any(|c| passes(c) > 1);
        lines.push(format!(
            "  file bytes the trials pass over: {} in all{}",
            format_size(volume),
            if repeated {
                " (each thread that runs the whole workload, and each process, counted)"
            } else {
                ""
            }
        ));
    }
    if !timed.is_empty() {
        let seconds: u64 = timed
            .iter()
            .map(|c| u64::from(c.duration_s.unwrap_or(0)) * per_case)
            .sum();
        lines.push(format!(
            "  duration-bounded trials: {seconds} s of main loops in all"
        ));
    }
    lines.push(match need.available {
        Some(free) => format!(
            "  disk: needs {} at its peak; {} free",
            format_size(need.total()),
            format_size(free)
        ),
        None => "  disk: free space unknown".to_string(),
    });
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use faultline::method::MethodKind;
    use faultline::pattern::Pattern;
    use faultline::plan::CacheState;
    use faultline::plan::{ThreadMode, Threads};
    use faultline::workload::WorkloadKind;

    #[test]
    fn a_trial_passes_over_its_file_once_per_replicate_thread_and_process() {
        let one = studies::read_case(
            MethodKind::Read,
            Pattern::Seq,
            4096,
            1 << 20,
            WorkloadKind::Touch,
            CacheState::Warm,
        );
        let with = |count, mode, procs| faultline::plan::Case {
            threads: Some(Threads { count, mode }),
            procs,
            ..one.clone()
        };
        assert_eq!(passes(&one), 1);
        assert_eq!(passes(&with(10, ThreadMode::Split, None)), 1);
        assert_eq!(passes(&with(10, ThreadMode::Replicate, None)), 10);
        assert_eq!(passes(&with(4, ThreadMode::Split, Some(3))), 3);
        assert_eq!(passes(&with(4, ThreadMode::Replicate, Some(3))), 12);
    }
}
