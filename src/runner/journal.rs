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
use crate::plan::Plan;
use crate::results::{Sample, TrialFailure};

/// Format version written in every header.
pub const FORMAT: u32 = 1;

/// What a journal starts with: enough to run the rest of the plan.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Header {
    /// Journal format version.
    pub faultline_journal: u32,
    /// The plan being run.
    pub plan: Plan,
    /// The files measured, by size: (path, size, seed for generated files).
    pub files: Vec<JournalFile>,
    /// Whether cold meant drop_caches.
    pub drop_caches: bool,
    /// The command line that started the run.
    pub command_line: Vec<String>,
    /// The exports the run writes (used again by `--resume` unless new ones are given).
    #[serde(default)]
    pub export_json: Option<PathBuf>,
    /// CSV export.
    #[serde(default)]
    pub export_csv: Option<PathBuf>,
    /// Markdown export.
    #[serde(default)]
    pub export_markdown: Option<PathBuf>,
    /// `--dir`: where write trials' scratch directory was made.
    #[serde(default)]
    pub scratch_parent: Option<PathBuf>,
    /// `--keep`: keep the written files.
    #[serde(default)]
    pub keep: bool,
    /// The study and mode of a `faultline reproduce` run; absent for `faultline run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduction: Option<crate::results::Reproduction>,
    /// `--profile`: the rate and mode its trials were sampled at (a resumed
    /// run samples the same way, or refuses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::measure::profile::ProfileRequest>,
}

/// A file a journalled run measures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its size.
    pub size: u64,
    /// Its content seed, if faultline generated it.
    pub seed: Option<u64>,
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
    /// The (case, run, warm-up) slot the entry fills.
    pub fn slot(&self) -> (usize, u32, bool) {
        match self {
            Entry::Sample(s) => (s.case, s.run, false),
            Entry::Warmup { case, run } => (*case, *run, true),
            Entry::Failure(f) => (f.case, f.run, f.warmup),
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
        let mut journal = Journal {
            path: path.to_path_buf(),
            file,
        };
        journal.append_line(header)?;
        Ok(journal)
    }

    /// Opens an existing journal to append to it (for `--resume`). A torn
    /// last line (no newline) is cut off first, so the next entry starts on
    /// a line of its own.
    pub fn append_to(path: &Path) -> Result<Journal> {
        let io = |op| move |e| Error::io(op, path, e);
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .custom_flags_nofollow()
            .open(path)
            .map_err(io("open journal"))?;
        let bytes = std::fs::read(path).map_err(io("read journal"))?;
        let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if keep < bytes.len() {
            file.set_len(keep as u64)
                .map_err(io("cut the torn line of"))?;
        }
        Ok(Journal {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Where the journal is.
    pub fn path(&self) -> &Path {
        &self.path
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
pub fn read(path: &Path) -> Result<Replay> {
    let file = File::open(path).map_err(|e| Error::io("open journal", path, e))?;
    read_from(BufReader::new(file), path)
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
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::io("read journal", path, e))?;
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
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    let mut torn_tail = false;
    let count = lines.len();
    for (i, line) in lines.iter().enumerate().skip(1) {
        let last = i + 1 == count;
        let complete = line.ends_with(b"\n");
        match serde_json::from_slice::<Entry>(line) {
            Ok(entry) if complete => entries.push(entry),
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::plan::{Metric, OrderPolicy};
    use crate::results::ChildReport;

    pub(crate) fn header() -> Header {
        let case = {
            let mut case = crate::fixtures::case(MethodKind::Read);
            case.block_size = 4096;
            case.file_size = 8192;
            case
        };
        Header {
            faultline_journal: FORMAT,
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
            }],
            drop_caches: false,
            command_line: vec!["faultline".into(), "run".into()],
            export_json: None,
            export_csv: None,
            export_markdown: None,
            scratch_parent: None,
            keep: false,
            reproduction: None,
            profile: None,
        }
    }

    fn sample(run: u32) -> Sample {
        Sample {
            case: 0,
            run,
            sequence: run as u64,
            total_ns: 10,
            child: ChildReport {
                wall_ns: 10,
                bytes: 8192,
                checksum: 99,
                ..Default::default()
            },
            residency_before: 1.0,
            residency_after: 1.0,
            residency_source: "cachestat".into(),
            cache_prepared_by: "evict+seq-read".into(),
            cache_reached: true,
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
        };
        journal.append(&Entry::Failure(failure.clone())).unwrap();
        let replay = read(&path).unwrap();
        assert_eq!(
            replay.entries,
            vec![Entry::Sample(Box::new(sample(0))), Entry::Failure(failure)]
        );
        assert!(replay.warnings.is_empty() && !replay.torn_tail);
        assert_eq!(replay.entries[1].slot(), (0, 1, false));
        assert!(
            Journal::create(&path, &header()).is_err(),
            "never overwrites"
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
