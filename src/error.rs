//! Typed errors of the library. The binary adds context with `anyhow` and
//! prints each as one line.
use std::path::PathBuf;

/// Everything that can go wrong inside faultline's library code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A size string that could not be parsed.
    #[error("malformed size '{input}': {why} (examples: 512, 4k, 4KiB, 4KB, 16M, 1GiB)")]
    Size {
        /// What the user typed.
        input: String,
        /// Why it was refused.
        why: &'static str,
    },
    /// The input file is not something faultline can measure.
    #[error("{path}: {why}")]
    BadFile {
        /// The path given.
        path: PathBuf,
        /// Why it was refused.
        why: String,
    },
    /// A factor combination that makes no sense.
    #[error("{0}")]
    Plan(String),
    /// An I/O error with the operation and path that failed.
    #[error("{op} {path}: {source}")]
    Io {
        /// What faultline was doing.
        op: &'static str,
        /// The file involved.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Two methods disagreed about the bytes of the same file.
    #[error("checksum mismatch: {a} gave {a_sum:#018x} but {b} gave {b_sum:#018x} for {what}")]
    ChecksumMismatch {
        /// First method.
        a: String,
        /// Its checksum.
        a_sum: u64,
        /// Second method.
        b: String,
        /// Its checksum.
        b_sum: u64,
        /// The pattern, block size and workload compared.
        what: String,
    },
    /// A trial child could not be run or did not answer properly.
    #[error("{0}")]
    Trial(String),
    /// The run stopped early, for the reason given (e.g. a trial found the disk full).
    #[error("{0}")]
    Stopped(String),
    /// A write found no room: the file system is full, or the file reached the
    /// size limit (RLIMIT_FSIZE) or a quota.
    #[error("disk full ({0})")]
    DiskFull(String),
    /// An error with what faultline was doing when it happened.
    #[error("{what}: {source}")]
    Context {
        /// What faultline was doing, e.g. `preparing the test file`.
        what: &'static str,
        /// What went wrong.
        #[source]
        source: Box<Error>,
    },
    /// A signal stopped faultline before any trial ran (while it generated
    /// a test file, say); what it was doing is cleaned up.
    #[error("{0}")]
    Interrupted(String),
    /// An error after trials had started: the journal keeps what finished,
    /// and the command that resumes the run is given.
    #[error("{cause}; the journal {} keeps {kept} finished trial(s); resume with: {resume}", journal.display())]
    AfterTrials {
        /// What went wrong.
        cause: Box<Error>,
        /// The journal.
        journal: PathBuf,
        /// Trials the journal holds.
        kept: usize,
        /// The command that resumes the run, quoted for the shell.
        resume: String,
    },
    /// A written file, read back after its trial, is not what was written.
    #[error("read-back after {method}: {detail}")]
    ReadBack {
        /// The method that wrote it.
        method: String,
        /// What differs, and where.
        detail: String,
    },
}

impl Error {
    /// Whether the error is the user's to fix (bad usage or bad input: the
    /// plan, a size, a file), as opposed to a failure at run time.
    pub fn is_usage(&self) -> bool {
        match self {
            Error::Plan(_) | Error::Size { .. } | Error::BadFile { .. } => true,
            Error::Context { source, .. } => source.is_usage(),
            Error::AfterTrials { cause, .. } => cause.is_usage(),
            _ => false,
        }
    }

    /// Whether a signal stopped faultline ([`Error::Interrupted`]).
    pub fn is_interrupted(&self) -> bool {
        match self {
            Error::Interrupted(_) => true,
            Error::Context { source, .. } => source.is_interrupted(),
            Error::AfterTrials { cause, .. } => cause.is_interrupted(),
            _ => false,
        }
    }

    /// Shorthand for an [`Error::Io`].
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            op,
            path: path.into(),
            source,
        }
    }
}

/// Adds what faultline was doing to an error ([`Error::Context`]).
pub trait Context<T> {
    /// `what` goes before the error's own message.
    fn context(self, what: &'static str) -> Result<T>;
}

impl<T> Context<T> for Result<T> {
    fn context(self, what: &'static str) -> Result<T> {
        self.map_err(|e| Error::Context {
            what,
            source: Box::new(e),
        })
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
