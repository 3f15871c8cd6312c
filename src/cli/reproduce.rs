//! `faultline reproduce`: replays a published study's experiment through
//! the same session as `faultline run`, then sets the study's tables beside
//! the measured ones and checks each of its claims.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use faultline::error::Error;
use faultline::files::atomic::{write_atomically, SHARED_MODE};
use faultline::files::outputs::Files;
use faultline::plan::precision::{Precision, Statistics};
use faultline::results::Reproduction;
use faultline::session::{self, dry_run, RunSpec, Session};
use faultline::studies::html::render_preset_html_linking;
use faultline::studies::outcome::PresetOutcome;
use faultline::studies::settle::ASSUMED_PAIR_SD;
use faultline::studies::{self, Choices, Preset, Scope};

use super::reproduce_args::{PrecisionChoice, ReproduceArgs};

/// The least trial length of warm read trials when none is given: no main
/// loop is timed below 20 ms, where a trial's start-up noise is a large
/// share of it.
pub const MIN_TRIAL_S: f64 = 0.020;

/// Profiled trials of a preset with profile claims last at least this
/// long, so each holds enough samples for its shares (100 at 499 Hz).
pub const PROFILED_TRIAL_S: f64 = 0.200;

/// The rate a preset with profile claims is profiled at by default: its
/// measured cost stays within 5% (docs/profile.md: 1.9% at 499 Hz against
/// 6.7% at 997 Hz).
pub const PRESET_PROFILE_HZ: u32 = 499;

/// Seconds of one preset's trials, the planned runs included, after which
/// no pair is added to settle its claims.
pub const QUICK_MAX_TIME_S: f64 = 90.0;
/// Seconds the presets of one quick `reproduce all` share (see
/// [`preset_budget`]): within the 240 s the whole replay is meant to take,
/// with the files' preparation and the reports beside it.
pub const QUICK_ALL_TIME_S: f64 = 200.0;
/// Seconds kept back for each preset still to come when an earlier one's
/// budget is set from the shared total.
pub const QUICK_RESERVE_S: f64 = 20.0;
/// The same with --full.
pub const FULL_MAX_TIME_S: f64 = 600.0;
/// Most paired runs of a case while settling, at quick scope: as many as
/// the settling rule ever plans for (`studies::claims::MAX_PLANNED_PAIRS`),
/// so a claim whose spread says it needs a few hundred cheap pairs
/// (liege2018's 1-byte reads, write2020's 10% on this machine) still gets
/// them while the preset's time budget lasts: the budget, not the count,
/// bounds the quick replay.
pub const QUICK_MAX_RUNS: u32 = faultline::studies::claims::MAX_PLANNED_PAIRS as u32;

/// The statistics of one preset's session: a per-group precision target
/// only when asked for (`--precision P`), for as many runs as settling
/// allows; none for time-bounded trials, whose rounds would each take the
/// trials' whole duration.
fn preset_statistics(
    args: &ReproduceArgs,
    plan: &faultline::plan::Plan,
    budget_s: f64,
) -> Statistics {
    let target = match args.precision {
        Some(PrecisionChoice::Target(p)) => Some(p),
        Some(PrecisionChoice::Off) | None => None,
    };
    let timed = plan.cases.iter().any(|c| c.duration_s.is_some());
    Statistics {
        precision: target.filter(|_| !timed).map(|target| Precision {
            target,
            max_runs: max_runs(args, plan),
            max_time_s: Some(budget_s),
            until_decided: false,
        }),
        min_trial_ns: min_trial_s(args).map(|s| (s * 1e9) as u64),
        adjustment: super::precision_args::DEFAULT_ADJUSTMENT,
        ..Statistics::default()
    }
}

/// The settling budget of the next preset, `still` presets (this one
/// included) of `presets` being left and `spent_s` seconds spent on the
/// earlier ones: `--max-time` or the scope's default per preset; at quick
/// scope, several presets without `--max-time` share [`QUICK_ALL_TIME_S`],
/// and each gets what is left of it after [`QUICK_RESERVE_S`] is kept for
/// every preset after it (never less than that reserve, never more than its
/// own default). A preset that settles early leaves its time to the next.
pub fn preset_budget(args: &ReproduceArgs, presets: usize, still: usize, spent_s: f64) -> f64 {
    let own = max_time(args);
    if args.max_time.is_some() || args.full || presets <= 1 {
        return own;
    }
    let kept = still.saturating_sub(1) as f64 * QUICK_RESERVE_S;
    (QUICK_ALL_TIME_S - spent_s - kept)
        .max(QUICK_RESERVE_S)
        .min(own)
}

