//! Presets: named experiments that reproduce a published study.
//!
//! Each study is one file here implementing [`Preset`]: its published numbers
//! as data ([`Table`]), the plan that reproduces it at a [`Scope`], its
//! claims as checkable comparisons ([`crate::studies::claims::Claim`]), its fidelity
//! notes, how its measured table and plots are laid out, and the flags of its
//! own it takes ([`Preset::options`]). Adding a study means adding one file
//! and one line in [`registry`].
use crate::method::{MethodKind, SizeWith, SyncPolicy};
use crate::pattern::Pattern;
use crate::plan::CacheState;
use crate::plan::Target;
use crate::plan::{Case, Plan};
use crate::report::plot::{Bar, Hue, Key, Plot, Segment};
use crate::results::claim::ClaimOutcome;
use crate::stats::RunResults;
use crate::studies::claims::Claim;
use crate::workload::{FillContent, WorkloadKind};

pub mod calibrate_claims;
pub mod claims;
pub mod crotty2022;
pub mod dillon2004;
pub mod fedorova2019;
pub mod html;
pub mod liege2018;
pub mod outcome;
pub mod profile_claims;
pub mod settle;
pub mod sun2002;
pub mod write2020;

/// How large a reproduction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope {
    /// Full uses the original sizes and run counts; quick fits in minutes.
    pub full: bool,
    /// Test-only divisor of every file size (1 = none).
    pub scale_down: u64,
    /// Replay the original's quirks (`--faithful`) where a preset can; each
    /// preset's fidelity notes say which.
    pub faithful: bool,
}

impl Scope {
    /// The quick scope.
    pub const QUICK: Scope = Scope {
        full: false,
        scale_down: 1,
        faithful: false,
    };

    /// The full scope.
    pub const FULL: Scope = Scope {
        full: true,
        scale_down: 1,
        faithful: false,
    };

    /// Quick (`full` false) or full sizes, divided by the test-only `scale_down`.
    pub fn new(full: bool, scale_down: u64) -> Scope {
        Scope {
            full,
            scale_down,
            faithful: false,
        }
    }

    /// The same scope, replaying the original's quirks or not.
    pub fn faithful(self, faithful: bool) -> Scope {
        Scope { faithful, ..self }
    }

    /// `quick` or `full` sizes, divided by the test-only divisor, never
    /// below `floor` bytes.
    pub fn size(&self, quick: u64, full: u64, floor: u64) -> u64 {
        let base = if self.full { full } else { quick };
        (base / self.scale_down.max(1)).max(floor)
    }

    /// Runs per case: `quick` or `full`, and 2 when scaled down (the least a CI needs).
    pub fn runs(&self, quick: u32, full: u32) -> u32 {
        if self.scale_down > 1 {
            2
        } else if self.full {
            full
        } else {
            quick
        }
    }
}

pub use crate::report::text_table::Table;

/// A published study that faultline replays.
pub trait Preset: Send + Sync {
    /// The preset's name on the command line, e.g. `liege2018`.
    fn name(&self) -> &'static str;
    /// The study: authors, title, date.
    fn source(&self) -> &'static str;
    /// The study's published numbers.
    fn published(&self) -> Vec<Table>;
    /// The cases that reproduce it.
    fn plan(&self, scope: Scope) -> Plan;
    /// The study's claims, each a comparison between cases of `plan`.
    fn claims(&self, plan: &Plan) -> Vec<Claim>;
    /// Deliberate departures from the original, and why.
    fn fidelity(&self) -> Vec<String>;
    /// The measured numbers, in the published tables' layout.
    fn measured(&self, results: &RunResults) -> Vec<Table>;
    /// Plots with the published series beside the measured ones.
    fn plots(&self, results: &RunResults) -> Vec<Plot>;
    /// Its claims about where the CPU time goes, judged from the run's
    /// profile (`--profile`; [`profile_claims`]); none by default, and none
    /// when the run was not profiled.
    fn profile_claims(&self, results: &RunResults) -> Vec<crate::studies::claims::ClaimOutcome> {
        let _ = results;
        Vec::new()
    }
    /// The cases its profile claims read (what more profiled trials of
    /// would settle them), among `cases`; none by default.
    fn profile_cases(&self, cases: &[Case]) -> Vec<Case> {
        let _ = cases;
        Vec::new()
    }
    /// More explanation of `claim`'s verdict from the preset's own counters
    /// (appended to the checker's); `None` by default.
    fn explain(&self, claim: &Claim, results: &RunResults) -> Option<String> {
        let _ = (claim, results);
        None
    }
    /// Whether `reproduce all` runs it (a preset that needs privileges or
    /// takes long runs only when named).
    fn in_all(&self) -> bool {
        true
    }
    /// The `reproduce` flags of its own it takes (`--threads`, `--size`,
    /// `--duration`); none by default.
    fn options(&self) -> &'static [PresetOption] {
        &[]
    }
    /// Resolves the preset on this machine, with the user's choices, before a
    /// fresh run (its plan may depend on what this machine offers); fails
    /// with one line when it cannot run here. Returns a line saying what was
    /// resolved, if anything. Does nothing by default.
    fn prepare(&mut self, scope: Scope, choices: &Choices) -> crate::error::Result<Option<String>> {
        let _ = (scope, choices);
        Ok(None)
    }
}

