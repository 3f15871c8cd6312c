//! The output flags shared by `run`, `reproduce` and `compare`: throughput
//! unit, colour, verbosity; and the terminal they write to (its width, and
//! an output stream that strips colour when colour is off).
use std::io::Write;

use clap::{Args, ValueEnum};

use faultline::report::terminal::Layout;
use faultline::report::units::ThroughputUnit;

/// When to colour the output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// On a terminal, unless NO_COLOR is set (or CLICOLOR=0, or TERM=dumb).
    #[default]
    Auto,
    /// Always, even into a pipe or with NO_COLOR set.
    Always,
    /// Never.
    Never,
}

/// Output flags.
#[derive(Debug, Default, Args)]
#[command(next_help_heading = "Output")]
pub struct OutputArgs {
    /// Throughput unit of the tables: auto (GiB/s from 1 GiB/s, else MiB/s),
    /// GiB/s, GB/s, MiB/s or MB/s.
    #[arg(long, value_enum, default_value_t = ThroughputUnit::Auto, value_name = "UNIT")]
    pub units: ThroughputUnit,
    /// Colour the verdicts: auto honours NO_COLOR and colours only a terminal.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub color: ColorWhen,
    /// Show every table column whatever the width, and every counter behind each verdict.
    #[arg(long, short = 'v', conflicts_with = "quiet")]
    pub verbose: bool,
    /// Print only the verdicts (and errors): no table, no progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl OutputArgs {
    /// The layout of the terminal output: the width (`COLUMNS`, else the
    /// terminal's, else 100), the unit, the verbosity.
    pub fn layout(&self) -> Layout {
        Layout {
            width: terminal_width(),
            units: self.units,
            verbose: self.verbose,
        }
    }

    /// Standard output, with colour codes kept or stripped as `--color`
    /// (and, for auto, NO_COLOR and the terminal) decide.
    pub fn stdout(&self) -> anstream::AutoStream<std::io::Stdout> {
        let choice = match self.color {
            ColorWhen::Auto => anstream::ColorChoice::Auto,
            ColorWhen::Always => anstream::ColorChoice::Always,
            ColorWhen::Never => anstream::ColorChoice::Never,
        };
        anstream::AutoStream::new(std::io::stdout(), choice)
    }

    /// Writes `text` (which may carry colour codes) to standard output,
    /// each line wrapped to the width ([`faultline::console::wrap_lines`]):
    /// no line is wider than the terminal, `-v`'s full tables included.
    pub fn print(&self, text: &str) {
        let text = faultline::console::wrap_lines(text, self.layout().width);
        let mut out = self.stdout();
        // A closed pipe is not worth a panic; the exit code says the rest.
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }
}

/// The width to fit output to: `COLUMNS`, else the terminal's, else
/// [`faultline::console::DEFAULT_WIDTH`] ([`faultline::console::width_of_terminal`]).
pub fn terminal_width() -> usize {
    faultline::console::width_of_terminal()
}

/// The output flags of `run`: [`OutputArgs`] and `--baseline`.
#[derive(Debug, Default, Args)]
#[command(next_help_heading = "Output")]
pub struct RunOutputArgs {
    /// Unit, colour, verbosity.
    #[command(flatten)]
    pub output: OutputArgs,
    /// An earlier run's JSON export: after the run, print each case's change
    /// against it (`+3.1%, within noise`, `−12% [−15, −9], slower`).
    #[arg(long, value_name = "OLD.json")]
    pub baseline: Option<std::path::PathBuf>,
}
