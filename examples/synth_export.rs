//! Writes a synthetic JSON export of many cases (read and mmap pairs over
//! distinct block and file sizes, times drawn from a seeded generator), for
//! timing `faultline report` and `faultline compare` at scale without
//! running as many trials.
//!
//! `cargo run --release --example synth_export -- CASES OUT.json [SEED] [RUNS]`
//! (defaults: seed 1, 3 runs). Two seeds give two machines' exports of the
//! same plan, for `compare`. The file must not exist.
#[path = "../benches/synth/mod.rs"]
mod synth;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: synth_export CASES OUT.json [SEED] [RUNS]";
    let (Some(cases), Some(out)) = (
        args.first().and_then(|a| a.parse::<usize>().ok()),
        args.get(1).map(PathBuf::from),
    ) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let seed = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let runs = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(3);
    if out.symlink_metadata().is_ok() {
        eprintln!(
            "error: {} exists; synth_export writes only new files",
            out.display()
        );
        return ExitCode::from(1);
    }
    let results = synth::export(cases, runs, seed);
    if let Err(e) = faultline::report::write_json(&results, &out) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    println!("{}: {} cases", out.display(), results.cases.len());
    ExitCode::SUCCESS
}
