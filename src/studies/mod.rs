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
use crate::report::plot::Plot;
use crate::results::{claim::ClaimOutcome, RunResults};
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

pub use crate::report::plot::time_split::{
    cpu_split_of, measured_time_split, time_split_bars, time_split_keys, BELOW_RESOLUTION,
    CPU_SPLIT_RESOLUTION_S, UNRESOLVED,
};
pub use crate::report::text_table::Table;
pub use crate::report::units::{secs, secs_pm, time_unit};

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
    /// Its claims that are not a time ratio between cases (e.g. one about
    /// how the speedups spread), each judged by the preset from `results`
    /// at the claims' level; none by default.
    fn other_claims(&self, results: &RunResults) -> Vec<ClaimOutcome> {
        let _ = results;
        Vec::new()
    }
    /// What this run measured about the machine that a claim's premise
    /// rests on (e.g. whether its cold cases were I/O-bound), added to the
    /// machine notes; none by default.
    fn machine_notes(&self, results: &RunResults) -> Vec<String> {
        let _ = results;
        Vec::new()
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
        Box::new(dillon2004::Dillon2004::default()),
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
/// timed claims, each explained further by the preset's own counters, its
/// other claims ([`Preset::other_claims`]), then its profile claims
/// (unsettled, needing --profile, when the run was not profiled).
pub fn judge_claims(preset: &dyn Preset, results: &RunResults) -> Vec<ClaimOutcome> {
    let results = &*as_planned(results);
    let plan = plan_of(results);
    let mut claims: Vec<_> = preset
        .claims(&plan)
        .iter()
        .map(|c| {
            let mut outcome = claims::check(c, results);
            if let Some(more) = preset.explain(c, results) {
                // A sentence of its own, after the evidence's last figure.
                let text = outcome.explanation.trim_end();
                outcome.explanation = if text.is_empty() {
                    more
                } else if text.ends_with(['.', ':', ';']) {
                    format!("{text} {more}")
                } else {
                    format!("{text}. {more}")
                };
            }
            outcome
        })
        .collect();
    claims.extend(preset.other_claims(results));
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
) -> Option<&'a crate::results::CaseResult> {
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

/// The profile of the case equal to `case` (`--profile`).
pub fn profile_of<'a>(
    results: &'a RunResults,
    case: &Case,
) -> Option<&'a crate::results::ProfileSummary> {
    summary_of(results, case)?.profile.as_deref()
}

/// A category's share of a case's profile with its CI (`31% [27–35]`), `0%`
/// when none of its samples fell there, or `-` without a profile.
pub fn share_cell(
    profile: Option<&crate::results::ProfileSummary>,
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
) -> Option<&'a crate::results::CaseSummary> {
    find_case(results, case)?.summary.as_ref()
}

/// One comparison as the claims judge it, so a study's tables show the
/// same estimate, CI and orientation as its claims: the paired time ratio
/// `base / other` (above 1: `other` is faster) and its CI at the claims'
/// level ([`crate::stats::effect::CLAIM_LEVEL`], 90%), over every pair, or
/// over the clean pairs only (neither trial interfered with) when any pair
/// was interfered with; over every pair again, marked, when too few clean
/// pairs are left (the claim is then unsettled: machine busy).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    /// `base / other`, the geometric mean of the paired ratios.
    pub ratio: f64,
    /// Its CI at the claims' level.
    pub ci: (f64, f64),
    /// The pairs it rests on.
    pub pairs: usize,
    /// Which pairs.
    pub basis: Basis,
}

/// The pairs a [`Comparison`] rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// Every pair; none was interfered with.
    All,
    /// The clean pairs only: some were interfered with.
    Clean,
    /// Every pair, interfered ones included: too few clean pairs are left
    /// to judge (the claims show the same and decide nothing on it).
    Interfered,
}

/// The comparison of `base` and `other` as the claims judge it (see
/// [`Comparison`]); `None` without two or more usable pairs.
pub fn comparison(results: &RunResults, base: &Case, other: &Case) -> Option<Comparison> {
    let input = claims::pair_input(results, base, other, String::new());
    let logs = crate::stats::effect::LogRatios::of_estimate;
    let (logs, basis) = match (
        input.interfered_share > 0.0,
        &input.clean_ratio,
        &input.ratio,
    ) {
        (false, _, Some(all)) => (logs(all)?, Basis::All),
        (true, Some(clean), _) if logs(clean).is_some() => (logs(clean)?, Basis::Clean),
        (true, _, Some(all)) => (logs(all)?, Basis::Interfered),
        _ => return None,
    };
    Some(Comparison {
        ratio: logs.mean.exp(),
        ci: logs.ratio_ci(crate::stats::effect::CLAIM_LEVEL),
        pairs: logs.n,
        basis,
    })
}