/// A flag of `faultline reproduce` that only the presets declaring it take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresetOption {
    /// `--threads N`: threads per trial.
    Threads,
    /// `--size SIZE`: the file size.
    Size,
    /// `--duration SECONDS`: seconds per trial.
    Duration,
}

impl PresetOption {
    /// The flag, as typed.
    pub fn flag(self) -> &'static str {
        match self {
            PresetOption::Threads => "--threads",
            PresetOption::Size => "--size",
            PresetOption::Duration => "--duration",
        }
    }
}

/// The values of the [`PresetOption`] flags given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Choices {
    /// `--threads` (default: the preset's).
    pub threads: Option<u32>,
    /// `--size` (default: the preset's).
    pub size: Option<u64>,
    /// `--duration` (default: the preset's).
    pub duration_s: Option<u32>,
}

impl Choices {
    /// The flags given, in the order of [`PresetOption`].
    pub fn given(&self) -> Vec<PresetOption> {
        let mut given = Vec::new();
        if self.threads.is_some() {
            given.push(PresetOption::Threads);
        }
        if self.size.is_some() {
            given.push(PresetOption::Size);
        }
        if self.duration_s.is_some() {
            given.push(PresetOption::Duration);
        }
        given
    }
}

/// Every preset, one line each, in the order `reproduce all` runs them
/// (those whose [`Preset::in_all`] is false run only when named).
pub fn registry() -> Vec<Box<dyn Preset>> {
    vec![
        Box::new(dillon2004::Dillon2004),
        Box::new(liege2018::Liege2018),
        Box::new(fedorova2019::Fedorova2019),
        Box::new(write2020::Write2020),
        Box::new(sun2002::Sun2002),
        Box::new(crotty2022::Crotty2022::default()),
    ]
}

/// The presets `reproduce all` runs.
pub fn all() -> Vec<Box<dyn Preset>> {
    registry().into_iter().filter(|p| p.in_all()).collect()
}

/// The preset called `name`.
pub fn find(name: &str) -> Option<Box<dyn Preset>> {
    registry().into_iter().find(|p| p.name() == name)
}

/// The names of every preset.
pub fn names() -> Vec<&'static str> {
    registry().iter().map(|p| p.name()).collect()
}

/// Every claim of `preset` judged on `results`, each with its id: the
/// timed claims, each explained further by the preset's own counters, then
/// its profile claims (unsettled, needing --profile, when the run was not
/// profiled).
pub fn judge_claims(preset: &dyn Preset, results: &RunResults) -> Vec<ClaimOutcome> {
    let results = &*as_planned(results);
    let plan = plan_of(results);
    let mut claims: Vec<_> = preset
        .claims(&plan)
        .iter()
        .map(|c| {
            let mut outcome = claims::check(c, results);
            if let Some(more) = preset.explain(c, results) {
                outcome.explanation.push(' ');
                outcome.explanation.push_str(&more);
            }
            outcome
        })
        .collect();
    claims.extend(preset.profile_claims(results));
    claims
        .into_iter()
        .map(|c| ClaimOutcome {
            study: preset.name().to_string(),
            ..c.summarised()
        })
        .collect()
}

/// `results` with each case as the preset planned it: without the least
/// trial length reproduce gave it (`--min-trial-time`), which changes how
/// long a trial repeats its pass, not what it measures; presets find their
/// cases by equality.
pub fn as_planned(results: &RunResults) -> std::borrow::Cow<'_, RunResults> {
    if results.cases.iter().all(|c| c.case.min_trial_ns.is_none()) {
        return std::borrow::Cow::Borrowed(results);
    }
    let mut planned = results.clone();
    for c in &mut planned.cases {
        c.case.min_trial_ns = None;
    }
    std::borrow::Cow::Owned(planned)
}

/// The plan a run's results were measured from (its cases, runs and order).
pub fn plan_of(results: &RunResults) -> Plan {
    Plan {
        cases: results.cases.iter().map(|c| c.case.clone()).collect(),
        runs: results.settings.runs,
        warmup: results.settings.warmup,
        order: results.settings.order,
        metric: results.settings.metric,
        seed: results.settings.seed,
    }
}

