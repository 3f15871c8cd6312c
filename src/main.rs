//! The `faultline` command, straight through: parse the command line, run the
//! subcommand (each builds a session from its flags and runs it, or reads
//! results), and turn the outcome into an exit code.

// The standard printing macros, shadowed as in the library: every line goes
// through `faultline::console` (control characters escaped, a closed stream
// ends quietly instead of panicking).
macro_rules! println {
    () => { faultline::console::line(faultline::console::Stream::Out, format_args!("")) };
    ($($arg:tt)*) => { faultline::console::line(faultline::console::Stream::Out, format_args!($($arg)*)) };
}
macro_rules! print {
    ($($arg:tt)*) => { faultline::console::text(faultline::console::Stream::Out, format_args!($($arg)*)) };
}
macro_rules! eprintln {
    () => { faultline::console::line(faultline::console::Stream::Err, format_args!("")) };
    ($($arg:tt)*) => { faultline::console::line(faultline::console::Stream::Err, format_args!($($arg)*)) };
}

mod cli;

use std::process::ExitCode;

use cli::Command;

fn main() -> ExitCode {
    // A file-size limit (RLIMIT_FSIZE) then fails a write with EFBIG, which
    // is reported, instead of killing faultline with SIGXFSZ.
    // SAFETY: setting a signal to SIG_IGN has no preconditions.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    let (command, named_runs) = match cli::parse() {
        Ok(cli) => (cli.command, cli.named_runs),
        Err(code) => return code,
    };
    // `--quiet`: results only (and errors), no warnings or notes.
    faultline::console::set_quiet(cli::quiet(&command));
    let result = match command {
        Command::Trial => return ExitCode::from(faultline::trial::child_main() as u8),
        Command::Run(args) if !named_runs.is_empty() => {
            cli::plan_runs::execute(&named_runs, args.plan.dry_run)
        }
        Command::Run(args) => cli::run::execute(&args),
        Command::Env(args) => cli::env::execute(&args),
        Command::Clean(args) => cli::clean::execute(&args),
        Command::Report(args) => cli::report::execute(&args),
        Command::Reproduce(args) => cli::reproduce::execute(&args),
        Command::Completions(args) => cli::completions::execute(&args),
        Command::Man(args) => cli::completions::man(&args),
        Command::Compare(args) => cli::compare::execute(&args),
        Command::Calibrate(args) => cli::calibrate::execute(&args),
        Command::Map(args) => cli::map::execute(&args),
        Command::Advise(args) => cli::advise::execute(&args),
    };
    result.unwrap_or_else(|e| cli::report_error(&e))
}
