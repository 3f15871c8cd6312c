//! `faultline compare A.json B.json [C.json…]`: runs from different machines,
//! kernels or versions side by side, matched case by case, each labelled by
//! its host, kernel and date. Nothing is measured.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use faultline::analysis::across::fleet::fleet;
use faultline::analysis::across::verdicts;
use faultline::error::Error;
use faultline::report::terminal::fleet_matrix::render_verdict_matrix;
use faultline::report::{self, terminal::run_comparison::render_fleet_text};
use faultline::results::RunResults;

/// Flags of `faultline compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// JSON exports of runs (`run --export-json`), two or more; the first is
    /// the reference the others are compared with.
    #[arg(value_name = "RUN.json", num_args = 2.., required = true)]
    pub exports: Vec<PathBuf>,
    /// Output flags.
    #[command(flatten)]
    pub output: super::output_args::OutputArgs,
}

/// Reads an export; anything that is not one is bad input, named by its path.
pub fn read_export(path: &Path) -> anyhow::Result<RunResults> {
    report::read_json(path).map_err(|e| {
        let why = match &e {
            Error::BadFile { why, .. } if why.starts_with("no such ") => {
                "cannot be read (no such file)".to_string()
            }
            Error::BadFile { why, .. } => why.clone(),
            Error::Io {
                op: "open", source, ..
            } => format!("cannot be read ({source})"),
            Error::Io { source, .. } => format!("is not a faultline JSON export ({source})"),
            other => other.to_string(),
        };
        Error::BadFile {
            path: path.to_path_buf(),
            why,
        }
        .into()
    })
}

/// Reads several exports ([`read_export`]), as many at a time as there are
/// CPUs; a failure is the first export's, in the order given, that failed.
pub fn read_exports(paths: &[PathBuf]) -> anyhow::Result<Vec<RunResults>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len());
    if workers <= 1 {
        return paths.iter().map(|p| read_export(p)).collect();
    }
    let next = AtomicUsize::new(0);
    let read: Vec<Mutex<Option<anyhow::Result<RunResults>>>> =
        paths.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = paths.get(i) else {
                    break;
                };
                let run = read_export(path);
                *read[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(run);
            });
        }
    });
    read.into_iter()
        .zip(paths)
        .map(|(slot, path)| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| Err(anyhow::anyhow!("{}: was not read", path.display())))
        })
        .collect()
}

/// Reads the exports and prints them side by side.
pub fn execute(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let runs = read_exports(&args.exports)?;
    let refs: Vec<&RunResults> = runs.iter().collect();
    let fleet = fleet(&refs)?;
    let names: Vec<String> = args
        .exports
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let layout = args.output.layout();
    let mut text = render_fleet_text(&fleet, &refs, &names, layout.units, layout.width, true);
    if refs.len() >= verdicts::MATRIX_FROM {
        // A fleet: which host gave which verdict, and what the hosts share.
        let hosts: Vec<String> = args
            .exports
            .iter()
            .map(|p| {
                p.file_name()
                    .map(|n| n.to_string_lossy().trim_end_matches(".json").to_string())
                    .unwrap_or_else(|| p.display().to_string())
            })
            .collect();
        text.push_str(&render_verdict_matrix(
            &verdicts::verdict_matrix(&refs),
            &verdicts::environment_groups(&refs),
            &hosts,
            layout.width,
        ));
    }
    args.output.print(&text);
    // The parsed exports (about 7 KB a case, in many small allocations)
    // are left for the process's exit to return: freeing them one by one
    // took a noticeable share of a large compare's time.
    std::mem::forget(fleet);
    std::mem::forget(runs);
    Ok(ExitCode::SUCCESS)
}

/// `run --baseline`: prints each case's change against the old run, or one
/// line saying why the runs do not compare (the run itself stands).
pub fn print_baseline(old: &RunResults, new: &RunResults, output: &super::output_args::OutputArgs) {
    match fleet(&[old, new]) {
        Ok(f) => {
            let layout = output.layout();
            output.print(
                &faultline::report::terminal::run_comparison::render_baseline_text(
                    &f,
                    layout.width,
                    true,
                ),
            );
        }
        Err(e) => eprintln!("baseline: {e}"),
    }
}