/// A read-side case with every option at its default ([`Case::new`]:
/// mapping methods get `populate=none`, `advice=normal`, `MAP_SHARED`).
pub fn read_case(
    method: MethodKind,
    pattern: Pattern,
    block_size: u64,
    file_size: u64,
    workload: WorkloadKind,
    cache: CacheState,
) -> Case {
    Case::new(method, pattern, block_size, file_size, workload, cache)
}

/// A write-side case writing `fill` content to `target` with `sync`
/// (fsync for write/pwrite; msync for mmap-write; a fresh mmap-write file is
/// sized with ftruncate).
pub fn write_case(
    method: MethodKind,
    pattern: Pattern,
    block_size: u64,
    file_size: u64,
    target: Target,
    sync: SyncPolicy,
    fill: FillContent,
) -> Case {
    let mut case = read_case(
        method,
        pattern,
        block_size,
        file_size,
        WorkloadKind::Fill,
        CacheState::Warm,
    );
    case.sync = Some(sync);
    case.sync_call = (method.takes(crate::method::MethodOption::SyncCall)
        && sync != SyncPolicy::None)
        .then_some(crate::method::SyncCall::Fsync);
    case.target = Some(target);
    case.size_with =
        (method == MethodKind::MmapWrite && target == Target::Fresh).then_some(SizeWith::Truncate);
    case.fill = Some(fill);
    case
}

/// The measured case equal to `case` (see [`as_planned`]).
pub fn find_case<'a>(
    results: &'a RunResults,
    case: &Case,
) -> Option<&'a crate::stats::run_results::CaseResult> {
    results.cases.iter().find(|c| c.case == *case)
}

/// The measured mean of the case equal to `case`, in seconds, with the 95% CI
/// of the mean (seconds) when known.
pub fn mean_seconds(results: &RunResults, case: &Case) -> Option<(f64, Option<(f64, f64)>)> {
    let found = find_case(results, case)?;
    let s = found.summary.as_ref()?;
    let t = match results.settings.metric {
        crate::plan::Metric::Total => &s.time_ns,
        crate::plan::Metric::Loop => &s.loop_ns,
    };
    Some((t.mean / 1e9, t.ci95.map(|(l, h)| (l / 1e9, h / 1e9))))
}

/// Seconds with 3 significant-ish decimals, or `-`.
pub fn secs(x: Option<f64>) -> String {
    match x {
        Some(x) if x >= 1.0 => format!("{x:.2} s"),
        Some(x) if x >= 1e-3 => format!("{:.2} ms", x * 1e3),
        Some(x) => format!("{:.1} µs", x * 1e6),
        None => "-".to_string(),
    }
}

/// `mean ± half` in the unit of the mean, both with the same decimals, so
/// one cell never mixes units (`4.96 ± 0.26 ms`, not `4.96 ms ± 261.9 µs`).
pub fn secs_pm(mean: f64, half: f64) -> String {
    let (per, name) = time_unit(mean);
    let (m, h) = (mean / per, half / per);
    let d = crate::report::units::decimals3(m);
    format!("{m:.d$} ± {h:.d$} {name}")
}

/// The profile of the case equal to `case` (`--profile`).
pub fn profile_of<'a>(
    results: &'a RunResults,
    case: &Case,
) -> Option<&'a crate::stats::profile::ProfileSummary> {
    summary_of(results, case)?.profile.as_ref()
}

/// A category's share of a case's profile with its CI (`31% [27–35]`), `0%`
/// when none of its samples fell there, or `-` without a profile.
pub fn share_cell(
    profile: Option<&crate::stats::profile::ProfileSummary>,
    category: crate::measure::profile::Category,
) -> String {
    match profile {
        None => "-".to_string(),
        Some(p) => p
            .share(category)
            .map_or("0%".to_string(), |s| profile_claims::share_text(&s.share)),
    }
}

/// The summary of the case equal to `case`.
pub fn summary_of<'a>(
    results: &'a RunResults,
    case: &Case,
) -> Option<&'a crate::stats::analysis::CaseSummary> {
    find_case(results, case)?.summary.as_ref()
}

/// The paired time ratio `base / other` (above 1: `other` is faster).
pub fn ratio_of(
    results: &RunResults,
    base: &Case,
    other: &Case,
) -> Option<crate::stats::RatioEstimate> {
    let find = |c: &Case| find_case(results, c);
    crate::stats::analysis::compare_cases(
        &find(base)?.counted_samples(),
        &find(other)?.counted_samples(),
        results.settings.metric,
    )
}

/// A ratio cell, `1.23 [1.10–1.40]`, or `-`.
pub fn ratio_cell(r: Option<&crate::stats::RatioEstimate>) -> String {
    match r {
        Some(r) => format!("{:.2} [{:.2}–{:.2}]", r.ratio, r.ci95_low, r.ci95_high),
        None => "-".to_string(),
    }
}

