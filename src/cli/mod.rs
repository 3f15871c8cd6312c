//! The command line: clap's types, one file per subcommand, and what every
//! subcommand shares (the export flags, how a finished session and an error
//! are printed, the exit codes).
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use faultline::error::Error;
use faultline::measure::profile;
use faultline::report::Exports;
use faultline::results::ProfileSettings;
use faultline::session::{Finished, EXIT_INTERRUPTED};

pub mod advise;
pub mod calibrate;
pub mod clean;
pub mod compare;
pub mod completions;
pub mod env;
pub mod help_headings;
pub mod interference_args;
pub mod map;
pub mod output_args;
pub mod plan_args;
pub mod plan_file;
pub mod plan_runs;
pub mod precision_args;
pub mod report;
pub mod reproduce;
pub mod reproduce_args;
pub mod run;
pub mod sweep_args;

/// Exit code for bad usage or bad input.
pub const EXIT_USAGE: u8 = 2;
/// Exit code for a runtime failure.
pub const EXIT_FAILURE: u8 = 1;

/// Is mmap() faster than read()? Measured on your machine and your files,
/// one process per trial, with the page cache controlled and verified.
#[derive(Debug, Parser)]
#[command(
    name = "faultline",
    version,
    about,
    max_term_width = 100,
    arg_required_else_help = true
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// The runs of a plan with several named runs, each with its flags
    /// (filled in after parsing; empty for one run).
    #[arg(skip)]
    pub named_runs: Vec<plan_runs::NamedRun>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare I/O methods (default: read vs mmap, seq 16 KiB and random 4 KiB, warm and cold).
    Run(Box<run::RunArgs>),
    /// Print the environment every number depends on.
    Env(env::EnvArgs),
    /// Remove the test files faultline generated (only those).
    Clean(clean::CleanArgs),
    /// Write one self-contained HTML report (verdicts, plots, tables) from a run's JSON export.
    Report(report::ReportArgs),
    /// Replay a published study (or `all`) and check its claims on this machine.
    Reproduce(reproduce_args::ReproduceArgs),
    /// Print a shell completion script (e.g. `faultline completions bash > /etc/bash_completion.d/faultline`).
    Completions(completions::CompletionsArgs),
    /// Print a manual page, in roff (e.g. `faultline man run > faultline-run.1; man ./faultline-run.1`).
    Man(completions::ManArgs),
    /// Set runs from several machines, kernels or versions side by side (their JSON exports).
    Compare(compare::CompareArgs),
    /// A/A test of this machine: one method as two identical cases; prints the noise floor and
    /// the false-verdict rate.
    Calibrate(calibrate::CalibrateArgs),
    /// Find where the winner flips: B against A along one factor (--over block=4k..1M), the
    /// boundaries bracketed by an adaptive search.
    Map(Box<map::MapArgs>),
    /// Which read path for your file and access pattern: the candidates ranked with verdicts,
    /// why the winner wins, and where the answer would change.
    Advise(Box<advise::AdviseArgs>),
    /// Runs one trial (internal: the runner re-executes itself with this).
    #[command(name = "__trial", hide = true)]
    Trial,
}

/// The export flags, shared by `run` and `reproduce`.
#[derive(Debug, Default, Args)]
pub struct ExportArgs {
    /// Write every sample and summary as JSON (rewritten after every group).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Write one CSV row per sample (rewritten after every group).
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Write a Markdown report (rewritten after every group).
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
}

/// The profile flags, shared by `run` and `reproduce`.
#[derive(Debug, Default, Args)]
pub struct ProfileArgs {
    /// Sample each trial's main loop with a cpu-clock profile (kernel and user call chains) and
    /// report where its CPU time went, by category, per case, with flame graphs; see
    /// docs/profile.md. Without root and with kernel.perf_event_paranoid above 1 the samples are
    /// user-only (one line says so). A resumed run profiles as its journal says.
    #[arg(long, conflicts_with = "resume")]
    pub profile: bool,
    /// --profile's rate: samples per CPU second of each thread, 1 to 10000 [default: 499].
    #[arg(long, value_name = "HZ", requires = "profile",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(profile::MAX_HZ)))]
    pub profile_hz: Option<u32>,
    /// With --profile: unprofiled control trials per case, each run beside the profiled trial of
    /// the same run (at most one per --runs), to measure what profiling costs: the paired
    /// throughput ratio, profiled over unprofiled, per case and over the warm cases. They are kept
    /// (marked) in the exports and never counted in a case's statistics. 0: not measured.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_PROFILE_CONTROL, requires = "profile",
          value_parser = clap::value_parser!(u32).range(0..=i64::from(faultline::plan::MAX_RUNS)))]
    pub profile_control: u32,
}

