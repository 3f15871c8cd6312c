//! The run journal: one JSON line per finished trial, flushed and fsync'd
//! before the next trial starts, so a crash or Ctrl-C loses nothing and
//! `--resume` can run only the trials that are missing.
//!
//! The first line is a [`Header`] (the plan and the files); each further
//! line is an [`Entry`]. A torn or corrupted line is skipped with a warning.
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::results::{Sample, TrialFailure};
pub use crate::runner::journal_kind::{JournalFile, JournalKind};
use crate::runner::rounds::AddedRuns;
use crate::runner::spec::RunSpec;
use crate::runner::Slot;

/// Format version written in every header.
pub const FORMAT: u32 = 1;

/// What a journal starts with: its format, then the run's specification
/// ([`RunSpec`]), whose fields are the header's keys. It dereferences to
/// the spec.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Header {
    /// Journal format version.
    pub faultline_journal: u32,
    /// The run: its plan and every run-wide choice.
    #[serde(flatten)]
    pub spec: RunSpec,
}

impl std::ops::Deref for Header {
    type Target = RunSpec;

    fn deref(&self) -> &RunSpec {
        &self.spec
    }
}

impl std::ops::DerefMut for Header {
    fn deref_mut(&mut self) -> &mut RunSpec {
        &mut self.spec
    }
}

impl Header {
    /// The header of a journal of `spec`.
    pub fn of(spec: RunSpec) -> Header {
        Header {
            faultline_journal: FORMAT,
            spec,
        }
    }
}

impl RunSpec {
    /// The command that wrote the journal at `path`: as recorded, else told
    /// from what older journals hold (a reproduction's record or name, a
    /// calibration's A/A replicas).
    pub fn kind(&self, path: &Path) -> JournalKind {
        if let Some(kind) = self.kind {
            return kind;
        }
        let named = |prefix: &str| {
            path.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        };
        if self.reproduction.is_some() || named("faultline-reproduce-") {
            JournalKind::Reproduce
        } else if self.plan.cases.iter().any(|c| c.replica.is_some()) {
            JournalKind::Calibrate
        } else {
            JournalKind::Run
        }
    }

    /// Refuses to continue the journal at `path` with `command` when another
    /// command wrote it.
    pub fn check_kind(&self, path: &Path, command: JournalKind) -> Result<()> {
        let kind = self.kind(path);
        if kind == command {
            return Ok(());
        }
        let how = match kind {
            JournalKind::Run => "continue it with faultline run --resume".to_string(),
            JournalKind::Reproduce => format!(
                "continue it with faultline reproduce {} --resume",
                self.reproduction
                    .as_ref()
                    .map_or("PRESET", |r| r.preset.as_str())
            ),
            JournalKind::Calibrate => {
                "a calibration is not continued: run faultline calibrate again".into()
            }
        };
        Err(Error::BadFile {
            path: path.to_path_buf(),
            why: format!(
                "is a journal of `{}`, not of `{}`; {how} (the journal is left as it is)",
                kind.command(),
                command.command()
            ),
        })
    }
}

/// One finished trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Entry {
    /// A measured trial (warm-up trials are journalled with their outcome only).
    Sample(Box<Sample>),
    /// A warm-up trial that succeeded.
    Warmup {
        /// Case index.
        case: usize,
        /// Warm-up run number.
        run: u32,
    },
    /// A trial that failed.
    Failure(TrialFailure),
}

impl Entry {
    /// The slot the entry fills: its case, run, and whether it was a
    /// warm-up or an unprofiled control trial (`--profile-control`), which
    /// has a slot of its own beside its run's profiled trial.
    pub fn slot(&self) -> Slot {
        match self {
            Entry::Sample(s) => Slot {
                control: s.profile_control,
                ..Slot::trial(s.case, s.run, false)
            },
            Entry::Warmup { case, run } => Slot::trial(*case, *run, true),
            Entry::Failure(f) => Slot {
                control: f.profile_control,
                ..Slot::trial(f.case, f.run, f.warmup)
            },
        }
    }

    /// Which attempt at its slot the entry is: 0, or k for the k-th re-run
    /// of an interfered trial (`--retry-interfered`).
    pub fn attempt(&self) -> u32 {
        match self {
            Entry::Sample(s) => s.attempt,
            Entry::Warmup { .. } => 0,
            Entry::Failure(f) => f.attempt,
        }
    }
}

/// An open journal, appended to trial by trial.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

impl Journal {
    /// Creates a new journal at `path` (which must not exist) and writes its header.
    pub fn create(path: &Path, header: &Header) -> Result<Journal> {
        let file = crate::files::dataset::create_new(path)?;
        crate::files::locks::lock_exclusive(&file, path)?;
        let mut journal = Journal {
            path: path.to_path_buf(),
            file,
        };
        journal.append_line(header)?;
        Ok(journal)
    }

