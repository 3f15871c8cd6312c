//! The run specification: the plan and every run-wide choice, in one type.
//!
//! A fresh run builds it from its flags (or a plan file, or a preset), the
//! session fills in what it finds (the files, the command line) and the
//! journal stores it: its first line is a [`RunSpec`], so the journal's
//! keys are this type's field names, written once, here. A resume reads it
//! back and lays the flags given again over it ([`RunSpec::resumed_with`]).
//! The results' [`Settings`] are a view of it ([`RunSpec::settings`]), and
//! the runner reads its choices from it.
//!
//! Fields marked "not journalled" are choices every command gives again
//! (where the data directory is, `--quiet`, `--trial-timeout`, ...).
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::measure::profile::ProfileRequest;
use crate::plan::precision::Statistics;
use crate::plan::Plan;
use crate::results::{InterferenceSettings, ProfileSettings, Reproduction, Settings};
use crate::runner::journal_kind::{JournalFile, JournalKind};
use crate::stats::fdr::Adjustment;

/// The plan and every run-wide choice; what a journal starts with.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunSpec {
    /// The command that runs it, and so which command may continue it;
    /// absent in journals written before it was recorded (see
    /// [`RunSpec::kind`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<JournalKind>,
    /// The plan being run.
    pub plan: Plan,
    /// The files measured, by size: (path, size, seed for generated files);
    /// filled in by the session once they are ready.
    pub files: Vec<JournalFile>,
    /// Whether cold means drop_caches (root) rather than evicting the file.
    pub drop_caches: bool,
    /// The command line that started the run.
    pub command_line: Vec<String>,
    /// The JSON export, rewritten after every group (a resume writes the
    /// journal's unless new ones are given).
    #[serde(default, with = "crate::os_path::option")]
    pub export_json: Option<PathBuf>,
    /// The CSV export.
    #[serde(default, with = "crate::os_path::option")]
    pub export_csv: Option<PathBuf>,
    /// The Markdown export.
    #[serde(default, with = "crate::os_path::option")]
    pub export_markdown: Option<PathBuf>,
    /// `--dir`: where write trials get a scratch directory of their own.
    #[serde(default, with = "crate::os_path::option")]
    pub scratch_parent: Option<PathBuf>,
    /// `--keep`: keep the files write trials wrote.
    #[serde(default)]
    pub keep: bool,
    /// The study a `faultline reproduce` run replays, and how; absent for
    /// `faultline run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduction: Option<Reproduction>,
    /// How interference is judged and handled; `None`: as the journal says
    /// on `--resume`, else the defaults ([`RunSpec::interference`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference: Option<InterferenceSettings>,
    /// `--profile`: the rate and mode every trial is sampled at (a resumed
    /// run samples the same way, or refuses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileRequest>,
    /// `--precision` with its budget, `--fdr`, `--min-trial-time` and
    /// `--min-effect`: a resumed run adds rounds as the interrupted one did,
    /// and its entries may go up to `--max-runs`; absent in journals written
    /// before (their runs stop at the plan's, and the flags given count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statistics: Option<Statistics>,
    /// `--profile-control`: the unprofiled control trials per case; absent
    /// without `--profile` and in journals written before (then none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_control: Option<u32>,

    /// Not journalled: why `--profile` samples are user-only (the line
    /// printed at the start, decided again by every process).
    #[serde(skip)]
    pub profile_note: Option<String>,
    /// Not journalled: faultline's data directory (generated files,
    /// journals, scratch).
    #[serde(skip)]
    pub data_dir: PathBuf,
    /// Not journalled: the user's file to measure instead of generated
    /// ones (read only; the journal lists it among its files).
    #[serde(skip)]
    pub file: Option<PathBuf>,
    /// Not journalled: the other files the command reads, each with the
    /// flag that named it (`--baseline`, `--plan`, `--trace`): no output may
    /// be any of them.
    #[serde(skip)]
    pub inputs: Vec<(String, PathBuf)>,
    /// Not journalled: the generated PPM image a scale plan reads (width,
    /// height), when it reads no user file.
    #[serde(skip)]
    pub image: Option<(u32, u32)>,
    /// Not journalled: the seed of generated content (the journal keeps
    /// each file's).
    #[serde(skip)]
    pub seed: u64,
    /// Not journalled: whether the user chose the file sizes with `--size`
    /// (`Some(true)`), left it at its default (`Some(false)`), or has no
    /// such flag (a preset's own sizes: `None`): a message that advises a
    /// smaller size names the flag as typed, says it was the default, or
    /// does not offer it.
    #[serde(skip)]
    pub size_given: Option<bool>,
    /// Not journalled: `--keep-output`, where scale trials write their
    /// scaled image (the last trial's stays).
    #[serde(skip)]
    pub keep_output: Option<PathBuf>,
    /// Not journalled: a trial running longer than this is killed and
    /// reported (`--trial-timeout`).
    #[serde(skip)]
    pub trial_timeout: Option<Duration>,
    /// Not journalled: where the journal goes (default: beside the JSON
    /// export, else in `<data-dir>/runs/`).
    #[serde(skip)]
    pub journal: Option<PathBuf>,
    /// Not journalled: a word the default journal's name carries (a plan's
    /// named run), so that the runs of one command each have their own.
    #[serde(skip)]
    pub journal_label: Option<String>,
    /// Not journalled: `--keep-journal`, keep the journal of a run that
    /// completed (it is removed otherwise; an interrupted run's stays).
    #[serde(skip)]
    pub keep_journal: bool,
    /// Not journalled: `--quiet`, no progress bar.
    #[serde(skip)]
    pub quiet: bool,
    /// Not journalled: `--fdr` given with `--resume`: the resumed run's
    /// verdicts are adjusted this way instead of as its journal says.
    #[serde(skip)]
    pub resume_adjustment: Option<Adjustment>,
}

