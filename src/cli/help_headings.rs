//! The help headings of `faultline run`'s flags, so `run --help` reads as
//! groups (methods, mmap options, write options, ...) rather than one list.
//!
//! The flags declared in `run.rs` get theirs from [`HEADINGS`]; a flag
//! group declared in a struct of its own sets its heading there, with
//! `#[command(next_help_heading = "...")]` or, where its flags go under
//! several (the factor flags, `sweep_args.rs`), each flag's
//! `help_heading`, and is left as it is. A test fails when a visible `run`
//! flag has no heading.

/// Each of `run.rs`'s flags (by long name) and its heading. clap shows the
/// headings in the order their first flag is declared, and each heading's
/// flags in declaration order.
pub const HEADINGS: &[(&str, &str)] = &[
    ("drop-caches", "Workload"),
    ("data-dir", "Workload"),
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