/// `--profile-control`'s default: three pairs per case, enough for a CI.
pub const DEFAULT_PROFILE_CONTROL: u32 = 3;

impl ProfileArgs {
    /// What the trials will sample, decided once for the whole run: checks
    /// the rate against the kernel's limit and opens a sampler in the mode
    /// this process may take; prints the one line that says why when it is
    /// user-only. `None` without `--profile`.
    pub fn decide(&self) -> Result<Option<ProfileSettings>, Error> {
        if !self.profile {
            return Ok(None);
        }
        let frequency_hz = self.profile_hz.unwrap_or(profile::DEFAULT_HZ);
        let decision = profile::probe(frequency_hz)?;
        if let Some(note) = &decision.note {
            eprintln!("{note}");
        }
        Ok(Some(ProfileSettings {
            request: profile::ProfileRequest {
                frequency_hz,
                mode: decision.mode,
            },
            note: decision.note,
            control_trials: self.profile_control,
        }))
    }
}

impl ExportArgs {
    /// The exports asked for.
    pub fn exports(&self) -> Exports {
        Exports {
            json: self.export_json.clone(),
            csv: self.export_csv.clone(),
            markdown: self.export_markdown.clone(),
        }
    }
}

/// The command line's definition: clap's, with the help headings of
/// `run`'s flags ([`help_headings`]). Parsing, completions and the manual
/// page all use this one.
pub fn command() -> clap::Command {
    signed_values(help_headings::apply(Cli::command()))
}

/// Two rules every subcommand's flags follow, set here once:
///
/// - every path (`--file`, `--export-json`, `--resume`, `report`'s and
///   `compare`'s files, a plan's paths…) is made absolute once, as it is
///   parsed, against the current directory: a journal stores it absolute,
///   so a run resumed from another directory writes where the first one
///   meant; and files are compared (inputs against outputs) as the user
///   meant them;
/// - every flag that takes a number, a duration, a percentage, a size or
///   a choice reads a value that starts with `-` (`--precision -5%`,
///   `--max-time -1s`, `--profile-hz -1`), so that its own parser refuses
///   it with its range message, not clap with "unexpected argument '-5%'".
///   Paths and free text keep clap's rule (a file named `-x` is given as
///   `./-x`), and so do flags whose value is optional (`--latency`), which
///   would otherwise swallow the next flag.
fn signed_values(command: clap::Command) -> clap::Command {
    use std::any::TypeId;
    let names: Vec<String> = command
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let mut command = command.mut_args(|arg| {
        let takes_value = arg.get_action().takes_values()
            && arg.get_num_args().is_none_or(|n| n.min_values() > 0);
        let parsed = arg.get_value_parser().type_id();
        if parsed == TypeId::of::<PathBuf>() {
            return arg.value_parser(absolute_path());
        }
        let text = parsed == TypeId::of::<String>() || parsed == TypeId::of::<std::ffi::OsString>();
        if takes_value && !text && !arg.is_positional() {
            arg.allow_hyphen_values(true)
        } else {
            arg
        }
    });
    for name in names {
        command = command.mut_subcommand(name, signed_values);
    }
    command
}

/// Parses the command line, with `run --plan FILE` read into the flags it
/// holds ([`plan_file`]). A plan of several named runs gives the command
/// line's own `run` with each run's flags in `named_runs`
/// ([`plan_runs`]). A failure has been printed; its exit code is returned.
pub fn parse() -> Result<Cli, ExitCode> {
    let matches = command().try_get_matches().map_err(|e| report_clap(&e))?;
    let mut planned = plan_file::resolve(matches.clone()).map_err(|e| report_error(&e.into()))?;
    if planned.len() > 1 {
        return plan_runs::parse(&matches, planned).map_err(|e| report_error(&e));
    }
    let plan_file::PlannedRun { name, matches, .. } = planned.remove(0);
    let mut cli = Cli::from_arg_matches(&matches).map_err(|e| report_clap(&e))?;
    if let Command::Run(args) = &mut cli.command {
        args.plan.run_name = name;
        if args.plan.print_plan {
            let run = matches.subcommand_matches("run").expect("run matched");
            let printed = plan_file::render(run).map_err(|e| report_error(&e.into()))?;
            args.plan.printed = Some(printed);
        }
    }
    Ok(cli)
}

