//! `faultline report`: a run's JSON export rendered as one HTML file, and
//! optionally its plots as SVG and PNG files. Nothing is measured.
use std::path::{Path, PathBuf};
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
    /// Where to write the HTML report [default: RESULTS.html beside the results, which must
    /// not exist unless it is a faultline report].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write each plot as SVG and PNG into this directory.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
}

/// Reads the results, writes the report (and the plots, into a directory
/// created if missing, when asked), and prints each path written.
pub fn execute(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    // The report and the plots may clobber neither the results nor each
    // other; a missing output directory is refused before any work.
    let output = match &args.output {
        Some(path) => path.clone(),
        None => default_output(&args.results)?,
    };
    let mut files = Files::new(&[]);
    files.input("RESULTS.json", &args.results)?;
    files.output("--output", &output)?;
    let results = report::read_json(&args.results)?;
    let plots = match &args.plots {
        Some(dir) => {
            if dir.exists() && !dir.is_dir() {
                return Err(
                    Error::Plan(format!("--plots {}: is not a directory", dir.display())).into(),
                );
            }
            let plots = report::plots(&results);
            for plot in &plots {
                for ext in ["svg", "png"] {
                    let path = dir.join(format!("{}.{ext}", plot.name));
                    files.output("--plots", &path).or_else(|e| {
                        // The directory is made below when missing.
                        if dir.exists() {
                            Err(e)
                        } else {
                            Ok(())
                        }
                    })?;
                }
            }
            Some((dir, plots))
        }
        None => None,
    };
    report::write_html(&results, &output)?;
    println!("wrote {}", output.display());
    if let Some((dir, plots)) = plots {
        for path in report::plot::write_plot_files(&plots, dir)? {
            println!("wrote {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
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
