//! Preparing a session before any trial runs: the plan checked against this
//! machine, the files it reads generated or checked, the scratch directory of
//! its write cases, the journal, and the same again from a journal on resume.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Session, SessionConfig};
use crate::error::{Context, Error, Result};
use crate::files::dataset::{self, Dataset};
use crate::files::image;
use crate::files::scratch::{Needs, Scratch};
use crate::plan::{preflight, CacheState, Plan, WarmBy};
use crate::report::Exports;
use crate::runner::journal::{self, Journal};
use crate::runner::{self};

/// The file sizes a plan is built for: the user's file's, the generated
/// image's (a scale plan without a file), or `generated` (the sizes asked
/// for). The user's file is checked here, before anything else runs.
pub fn planned_file_sizes(config: &SessionConfig, generated: &[u64]) -> Result<Vec<u64>> {
    if let Some(file) = &config.file {
        let d = dataset::user_file(file)?;
        if config.image.is_some() {
            image::check_user_image(&d.path)?;
        }
        return Ok(vec![d.size]);
    }
    if let Some((w, h)) = config.image {
        return Ok(vec![image::image_len(w, h)]);
    }
    Ok(generated.to_vec())
}

/// [`Session::fresh`].
pub(super) fn fresh(plan: Plan, config: &SessionConfig) -> Result<Session> {
    check_output_dirs(config)?;
    let dir = &config.data_dir;
    // Check the file and the plan before generating anything.
    let user_file = config.file.as_deref().map(dataset::user_file).transpose()?;
    if let (Some(_), Some(d)) = (config.image, &user_file) {
        image::check_user_image(&d.path)?;
    }
    let target = user_file
        .as_ref()
        .map_or(dir.as_path(), |d| d.path.as_path());
    preflight::check_plan(&plan, target)?;
    let scratch_dir = config
        .scratch_parent
        .clone()
        .unwrap_or_else(|| dir.join(crate::files::scratch::SUBDIR));
    preflight::check_write_dir(&plan, &scratch_dir)?;
    let rewrites = plan
        .cases
        .iter()
        .any(|c| c.cache == CacheState::Warm && c.warm_by == WarmBy::Written);
    if let (true, Some(d)) = (rewrites, &user_file) {
        return Err(Error::Plan(format!(
            "--warm-by written rewrites the file, and {} is not a file faultline created; use --warm-by seq or random",
            d.path.display()
        )));
    }
    super::dry_run::check_disk_space(&plan, config)?;
    let scratch = prepare_scratch(config.scratch_parent.as_deref(), config.keep, &plan, dir)?;
    let files = prepare_files(&plan, config, user_file)?;
    let paths: BTreeMap<u64, &Path> = files.iter().map(|(&s, d)| (s, d.path.as_path())).collect();
    preflight::check_files(&plan, &paths)?;
    let command_line: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let exports = config.exports.clone();
    let header = journal::Header {
        faultline_journal: journal::FORMAT,
        plan: plan.clone(),
        files: files
            .values()
            .map(|d| journal::JournalFile {
                path: d.path.clone(),
                size: d.size,
                seed: d.seed,
            })
            .collect(),
        drop_caches: config.drop_caches,
        command_line: command_line.clone(),
        export_json: exports.json.clone(),
        export_csv: exports.csv.clone(),
        export_markdown: exports.markdown.clone(),
        scratch_parent: config.scratch_parent.clone(),
        keep: config.keep,
        reproduction: config.reproduction.clone(),
        profile: config.profile.as_ref().map(|p| p.request),
    };
    let journal = Journal::create(&journal_path(config)?, &header)?;
    Ok(Session {
        plan,
        files,
        drop_caches: config.drop_caches,
        command_line,
        journal,
        resume: runner::Resume::default(),
        exports,
        scratch,
        reproduction: config.reproduction.clone(),
        trial_timeout: config.trial_timeout,
        keep_output: config.keep_output.clone(),
        profile: config.profile.clone(),
    })
}

