//! `faultline report`: a run's JSON export rendered as one HTML file, and
//! optionally its plots as SVG and PNG files. Nothing is measured.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use faultline::error::Error;
use faultline::report;

/// Flags of `faultline report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The JSON export of a run (`faultline run --export-json FILE`); with
    /// several, one report sets them side by side (as `faultline compare`)
    /// before each run's own sections.
    #[arg(value_name = "RESULTS.json", num_args = 1.., required = true)]
    pub results: Vec<PathBuf>,
    /// Where to write the HTML report.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Also write each plot as SVG and PNG into this directory.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
}

/// Reads the results, writes the report (and the plots, into a directory
/// created if missing, when asked), and prints each path written.
pub fn execute(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    // A missing output directory is a usage error, found before any work.
    let parent = match args.output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(Error::Plan(format!(
            "--output {}: the directory {} does not exist",
            args.output.display(),
            parent.display()
        ))
        .into());
    }
    if args.results.len() > 1 {
        let runs = args
            .results
            .iter()
            .map(|p| super::compare::read_export(p))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let refs: Vec<&faultline::stats::RunResults> = runs.iter().collect();
        let fleet = faultline::stats::across::fleet::fleet(&refs)?;
        let names: Vec<String> = args
            .results
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        report::html_fleet::write_html_many(&refs, &names, &fleet, &args.output)?;
        println!("wrote {}", args.output.display());
        if let Some(dir) = &args.plots {
            // Each run's plots, named after its letter: A-throughput.svg, …
            for (i, run) in runs.iter().enumerate() {
                let letter = report::compare::run_letter(i);
                let plots: Vec<report::Plot> = report::plots(run)
                    .into_iter()
                    .map(|mut p| {
                        p.name = format!("{letter}-{}", p.name);
                        p
                    })
                    .collect();
                for path in report::plot::write_plot_files(&plots, dir)? {
                    println!("wrote {}", path.display());
                }
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let results = report::read_json(&args.results[0])?;
    report::write_html(&results, &args.output)?;
    println!("wrote {}", args.output.display());
    if let Some(dir) = &args.plots {
        for path in report::write_plots(&results, dir)? {
            println!("wrote {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
