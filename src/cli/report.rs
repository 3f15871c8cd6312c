//! `faultline report`: a run's JSON export rendered as one HTML file, and
//! optionally its plots as SVG and PNG files; several exports side by side
//! in one file. Nothing is measured.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use faultline::error::Error;
use faultline::files::outputs::Files;
use faultline::report;
use faultline::results::RunResults;

/// Flags of `faultline report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The JSON export of a run (`faultline run --export-json FILE`); with
    /// several, one report sets them side by side (as `faultline compare`)
    /// before each run's own sections.
    #[arg(value_name = "RESULTS.json", num_args = 1.., required = true)]
    pub results: Vec<PathBuf>,
    /// Where to write the HTML report [default: RESULTS.html beside the results (needed with
    /// several exports), which must not exist unless it is a faultline report].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write each plot as SVG and PNG into this directory (with several
    /// exports, each run's plots named after its letter: `A-throughput.svg`, …),
    /// and each profiled case's interactive flame graph as `flame-<case>.svg`.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
}

/// Reads the results, writes the report (and the plots, into a directory
/// created if missing, when asked), and prints each path written.
pub fn execute(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    // Ctrl-C or SIGTERM while a file is written: it is abandoned, whole or
    // not at all (the atomic writer checks), and faultline exits 130.
    faultline::session::install_signal_handlers()?;
    // The report and the plots may clobber neither the results nor each
    // other; a missing output directory is refused before any work.
    let output = output_path(args)?;
    let mut files = Files::new(&[]);
    for path in &args.results {
        files.input("RESULTS.json", path)?;
    }
    files.output("--output", &output)?;
    let several = args.results.len() > 1;
    // An export that cannot be read is bad input, as in `compare`.
    let runs = judged(super::compare::read_exports(&args.results)?);
    for run in &runs {
        for c in &run.claims {
            println!("{}/{}: {} — {}", c.study, c.id, c.verdict_words(), c.claim);
        }
    }
    let refs: Vec<&RunResults> = runs.iter().collect();
    let fleet = if several {
        Some(faultline::analysis::across::fleet::fleet(&refs)?)
    } else {
        None
    };
    // The plots and flame graphs first, so that the page can link the
    // interactive flame graphs it shows; every file is checked before any
    // is written.
    if let Some(dir) = &args.plots {
        let (plots, graphs) = checked_plots(dir, &runs, &mut files)?;
        for path in report::plot::write_plot_files(&plots, dir)?
            .into_iter()
            .chain(report::plot::flame::write_flame_graphs(&graphs, dir)?)
        {
            println!("wrote {}", path.display());
        }
    }
    match &fleet {
        Some(fleet) => {
            let names: Vec<String> = args
                .results
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            report::export::html::run_comparison::write_html_many(&refs, &names, fleet, &output)?;
        }
        None => {
            let html = report::export::html::Html {
                flame_dir: args.plots.as_deref(),
            };
            report::export::Exporter::write(&html, &runs[0], &output)?
        }
    }
    println!("wrote {}", output.display());
    Ok(ExitCode::SUCCESS)
}

/// Where the report goes: `-o FILE`, or beside the one export.
fn output_path(args: &ReportArgs) -> anyhow::Result<PathBuf> {
    match (&args.output, args.results.as_slice()) {
        (Some(path), _) => Ok(path.clone()),
        (None, [results]) => default_output(results),
        (None, _) => Err(Error::Plan(
            "several exports make one report: name it with -o FILE".to_string(),
        )
        .into()),
    }
}

/// The runs, each export of a reproduction with its claims judged again
/// from its samples (an export written before claims were exported has
/// none).
fn judged(runs: Vec<RunResults>) -> Vec<RunResults> {
    runs.into_iter()
        .map(|mut run| {
            let preset = run
                .settings
                .reproduction
                .as_ref()
                .and_then(|r| faultline::studies::find(&r.preset));
            if let Some(preset) = preset {
                run.claims = faultline::studies::judge_claims(preset.as_ref(), &run);
            }
            run
        })
        .collect()
}

/// The plots and flame graphs of `runs` for `--plots DIR` (with several
/// runs, each plot named after its run's letter), every file they would
/// write checked first: `dir` must be a real directory, or missing (it is
/// made when they are written).
fn checked_plots(
    dir: &Path,
    runs: &[RunResults],
    files: &mut Files,
) -> anyhow::Result<(
    Vec<report::plot::Plot>,
    Vec<report::plot::flame::FlameGraph>,
)> {
    faultline::files::outputs::refuse_linked_dir("--plots", dir)?;
    if dir.exists() && !dir.is_dir() {
        return Err(Error::Plan(format!("--plots {}: is not a directory", dir.display())).into());
    }
    let several = runs.len() > 1;
    let mut plots = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let letter = report::terminal::run_comparison::run_letter(i);
        plots.extend(report::plots(run).into_iter().map(|mut p| {
            if several {
                p.name = format!("{letter}-{}", p.name);
            }
            p
        }));
    }
    let graphs: Vec<_> = runs
        .iter()
        .flat_map(report::plot::flame::flame_graphs)
        .collect();
    let names = plots
        .iter()
        .flat_map(|p| ["svg", "png"].map(|ext| format!("{}.{ext}", p.name)))
        .chain(graphs.iter().map(|g| format!("{}.svg", g.name)));
    for name in names {
        files.output("--plots", &dir.join(name)).or_else(|e| {
            // The directory is made when missing.
            if dir.exists() {
                Err(e)
            } else {
                Ok(())
            }
        })?;
    }
    Ok((plots, graphs))
}

/// `RESULTS.html` beside `RESULTS.json`, refused when a file is there that
/// is not a report faultline wrote (its `generator` meta tag says so).
fn default_output(results: &Path) -> anyhow::Result<PathBuf> {
    let output = results.with_extension("html");
    if output == results {
        return Err(Error::Plan(format!(
            "{}: the report would replace its own results; give -o FILE",
            results.display()
        ))
        .into());
    }
    match std::fs::symlink_metadata(&output) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(output),
        Ok(meta) if meta.is_file() && is_faultline_report(&output) => Ok(output),
        _ => Err(Error::Plan(format!(
            "{} exists and is not a faultline report: not replacing it; give -o FILE",
            output.display()
        ))
        .into()),
    }
}

/// Whether the file at `path` starts like a report `faultline report` wrote.
fn is_faultline_report(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    read.is_ok()
        && String::from_utf8_lossy(&head).contains("<meta name=\"generator\" content=\"faultline ")
}