    /// Opens an existing journal to append to it (for `--resume`) and locks
    /// it, so that no other faultline appends to it at the same time (a
    /// second `--resume` of it refuses); read it ([`read`]) only once it is
    /// locked, then cut its torn line ([`Journal::cut_torn_tail`]).
    pub fn open_locked(path: &Path) -> Result<Journal> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .custom_flags_nofollow()
            .open(path)
            .map_err(|e| open_error(path, e))?;
        match file.metadata() {
            Ok(meta) if meta.is_file() => {}
            other => {
                let kind =
                    other.map_or("not a regular file", |m| crate::input::kind(&m.file_type()));
                return Err(Error::BadFile {
                    path: path.to_path_buf(),
                    why: format!("is {kind}, not a regular file, so not a faultline journal"),
                });
            }
        }
        crate::files::locks::lock_exclusive(&file, path)?;
        Ok(Journal {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Cuts a torn last line (no newline), so the next entry starts on a
    /// line of its own.
    /// Only the journal's end is read: a torn line is at most one line
    /// ([`crate::input::MAX_JOURNAL_LINE`], which [`read`] holds every
    /// line to), so its last newline is within that many bytes of the end.
    pub fn cut_torn_tail(&self) -> Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        let io = |op| move |e| Error::io(op, &self.path, e);
        let len = self.file.metadata().map_err(io("stat journal"))?.len();
        let tail = len.min(crate::input::MAX_JOURNAL_LINE as u64 + 1);
        let mut file = &self.file;
        file.seek(SeekFrom::Start(len - tail))
            .map_err(io("read journal"))?;
        let mut bytes = Vec::new();
        file.take(tail)
            .read_to_end(&mut bytes)
            .map_err(io("read journal"))?;
        let keep = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(i) => len - tail + i as u64 + 1,
            None if tail == len => 0,
            None => return Ok(()),
        };
        if keep < len {
            self.file
                .set_len(keep)
                .map_err(io("cut the torn line of"))?;
        }
        Ok(())
    }

    /// Where the journal is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the journal of a run that finished: it holds nothing the
    /// exports do not.
    pub fn remove(self) -> Result<()> {
        let Journal { path, file } = self;
        drop(file);
        std::fs::remove_file(&path).map_err(|e| Error::io("remove journal", &path, e))
    }

    /// Appends one entry, flushed and fsync'd before returning.
    pub fn append(&mut self, entry: &Entry) -> Result<()> {
        self.append_line(entry)
    }

    fn append_line(&mut self, value: &impl Serialize) -> Result<()> {
        let mut line =
            serde_json::to_vec(value).map_err(|e| Error::Trial(format!("journal entry: {e}")))?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| Error::io("append to journal", &self.path, e))
    }
}

trait NoFollow {
    fn custom_flags_nofollow(&mut self) -> &mut Self;
}

impl NoFollow for OpenOptions {
    fn custom_flags_nofollow(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.custom_flags(libc::O_NOFOLLOW)
    }
}

/// A journal read back: its header, its entries, and warnings about lines
/// that could not be read.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The header.
    pub header: Header,
    /// Every readable entry, in order.
    pub entries: Vec<Entry>,
    /// One warning per skipped line.
    pub warnings: Vec<String>,
    /// Whether the last line was torn (no newline, or not valid JSON).
    pub torn_tail: bool,
}

/// Reads a journal. A header that cannot be read is an error; a torn last
/// line or a corrupted line is skipped with a warning.
/// The file is opened as every input is ([`crate::input::open`]: a regular
/// file only), and read up to [`crate::input::MAX_JOURNAL_BYTES`], each
/// line up to [`crate::input::MAX_JOURNAL_LINE`].
pub fn read(path: &Path) -> Result<Replay> {
    let what = "journal";
    let file = crate::input::open(path, what)?;
    let reader = crate::input::limited(file, path, what, crate::input::MAX_JOURNAL_BYTES)?;
    read_from(BufReader::new(reader), path)
}

