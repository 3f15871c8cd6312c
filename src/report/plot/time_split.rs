//! A trial's time split as the reproduce page shows it: user and sys CPU
//! stacked beside the elapsed (wall clock) time, in tables and as bars, and
//! the rule that says when the split can be shown at all: getrusage splits
//! CPU time by timer ticks, so a trial shorter than a tick, or CPU time
//! counted outside the clocks, shows no split rather than a wrong one.
use super::{Bar, Hue, Key, Segment};

/// The legend of a time split: user CPU, sys CPU and elapsed.
pub fn time_split_keys() -> Vec<Key> {
    vec![
        Key {
            label: "user CPU".into(),
            hue: Hue::User,
        },
        Key {
            label: "sys CPU".into(),
            hue: Hue::Sys,
        },
        Key {
            label: "elapsed (wall clock)".into(),
            hue: Hue::Wall,
        },
    ]
}

/// A time split as two bars, in seconds divided by `unit`: user and sys
/// CPU stacked (`CPU`), and the elapsed time with its 95% CI (`wall`).
pub fn time_split_bars(
    user: f64,
    sys: f64,
    elapsed: f64,
    elapsed_ci: Option<(f64, f64)>,
    unit: f64,
) -> Vec<Bar> {
    let cpu = vec![
        Segment {
            value: user / unit,
            hue: Hue::User,
        },
        Segment {
            value: sys / unit,
            hue: Hue::Sys,
        },
    ];
    vec![
        Bar::stacked("CPU", cpu),
        Bar::single("wall", elapsed / unit, Hue::Wall)
            .with_ci(elapsed_ci.map(|(l, h)| (l / unit, h / unit))),
    ]
}

/// The coarsest timer tick Linux is built with (HZ = 100), in seconds:
/// getrusage splits a process's CPU time into user and sys by the ticks
/// that land in each, so a trial shorter than this has no resolved split.
pub const CPU_SPLIT_RESOLUTION_S: f64 = 0.010;

/// What a cell says instead of user and sys times that cannot be set
/// beside the elapsed time.
pub const BELOW_RESOLUTION: &str = "below resolution";

/// The same over a plot's bar, where the note must be short (captions say
/// what it means).
pub const UNRESOLVED: &str = "unresolved";

/// The user and sys CPU times of a case summary, in seconds, when they can
/// be shown beside its elapsed time `elapsed_s` (the whole trial,
/// which is what getrusage spans): `None` when the trials are shorter than
/// [`CPU_SPLIT_RESOLUTION_S`], or when user + sys exceed the elapsed
/// time by more than 5% (CPU time counted outside the clocks, e.g. the
/// opening of the file between the passes of `--min-trial-time`): such a
/// split is shown as [`BELOW_RESOLUTION`], never as CPU exceeding wall.
/// For one-threaded trials.
pub fn cpu_split_of(s: &crate::results::CaseSummary, elapsed_s: f64) -> Option<(f64, f64)> {
    let (user, sys) = (s.user_ns.mean / 1e9, s.sys_ns.mean / 1e9);
    (elapsed_s >= CPU_SPLIT_RESOLUTION_S && user + sys <= elapsed_s * 1.05).then_some((user, sys))
}

/// The measured time split of a case summary of a whole-trial metric (its
/// user, sys and whole trial time, with the trial time's CI), in seconds
/// divided by `unit`; a split [`cpu_split_of`] cannot show is an empty CPU
/// bar noted [`UNRESOLVED`].
pub fn measured_time_split(s: &crate::results::CaseSummary, unit: f64) -> Vec<Bar> {
    let elapsed = s.time_ns.mean / 1e9;
    let ci = s.time_ns.ci95.map(|(l, h)| (l / 1e9, h / 1e9));
    match cpu_split_of(s, elapsed) {
        Some((user, sys)) => time_split_bars(user, sys, elapsed, ci, unit),
        None => {
            let mut bars = time_split_bars(0.0, 0.0, elapsed, ci, unit);
            bars[0].segments.clear();
            bars[0].note = Some(UNRESOLVED.to_string());
            bars
        }
    }
}
