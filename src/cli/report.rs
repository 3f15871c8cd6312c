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
    /// The JSON export of a run (`faultline run --export-json FILE`).
    #[arg(value_name = "RESULTS.json")]
    pub results: PathBuf,
    /// Where to write the HTML report.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Also write each plot as SVG and PNG into this directory, and each profiled case's
    /// interactive flame graph as `flame-<case>.svg` (which the report then links).
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
    let results = report::read_json(&args.results)?;
    // The plots and flame graphs first, so that the page can link the
    // interactive flame graphs it shows.
    if let Some(dir) = &args.plots {
        let graphs = report::flame::flame_graphs(&results);
        for path in report::write_plots(&results, dir)?
            .into_iter()
            .chain(report::flame::write_flame_graphs(&graphs, dir)?)
        {
            println!("wrote {}", path.display());
        }
    }
    report::html::write_html_linking(&results, &args.output, args.plots.as_deref())?;
    println!("wrote {}", args.output.display());
    Ok(ExitCode::SUCCESS)
}
