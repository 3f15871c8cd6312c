//! `faultline completions SHELL` and `faultline man`: a shell completion
//! script (clap_complete) and the manual page (clap_mangen), both generated
//! from the same command definition the parser uses, printed to stdout.
use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use clap_complete::Shell;

/// Flags of `faultline completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Prints the completion script for the shell asked for.
pub fn execute(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    // `reproduce`'s PRESET is checked by its own code (with its own
    // message); the completions still offer its names.
    let mut presets: Vec<&'static str> = faultline::studies::names();
    presets.push("all");
    let mut command = super::command().mut_subcommand("reproduce", |s| {
        s.mut_arg("preset", |a| {
            a.value_parser(clap::builder::PossibleValuesParser::new(presets))
        })
    });
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "faultline", &mut out);
    write_stdout(&out)
}

/// Flags of `faultline man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (`faultline-run.1`, ...) [default: faultline.1].
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
}

/// Prints a manual page (roff): faultline's, or one subcommand's with its
/// flags under their headings.
pub fn man(args: &ManArgs) -> anyhow::Result<ExitCode> {
    let command = super::command();
    let page = match &args.subcommand {
        None => command,
        Some(name) => {
            let visible = || command.get_subcommands().filter(|s| !s.is_hide_set());
            let Some(sub) = visible().find(|s| s.get_name() == name) else {
                let names: Vec<&str> = visible().map(|s| s.get_name()).collect();
                return Err(faultline::error::Error::Plan(format!(
                    "man: no subcommand {name:?} (one of: {})",
                    names.join(", ")
                ))
                .into());
            };
            sub.clone()
                .name(format!("faultline-{name}"))
                .bin_name(format!("faultline {name}"))
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    write_stdout(&out)
}

/// Writes `bytes` to stdout; a closed pipe (`| head`) is not an error.
fn write_stdout(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}