impl RunSpec {
    /// The command running it (`run` unless told).
    pub fn command(&self) -> JournalKind {
        self.kind.unwrap_or_default()
    }

    /// How interference is judged and handled: as given, else the defaults.
    pub fn interference(&self) -> InterferenceSettings {
        self.interference.unwrap_or_default()
    }

    /// The statistical settings: as given, else the defaults.
    pub fn statistics_or_default(&self) -> Statistics {
        self.statistics.unwrap_or_default()
    }

    /// `--max-time`: no round is added past it.
    pub fn time_budget(&self) -> Option<Duration> {
        self.statistics
            .and_then(|s| s.precision)
            .and_then(|p| p.max_time_s)
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
    }

    /// How every trial's main loop is sampled (`--profile`), with at most
    /// one control trial per measured run (`--runs 2` gets 2).
    pub fn profile_settings(&self) -> Option<ProfileSettings> {
        self.profile.map(|request| ProfileSettings {
            request,
            note: self.profile_note.clone(),
            control_trials: self.profile_control.unwrap_or(0).min(self.plan.runs),
        })
    }

    /// Sets `--profile` and `--profile-control` from what was decided.
    pub fn set_profile(&mut self, profile: Option<ProfileSettings>) {
        self.profile = profile.as_ref().map(|p| p.request);
        self.profile_control = profile.as_ref().map(|p| p.control_trials);
        self.profile_note = profile.and_then(|p| p.note);
    }

    /// The spec as a fresh run journals it: every choice that has a default
    /// is written out, so a resume never guesses one.
    pub fn for_journal(mut self) -> RunSpec {
        self.kind.get_or_insert_default();
        self.interference.get_or_insert_default();
        self.statistics.get_or_insert_default();
        self
    }

    /// This spec, read from a journal, with the choices `flags` gives again
    /// laid over it: the command, exports and interference handling given
    /// now replace the journal's; statistics are the journal's (a journal
    /// written before they were stored takes the flags'), with `--fdr`'s
    /// adjustment if given; the study is the journal's, else the flags'.
    /// The plan, files, cache dropping, scratch directory, `--keep` and the
    /// profiling are the journal's. Choices it does not store are the flags'.
    pub fn resumed_with(self, flags: &RunSpec) -> RunSpec {
        let mut statistics = self.statistics.or(flags.statistics).unwrap_or_default();
        if let Some(adjustment) = flags.resume_adjustment {
            statistics.adjustment = adjustment;
        }
        RunSpec {
            kind: Some(flags.command()),
            export_json: flags.export_json.clone().or(self.export_json),
            export_csv: flags.export_csv.clone().or(self.export_csv),
            export_markdown: flags.export_markdown.clone().or(self.export_markdown),
            reproduction: self.reproduction.or_else(|| flags.reproduction.clone()),
            interference: Some(flags.interference.or(self.interference).unwrap_or_default()),
            statistics: Some(statistics),
            plan: self.plan,
            files: self.files,
            drop_caches: self.drop_caches,
            command_line: self.command_line,
            scratch_parent: self.scratch_parent,
            keep: self.keep,
            profile: self.profile,
            profile_control: self.profile_control,
            ..flags.clone()
        }
    }

