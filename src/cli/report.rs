//! `faultline report`: a run's JSON export rendered as one HTML file, and
//! optionally its plots as SVG and PNG files. Nothing is measured.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use faultline::error::Error;
use faultline::files::outputs::Files;
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
    // The report and the plots may clobber neither the results nor each
    // other; a missing output directory is refused before any work.
    let mut files = Files::new(&[]);
    files.input("RESULTS.json", &args.results)?;
    files.output("--output", &args.output)?;
    let results = report::read_json(&args.results)?;
    // The plots and flame graphs first, so that the page can link the
    // interactive flame graphs it shows; every file is checked before any
    // is written.
    let plots = match &args.plots {
        Some(dir) => {
            if dir.exists() && !dir.is_dir() {
                return Err(
                    Error::Plan(format!("--plots {}: is not a directory", dir.display())).into(),
                );
            }
            let plots = report::plots(&results);
            let graphs = report::flame::flame_graphs(&results);
            let names = plots
                .iter()
                .flat_map(|plot| ["svg", "png"].map(|ext| format!("{}.{ext}", plot.name)))
                .chain(graphs.iter().map(|g| format!("{}.svg", g.name)));
            for name in names {
                let path = dir.join(name);
                files.output("--plots", &path).or_else(|e| {
                    // The directory is made below when missing.
                    if dir.exists() {
                        Err(e)
                    } else {
                        Ok(())
                    }
                })?;
            }
            Some((dir, plots, graphs))
        }
        None => None,
    };
    if let Some((dir, plots, graphs)) = plots {
        for path in report::plot::write_plot_files(&plots, dir)?
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