/// `--max-time` or its default for the scope.
fn max_time(args: &ReproduceArgs) -> f64 {
    args.max_time.unwrap_or(if args.full {
        FULL_MAX_TIME_S
    } else {
        QUICK_MAX_TIME_S
    })
}

/// `--max-runs` or its default for the scope (never below the plan's runs).
fn max_runs(args: &ReproduceArgs, plan: &faultline::plan::Plan) -> u32 {
    args.max_runs
        .unwrap_or(if args.full {
            plan.runs.saturating_mul(5)
        } else {
            QUICK_MAX_RUNS
        })
        .max(plan.runs)
}

/// `--min-trial-time` or its default.
fn min_trial_s(args: &ReproduceArgs) -> Option<f64> {
    args.min_trial_time.map_or(Some(MIN_TRIAL_S), |m| m.0)
}

/// The plan with the least trial length set on every case that can repeat
/// its pass, and the longer one on the cases the preset profiles.
fn with_min_trial(
    args: &ReproduceArgs,
    preset: &dyn Preset,
    mut plan: faultline::plan::Plan,
) -> faultline::plan::Plan {
    let profiled: Vec<_> = preset
        .profile_cases(&plan.cases)
        .iter()
        .map(|c| c.without_min_trial())
        .collect();
    let least = min_trial_s(args);
    for case in plan.cases.iter_mut().filter(|c| c.repeats_passes()) {
        let s = if profiled.contains(&case.without_min_trial()) {
            least.map(|s| s.max(PROFILED_TRIAL_S))
        } else {
            least
        };
        case.min_trial_ns = s.map(|s| (s * 1e9) as u64);
    }
    plan
}

/// The rule that settles `preset`'s claims over `plan`.
fn settle_rule(
    args: &ReproduceArgs,
    preset: &dyn Preset,
    plan: &faultline::plan::Plan,
    budget_s: f64,
) -> faultline::session::Settle {
    let rule = faultline::studies::settle::ClaimRule::new(
        faultline::studies::find(preset.name()).expect("a registered preset"),
        plan,
        budget_s,
        max_runs(args, plan) as usize,
    );
    faultline::session::Settle(std::sync::Arc::new(rule))
}

/// The power plan, for the dry run: each claim's band, the CI that decides
/// it at the band's middle, and the runs that takes at this machine's noise.
fn power_plan_lines(
    args: &ReproduceArgs,
    preset: &dyn Preset,
    plan: &faultline::plan::Plan,
    noise: &(f64, String),
    presets: usize,
) -> Vec<String> {
    let cap = max_runs(args, plan) as usize;
    let shared = presets > 1 && args.max_time.is_none() && !args.full;
    let budget = if shared {
        format!(
            "at most {} of trials, from {} shared by the {presets} presets",
            dry_run::format_duration(max_time(args)),
            dry_run::format_duration(QUICK_ALL_TIME_S)
        )
    } else {
        format!("{} of trials", dry_run::format_duration(max_time(args)))
    };
    let mut lines = vec![format!(
        "  power plan (noise per pair ±{:.1}%, {}; claims judged on 90% CIs; at most {cap} runs a case, {budget}):",
        noise.0 * 100.0,
        noise.1,
    )];
    for p in faultline::studies::settle::power_plan(&preset.claims(plan), noise.0, cap) {
        lines.push(format!(
            "    {}: published {}, decided by a CI of ±{:.1}%: {}",
            p.id,
            p.band,
            p.half_width * 100.0,
            match p.runs {
                Some(n) if n <= plan.runs as usize =>
                    format!("the planned {} runs suffice", plan.runs),
                Some(n) => format!("about {n} runs"),
                None => format!("more than {cap} runs: unsettled unless the noise is lower"),
            }
        ));
    }
    if !preset.profile_cases(&plan.cases).is_empty() {
        lines.push(format!(
            "    profile claims: judged on the profiled cases' trials of at least {:.0} ms each ({})",
            PROFILED_TRIAL_S * 1e3,
            if args.no_profile && !args.profile.profile {
                "not profiled: --no-profile".to_string()
            } else {
                format!("profiled at {} Hz", args.profile.profile_hz.unwrap_or(PRESET_PROFILE_HZ))
            }
        ));
    }
    lines.push(format!(
        "  no main loop of a warm read trial is timed below {}",
        match min_trial_s(args) {
            Some(s) => format!("{:.0} ms (passes are repeated)", s * 1e3),
            None => "any length (--min-trial-time off)".into(),
        }
    ));
    lines
}