    /// The run-wide settings the results record: this spec's, with the
    /// file measured (`generated` when faultline made it) and the scratch
    /// directory write trials used.
    pub fn settings(&self, file: &Path, generated: bool, scratch_dir: Option<PathBuf>) -> Settings {
        Settings {
            file: file.to_path_buf(),
            generated,
            scratch_dir,
            runs: self.plan.runs,
            warmup: self.plan.warmup,
            order: self.plan.order,
            metric: self.plan.metric,
            drop_caches: self.drop_caches,
            seed: self.plan.seed,
            reproduction: self.reproduction.clone(),
            interference: Some(self.interference()),
            statistics: self.statistics_or_default(),
            profile: self.profile_settings(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::precision::Precision;

    fn journalled() -> RunSpec {
        RunSpec {
            kind: Some(JournalKind::Run),
            plan: Plan {
                runs: 3,
                ..Plan::default()
            },
            drop_caches: true,
            command_line: vec!["faultline".into(), "run".into()],
            export_json: Some("/old/r.json".into()),
            export_csv: Some("/old/r.csv".into()),
            scratch_parent: Some("/old/scratch".into()),
            keep: true,
            interference: Some(InterferenceSettings {
                retries: 1,
                ..Default::default()
            }),
            statistics: Some(Statistics {
                precision: Some(Precision {
                    target: 0.05,
                    max_runs: 9,
                    max_time_s: None,
                    until_decided: false,
                }),
                ..Default::default()
            }),
            profile_control: Some(5),
            ..RunSpec::default()
        }
        .for_journal()
    }

    #[test]
    fn a_resume_keeps_the_journals_run_and_takes_the_flags_given_again() {
        let flags = RunSpec {
            kind: Some(JournalKind::Run),
            drop_caches: false,
            export_json: Some("/new/r.json".into()),
            scratch_parent: Some("/new/scratch".into()),
            interference: Some(InterferenceSettings {
                retries: 4,
                exclude: true,
                ..Default::default()
            }),
            statistics: Some(Statistics::default()),
            resume_adjustment: Some(Adjustment::Holm),
            quiet: true,
            trial_timeout: Some(Duration::from_secs(7)),
            data_dir: "/data".into(),
            ..RunSpec::default()
        };
        let spec = journalled().resumed_with(&flags);
        // The run itself is the journal's.
        assert_eq!(spec.plan.runs, 3);
        assert!(spec.drop_caches && spec.keep);
        assert_eq!(spec.command_line, ["faultline", "run"]);
        assert_eq!(spec.scratch_parent, Some("/old/scratch".into()));
        assert_eq!(spec.profile_control, Some(5));
        // Exports given again replace the journal's, the others stay.
        assert_eq!(spec.export_json, Some("/new/r.json".into()));
        assert_eq!(spec.export_csv, Some("/old/r.csv".into()));
        // Interference flags given again win; statistics are the journal's,
        // with --fdr's adjustment.
        assert_eq!(spec.interference().retries, 4);
        let statistics = spec.statistics_or_default();
        assert_eq!(statistics.precision.map(|p| p.max_runs), Some(9));
        assert_eq!(statistics.adjustment, Adjustment::Holm);
        // What a journal does not store comes from the flags.
        assert!(spec.quiet);
        assert_eq!(spec.trial_timeout, Some(Duration::from_secs(7)));
        assert_eq!(spec.data_dir, PathBuf::from("/data"));
        // A journal written before statistics were stored takes the flags'.
        let mut old = journalled();
        old.statistics = None;
        let flags = RunSpec {
            statistics: Some(Statistics {
                min_effect: Some(0.2),
                ..Default::default()
            }),
            ..RunSpec::default()
        };
        let spec = old.resumed_with(&flags);
        assert_eq!(spec.statistics_or_default().min_effect, Some(0.2));
        // Without interference flags, the journal's handling holds.
        assert_eq!(spec.interference().retries, 1);
    }

    #[test]
    fn the_settings_are_a_view_of_the_spec() {
        let mut spec = journalled();
        spec.set_profile(Some(ProfileSettings {
            request: ProfileRequest {
                frequency_hz: 99,
                mode: crate::measure::profile::ProfileMode::UserOnly,
            },
            note: Some("user only".into()),
            control_trials: 5,
        }));
        let settings = spec.settings(Path::new("/f"), true, None);
        assert_eq!((settings.runs, settings.seed), (3, 0));
        assert!(settings.drop_caches && settings.generated);
        assert_eq!(settings.interference.map(|i| i.retries), Some(1));
        let profile = settings.profile.unwrap();
        // At most one control trial per measured run.
        assert_eq!(profile.control_trials, 3);
        assert_eq!(profile.note.as_deref(), Some("user only"));
        // The journal keeps what was asked for.
        assert_eq!(spec.profile_control, Some(5));
    }
}
