//! Preparing a session before any trial runs: the plan checked against this
//! machine, the files it reads generated or checked, the scratch directory of
//! its write cases, the journal, and the same again from a journal on resume.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{exports_of, Session};
use crate::error::{Context, Error, Result};
use crate::files::dataset::{self, Dataset};
use crate::files::image;
use crate::files::outputs::Files;
use crate::files::scratch::{Needs, Scratch};
use crate::plan::{preflight, CacheState, Plan, WarmBy};
use crate::report::Exports;
use crate::runner::journal::{self, Journal};
use crate::runner::{self, RunSpec};

/// The file sizes a plan is built for: the user's file's, the generated
/// image's (a scale plan without a file), or `generated` (the sizes asked
/// for). The user's file is checked here, before anything else runs.
pub fn planned_file_sizes(config: &RunSpec, generated: &[u64]) -> Result<Vec<u64>> {
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

/// Every check a fresh run makes before anything is generated or created,
/// which `--dry-run` makes too, so that it refuses what the run would: the
/// outputs against the inputs and each other, the user's file, the plan
/// against this machine (io_uring, O_DIRECT alignment, the memory and file
/// descriptors it asks for) and the disk space. Returns the user's file.
pub(super) fn check_fresh(
    plan: &Plan,
    config: &RunSpec,
    journal_at: &Path,
) -> Result<Option<Dataset>> {
    let dir = &config.data_dir;
    dataset::check_private_dir(dir).context("preparing the data directory")?;
    let runs_dir = dir.join("runs");
    let mut inputs: Vec<(&str, &Path)> = config
        .file
        .iter()
        .map(|f| ("--file", f.as_path()))
        .collect();
    inputs.extend(traces(plan));
    // A journal the user named is checked as any output; the one faultline
    // names in its runs/ directory (a reproduction's) carries its own name.
    let journal_flag = if config.journal.is_some() && journal_at.parent() != Some(&runs_dir) {
        "--journal"
    } else {
        "the journal"
    };
    let timelines = plan.cases.iter().any(|c| c.duration_s.is_some());
    check_outputs(
        config,
        &inputs,
        &exports_of(config),
        Some((journal_flag, journal_at)),
        timelines,
    )?;
    // Check the file and the plan before generating anything.
    let user_file = config.file.as_deref().map(dataset::user_file).transpose()?;
    if let (Some(_), Some(d)) = (config.image, &user_file) {
        image::check_user_image(&d.path)?;
    }
    if let Some(d) = &user_file {
        check_cacheable(plan, &d.path)?;
    }
    let target = user_file
        .as_ref()
        .map_or(dir.as_path(), |d| d.path.as_path());
    preflight::check_plan(plan, target)?;
    let scratch_dir = config
        .scratch_parent
        .clone()
        .unwrap_or_else(|| dir.join(crate::files::scratch::SUBDIR));
    preflight::check_write_dir(plan, &scratch_dir)?;
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
    super::dry_run::check_disk_space(plan, config)?;
    crate::plan::resources::check(plan, &crate::plan::resources::Limits::probe())?;
    Ok(user_file)
}

/// [`Session::fresh`].
pub(super) fn fresh(plan: Plan, config: &RunSpec) -> Result<Session> {
    let dir = &config.data_dir;
    let journal_at = journal_path(config);
    let runs_dir = dir.join("runs");
    let user_file = check_fresh(&plan, config, &journal_at)?;
    dataset::ensure_private_dir(dir).context("preparing the data directory")?;
    let timelines = plan.cases.iter().any(|c| c.duration_s.is_some());
    let guard = Guard::take(dir, &written_files(config, &exports_of(config), timelines))?;
    let scratch = prepare_scratch(config.scratch_parent.as_deref(), config.keep, &plan, dir)?;
    let files = prepare_files(&plan, config, user_file)?;
    let paths: BTreeMap<u64, &Path> = files.iter().map(|(&s, d)| (s, d.path.as_path())).collect();
    preflight::check_files(&plan, &paths)?;
    let fingerprints = fingerprints(&files)?;
    let mut warnings = cache_warnings(&plan, &files);
    warnings.extend(operation_count_warnings(&plan));
    let journal_files = files
        .values()
        .map(|d| journal::JournalFile {
            path: d.path.clone(),
            size: d.size,
            seed: d.seed,
            fingerprint: fingerprints
                .iter()
                .find(|(p, _, _)| *p == d.path)
                .map(|(_, f, _)| f.clone()),
        })
        .collect();
    let spec = RunSpec {
        plan,
        files: journal_files,
        command_line: std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        ..config.clone()
    }
    .for_journal();
    if journal_at.parent() == Some(&runs_dir) {
        dataset::ensure_private_dir(&runs_dir)?;
    }
    let journal = Journal::create(&journal_at, &journal::Header::of(spec.clone()))?;
    Ok(Session {
        guard,
        spec,
        files,
        journal,
        resume: runner::Resume::default(),
        scratch,
        fingerprints,
        warnings,
        settle: None,
    })
}

/// Refuses a warm or cold cache for a file of a pseudo file system
/// (procfs, sysfs...): the kernel makes its bytes up on each read and does
/// not cache them, so there is nothing to evict or warm (eviction fails
/// with EINVAL on a compressed procfs file such as /proc/config.gz).
fn check_cacheable(plan: &Plan, path: &Path) -> Result<()> {
    let Some(state) = plan
        .cases
        .iter()
        .map(|c| c.cache)
        .find(|&c| c != CacheState::AsIs)
    else {
        return Ok(());
    };
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(());
    };
    if let Some(fs) = dataset::pseudo_filesystem(&file) {
        return Err(Error::BadFile {
            path: path.to_path_buf(),
            why: format!(
                "is a {fs} file: the kernel makes its bytes as they are read and keeps none in the page cache, so it cannot be evicted (posix_fadvise(DONTNEED) fails or does nothing) and --cache {state} cannot be reached; use --cache as-is"
            ),
        });
    }
    Ok(())
}