/// Runs `faultline reproduce`.
pub fn execute(args: &ReproduceArgs) -> anyhow::Result<ExitCode> {
    let scope = Scope::new(args.full, args.scale_down).faithful(args.faithful);
    let choices = Choices {
        threads: args.threads,
        size: args.size,
        duration_s: args.duration,
    };
    let mut chosen = chosen_presets(&args.preset, &choices)?;
    if args.resume.is_some() && chosen.len() > 1 {
        return Err(Error::Plan(
            "--resume continues one preset's journal: name the preset, not all".into(),
        )
        .into());
    }
    let several = chosen.len() > 1;
    // Decided once for every preset: the line saying why samples are
    // user-only is printed once.
    let profile = if args.dry_run {
        None
    } else {
        args.profile.decide()?
    };
    let preset_profile = preset_profile(args, &chosen, scope, profile.is_some())?;
    let noise = machine_noise(args);
    let files = check_outputs(args, &chosen, several)?;
    let mut outcomes = Vec::new();
    let mut code = ExitCode::SUCCESS;
    let mut dry_plans = Vec::new();
    let started = std::time::Instant::now();
    let presets = chosen.len();
    for (k, preset) in chosen.iter_mut().enumerate() {
        let budget_s = preset_budget(args, presets, presets - k, started.elapsed().as_secs_f64());
        let reproduction = Reproduction {
            preset: preset.name().to_string(),
            faithful: args.faithful,
        };
        let mut config = session_config(args, preset.name(), several, &reproduction)?;
        let profiles = !preset.profile_cases(&preset.plan(scope).cases).is_empty();
        config.set_profile(
            profile
                .clone()
                .or_else(|| preset_profile.clone().filter(|_| profiles)),
        );
        let session = match &args.resume {
            Some(path) => resumed(
                args,
                preset.as_ref(),
                path,
                &reproduction,
                &mut config,
                budget_s,
            )?,
            None => {
                if let Some(line) = preset.prepare(scope, &choices)? {
                    faultline::console::info(&line);
                }
                let plan = with_min_trial(args, preset.as_ref(), preset.plan(scope));
                config.statistics = Some(preset_statistics(args, &plan, budget_s));
                let settle = settle_rule(args, preset.as_ref(), &plan, budget_s);
                if args.dry_run {
                    describe_dry_run(args, preset.as_ref(), &plan, &config, &noise, presets)?;
                    dry_plans.push(plan);
                    continue;
                }
                announce(preset.as_ref(), &reproduction);
                Session::fresh(plan, &config)?.settled_by(settle)
            }
        };
        let finished = session.run()?;
        // The study's own header and its published-vs-measured tables come
        // first; faultline's generic table and verdicts follow.
        let outcome = PresetOutcome::build(preset.as_ref(), &finished.results);
        let width = args.output.layout().width;
        if !args.output.quiet {
            args.output
                .print(&format!("{}\n", outcome.render_text_wrapped(width)));
        }
        let c = super::print_finished(&finished, &args.output);
        if let Some(dir) = &args.plots {
            write_plots(dir, &files, &outcome)?;
        }
        outcomes.push(outcome);
        if c != ExitCode::SUCCESS {
            code = c;
            // An interruption stops the reproduction; failed trials in one
            // preset do not stop the next (the exit code still says so).
            if c == ExitCode::from(faultline::session::EXIT_INTERRUPTED) {
                break;
            }
        }
    }
    if args.dry_run {
        if dry_plans.len() > 1 {
            println!(
                "{}",
                dry_run::describe_total(&dry_plans.iter().collect::<Vec<_>>())
            );
        }
        return Ok(code);
    }
    print_verdicts(args, &outcomes);
    if let Some(path) = &args.report {
        let link = args
            .plots
            .as_deref()
            .map(|dir| faultline::report::export::html::relative_link(path, dir));
        let html = render_preset_html_linking(&outcomes, link.as_deref());
        write_atomically(path, SHARED_MODE, |w| w.write_all(html.as_bytes()))?;
        eprintln!("report: {}", path.display());
    }
    Ok(code)
}