/// [`read`] over any reader; `path` names the journal in messages.
pub fn read_from(mut reader: impl BufRead, path: &Path) -> Result<Replay> {
    let bad = |why: String| Error::BadFile {
        path: path.to_path_buf(),
        why,
    };
    let mut lines = Vec::new();
    loop {
        let mut line = Vec::new();
        let n = crate::input::read_line(&mut reader, &mut line, crate::input::MAX_JOURNAL_LINE)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::InvalidData => Error::BadFile {
                    path: path.to_path_buf(),
                    why: format!("line {}: {e}", lines.len() + 1),
                },
                _ => Error::io("read journal", path, e),
            })?;
        if n == 0 {
            break;
        }
        lines.push(line);
    }
    let Some(first) = lines.first() else {
        return Err(bad("is an empty journal".into()));
    };
    let header: Header = serde_json::from_slice(first)
        .map_err(|e| bad(format!("is not a faultline journal (first line: {e})")))?;
    if header.faultline_journal != FORMAT {
        return Err(bad(format!(
            "is a journal of format {}, this faultline reads format {FORMAT}",
            header.faultline_journal
        )));
    }
    check_header(&header)
        .map_err(|why| bad(format!("line 1: {why}; the journal was edited or damaged")))?;
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    let mut torn_tail = false;
    let mut seen = std::collections::HashMap::new();
    let mut added = AddedRuns::new(
        &header.plan,
        header
            .statistics
            .and_then(|s| s.precision)
            .map(|p| p.max_runs),
        header.kind(path) != JournalKind::Run,
    );
    let count = lines.len();
    for (i, line) in lines.iter().enumerate().skip(1) {
        let last = i + 1 == count;
        let complete = line.ends_with(b"\n");
        match serde_json::from_slice::<Entry>(line) {
            Ok(entry) if complete => {
                check_entry(
                    &header,
                    &entry,
                    i + 1,
                    &mut seen,
                    &mut added,
                    warnings.len(),
                )
                .map_err(|why| {
                    bad(format!(
                        "line {}: {why}; the journal was edited or damaged, so it cannot be resumed",
                        i + 1
                    ))
                })?;
                entries.push(entry);
            }
            _ if last => {
                torn_tail = true;
                warnings.push(format!(
                    "{}: skipped a torn last line (line {})",
                    path.display(),
                    i + 1
                ));
            }
            _ => warnings.push(format!(
                "{}: skipped corrupted line {}",
                path.display(),
                i + 1
            )),
        }
    }
    Ok(Replay {
        header,
        entries,
        warnings,
        torn_tail,
    })
}

/// A journal that cannot be opened: missing, unreadable or a symbolic link
/// is bad input (exit 2), as a missing `--file` is; anything else is an
/// I/O failure.
fn open_error(path: &Path, e: std::io::Error) -> Error {
    let why = match (e.kind(), e.raw_os_error()) {
        (std::io::ErrorKind::NotFound, _) => "no such journal",
        (std::io::ErrorKind::PermissionDenied, _) => "permission denied",
        (_, Some(libc::ELOOP)) => "is a symbolic link; give the journal itself",
        _ => return Error::io("open journal", path, e),
    };
    Error::BadFile {
        path: path.to_path_buf(),
        why: why.to_string(),
    }
}

/// Checks what a header promises: a plan within faultline's bounds, with
/// a file for the size of every case that reads one, and a precision
/// target with a budget `--precision` could have given.
fn check_header(header: &Header) -> std::result::Result<(), String> {
    header.plan.check_bounds()?;
    if let Some(p) = header.statistics.and_then(|s| s.precision) {
        if !(p.target.is_finite() && p.target > 0.0 && p.target < 1.0) {
            return Err(format!("precision target {} is not in (0, 1)", p.target));
        }
        if p.max_runs < header.plan.runs || p.max_runs > crate::plan::MAX_RUNS {
            return Err(format!(
                "max_runs {} is not in {}..={}",
                p.max_runs,
                header.plan.runs,
                crate::plan::MAX_RUNS
            ));
        }
        if p.max_time_s.is_some_and(|t| !(t.is_finite() && t > 0.0)) {
            return Err("max_time_s is not a time above 0".into());
        }
    }
    if let Some(f) = header.files.iter().find(|f| f.size == 0) {
        return Err(format!(
            "the file {} is listed with 0 bytes",
            f.path.display()
        ));
    }
    for (i, case) in header.plan.cases.iter().enumerate() {
        if case.file_size == 0 || case.block_size == 0 {
            return Err(format!(
                "case {i} has a {} of 0 bytes",
                if case.file_size == 0 { "file" } else { "block" }
            ));
        }
        let has_file = header.files.iter().any(|f| f.size == case.file_size);
        if !case.method.writes() && !has_file {
            return Err(format!(
                "case {i} reads a file of {} bytes, and the journal lists none of that size",
                case.file_size
            ));
        }
    }
    Ok(())
}

/// The slot and attempt of an entry: each is journalled once.
type EntryKey = (Slot, u32);