/// The files `plan` reads, by size: the user's file, the generated image of
/// a scale plan, or generated data files (none for sizes only write cases use).
fn prepare_files(
    plan: &Plan,
    config: &SessionConfig,
    user_file: Option<Dataset>,
) -> Result<BTreeMap<u64, Dataset>> {
    let dir = &config.data_dir;
    let announce = |p: &Path| eprintln!("generating {} ...", p.display());
    let mut files = BTreeMap::new();
    if let Some(d) = user_file {
        files.insert(d.size, d);
        return Ok(files);
    }
    if let Some((w, h)) = config.image {
        let image = image::ensure_image(dir, w, h, config.seed, announce)
            .context("preparing the test image")?;
        files.insert(image.size, image);
        return Ok(files);
    }
    let mut sizes: Vec<u64> = plan.cases.iter().map(|c| c.file_size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for size in sizes {
        let of_size = |c: &&crate::plan::Case| c.file_size == size;
        let reads = plan
            .cases
            .iter()
            .filter(of_size)
            .any(|c| !c.method.writes());
        let scales = plan.cases.iter().filter(of_size).any(|c| c.scale.is_some());
        if scales {
            // A preset's scale cases read a generated PPM image of this length.
            let (w, h) = image::image_dims(size).ok_or_else(|| {
                Error::Plan(format!("no generated PPM image is {size} bytes long"))
            })?;
            let image = image::ensure_image(dir, w, h, config.seed, announce)
                .context("preparing the test image")?;
            files.insert(size, image);
        } else if reads {
            files.insert(size, generated(dir, size, config.seed)?);
        } // else only write methods use this size: nothing to read
    }
    Ok(files)
}

/// [`Session::resume`].
pub(super) fn resumed(path: &Path, config: &SessionConfig) -> Result<Session> {
    check_output_dirs(config)?;
    let replay = journal::read(path)?;
    for warning in &replay.warnings {
        eprintln!("warning: {warning}");
    }
    let header = replay.header;
    let profile = header.profile.map(resumed_profile).transpose()?;
    let mut files = BTreeMap::new();
    for f in &header.files {
        let d = match f.seed {
            // Regenerated if it went missing or changed size.
            Some(seed) => generated(f.path.parent().unwrap_or(&config.data_dir), f.size, seed)?,
            None => {
                let d = dataset::user_file(&f.path)?;
                if d.size != f.size {
                    return Err(Error::BadFile {
                        path: f.path.clone(),
                        why: format!(
                            "is {} bytes now, not the {} the journal measured",
                            d.size, f.size
                        ),
                    });
                }
                d
            }
        };
        files.insert(f.size, d);
    }
    let mut resume = runner::Resume::default();
    resume.raw.warnings = replay.warnings;
    for entry in replay.entries {
        resume.done.insert(entry.slot());
        match entry {
            journal::Entry::Sample(s) => resume.raw.samples.push(*s),
            journal::Entry::Failure(f) => resume.raw.failures.push(f),
            journal::Entry::Warmup { .. } => {}
        }
    }
    let given = &config.exports;
    let exports = Exports {
        json: given.json.clone().or(header.export_json),
        csv: given.csv.clone().or(header.export_csv),
        markdown: given.markdown.clone().or(header.export_markdown),
    };
    eprintln!(
        "resuming {}: {} trial(s) already done",
        path.display(),
        resume.done.len()
    );
    let scratch = prepare_scratch(
        header.scratch_parent.as_deref(),
        header.keep,
        &header.plan,
        &config.data_dir,
    )?;
    Ok(Session {
        scratch,
        plan: header.plan,
        files,
        drop_caches: header.drop_caches,
        command_line: header.command_line,
        journal: Journal::append_to(path)?,
        resume,
        exports,
        reproduction: header.reproduction.or_else(|| config.reproduction.clone()),
        trial_timeout: config.trial_timeout,
        keep_output: config.keep_output.clone(),
        profile,
    })
}

/// The profiling a resumed run continues with: the journal's, if this
/// process can still sample that way (a run whose trials were profiled with
/// kernel samples cannot go on user-only: its shares would mix), saying so
/// in one line when it is user-only.
fn resumed_profile(
    request: crate::measure::profile::ProfileRequest,
) -> Result<crate::results::ProfileSettings> {
    let decision = crate::measure::profile::probe(request.frequency_hz)?;
    if decision.mode != request.mode {
        return Err(Error::Plan(format!(
            "--resume: the journal's trials were profiled {}, and this process can take only {} samples ({}); \
             resume it as the user who started it",
            request.mode,
            decision.mode,
            decision
                .note
                .as_deref()
                .unwrap_or("it runs as root or with kernel.perf_event_paranoid at most 1")
        )));
    }
    if let Some(note) = &decision.note {
        eprintln!("{note}");
    }
    Ok(crate::results::ProfileSettings {
        request,
        note: decision.note,
    })
}

/// Refuses, before anything runs, an export or journal whose directory is missing.
fn check_output_dirs(config: &SessionConfig) -> Result<()> {
    let outputs = [
        ("--export-json", &config.exports.json),
        ("--export-csv", &config.exports.csv),
        ("--export-markdown", &config.exports.markdown),
        ("--journal", &config.journal),
    ];
    for (flag, path) in outputs {
        let Some(path) = path else { continue };
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            return Err(Error::Plan(format!(
                "{flag} {}: the directory {} does not exist",
                path.display(),
                parent.display()
            )));
        }
    }
    Ok(())
}

/// The journal goes where the config says, else beside the JSON export,
/// else into `<data-dir>/runs/`.
fn journal_path(config: &SessionConfig) -> Result<PathBuf> {
    if let Some(path) = &config.journal {
        return Ok(path.clone());
    }
    let runs = match config.exports.json.as_deref().and_then(Path::parent) {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        Some(_) => PathBuf::from("."),
        None => {
            let runs = config.data_dir.join("runs");
            dataset::ensure_private_dir(&runs)?;
            runs
        }
    };
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Ok(runs.join(format!(
        "faultline-run-{stamp}-{}.journal",
        std::process::id()
    )))
}

/// The generated data file of `size` bytes from `seed` in `dir`, made if missing.
fn generated(dir: &Path, size: u64, seed: u64) -> Result<Dataset> {
    dataset::ensure_generated(dir, size, seed, |p| {
        eprintln!(
            "generating {} ({}) ...",
            p.display(),
            crate::size::format_size(size)
        )
    })
    .context("preparing the test file")
}

/// The scratch directory for the plan's write cases, checked (and `--dir`
/// validated) before anything runs; `None` when no case writes.
fn prepare_scratch(
    dir: Option<&Path>,
    keep: bool,
    plan: &Plan,
    data_dir: &Path,
) -> Result<Option<Arc<Scratch>>> {
    if !plan.cases.iter().any(|c| c.method.writes()) {
        return Ok(None);
    }
    let needs = Needs::of(&plan.cases);
    let scratch = Scratch::create(dir, data_dir, keep, needs)?;
    Ok(Some(Arc::new(scratch)))
}

/// Removes the scratch files (a failure is a warning), or says where `--keep` kept them.
pub(super) fn finish_scratch(scratch: Option<&Scratch>) {
    let Some(scratch) = scratch else { return };
    if scratch.keep() {
        eprintln!(
            "kept the written files in {} (--keep)",
            scratch.dir().display()
        );
    } else if let Err(e) = scratch.cleanup() {
        eprintln!("warning: could not remove the scratch files: {e}");
    }
}