/// The profile of the presets with profile claims, unless `--profile`
/// chose one (`chosen`), `--no-profile` or `--dry-run`: by default such a
/// preset is profiled at the rate whose measured cost is within 5%,
/// without control trials.
fn preset_profile(
    args: &ReproduceArgs,
    presets: &[Box<dyn Preset>],
    scope: Scope,
    chosen: bool,
) -> anyhow::Result<Option<faultline::results::ProfileSettings>> {
    if args.dry_run || args.no_profile || chosen {
        return Ok(None);
    }
    if !presets
        .iter()
        .any(|p| !p.profile_cases(&p.plan(scope).cases).is_empty())
    {
        return Ok(None);
    }
    Ok(super::ProfileArgs {
        profile: true,
        profile_hz: Some(PRESET_PROFILE_HZ),
        profile_control: 0,
    }
    .decide()?)
}

/// The session continuing `--resume`'s journal of `preset`, over the plan
/// the journal holds.
fn resumed(
    args: &ReproduceArgs,
    preset: &dyn Preset,
    path: &Path,
    reproduction: &Reproduction,
    config: &mut RunSpec,
    budget_s: f64,
) -> anyhow::Result<Session> {
    check_resumable(path, reproduction)?;
    let plan = faultline::runner::journal::read(path)?.header.spec.plan;
    config.statistics = Some(preset_statistics(args, &plan, budget_s));
    let settle = settle_rule(args, preset, &plan, budget_s);
    announce(preset, reproduction);
    Ok(Session::resume(path, config)?.settled_by(settle))
}

/// `--dry-run`: what `preset`'s run would do and its power plan, after the
/// same refusals as the run's (before anything is said).
fn describe_dry_run(
    args: &ReproduceArgs,
    preset: &dyn Preset,
    plan: &faultline::plan::Plan,
    config: &RunSpec,
    noise: &(f64, String),
    presets: usize,
) -> anyhow::Result<()> {
    Session::check(plan, config)?;
    let text = dry_run::describe(preset.name(), plan, config);
    let width = faultline::console::width_of_terminal();
    print!("{}\n", faultline::console::wrap_lines(&text, width));
    let power = power_plan_lines(args, preset, plan, noise, presets).join("\n");
    print!("{}\n", faultline::console::wrap_lines(&power, width));
    Ok(())
}

/// `--plots DIR`: the preset's plots and flame graphs, each file checked
/// against the run's inputs and outputs (`files`) when the directory exists.
fn write_plots(dir: &Path, files: &Files, outcome: &PresetOutcome) -> anyhow::Result<()> {
    if dir.is_dir() {
        let mut these = files.clone();
        let names = outcome
            .plots
            .iter()
            .flat_map(|p| ["svg", "png"].map(|ext| format!("{}.{ext}", p.name)))
            .chain(outcome.flames.iter().map(|f| format!("{}.svg", f.name)));
        for name in names {
            these.output("--plots", &dir.join(name))?;
        }
    }
    let written = faultline::report::plot::write_plot_files(&outcome.plots, dir)?;
    let flames = faultline::report::plot::flame::write_flame_graphs(&outcome.flames, dir)?;
    eprintln!(
        "plots: {} files in {}",
        written.len() + flames.len(),
        dir.display()
    );
    Ok(())
}

/// Every preset's claims with their verdicts, one wrapped line each.
fn print_verdicts(args: &ReproduceArgs, outcomes: &[PresetOutcome]) {
    let width = args.output.layout().width;
    let mut verdicts = String::from("Verdicts:\n");
    for o in outcomes {
        for c in &o.claims {
            let line = format!("  {}: {} — {}", o.name, c.verdict_words(), c.claim);
            for l in faultline::report::terminal::wrap(&line, width) {
                verdicts.push_str(&l);
                verdicts.push('\n');
            }
        }
    }
    args.output.print(&verdicts);
}