/// Checks one entry against the header: its case is in the plan, a
/// warm-up below the plan's warm-ups, a measured run one the scheduler
/// could have written after the entries before it ([`AddedRuns`]: the
/// planned runs, the rounds `--precision` adds up to `--max-runs` and past
/// it for runs that did not count, a study's settling rounds; `skipped`
/// lines widen that), and its (case, run, warm-up, attempt) not already
/// recorded on the line `seen` holds for it (a re-run of an interfered
/// trial is a later attempt at the same run).
fn check_entry(
    header: &Header,
    entry: &Entry,
    line: usize,
    seen: &mut std::collections::HashMap<EntryKey, usize>,
    added: &mut AddedRuns,
    skipped: usize,
) -> std::result::Result<(), String> {
    let plan = &header.plan;
    let slot = entry.slot();
    let Slot {
        case, run, warmup, ..
    } = slot;
    let attempt = entry.attempt();
    if case >= plan.cases.len() {
        return Err(format!(
            "case {case} is not in the journal's plan (it has {} case(s))",
            plan.cases.len()
        ));
    }
    let what = if warmup { "warm-up" } else { "measured" };
    if warmup && run >= plan.warmup {
        return Err(format!(
            "run {run} of case {case} is past the plan's {} warm-up run(s)",
            plan.warmup
        ));
    }
    if !warmup {
        added.check(case, run, skipped)?;
    }
    if warmup && attempt > 0 {
        return Err(format!(
            "warm-up run {run} of case {case} has attempt {attempt}; only measured trials are re-run"
        ));
    }
    if let Entry::Sample(s) = entry {
        if s.child.bytes == 0 {
            return Err(format!(
                "the sample of case {case}, run {run} delivered 0 bytes"
            ));
        }
    }
    if let Some(first) = seen.insert((slot, attempt), line) {
        let mut which = String::new();
        if slot.control {
            which.push_str(" (its control trial)");
        }
        if attempt > 0 {
            which.push_str(&format!(" (attempt {attempt})"));
        }
        return Err(format!(
            "case {case}, {what} run {run}{which} is already recorded on line {first} (two runs appended to this journal at once?)"
        ));
    }
    if slot.control {
        added.number(run);
    } else if !warmup {
        let interfered = match entry {
            Entry::Sample(s) => Some(s.interfered()),
            _ => None,
        };
        added.record(case, run, attempt, interfered);
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::plan::{Metric, OrderPolicy, Plan};
    use crate::results::ChildReport;

    /// [`header`] with `--precision 5% --max-runs 4`.
    fn precise_header() -> Header {
        let mut h = header();
        h.statistics = Some(crate::plan::precision::Statistics {
            precision: Some(crate::plan::precision::Precision {
                target: 0.05,
                max_runs: 4,
                max_time_s: None,
                until_decided: false,
            }),
            ..Default::default()
        });
        h
    }

    pub(crate) fn header() -> Header {
        let case = {
            let mut case = crate::fixtures::case(MethodKind::Read);
            case.block_size = 4096;
            case.file_size = 8192;
            case
        };
        Header::of(RunSpec {
            kind: Some(JournalKind::Run),
            plan: Plan {
                cases: vec![case],
                runs: 2,
                warmup: 0,
                order: OrderPolicy::Alternating,
                metric: Metric::Total,
                seed: 1,
            },
            files: vec![JournalFile {
                path: "/x".into(),
                size: 8192,
                seed: Some(1),
                fingerprint: None,
            }],
            command_line: vec!["faultline".into(), "run".into()],
            ..RunSpec::default()
        })
    }

    /// The header's keys are the journal format: a header written before
    /// the later, optional keys existed still reads (and says what it
    /// lacks), and a header with every key reads and writes back the same
    /// keys and values, so journals written by earlier versions resume.
    #[test]
    fn the_header_format_is_kept_for_old_and_new_journals() {
        let line = |value: &serde_json::Value| {
            let mut bytes = serde_json::to_vec(value).unwrap();
            bytes.push(b'\n');
            read_from(std::io::Cursor::new(bytes), Path::new("j"))
        };
        let mut old = serde_json::to_value(header()).unwrap();
        let keys = old.as_object_mut().unwrap();
        for later in [
            "kind",
            "reproduction",
            "interference",
            "profile",
            "statistics",
            "profile_control",
        ] {
            keys.remove(later);
        }
        let read = line(&old).unwrap().header;
        assert_eq!(read.kind(Path::new("j")), JournalKind::Run);
        let written = serde_json::to_value(&read).unwrap();
        assert_eq!(written, old, "an old header writes back as it was");
        let mut full = old;
        let keys = full.as_object_mut().unwrap();
        let more = serde_json::json!({
            "kind": "reproduce",
            "export_json": "/out/r.json",
            "export_csv": "/out/r.csv",
            "export_markdown": "/out/r.md",
            "scratch_parent": "/scratch",
            "keep": true,
            "reproduction": {"preset": "sun2002", "faithful": true},
            "interference": {"threshold": 0.2, "retries": 2, "exclude": true},
            "profile": {"frequency_hz": 999, "mode": "user-only"},
            "statistics": {"precision": {"target": 0.05, "max_runs": 9}, "adjustment": "holm"},
            "profile_control": 1,
        });
        for (key, value) in more.as_object().unwrap() {
            keys.insert(key.clone(), value.clone());
        }
        let read = line(&full).unwrap().header;
        assert_eq!(read.kind(Path::new("j")), JournalKind::Reproduce);
        let mut names: Vec<String> = full.as_object().unwrap().keys().cloned().collect();
        names.sort();
        assert_eq!(
            names,
            [
                "command_line",
                "drop_caches",
                "export_csv",
                "export_json",
                "export_markdown",
                "faultline_journal",
                "files",
                "interference",
                "keep",
                "kind",
                "plan",
                "profile",
                "profile_control",
                "reproduction",
                "scratch_parent",
                "statistics"
            ]
        );
        assert_eq!(serde_json::to_value(&read).unwrap(), full);
    }

    fn sample(run: u32) -> Sample {
        let child = ChildReport {
            wall_ns: 10,
            bytes: 8192,
            checksum: 99,
            ..Default::default()
        };
        Sample {
            sequence: run as u64,
            residency_source: "cachestat".into(),
            cache_prepared_by: "evict+seq-read".into(),
            ..Sample::new(0, run, child)
        }
    }

    #[test]
    fn round_trips_and_every_append_is_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let mut journal = Journal::create(&path, &header()).unwrap();
        journal.append(&Entry::Sample(Box::new(sample(0)))).unwrap();
        let failure = TrialFailure {
            case: 0,
            run: 1,
            warmup: false,
            reason: "killed by SIGBUS".into(),
            attempt: 0,
            profile_control: false,
        };
        journal.append(&Entry::Failure(failure.clone())).unwrap();
        let replay = read(&path).unwrap();
        assert_eq!(
            replay.entries,
            vec![Entry::Sample(Box::new(sample(0))), Entry::Failure(failure)]
        );
        assert!(replay.warnings.is_empty() && !replay.torn_tail);
        assert_eq!(replay.entries[1].slot(), Slot::trial(0, 1, false));
        assert!(
            Journal::create(&path, &header()).is_err(),
            "never overwrites"
        );
    }

    #[test]
    fn every_journal_starts_with_the_mark_outputs_recognise() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        drop(Journal::create(&path, &header()).unwrap());
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            bytes.starts_with(crate::files::outputs::JOURNAL_MARK),
            "{}",
            String::from_utf8_lossy(&bytes[..40.min(bytes.len())])
        );
    }

    #[test]
    fn a_torn_last_line_is_skipped_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let mut journal = Journal::create(&path, &header()).unwrap();
        journal.append(&Entry::Sample(Box::new(sample(0)))).unwrap();
        let full = std::fs::read(&path).unwrap();
        let mut torn = full.clone();
        let second = serde_json::to_vec(&Entry::Sample(Box::new(sample(1)))).unwrap();
        torn.extend_from_slice(&second[..second.len() / 2]);
        std::fs::write(&path, &torn).unwrap();
        let replay = read(&path).unwrap();
        assert_eq!(replay.entries.len(), 1);
        assert!(replay.torn_tail);
        assert!(
            replay.warnings[0].contains("torn last line"),
            "{:?}",
            replay.warnings
        );
        // A complete-looking line without its newline is torn too.
        let mut no_newline = full.clone();
        no_newline.extend_from_slice(&second);
        std::fs::write(&path, &no_newline).unwrap();
        assert!(read(&path).unwrap().torn_tail);
    }

    #[test]
    fn a_missing_or_foreign_header_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        std::fs::write(&path, b"").unwrap();
        assert!(read(&path)
            .unwrap_err()
            .to_string()
            .contains("empty journal"));
        std::fs::write(&path, b"{\"hello\": 1}\n").unwrap();
        assert!(read(&path)
            .unwrap_err()
            .to_string()
            .contains("not a faultline journal"));
    }

    fn journal_with(entries: &[Entry]) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(&header()).unwrap();
        bytes.push(b'\n');
        for e in entries {
            bytes.extend(serde_json::to_vec(e).unwrap());
            bytes.push(b'\n');
        }
        bytes
    }

    fn refusal(entries: &[Entry]) -> String {
        read_from(std::io::Cursor::new(journal_with(entries)), Path::new("j"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn entries_outside_the_plan_or_twice_are_refused_by_line() {
        let mut far = sample(0);
        far.case = 99;
        let e = refusal(&[
            Entry::Sample(Box::new(sample(0))),
            Entry::Sample(Box::new(far)),
        ]);
        assert!(
            e.contains("line 3: case 99 is not in the journal's plan (it has 1 case(s))"),
            "{e}"
        );
        let e = refusal(&[Entry::Sample(Box::new(sample(2)))]);
        assert!(
            e.contains("line 2: run 2 of case 0 is past the plan's 2 measured run(s)"),
            "{e}"
        );
        let e = refusal(&[Entry::Warmup { case: 0, run: 0 }]);
        assert!(e.contains("past the plan's 0 warm-up run(s)"), "{e}");
        let e = refusal(&[
            Entry::Sample(Box::new(sample(1))),
            Entry::Failure(TrialFailure {
                case: 0,
                run: 1,
                warmup: false,
                reason: "x".into(),
                attempt: 0,
                profile_control: false,
            }),
        ]);
        assert!(
            e.contains("line 3: case 0, measured run 1 is already recorded on line 2"),
            "{e}"
        );
        let mut empty = sample(0);
        empty.child.bytes = 0;
        assert!(refusal(&[Entry::Sample(Box::new(empty))]).contains("0 bytes"));
    }

    #[test]
    fn precision_rounds_and_retries_are_read_and_their_bounds_kept() {
        let with = |h: Header, entries: &[Entry]| {
            let mut bytes = serde_json::to_vec(&h).unwrap();
            bytes.push(b'\n');
            for e in entries {
                bytes.extend(serde_json::to_vec(e).unwrap());
                bytes.push(b'\n');
            }
            read_from(std::io::Cursor::new(bytes), Path::new("j")).map_err(|e| e.to_string())
        };
        let precise = precise_header();
        // Rounds added past the plan's 2 runs, up to --max-runs 4.
        let rounds: Vec<Entry> = (0..4).map(|r| Entry::Sample(Box::new(sample(r)))).collect();
        assert_eq!(with(precise.clone(), &rounds).unwrap().entries.len(), 4);
        let e = with(header(), &rounds).unwrap_err();
        assert!(
            e.contains("line 4: run 2 of case 0 is past the plan's 2 measured run(s)"),
            "{e}"
        );
        let e = with(precise.clone(), &[Entry::Sample(Box::new(sample(4)))]).unwrap_err();
        assert!(
            e.contains(
                "line 2: run 4 of case 0 is past the 4 measured run(s) its --max-runs allows"
            ),
            "{e}"
        );
        // Each attempt at a run once: a re-run is no duplicate, a repeated one is.
        let attempt = |run, attempt| {
            let mut s = sample(run);
            s.attempt = attempt;
            Entry::Sample(Box::new(s))
        };
        let failed_retry = Entry::Failure(TrialFailure {
            case: 0,
            run: 0,
            warmup: false,
            reason: "x".into(),
            attempt: 2,
            profile_control: false,
        });
        let replay = with(header(), &[attempt(0, 0), attempt(0, 1), failed_retry]).unwrap();
        assert_eq!(
            replay
                .entries
                .iter()
                .map(Entry::attempt)
                .collect::<Vec<_>>(),
            [0, 1, 2]
        );
        let e = with(header(), &[attempt(0, 0), attempt(0, 1), attempt(0, 1)]).unwrap_err();
        assert!(
            e.contains("line 4: case 0, measured run 0 (attempt 1) is already recorded on line 3"),
            "{e}"
        );
        // A budget --precision could not have given is refused with the header.
        let mut bad = precise;
        bad.statistics
            .as_mut()
            .unwrap()
            .precision
            .as_mut()
            .unwrap()
            .max_runs = 1;
        let e = with(bad, &[]).unwrap_err();
        assert!(
            e.contains("j: line 1: max_runs 1 is not in 2..=10000"),
            "{e}"
        );
    }

    /// What the scheduler adds past `--max-runs` is read: one round for
    /// each earlier run that does not count (interfered with
    /// `--exclude-interfered`, or failed), numbered right after the last;
    /// anything further is refused by line.
    #[test]
    fn rounds_past_max_runs_are_read_for_the_runs_that_do_not_count() {
        let read = |h: &Header, entries: &[Entry], corrupt: usize| {
            let mut bytes = serde_json::to_vec(h).unwrap();
            bytes.push(b'\n');
            for (i, e) in entries.iter().enumerate() {
                if i == corrupt {
                    bytes.extend_from_slice(b"{not json\n");
                }
                bytes.extend(serde_json::to_vec(e).unwrap());
                bytes.push(b'\n');
            }
            read_from(std::io::Cursor::new(bytes), Path::new("j")).map_err(|e| e.to_string())
        };
        let with = |h: &Header, entries: &[Entry]| read(h, entries, usize::MAX);
        let h = precise_header();
        let excluding = {
            let mut h = h.clone();
            h.interference = Some(crate::results::InterferenceSettings {
                exclude: true,
                ..Default::default()
            });
            h
        };
        let clean = |run| Entry::Sample(Box::new(sample(run)));
        let interfered = |run, attempt| {
            let mut s = sample(run);
            s.attempt = attempt;
            s.interference = Some(crate::measure::interference::Interference {
                interfered: true,
                ..Default::default()
            });
            Entry::Sample(Box::new(s))
        };
        let failed = |run| {
            Entry::Failure(TrialFailure {
                case: 0,
                run,
                warmup: false,
                reason: "x".into(),
                attempt: 0,
                profile_control: false,
            })
        };
        // Run 1 interfered and left out: run 4 makes up for it.
        let made_up = [clean(0), interfered(1, 0), clean(2), clean(3), clean(4)];
        assert_eq!(with(&excluding, &made_up).unwrap().entries.len(), 5);
        // Run 5 is one too many.
        let mut too_many = made_up.to_vec();
        too_many.push(clean(5));
        let e = with(&excluding, &too_many).unwrap_err();
        assert!(
            e.contains(
                "line 7: run 5 of case 0 is past the 4 measured run(s) its --max-runs allows and the 1 run(s) before it that do not count; the journal was edited or damaged"
            ),
            "{e}"
        );
        // A header without --exclude-interfered reads the same: the flag
        // may have been given to a --resume, which the header does not
        // record, and its made-up round must still read back.
        assert_eq!(with(&h, &made_up).unwrap().entries.len(), 5);
        let e = with(&h, &too_many).unwrap_err();
        assert!(e.contains("line 7: run 5 of case 0 is past"), "{e}");
        // With no trial left out, nothing past --max-runs reads back.
        let e = with(&h, &[clean(0), clean(1), clean(2), clean(3), clean(4)]).unwrap_err();
        assert!(
            e.contains(
                "line 6: run 4 of case 0 is past the 4 measured run(s) its --max-runs allows;"
            ),
            "{e}"
        );
        // A failed trial does not count either, whatever the exclusion.
        let after_failure = [clean(0), failed(1), clean(2), clean(3), clean(4)];
        assert!(with(&h, &after_failure).is_ok());
        // A re-run that came out clean counts: its run needs no making up.
        let retried = [
            clean(0),
            interfered(1, 0),
            {
                let mut s = sample(1);
                s.attempt = 1;
                Entry::Sample(Box::new(s))
            },
            clean(2),
            clean(3),
            clean(4),
        ];
        assert!(with(&excluding, &retried)
            .unwrap_err()
            .contains("line 7: run 4 of case 0 is past the 4"));
        // Two runs lost, but no round skips a number: run 5 right after
        // run 3 is refused; a skipped corrupted line could have held run 4.
        let skipping = [
            clean(0),
            interfered(1, 0),
            interfered(2, 0),
            clean(3),
            clean(5),
        ];
        let e = with(&excluding, &skipping).unwrap_err();
        assert!(
            e.contains("line 6: run 5 of case 0 is past the 4 measured run(s) its --max-runs allows and the 2 run(s) before it that do not count, and the next round the run could add is run 4"),
            "{e}"
        );
        assert!(read(&excluding, &skipping, 4).is_ok());
        // A study's settling rounds (a reproduction's journal) are held to
        // their numbering only: their cap is the command's.
        let mut study = header();
        study.kind = Some(JournalKind::Reproduce);
        let settled: Vec<Entry> = (0..6).map(clean).collect();
        assert_eq!(with(&study, &settled).unwrap().entries.len(), 6);
        let e = with(&study, &[clean(0), clean(1), clean(3)]).unwrap_err();
        assert!(
            e.contains("line 4: run 3 of case 0 is past the plan's 2 measured run(s), and the next round the run could add is run 2"),
            "{e}"
        );
    }

    #[test]
    fn a_control_trial_has_a_slot_of_its_own_beside_its_run() {
        let control = |run| {
            let mut s = sample(run);
            s.profile_control = true;
            Entry::Sample(Box::new(s))
        };
        let entries = [Entry::Sample(Box::new(sample(0))), control(0), control(1)];
        let replay =
            read_from(std::io::Cursor::new(journal_with(&entries)), Path::new("j")).unwrap();
        assert_eq!(replay.entries.len(), 3);
        let slots: Vec<Slot> = replay.entries.iter().map(Entry::slot).collect();
        assert_eq!(slots[0], Slot::trial(0, 0, false));
        assert_eq!(
            slots[1],
            Slot {
                control: true,
                ..Slot::trial(0, 0, false)
            }
        );
        // A second control of the same run is refused, by line; so is one
        // past the plan's runs.
        let e = refusal(&[control(1), Entry::Sample(Box::new(sample(1))), control(1)]);
        assert!(
            e.contains(
                "line 4: case 0, measured run 1 (its control trial) is already recorded on line 2"
            ),
            "{e}"
        );
        assert!(
            refusal(&[control(2)]).contains("run 2 of case 0 is past the plan's 2 measured run(s)")
        );
    }

    #[test]
    fn a_header_outside_faultline_s_bounds_is_refused() {
        let cases = [
            (|h: &mut Header| h.plan.runs = 0) as fn(&mut Header),
            |h| h.plan.warmup = u32::MAX,
            |h| h.plan.cases.clear(),
            |h| h.plan.cases[0].block_size = 0,
            |h| h.files.clear(),
            |h| h.files[0].size = 0,
        ];
        for (i, damage) in cases.iter().enumerate() {
            let mut h = header();
            damage(&mut h);
            let mut bytes = serde_json::to_vec(&h).unwrap();
            bytes.push(b'\n');
            let e = read_from(std::io::Cursor::new(bytes), Path::new("j"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("j: line 1: "), "damage {i}: {e}");
        }
    }

    fn any_entry() -> impl proptest::strategy::Strategy<Value = Entry> {
        use proptest::prelude::*;
        (0usize..3, 0u32..4, any::<bool>(), 0u8..3, any::<u64>()).prop_map(
            |(case, run, warmup, kind, bytes)| match kind {
                0 => {
                    let mut s = sample(run);
                    s.case = case;
                    s.child.bytes = bytes;
                    s.child.wall_ns = bytes.rotate_left(7);
                    Entry::Sample(Box::new(s))
                }
                1 => Entry::Warmup { case, run },
                _ => Entry::Failure(TrialFailure {
                    case,
                    run,
                    warmup,
                    reason: "r".into(),
                    attempt: 0,
                    profile_control: false,
                }),
            },
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// Generated entries (cases, runs, kinds in and out of the plan,
        /// duplicates), damaged bytes and a cut anywhere: reading never
        /// panics, and whatever it accepts is a plan the runner and the
        /// statistics take without panicking either.
        #[test]
        fn never_panics_on_generated_or_damaged_journals(
            entries in proptest::collection::vec(any_entry(), 0..8),
            flips in proptest::collection::vec((0usize..4000, proptest::num::u8::ANY), 0..4),
            cut in 0usize..4000,
        ) {
            let mut bytes = journal_with(&entries);
            for (at, byte) in flips {
                let n = bytes.len();
                bytes[at % n] = byte;
            }
            bytes.truncate(cut.max(1).min(bytes.len()));
            if let Ok(replay) = read_from(std::io::Cursor::new(bytes), Path::new("j")) {
                let plan = &replay.header.plan;
                let mut raw = crate::results::RawResults::default();
                for e in replay.entries {
                    proptest::prop_assert!(e.slot().case < plan.cases.len());
                    match e {
                        Entry::Sample(s) => raw.samples.push(*s),
                        Entry::Failure(f) => raw.failures.push(f),
                        Entry::Warmup { .. } => {}
                    }
                }
                let _ = crate::runner::schedule(plan);
                let results = crate::results::RunResults::assemble(
                    plan,
                    &raw,
                    Default::default(),
                    crate::fixtures::results().settings,
                    Vec::new(),
                );
                let _ = crate::report::render_table(&results);
                let _ = crate::report::verdict_lines(&results);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_damaged_journals(cut in 0usize..2000, flips in proptest::collection::vec((0usize..2000, proptest::num::u8::ANY), 0..8)) {
            let mut bytes = serde_json::to_vec(&header()).unwrap();
            bytes.push(b'\n');
            for run in 0..3 {
                bytes.extend(serde_json::to_vec(&Entry::Sample(Box::new(sample(run)))).unwrap());
                bytes.push(b'\n');
            }
            for (at, byte) in flips {
                let n = bytes.len();
                bytes[at % n] = byte;
            }
            bytes.truncate(cut.min(bytes.len()));
            let _ = read_from(std::io::Cursor::new(bytes), Path::new("j"));
        }
    }
}
