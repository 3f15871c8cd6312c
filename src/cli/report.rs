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
    let output = match &args.output {
        Some(path) => path.clone(),
        None => default_output(&args.results)?,
    };
    // A missing output directory is a usage error, found before any work.
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(Error::Plan(format!(
            "--output {}: the directory {} does not exist",
            output.display(),
            parent.display()
        ))
        .into());
    }
    let results = report::read_json(&args.results)?;
    report::write_html(&results, &output)?;
    println!("wrote {}", output.display());
    if let Some(dir) = &args.plots {
        for path in report::write_plots(&results, dir)? {
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