/// This machine's noise per paired log ratio: the last `faultline
/// calibrate` in the data directory, or [`ASSUMED_PAIR_SD`], with where
/// it came from.
fn machine_noise(args: &ReproduceArgs) -> (f64, String) {
    let dir = session::data_dir(args.data_dir.clone());
    match faultline::files::noise::read(&dir) {
        Some(n) => (n.pair_sd, format!("from the last calibrate, {}", n.when)),
        None => (
            ASSUMED_PAIR_SD,
            "assumed: run faultline calibrate to measure it".into(),
        ),
    }
}

/// The presets `name` means (`all`: those `reproduce all` runs), after
/// checking that each flag of a preset's own given is one they take.
fn chosen_presets(name: &str, choices: &Choices) -> anyhow::Result<Vec<Box<dyn Preset>>> {
    let chosen = if name == "all" {
        studies::all()
    } else if let Some(p) = studies::find(name) {
        vec![p]
    } else {
        return Err(Error::Plan(format!(
            "no preset {name:?}; choose one of: {}, all",
            studies::names().join(", ")
        ))
        .into());
    };
    for option in choices.given() {
        if chosen.iter().any(|p| !p.options().contains(&option)) {
            let takers: Vec<&str> = studies::registry()
                .iter()
                .filter(|p| p.options().contains(&option))
                .map(|p| p.name())
                .collect();
            return Err(Error::Plan(format!(
                "{} applies to {} only",
                option.flag(),
                takers.join(", ")
            ))
            .into());
        }
    }
    Ok(chosen)
}

/// Refuses, before anything runs, an output of any chosen preset (its
/// exports, named per preset with `all`, and `--report`) that is the same
/// file as the journal resumed, another output or one of faultline's own
/// files. Returns the checked set, against which the plots are checked
/// before they are written.
fn check_outputs(
    args: &ReproduceArgs,
    chosen: &[Box<dyn Preset>],
    several: bool,
) -> anyhow::Result<Files> {
    let data_dir = session::data_dir(args.data_dir.clone());
    let own = [
        data_dir.clone(),
        data_dir.join("runs"),
        data_dir.join(faultline::files::scratch::SUBDIR),
    ];
    let mut files = Files::new(&own);
    if let Some(journal) = &args.resume {
        files.input("--resume", journal)?;
    }
    if let Some(dir) = &args.plots {
        faultline::files::outputs::refuse_linked_dir("--plots", dir)?;
    }
    if let Some(report) = &args.report {
        files.output("--report", report)?;
    }
    let given = &args.exports;
    for preset in chosen {
        let exports = [
            ("--export-json", &given.export_json),
            ("--export-csv", &given.export_csv),
            ("--export-markdown", &given.export_markdown),
        ];
        for (flag, path) in exports {
            let Some(path) = path else { continue };
            let path = if several {
                per_preset(path, preset.name())
            } else {
                path.clone()
            };
            files.output(flag, &path)?;
        }
        if let Some(csv) = &given.export_csv {
            let csv = if several {
                per_preset(csv, preset.name())
            } else {
                csv.clone()
            };
            let claims = faultline::report::export::claims_csv::path_beside(&csv);
            files.output("--export-csv (its claims file)", &claims)?;
            if preset.name() == "crotty2022" {
                let beside = faultline::report::export::timeline_csv::path_beside(&csv);
                files.output("--export-csv (its timeline file)", &beside)?;
            }
        }
    }
    Ok(files)
}

/// Says which study is replayed, and how.
fn announce(preset: &dyn Preset, reproduction: &Reproduction) {
    faultline::console::info(&format!(
        "reproducing {} ({}), mode: {}",
        preset.name(),
        preset.source(),
        reproduction.mode_line()
    ));
}

