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
    /// Shorthand for an [`Error::Io`].
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            op,
            path: path.into(),
            source,
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