/// The parser of every path flag: the path joined to the current
/// directory when it is relative, and otherwise as typed (`..`, `.`, a
/// trailing `/` and symbolic links are kept, for the file checks to judge),
/// any bytes kept.
fn absolute_path() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::PathBufValueParser::new().try_map(|path| {
        if path.is_absolute() {
            Ok(path)
        } else {
            std::env::current_dir().map(|cwd| cwd.join(path))
        }
    })
}

/// Whether `command` was given `--quiet`.
pub fn quiet(command: &Command) -> bool {
    match command {
        Command::Run(args) => args.output.output.quiet,
        Command::Reproduce(args) => args.output.quiet,
        Command::Compare(args) => args.output.quiet,
        Command::Calibrate(args) => args.output.quiet,
        Command::Map(args) => args.quiet,
        Command::Advise(args) => args.quiet,
        _ => false,
    }
}

/// Prints what a finished session measured (the table, the verdicts, the
/// failed trials) and how it ended, and returns its exit code.
pub fn print_finished(finished: &Finished, output: &output_args::OutputArgs) -> ExitCode {
    let results = &finished.results;
    output.print(&results_text(results, output));
    // Wrapped to the terminal like the verdicts (100 columns when piped).
    let width = output.layout().width;
    let statistics = if output.quiet {
        Vec::new()
    } else {
        faultline::report::sections::precision::statistics_lines(results)
    };
    for line in statistics {
        for part in faultline::report::terminal::wrap(&line, width) {
            println!("{part}");
        }
    }
    if let Some((text, header, rows)) =
        faultline::report::sections::precision::short_trial_table(results)
    {
        faultline::console::warning_table(&text, &header, &rows);
    }
    for line in faultline::report::failure_lines(results) {
        eprintln!("failed: {line}");
    }
    let journal = finished.journal.display();
    if finished.interrupted {
        eprintln!(
            "interrupted: {} sample(s) kept in the journal {journal} and the exports; \
             resume with: {}",
            results.cases.iter().map(|c| c.samples.len()).sum::<usize>(),
            finished.resume_command
        );
        return ExitCode::from(EXIT_INTERRUPTED);
    }
    if !finished.journal_removed {
        eprintln!("journal: {journal}");
    }
    // Failed trials, or none measured: the run did not do what was asked.
    if let Some(line) = faultline::report::terminal::failed::failure_summary(results) {
        eprintln!("error: {line}");
        return ExitCode::from(EXIT_FAILURE);
    }
    ExitCode::SUCCESS
}