/// Warnings about cold trials that cannot be what they say: a file on a
/// file system that keeps every page in memory (tmpfs, ramfs) cannot be
/// evicted and has no device to read from; a sparse file's holes read as
/// zeros without the device. Each is printed and kept in the results.
fn cache_warnings(plan: &Plan, files: &BTreeMap<u64, Dataset>) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let mut warnings = Vec::new();
    for d in files.values() {
        let cold = plan
            .cases
            .iter()
            .any(|c| c.cache == CacheState::Cold && c.file_size == d.size && !c.method.writes());
        if !cold {
            continue;
        }
        let fs = crate::measure::environment::filesystem_of(&d.path);
        if let Some(fs @ ("tmpfs" | "ramfs" | "devtmpfs" | "hugetlbfs")) = fs.as_deref() {
            warnings.push(format!(
                "{} is on {fs}, which keeps every page in memory: it cannot be evicted, so cold trials run warm, and there is no device to read from (no device figures are shown)",
                d.path.display()
            ));
        } else if let Ok(meta) = std::fs::metadata(&d.path) {
            let allocated = meta.blocks().saturating_mul(512);
            if allocated < meta.len() {
                warnings.push(format!(
                    "{} is sparse ({} of its {} are on the disk): its holes read as zeros without the device, so cold trials read less from the device than the file holds",
                    d.path.display(),
                    crate::size::format_size(allocated),
                    crate::size::format_size(meta.len())
                ));
            }
        }
    }
    for w in &warnings {
        crate::console::warning(w);
    }
    warnings
}

/// A system call per block costs about this much, at the least.
const NS_PER_SYSCALL: u64 = 500;
/// A case whose trial would take longer than this, at that cost, is warned about.
const WARN_TRIAL_NS: u64 = 10_000_000_000;

/// Warns, up front, about a case whose every trial makes so many system
/// calls (`--block 1` over a large file, say) that it will take minutes:
/// its operation count, the trial count and an estimate at
/// [`NS_PER_SYSCALL`] each, before the first trial starts.
fn operation_count_warnings(plan: &Plan) -> Vec<String> {
    let mut warnings = Vec::new();
    for case in &plan.cases {
        if case.method.maps_file() || case.duration_s.is_some() || case.block_size == 0 {
            continue;
        }
        let ops = case.file_size.div_ceil(case.block_size);
        let trial_ns = ops.saturating_mul(NS_PER_SYSCALL);
        if trial_ns < WARN_TRIAL_NS {
            continue;
        }
        let trials = u64::from(plan.runs) + u64::from(plan.warmup);
        let minutes = |ns: u64| ns as f64 / 60e9;
        warnings.push(format!(
            "{} ({}) makes {ops} system calls per trial (--block {} over {}): at about {} µs each, at least {:.1} min per trial and {:.1} min for its {trials} trials; use a larger --block, or --trial-timeout to bound each trial",
            case.method_label(),
            case.group_label(),
            crate::size::format_size(case.block_size),
            crate::size::format_size(case.file_size),
            NS_PER_SYSCALL as f64 / 1000.0,
            minutes(trial_ns),
            minutes(trial_ns.saturating_mul(trials)),
        ));
    }
    for w in &warnings {
        crate::console::warning(w);
    }
    warnings
}

