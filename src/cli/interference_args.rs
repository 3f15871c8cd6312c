//! The interference flags shared by `run` and `reproduce`:
//! `--interference-threshold`, `--retry-interfered` and
//! `--exclude-interfered` (docs/interference.md).
use clap::Args;

use faultline::results::InterferenceSettings;

/// How trials disturbed by the rest of the machine are judged and handled.
#[derive(Debug, Default, Args)]
#[command(next_help_heading = "Interference")]
pub struct InterferenceArgs {
    /// A trial is interfered when, over its lifetime, other processes kept more than T cores busy
    /// (+20 ms), steal took more than T of a core, tasks waited for a CPU more than T of the time,
    /// or the disk moved more than T × max(the trial's own bytes, 16 MiB) for others; or another
    /// faultline run was active. T as 10% or 0.1; `off` takes no record at all [default: 10%].
    #[arg(long, value_name = "T|off", value_parser = parse_threshold, allow_hyphen_values = true)]
    pub interference_threshold: Option<Threshold>,
    /// Run an interfered trial again, up to N times; the exports keep every attempt, marked.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub retry_interfered: Option<u32>,
    /// Leave interfered trials (and their pair partners) out of the statistics, and say so.
    #[arg(long)]
    pub exclude_interfered: bool,
}

/// A parsed `--interference-threshold`: `None` is `off`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Threshold(pub Option<f64>);

fn parse_threshold(text: &str) -> Result<Threshold, String> {
    faultline::measure::interference::parse_threshold(text).map(Threshold)
}

impl InterferenceArgs {
    /// The settings the flags ask for; `None` when none was given (the
    /// defaults, or on `--resume` the journal's).
    pub fn settings(&self) -> Option<InterferenceSettings> {
        if self.interference_threshold.is_none()
            && self.retry_interfered.is_none()
            && !self.exclude_interfered
        {
            return None;
        }
        let defaults = InterferenceSettings::default();
        Some(InterferenceSettings {
            threshold: self
                .interference_threshold
                .map_or(defaults.threshold, |t| t.0),
            retries: self.retry_interfered.unwrap_or(defaults.retries),
            exclude: self.exclude_interfered,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_become_settings() {
        assert_eq!(InterferenceArgs::default().settings(), None);
        let args = InterferenceArgs {
            interference_threshold: Some(parse_threshold("25%").unwrap()),
            retry_interfered: Some(2),
            exclude_interfered: true,
        };
        assert_eq!(
            args.settings(),
            Some(InterferenceSettings {
                threshold: Some(0.25),
                retries: 2,
                exclude: true
            })
        );
        let off = InterferenceArgs {
            interference_threshold: Some(parse_threshold("off").unwrap()),
            ..Default::default()
        };
        assert_eq!(off.settings().unwrap().threshold, None);
        assert!(parse_threshold("ten").is_err());
    }
}