/// The header of a column of [`ratio_cell`]s, e.g. `speedup [90% CI]`.
pub fn ratio_header(what: &str) -> String {
    format!(
        "{what} [{:.0}% CI]",
        crate::stats::effect::CLAIM_LEVEL * 100.0
    )
}

/// What every table of comparisons says about its CIs (for captions).
pub const COMPARISON_NOTE: &str = "each comparison as its claim judges it: the paired time ratio with its 90% CI, from the clean pairs only where a trial was interfered with (marked \"clean\"), or marked \"interfered\" where too few clean pairs are left to judge";

/// A comparison cell, `1.23 [1.10–1.40]` (`… clean` or `… interfered` as
/// [`Basis`] says), or `-`.
pub fn ratio_cell(results: &RunResults, base: &Case, other: &Case) -> String {
    match comparison(results, base, other) {
        Some(c) => format!(
            "{:.2} [{:.2}–{:.2}]{}",
            c.ratio,
            c.ci.0,
            c.ci.1,
            match c.basis {
                Basis::All => "",
                Basis::Clean => " clean",
                Basis::Interfered => " interfered",
            }
        ),
        None => "-".to_string(),
    }
}

/// A plot point from a comparison: `(x, ratio, CI)`.
pub fn ratio_point(x: f64, c: &Comparison) -> crate::report::plot::Point {
    (x, c.ratio, Some(c.ci))
}

/// The mean whole-trial time of a case (setup + loop + sync + teardown,
/// what getrusage spans), in seconds, whatever the plan's metric.
pub fn whole_trial_s(results: &RunResults, case: &Case) -> Option<f64> {
    let found = find_case(results, case)?;
    let samples = found.counted_samples();
    (!samples.is_empty()).then(|| {
        samples.iter().map(|s| s.total_ns as f64).sum::<f64>() / samples.len() as f64 / 1e9
    })
}

