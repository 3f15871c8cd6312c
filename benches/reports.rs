//! `faultline report` and `faultline compare` on generated exports of many
//! cases: the wall time and peak RSS of each, at two sizes, so that the
//! growth with the number of cases shows (linear: ten times the cases, about
//! ten times the time).
//!
//! Run with `cargo bench --bench reports` (FAULTLINE_BENCH_CASES=2000,20000
//! by default; e.g. FAULTLINE_BENCH_CASES=100000 for the command line's
//! limit). The exports are made by the generator in `benches/synth/`, also
//! behind `cargo run --release --example synth_export`.
mod synth;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Runs faultline with `args`, returns its wall time (s) and peak RSS (MiB).
// The child is reaped by wait4 (which gives its own peak RSS), not by
// `Child::wait`.
#[allow(clippy::zombie_processes)]
fn timed(args: &[&std::ffi::OsStr]) -> (f64, f64) {
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("faultline runs");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // wait4 gives this child's own peak RSS.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4");
    let wall = started.elapsed().as_secs_f64();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "faultline {args:?} failed: {status}"
    );
    (wall, usage.ru_maxrss as f64 / 1024.0)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let sizes: Vec<usize> = std::env::var("FAULTLINE_BENCH_CASES")
        .unwrap_or_else(|_| "2000,20000".to_string())
        .split(',')
        .map(|s| s.trim().parse().expect("FAULTLINE_BENCH_CASES: numbers"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    println!("cases  export   report (wall, peak RSS)   compare of two (wall, peak RSS)");
    for n in sizes {
        let a = dir.path().join(format!("a-{n}.json"));
        let b = dir.path().join(format!("b-{n}.json"));
        faultline::report::write_json(&synth::export(n, 3, 1), &a).unwrap();
        faultline::report::write_json(&synth::export(n, 3, 2), &b).unwrap();
        let html = dir.path().join(format!("a-{n}.html"));
        let size = |p: &Path| p.metadata().unwrap().len() as f64 / (1 << 20) as f64;
        let (rw, rm) = timed(&[
            "report".as_ref(),
            a.as_os_str(),
            "-o".as_ref(),
            html.as_os_str(),
        ]);
        let (cw, cm) = timed(&["compare".as_ref(), a.as_os_str(), b.as_os_str()]);
        println!(
            "{n:>6}  {:>5.0} MiB  {rw:>7.2} s, {rm:>5.0} MiB          {cw:>7.2} s, {cm:>5.0} MiB",
            size(&a)
        );
    }
}