/// Where and how a preset's session runs: the data directory, cache
/// dropping and exports asked for here, and one journal per preset, named
/// after it (runs in the same second would otherwise share a name).
fn session_config(
    args: &ReproduceArgs,
    preset: &str,
    several: bool,
    reproduction: &Reproduction,
) -> anyhow::Result<RunSpec> {
    // Only a preset that takes --size is told to take a smaller one.
    let takes_size =
        studies::find(preset).is_some_and(|p| p.options().contains(&studies::PresetOption::Size));
    let data_dir = session::data_dir(args.data_dir.clone());
    let runs = data_dir.join("runs");
    // A dry run touches nothing, not even the data directory.
    if !args.dry_run {
        faultline::files::dataset::ensure_private_dir(&runs)?;
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let journal = runs.join(format!(
        "faultline-reproduce-{preset}-{stamp}-{}.journal",
        std::process::id()
    ));
    let export = |path: &Option<PathBuf>| {
        path.as_deref().map(|p| {
            if several {
                per_preset(p, preset)
            } else {
                p.to_path_buf()
            }
        })
    };
    let given = &args.exports;
    Ok(RunSpec {
        data_dir,
        kind: Some(faultline::runner::journal::JournalKind::Reproduce),
        seed: 1,
        size_given: takes_size.then_some(args.size.is_some()),
        drop_caches: args.drop_caches,
        journal: Some(journal),
        export_json: export(&given.export_json),
        export_csv: export(&given.export_csv),
        export_markdown: export(&given.export_markdown),
        reproduction: Some(reproduction.clone()),
        keep_journal: args.keep_journal,
        quiet: args.output.quiet,
        interference: args.interference.settings(),
        ..RunSpec::default()
    })
}

/// Refuses to continue a journal of another preset, or of the other mode
/// (a journal without a record is a default-mode one: it predates `--faithful`).
fn check_resumable(path: &Path, wanted: &Reproduction) -> anyhow::Result<()> {
    let header = faultline::runner::journal::read(path)?.header;
    header.check_kind(path, faultline::runner::journal::JournalKind::Reproduce)?;
    let recorded = header.spec.reproduction.unwrap_or(Reproduction {
        preset: wanted.preset.clone(),
        faithful: false,
    });
    if recorded.preset != wanted.preset {
        return Err(Error::Plan(format!(
            "--resume {}: that journal reproduces {}, not {}",
            path.display(),
            recorded.preset,
            wanted.preset
        ))
        .into());
    }
    if recorded.faithful != wanted.faithful {
        let (was, give) = if recorded.faithful {
            ("a --faithful", "add --faithful")
        } else {
            ("a default-mode (not --faithful)", "leave out --faithful")
        };
        return Err(Error::Plan(format!(
            "--resume {}: that journal is {was} reproduction of {}; {give} to continue it (modes cannot be mixed)",
            path.display(),
            recorded.preset
        ))
        .into());
    }
    Ok(())
}

/// `dir/stem-preset.ext` for `dir/stem.ext`.
fn per_preset(path: &Path, preset: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or("results".into(), |s| s.to_string_lossy());
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{preset}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{preset}"),
    };
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Line {
        #[command(flatten)]
        args: ReproduceArgs,
    }

    fn args(flags: &[&str]) -> ReproduceArgs {
        let mut line = vec!["reproduce", "all"];
        line.extend_from_slice(flags);
        Line::try_parse_from(line).expect("flags parse").args
    }

    #[test]
    fn the_presets_of_a_quick_replay_share_one_budget() {
        let quick = args(&[]);
        // One preset: its own default.
        assert_eq!(preset_budget(&quick, 1, 1, 0.0), QUICK_MAX_TIME_S);
        // The first of five: the shared total less 4 reserves kept for the
        // rest (200 − 4 × 20 = 120), never more than its own 90 s.
        assert_eq!(
            preset_budget(&quick, 5, 5, 0.0),
            (QUICK_ALL_TIME_S - 4.0 * QUICK_RESERVE_S).min(QUICK_MAX_TIME_S)
        );
        // The third after the first two spent 100 s: 200 − 100 − 2 × 20.
        assert_eq!(
            preset_budget(&quick, 5, 3, 100.0),
            QUICK_ALL_TIME_S - 100.0 - 2.0 * QUICK_RESERVE_S
        );
        assert_eq!(QUICK_ALL_TIME_S - 100.0 - 2.0 * QUICK_RESERVE_S, 60.0);
        // The last, with 150 s spent: what is left.
        assert_eq!(preset_budget(&quick, 5, 1, 150.0), 50.0);
        // Over the total already: the reserve, never nothing.
        assert_eq!(preset_budget(&quick, 5, 2, 500.0), QUICK_RESERVE_S);
        // The user's --max-time, and --full, are each preset's own.
        assert_eq!(
            preset_budget(&args(&["--max-time", "30s"]), 5, 5, 170.0),
            30.0
        );
        assert_eq!(
            preset_budget(&args(&["--full"]), 5, 1, 170.0),
            FULL_MAX_TIME_S
        );
    }
}
