//! What the interference record costs per trial: the runner's two
//! snapshots (before the spawn, after the reap) and the judging, timed
//! directly (the difference is too small to see in whole runs).
//!
//! `cargo run --release --example probe_cost [FILE] [N]` (defaults: the
//! current directory, 2000): prints the wall and CPU time per trial, with
//! and without the registry of active runs.
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use faultline::measure::active_runs::Registration;
use faultline::measure::interference::{measure, Probe, Rule};
use faultline::measure::procio::getrusage;

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    let n: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let registry = tempfile::tempdir().expect("a temp dir");
    let runs = registry.path().join("faultline").join("active");
    let me = Arc::new(Registration::register(&runs, Some(registry.path())).expect("registered"));
    let others: Vec<Registration> = (0..3)
        .map(|_| Registration::register(&runs, Some(registry.path())).expect("registered"))
        .collect();
    let rule = Rule::default();
    for (label, probe) in [
        ("without the runs registry", Probe::new(&file, None)),
        (
            "with the registry, 3 other runs",
            Probe::new(&file, Some(Arc::clone(&me))),
        ),
    ] {
        let cpu0 = getrusage(libc::RUSAGE_SELF).cpu_ns;
        let t0 = Instant::now();
        let mut interfered = 0;
        for _ in 0..n {
            let before = probe.before();
            let after = probe.after();
            interfered += u32::from(measure(&before, &after, &rule, 1, None).interfered);
        }
        let wall = t0.elapsed().as_nanos() as f64 / f64::from(n);
        let cpu = (getrusage(libc::RUSAGE_SELF).cpu_ns - cpu0) as f64 / f64::from(n);
        println!(
            "{label}: {:.0} µs wall, {:.0} µs CPU per trial (two snapshots + judging), {n} trials, {interfered} of them judged interfered",
            wall / 1e3,
            cpu / 1e3
        );
    }
    drop(others);
}
