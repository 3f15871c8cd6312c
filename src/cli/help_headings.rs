//! The help headings of `faultline run`'s flags, so `run --help` reads as
//! groups (methods, mmap options, write options, ...) rather than one list.
//!
//! The flags declared in `run.rs` get theirs from [`HEADINGS`]; a flag
//! group declared in a struct of its own sets its heading there with
//! `#[command(next_help_heading = "...")]`, and is left as it is. A test
//! fails when a visible `run` flag has no heading.

/// Each of `run.rs`'s flags (by long name) and its heading. clap shows the
/// headings in the order their first flag is declared, and each heading's
/// flags in declaration order.
pub const HEADINGS: &[(&str, &str)] = &[
    ("method", "Methods"),
    ("fadvise", "Methods"),
    ("trace", "Workload"),
    ("trace-format", "Workload"),
    ("trace-fd", "Workload"),
    ("trace-path", "Workload"),
    ("duration", "Workload"),
    ("memory-budget", "Workload"),
    ("device-rate", "Workload"),
    ("rate", "Workload"),
    ("think-time", "Workload"),
    ("read-share", "Workload"),
    ("files", "Workload"),
    ("file-size", "Workload"),
    ("metric", "Methods"),
    ("stdio-buffer", "Methods"),
    ("iov", "Methods"),
    ("populate", "mmap options"),
    ("advice", "mmap options"),
    ("share", "mmap options"),
    ("fill", "Write options"),
    ("sync", "Write options"),
    ("sync-call", "Write options"),
    ("open-sync", "Write options"),
    ("msync", "Write options"),
    ("pair-across-sync", "Write options"),
    ("target", "Write options"),
    ("size-with", "Write options"),
    ("dir", "Write options"),
    ("keep", "Write options"),
    ("depth", "io_uring"),
    ("uring-registered", "io_uring"),
    ("threads", "Threads and processes"),
    ("thread-mode", "Threads and processes"),
    ("procs", "Threads and processes"),
    ("pattern", "Workload"),
    ("block", "Workload"),
    ("size", "Workload"),
    ("file", "Workload"),
    ("workload", "Workload"),
    ("cache", "Workload"),
    ("warm-by", "Workload"),
    ("drop-caches", "Workload"),
    ("factor", "Workload"),
    ("enlarge", "Workload"),
    ("scale-unit", "Workload"),
    ("image", "Workload"),
    ("keep-output", "Workload"),
    ("data-dir", "Workload"),
    ("runs", "Statistics"),
    ("warmup", "Statistics"),
    ("order", "Statistics"),
    ("seed", "Statistics"),
    ("latency", "Statistics"),
    ("trial-timeout", "Statistics"),
    ("export-json", "Output"),
    ("export-csv", "Output"),
    ("export-markdown", "Output"),
    ("resume", "Plan and journal"),
    ("journal", "Plan and journal"),
];

/// `cli` with the headings of [`HEADINGS`] set on its `run` subcommand's
/// flags that have none.
pub fn apply(cli: clap::Command) -> clap::Command {
    cli.mut_subcommand("run", |run| {
        run.mut_args(|arg| {
            let long = arg.get_long().unwrap_or_default().to_string();
            match HEADINGS.iter().find(|(name, _)| *name == long) {
                Some((_, heading)) if arg.get_help_heading().is_none() => {
                    arg.help_heading(*heading)
                }
                _ => arg,
            }
        })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_visible_run_flag_has_a_heading() {
        let cli = super::super::command();
        let run = cli.find_subcommand("run").unwrap();
        let bare: Vec<_> = run
            .get_arguments()
            .filter(|a| !a.is_hide_set() && a.get_id() != "help")
            .filter(|a| a.get_help_heading().is_none())
            .map(|a| a.get_id().to_string())
            .collect();
        assert!(bare.is_empty(), "run flags without a heading: {bare:?}");
        for (long, _) in super::HEADINGS {
            assert!(
                run.get_arguments().any(|a| a.get_long() == Some(long)),
                "{long} is not a run flag"
            );
        }
    }
}
