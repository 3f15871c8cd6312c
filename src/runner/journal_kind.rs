//! What a journal records of the command that wrote it and of the files
//! it measures: names the journal and the run specification share, kept in
//! a leaf so that neither imports the other for them.
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Which command wrote a journal, and so which command may continue it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JournalKind {
    /// `faultline run`, continued by `faultline run --resume`.
    #[default]
    Run,
    /// `faultline reproduce`, continued by `faultline reproduce PRESET --resume`.
    Reproduce,
    /// `faultline calibrate`, which is not continued: it starts again.
    Calibrate,
}

impl JournalKind {
    /// The command that wrote it.
    pub fn command(self) -> &'static str {
        match self {
            JournalKind::Run => "faultline run",
            JournalKind::Reproduce => "faultline reproduce",
            JournalKind::Calibrate => "faultline calibrate",
        }
    }
}

/// A file a journalled run measures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalFile {
    /// Where it is.
    #[serde(with = "crate::os_path")]
    pub path: PathBuf,
    /// Its size.
    pub size: u64,
    /// Its content seed, if faultline generated it.
    pub seed: Option<u64>,
    /// Its fingerprint when the run started (journals written before it
    /// have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<crate::files::fingerprint::Fingerprint>,
}