/// Synthetic measurements for the presets' tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// One synthetic trial: whole-trial time, user and sys CPU, ns, and
    /// whether it was interfered with.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Trial {
        pub total_ns: u64,
        pub user_ns: u64,
        pub sys_ns: u64,
        pub interfered: bool,
    }

    impl Trial {
        /// A quiet trial of `total_ns` whose CPU was busy `cpu_share` of it
        /// (two thirds user, one third sys).
        pub(crate) fn quiet(total_ns: u64, cpu_share: f64) -> Trial {
            let cpu = (total_ns as f64 * cpu_share) as u64;
            Trial {
                total_ns,
                user_ns: cpu * 2 / 3,
                sys_ns: cpu - cpu * 2 / 3,
                interfered: false,
            }
        }
    }

    /// `results` with `case` measured by `trials` (run `i` is the `i`-th),
    /// summarised under the results' metric; the main loop is the whole trial.
    pub(crate) fn measure(results: &mut RunResults, case: &Case, trials: &[Trial]) {
        let metric = results.settings.metric;
        let found = results
            .cases
            .iter_mut()
            .find(|c| c.case == *case)
            .expect("a case of the plan");
        let samples: Vec<_> = trials
            .iter()
            .enumerate()
            .map(|(run, t)| {
                let mut s = crate::fixtures::sample(found.id, run as u32);
                s.total_ns = t.total_ns;
                s.child.wall_ns = t.total_ns;
                s.child.setup_ns = 0;
                s.child.teardown_ns = 0;
                s.child.rusage.user_ns = t.user_ns;
                s.child.rusage.sys_ns = t.sys_ns;
                s.interference = t
                    .interfered
                    .then(|| crate::measure::interference::Interference {
                        interfered: true,
                        ..Default::default()
                    });
                s
            })
            .collect();
        found.summary = crate::analysis::case_summary::summarize_case(&samples, metric);
        found.samples = samples;
    }

    /// `n` quiet trials around `ms` milliseconds (±1% alternating), at `cpu_share`.
    pub(crate) fn around(ms: f64, n: usize, cpu_share: f64) -> Vec<Trial> {
        (0..n)
            .map(|i| {
                let wobble = if i % 2 == 0 { 1.01 } else { 0.99 } * (1.0 + i as f64 * 1e-4);
                Trial::quiet((ms * 1e6 * wobble) as u64, cpu_share)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{around, measure, Trial};
    use super::*;

    #[test]
    fn a_tables_comparison_is_the_claims_estimate_at_90_percent() {
        let plan = write2020::Write2020.plan(Scope::QUICK);
        let (write, mmap) = (plan.cases[0].clone(), plan.cases[1].clone());
        let mut results = crate::fixtures::results_of(&plan.cases);
        measure(&mut results, &write, &around(120.0, 6, 0.9));
        measure(&mut results, &mmap, &around(100.0, 6, 0.9));
        let c = comparison(&results, &write, &mmap).expect("a comparison");
        let claim = &write2020::Write2020.claims(&plan)[0];
        let judged = claims::check(claim, &results);
        let row = &judged.pairs[0];
        assert!((row.measured.unwrap() - c.ratio).abs() < 1e-12);
        let (lo, hi) = row.ci.unwrap();
        assert!((lo - c.ci.0).abs() < 1e-12 && (hi - c.ci.1).abs() < 1e-12);
        assert_eq!(c.basis, Basis::All);
        assert_eq!(
            ratio_cell(&results, &write, &mmap),
            format!("{:.2} [{:.2}–{:.2}]", c.ratio, c.ci.0, c.ci.1)
        );
        assert_eq!(ratio_header("speedup"), "speedup [90% CI]");
        // Interfered pairs: the clean ones only, as the claims take them, and said so.
        let mut trials = around(120.0, 6, 0.9);
        trials[0].interfered = true;
        trials[0].total_ns *= 3;
        measure(&mut results, &write, &trials);
        let c = comparison(&results, &write, &mmap).unwrap();
        assert!(c.basis == Basis::Clean && c.pairs == 5, "{c:?}");
        assert!(ratio_cell(&results, &write, &mmap).ends_with(" clean"));
        let judged = claims::check(claim, &results);
        assert!((judged.pairs[0].measured.unwrap() - c.ratio).abs() < 1e-12);
        assert_eq!(
            ratio_cell(&results, &write, &plan.cases[2]),
            "-",
            "not measured"
        );
        // Every pair interfered with: the same estimate the claims show, marked.
        let busy: Vec<Trial> = around(120.0, 6, 0.9)
            .into_iter()
            .map(|t| Trial {
                interfered: true,
                ..t
            })
            .collect();
        measure(&mut results, &write, &busy);
        let c = comparison(&results, &write, &mmap).unwrap();
        assert_eq!((c.basis, c.pairs), (Basis::Interfered, 6));
        assert!(ratio_cell(&results, &write, &mmap).ends_with(" interfered"));
        let judged = claims::check(claim, &results);
        assert!((judged.pairs[0].measured.unwrap() - c.ratio).abs() < 1e-12);
        assert_eq!(judged.verdict, claims::ClaimVerdict::Unsettled);
    }

    #[test]
    fn user_and_sys_are_never_shown_beyond_the_clock_or_below_the_tick() {
        let plan = write2020::Write2020.plan(Scope::QUICK);
        let case = plan.cases[0].clone();
        let split = |trials: &[Trial]| {
            let mut results = crate::fixtures::results_of(&plan.cases);
            measure(&mut results, &case, trials);
            let s = summary_of(&results, &case).unwrap().clone();
            cpu_split_of(&s, s.time_ns.mean / 1e9)
        };
        let (user, sys) = split(&around(100.0, 3, 0.9)).expect("a 100 ms trial's split");
        assert!((user + sys - 0.09).abs() < 0.002, "{user} {sys}");
        // Microsecond trials: below the coarsest tick.
        assert_eq!(split(&around(0.05, 3, 0.5)), None);
        // CPU counted beyond the clock (e.g. between repeated passes).
        assert_eq!(split(&around(30.0, 3, 3.0)), None);
        // A little over (getrusage spans the clocks' edges): still shown.
        assert!(split(&around(30.0, 3, 1.03)).is_some());
    }

    #[test]
    fn judge_claims_takes_a_presets_other_claims() {
        let plan = fedorova2019::Fedorova2019.plan(Scope::QUICK);
        let results = crate::fixtures::results_of(&plan.cases);
        let judged = judge_claims(&fedorova2019::Fedorova2019, &results);
        let ids: Vec<&str> = judged.iter().map(|c| c.id.as_str()).collect();
        assert!(ids.contains(&"warm-consistent"), "{ids:?}");
        let other = judged.iter().find(|c| c.id == "warm-consistent").unwrap();
        assert_eq!(other.study, "fedorova2019");
        assert_eq!(other.kind, "dispersion");
        assert_eq!(
            other.unsettled.as_ref().unwrap().reason,
            claims::Reason::NotMeasured
        );
        // Timed claims first, then the other claims, then the profile claims.
        let at = |id: &str| ids.iter().position(|x| *x == id).unwrap();
        assert!(at("populate") < at("warm-consistent"));
        assert!(at("warm-consistent") < at("profile-pread-copy"));
    }

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