/// The fingerprint of every file a session reads, taken now; `true` marks
/// a user's file.
fn fingerprints(
    files: &BTreeMap<u64, Dataset>,
) -> Result<Vec<(PathBuf, crate::files::fingerprint::Fingerprint, bool)>> {
    files
        .values()
        .map(|d| {
            let f = crate::files::fingerprint::Fingerprint::of(&d.path)?;
            Ok((d.path.clone(), f, !d.generated()))
        })
        .collect()
}

/// The files `plan` reads, by size: the user's file, the generated image of
/// a scale plan, or generated data files (none for sizes only write cases use).
fn prepare_files(
    plan: &Plan,
    config: &RunSpec,
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
    // A file set's cases read the set's own files (generate_file_sets).
    let mut sizes: Vec<u64> = plan
        .cases
        .iter()
        .filter(|c| c.files.is_none())
        .map(|c| c.file_size)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    for size in sizes {
        let of_size = |c: &&crate::plan::Case| c.file_size == size && c.files.is_none();
        let reads = plan.cases.iter().filter(of_size).any(|c| !c.writes_file());
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
pub(super) fn resumed(path: &Path, flags: &RunSpec) -> Result<Session> {
    // Locked before it is read: a second --resume of it refuses here.
    let journal = Journal::open_locked(path)?;
    let replay = journal::read(path)?;
    // A journal of another command is left as it is: nothing is cut or appended.
    replay.header.check_kind(path, flags.command())?;
    dataset::ensure_private_dir(&flags.data_dir).context("preparing the data directory")?;
    for warning in &replay.warnings {
        crate::console::warning(warning);
    }
    let journalled = anchor_paths(replay.header.spec, path);
    // The journal's profiling, if this process can still sample that way.
    let profile_note = journalled.profile.map(resumed_profile).transpose()?;
    let mut spec = journalled.resumed_with(flags);
    spec.profile_note = profile_note.flatten();
    let files = resumed_files(&spec, &flags.data_dir)?;
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
    let exports = exports_of(&spec);
    let mut inputs: Vec<(&str, &Path)> = vec![("--resume", path)];
    inputs.extend(
        spec.files
            .iter()
            .filter(|f| f.seed.is_none())
            .map(|f| ("--file", f.path.as_path())),
    );
    inputs.extend(traces(&spec.plan));
    let timelines = spec.plan.cases.iter().any(|c| c.duration_s.is_some());
    check_outputs(&spec, &inputs, &exports, None, timelines)?;
    crate::plan::resources::check(&spec.plan, &crate::plan::resources::Limits::probe())?;
    eprintln!(
        "resuming {}: {} trial(s) already done",
        path.display(),
        resume.done.len()
    );
    // Files the journal names are written as if given now: each is said.
    let written = written_files(&spec, &exports, timelines);
    for (flag, file) in &written {
        eprintln!("resume writes {flag} {}", file.display());
    }
    let guard = Guard::take(&spec.data_dir, &written)?;
    let scratch = prepare_scratch(
        spec.scratch_parent.as_deref(),
        spec.keep,
        &spec.plan,
        &spec.data_dir,
    )?;
    journal.cut_torn_tail()?;
    let fingerprints = fingerprints(&files)?;
    let warnings = cache_warnings(&spec.plan, &files);
    Ok(Session {
        guard,
        spec,
        files,
        journal,
        resume,
        scratch,
        fingerprints,
        warnings,
        settle: None,
    })
}

/// The files a resumed `spec` measures, by size: a generated one is
/// regenerated if it went missing or changed size; a user's file must be
/// as the journal's run found it (its size and fingerprint).
fn resumed_files(spec: &RunSpec, data_dir: &Path) -> Result<BTreeMap<u64, Dataset>> {
    let mut files = BTreeMap::new();
    for f in &spec.files {
        let d = match f.seed {
            Some(seed) => generated(f.path.parent().unwrap_or(data_dir), f.size, seed)?,
            None => {
                let d = dataset::user_file(&f.path)?;
                if d.size != f.size {
                    return Err(Error::BadFile {
                        path: f.path.clone(),
                        why: format!(
                            "is {} bytes now, not the {} the journal measured; the file changed since the run started, so it cannot be resumed (start a new run)",
                            d.size, f.size
                        ),
                    });
                }
                if let Some(then) = &f.fingerprint {
                    let now = crate::files::fingerprint::Fingerprint::of(&f.path)?;
                    let changed = then.differences(&now, true);
                    if !changed.is_empty() {
                        return Err(Error::BadFile {
                            path: f.path.clone(),
                            why: format!(
                                "changed since the journal's run started (its {} differ), so new samples would not measure the bytes the kept ones did; restore it, or start a new run",
                                changed.join(", ")
                            ),
                        });
                    }
                }
                d
            }
        };
        files.insert(f.size, d);
    }
    Ok(files)
}

/// The journalled spec `header` with every relative path it holds (journals written before
/// paths were stored absolute, or edited by hand) taken relative to the
/// journal's own directory, where a run with relative paths kept it
/// (beside its JSON export), not to the directory the resume runs in.
fn anchor_paths(mut header: RunSpec, journal: &Path) -> RunSpec {
    let dir = crate::files::outputs::directory_of(journal).to_path_buf();
    let anchor = |p: &mut PathBuf| {
        if p.is_relative() {
            *p = dir.join(&*p);
        }
    };
    for path in [
        &mut header.export_json,
        &mut header.export_csv,
        &mut header.export_markdown,
        &mut header.scratch_parent,
    ]
    .into_iter()
    .flatten()
    {
        anchor(path);
    }
    for file in &mut header.files {
        anchor(&mut file.path);
    }
    for case in &mut header.plan.cases {
        if let Some(trace) = &mut case.trace {
            anchor(&mut trace.path);
        }
    }
    header
}

/// The profiling a resumed run continues with: the journal's, if this
/// process can still sample that way (a run whose trials were profiled with
/// kernel samples cannot go on user-only: its shares would mix), saying so
/// in one line when it is user-only; that line is returned.
fn resumed_profile(request: crate::measure::profile::ProfileRequest) -> Result<Option<String>> {
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
    Ok(decision.note)
}

/// Refuses, before anything runs or is generated, an output that would
/// clobber an input, another output or one of faultline's own files, or
/// that exists and is not a regular file ([`crate::files::outputs`]).
/// `inputs` are the files read (`--file`, the journal resumed); `exports`
/// the exports this session writes, and `journal` the journal it writes.
pub(super) fn check_outputs(
    config: &RunSpec,
    inputs: &[(&str, &Path)],
    exports: &Exports,
    journal: Option<(&str, &Path)>,
    timelines: bool,
) -> Result<()> {
    let dir = &config.data_dir;
    let own = [
        dir.clone(),
        dir.join("runs"),
        dir.join(crate::files::scratch::SUBDIR),
    ];
    let mut files = Files::new(&own);
    // No output may be the data directory, even one not made yet.
    files.input("the data directory", dir)?;
    for (flag, path) in inputs {
        files.input(flag, path)?;
    }
    for (flag, path) in &config.inputs {
        files.input(flag, path)?;
    }
    match journal {
        // The journal named by --journal is the user's choice, checked as
        // any output; the default one carries faultline's own name.
        Some((flag @ "--journal", path)) => files.output(flag, path)?,
        Some((flag, path)) => files.own_output(flag, path)?,
        None => {}
    }
    for (flag, path) in written_files(config, exports, timelines) {
        files.output(flag, &path)?;
    }
    Ok(())
}

/// The files a session writes besides its journal, each with the flag that
/// names it (exports given now or named by a resumed journal, the CSV's
/// timeline file, `--keep-output`): what `--dry-run` and a resume list, and
/// what [`check_outputs`] checks.
pub(super) fn written_files(
    config: &RunSpec,
    exports: &Exports,
    timelines: bool,
) -> Vec<(&'static str, PathBuf)> {
    let outputs = [
        ("--export-json", exports.json.clone()),
        ("--export-csv", exports.csv.clone()),
        (
            "--export-csv (its timeline file)",
            exports
                .csv
                .as_deref()
                .filter(|_| timelines)
                .map(crate::report::export::timeline_csv::path_beside),
        ),
        ("--export-markdown", exports.markdown.clone()),
        ("--keep-output", config.keep_output.clone()),
    ];
    outputs
        .into_iter()
        .filter_map(|(flag, path)| path.map(|p| (flag, p)))
        .collect()
}

/// The traces `plan` replays, as inputs no output may be.
fn traces(plan: &Plan) -> Vec<(&'static str, &Path)> {
    let mut paths: Vec<&Path> = plan
        .cases
        .iter()
        .filter_map(|c| c.trace.as_ref().map(|t| t.path.as_path()))
        .collect();
    paths.sort();
    paths.dedup();
    paths.into_iter().map(|p| ("--trace", p)).collect()
}

/// What a session holds in its data directory while it runs: the shared
/// lock that keeps `faultline clean` out, and its mark, which tells the
/// next run whether this one was killed ([`crate::files::locks`]). Taking
/// it also removes what killed runs left. (Other runs are seen through the
/// registry of active runs, [`crate::measure::active_runs`].)
pub(super) struct Guard {
    _lock: crate::files::locks::DataDirLock,
    _mark: crate::files::locks::RunMark,
    /// The data directory.
    pub(super) dir: PathBuf,
}

impl Guard {
    /// Takes the data directory `dir` for a run that writes `outputs`: its
    /// mark lists their directories, and what killed runs left (in the data
    /// directory, beside those outputs, and their memory cgroups) goes.
    fn take(dir: &Path, outputs: &[(&str, PathBuf)]) -> Result<Guard> {
        let lock = crate::files::locks::lock_data_dir_shared(dir)?;
        let mut out_dirs: Vec<PathBuf> = outputs
            .iter()
            .map(|(_, p)| crate::files::outputs::directory_of(p).to_path_buf())
            .collect();
        out_dirs.sort();
        out_dirs.dedup();
        let mark = crate::files::locks::RunMark::place_writing(dir, &out_dirs)?;
        let mut removed = crate::files::clean::remove_leftovers(dir);
        for out in &out_dirs {
            removed.extend(crate::files::clean::remove_temporaries_of_gone(out, None));
        }
        let cgroups = crate::runner::cgroup::clean_stale();
        if let Some(first) = cgroups.first() {
            eprintln!(
                "note: removed {} memory cgroup(s) left by a faultline that was killed ({}{})",
                cgroups.len(),
                first.display(),
                if cgroups.len() > 1 { ", ..." } else { "" }
            );
        }
        if let Some((first, n)) = removed.first().map(|p| (p, removed.len())) {
            eprintln!(
                "note: removed {n} file(s) left by a faultline that was killed ({}{})",
                first.display(),
                if n > 1 { ", ..." } else { "" }
            );
        }
        Ok(Guard {
            _lock: lock,
            _mark: mark,
            dir: dir.to_path_buf(),
        })
    }
}

/// The journal goes where the config says, else beside the JSON export,
/// else into `<data-dir>/runs/`.
/// (`<data-dir>/runs/` is made, private, just before the journal is.)
pub(super) fn journal_path(config: &RunSpec) -> PathBuf {
    if let Some(path) = &config.journal {
        return path.clone();
    }
    let runs = match config.export_json.as_deref().and_then(Path::parent) {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        Some(_) => PathBuf::from("."),
        None => config.data_dir.join("runs"),
    };
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let label = config
        .journal_label
        .as_deref()
        .map_or(String::new(), |l| format!("{l}-"));
    runs.join(format!(
        "faultline-run-{label}{stamp}-{}.journal",
        std::process::id()
    ))
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
    if !plan.cases.iter().any(|c| c.writes_file()) {
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

/// The file sets the plan's `--files` cases read, generated in the data
/// directory (or found there whole).
pub(super) fn generate_file_sets(
    plan: &Plan,
    data_dir: &Path,
) -> Result<BTreeMap<crate::plan::FileSet, crate::files::file_set::GeneratedSet>> {
    let mut sets = BTreeMap::new();
    for case in &plan.cases {
        let Some(set) = case.files else { continue };
        if sets.contains_key(&set) {
            continue;
        }
        let announce = |p: &Path| eprintln!("generating the file set {} ...", p.display());
        let generated =
            crate::files::file_set::ensure_generated_set(data_dir, &set, case.seed, announce)
                .context("preparing the file set")?;
        sets.insert(set, generated);
    }
    Ok(sets)
}