/// The table (unless `--quiet`) and the verdicts, fitted to the terminal:
/// one line per verdict, or with `--verbose` every table column and every
/// counter behind each verdict. Verdict words carry colour codes, which
/// [`output_args::OutputArgs::print`] keeps or strips.
pub fn results_text(
    results: &faultline::results::RunResults,
    output: &output_args::OutputArgs,
) -> String {
    use faultline::report::terminal::{self, verdicts as verdict_line};
    let layout = output.layout();
    let mut text = String::new();
    if !output.quiet {
        text.push_str(&terminal::render_terminal_table(results, &layout));
        text.push('\n');
    }
    if output.verbose {
        for (cmp, line) in results
            .comparisons
            .iter()
            .zip(faultline::report::verdict_lines(results))
        {
            text.push_str(&verdict_line::paint_verdict_word(&line, cmp.verdict));
            text.push('\n');
        }
    } else {
        for line in verdict_line::short_verdict_lines(results, layout.width, true) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    text
}

/// Prints `error` as one line and returns its exit code: [`EXIT_USAGE`] for
/// bad usage or input, [`EXIT_FAILURE`] otherwise.
pub fn report_error(error: &anyhow::Error) -> ExitCode {
    let ours = || error.chain().filter_map(|c| c.downcast_ref::<Error>());
    if ours().any(Error::is_interrupted) {
        eprintln!("interrupted: {}", one_line(&chain_text(error)));
        return ExitCode::from(EXIT_INTERRUPTED);
    }
    eprintln!("error: {}", one_line(&chain_text(error)));
    let usage = ours().any(Error::is_usage);
    ExitCode::from(if usage { EXIT_USAGE } else { EXIT_FAILURE })
}

/// Prints a clap error (or `--help`, `--version`, or the help that a bare
/// `faultline` shows) as clap formats it, and returns clap's exit code:
/// 0 for help and version, [`EXIT_USAGE`] for the rest (a bare `faultline`
/// included: it is missing its subcommand).
pub fn report_clap(error: &clap::Error) -> ExitCode {
    let _ = error.print();
    if error.use_stderr() {
        ExitCode::from(EXIT_USAGE)
    } else {
        ExitCode::SUCCESS
    }
}

/// The error and its causes joined by ": ", leaving out a cause whose text
/// the message before it already ends with (library errors print their
/// source themselves).
fn chain_text(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause.to_string();
        if !text.ends_with(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
    }
    text
}

/// Folds a multi-line message (clap's, for one) into one line, dropping the
/// "For more information" hint.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every subcommand's flags are consistent: no two flags share a name or
    /// a short letter, every conflict names a real flag (clap checks these
    /// only in debug builds, and the flags come from several flattened
    /// structs).
    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }

    /// Values of many kinds, each accepted by some flag's parser.
    const VALUES: &[&str] = &[
        "1",
        "2",
        "5",
        "20ms",
        "1s",
        "off",
        "on",
        "4k",
        "1M",
        "5%",
        "0.05",
        "read",
        "mmap",
        "seq",
        "random",
        "warm",
        "cold",
        "all",
        "sum",
        "bh",
        "holm",
        "none",
        "bash",
        "a.json",
        "block=4k..1M",
        "1280x1024",
        "16MB/s",
        "fsync",
        "4k..64k",
        "read,mmap",
        "2000",
    ];

    /// Every flag of every subcommand, given any value its parser accepts,
    /// becomes the typed arguments without a panic: clap checks a field's
    /// type against its parser's only when the value is read (a field of
    /// `Option<Option<T>>` whose parser gives `Option<T>` parsed and then
    /// panicked on `reproduce --min-trial-time 20ms`). Parsing only: nothing
    /// is run.
    #[test]
    fn every_flag_of_every_subcommand_parses_any_accepted_value_without_a_panic() {
        let root = super::command();
        let mut checked = 0;
        let mut panics = Vec::new();
        for sub in root.get_subcommands().filter(|s| !s.is_hide_set()) {
            let name = sub.get_name().to_string();
            // The required positionals, filled with the first value that parses.
            let mut base = vec!["faultline".to_string(), name.clone()];
            for arg in sub.get_positionals().filter(|a| a.is_required_set()) {
                let fits = VALUES.iter().find(|v| {
                    let mut argv = base.clone();
                    argv.push(v.to_string());
                    parses(&argv) == Some(true) || {
                        let mut more = argv.clone();
                        more.push("a.json".into());
                        parses(&more) == Some(true)
                    }
                });
                base.push(fits.unwrap_or(&"a.json").to_string());
                let _ = arg;
            }
            for arg in sub.get_arguments().filter(|a| a.get_long().is_some()) {
                let long = format!("--{}", arg.get_long().unwrap());
                let mut tries: Vec<Vec<String>> = Vec::new();
                if arg.get_action().takes_values() {
                    let possible: Vec<String> = arg
                        .get_possible_values()
                        .iter()
                        .map(|p| p.get_name().to_string())
                        .collect();
                    for v in VALUES.iter().map(|v| v.to_string()).chain(possible) {
                        tries.push(vec![long.clone(), v]);
                    }
                } else {
                    tries.push(vec![long.clone()]);
                }
                for t in tries {
                    let mut argv = base.clone();
                    argv.extend(t.iter().cloned());
                    checked += 1;
                    if parses(&argv).is_none() {
                        panics.push(argv.join(" "));
                    }
                }
            }
        }
        assert!(checked > 1000, "only {checked} flag values tried");
        assert!(panics.is_empty(), "panicked: {panics:#?}");
    }

    /// Whether `argv` parses into [`super::Cli`] (`Some(false)`: clap or the
    /// typed conversion refused it); `None` when parsing panicked.
    fn parses(argv: &[String]) -> Option<bool> {
        use clap::FromArgMatches;
        let argv = argv.to_vec();
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let result =
            std::panic::catch_unwind(move || match super::command().try_get_matches_from(&argv) {
                Ok(matches) => super::Cli::from_arg_matches(&matches).is_ok(),
                Err(_) => false,
            });
        std::panic::set_hook(hook);
        result.ok()
    }
}