/// A plot point from a ratio: `(x, ratio, CI)`.
pub fn ratio_point(x: f64, r: &crate::stats::RatioEstimate) -> crate::report::plot::Point {
    (x, r.ratio, Some((r.ci95_low, r.ci95_high)))
}

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

/// The measured time split of a case summary (its user, sys and whole
/// trial time, with the trial time's CI), in seconds divided by `unit`.
pub fn measured_time_split(s: &crate::stats::analysis::CaseSummary, unit: f64) -> Vec<Bar> {
    time_split_bars(
        s.user_ns.mean / 1e9,
        s.sys_ns.mean / 1e9,
        s.time_ns.mean / 1e9,
        s.time_ns.ci95.map(|(l, h)| (l / 1e9, h / 1e9)),
        unit,
    )
}

/// A unit to show times up to `max` seconds in: `(seconds per unit, name)`.
pub fn time_unit(max: f64) -> (f64, &'static str) {
    if max >= 1.0 {
        (1.0, "s")
    } else if max >= 1e-3 {
        (1e-3, "ms")
    } else {
        (1e-6, "µs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_claim_compares_cases_of_its_plan_at_every_scale() {
        for preset in all() {
            for scope in [
                Scope::QUICK,
                Scope::FULL,
                Scope::new(false, 256),
                Scope::QUICK.faithful(true),
                Scope::FULL.faithful(true),
                Scope::new(false, 256).faithful(true),
            ] {
                let plan = preset.plan(scope);
                assert!(!plan.cases.is_empty(), "{}", preset.name());
                let mut unique = plan.cases.clone();
                unique.sort();
                unique.dedup();
                assert_eq!(
                    unique.len(),
                    plan.cases.len(),
                    "{} repeats a case",
                    preset.name()
                );
                for claim in preset.claims(&plan) {
                    assert!(!claim.pairs.is_empty(), "{}: {}", preset.name(), claim.text);
                    for (b, o) in &claim.pairs {
                        assert!(plan.cases.contains(b), "{}: {}", preset.name(), claim.text);
                        assert!(plan.cases.contains(o), "{}: {}", preset.name(), claim.text);
                    }
                }
                assert!(!preset.published().is_empty());
                assert!(!preset.fidelity().is_empty());
            }
        }
    }

    #[test]
    fn every_claim_states_a_size_so_a_trivial_difference_cannot_hold() {
        use crate::studies::claims::Expect;
        for preset in registry() {
            let plan = preset.plan(Scope::QUICK);
            for claim in preset.claims(&plan) {
                let effects: Vec<crate::stats::effect::Published> = match &claim.expect {
                    Expect::Effect(p) => vec![*p],
                    Expect::EachEffect(each) => each.clone(),
                    Expect::Trend { per_doubling, .. } => vec![*per_doubling],
                };
                for p in effects {
                    let (l, h) = p.band();
                    let around_one = l < 1.0 && h > 1.0;
                    // A published figure's band excludes 1; a claim with no
                    // figure (a bound) states a smallest effect of 5% or more.
                    let least = match p.size {
                        crate::stats::effect::Size::AtLeast(_) => 1.05,
                        _ => 1.0,
                    };
                    assert!(
                        around_one || l >= least,
                        "{}/{}: band {l}–{h} starts too near 1",
                        preset.name(),
                        claim.id
                    );
                }
                assert!(
                    (0.5..=1.0).contains(&claim.quorum),
                    "{}/{}",
                    preset.name(),
                    claim.id
                );
                assert!(!claim.id.is_empty());
            }
            let ids: Vec<String> = preset.claims(&plan).into_iter().map(|c| c.id).collect();
            let mut unique = ids.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), ids.len(), "{}: ids repeat", preset.name());
        }
    }

    #[test]
    fn full_scale_uses_the_original_sizes() {
        let largest = |name: &str| {
            let plan = find(name).unwrap().plan(Scope::FULL);
            let faithful = find(name).unwrap().plan(Scope::FULL.faithful(true));
            let max = |p: &Plan| p.cases.iter().map(|c| c.file_size).max().unwrap();
            assert_eq!(max(&plan), max(&faithful), "{name}");
            max(&plan)
        };
        assert_eq!(largest("fedorova2019"), 4 << 30);
        assert_eq!(largest("dillon2004"), 1_462_726_660);
        assert_eq!(largest("write2020"), 1000 << 20);
        assert_eq!(largest("liege2018"), 160_000_000);
        assert_eq!(
            largest("sun2002"),
            crate::files::image::image_len(1280, 1024)
        );
    }
}
