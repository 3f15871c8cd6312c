//! Page-cache residency of a file: cachestat() (Linux 6.5+), else mincore().
use std::fs::File;

use serde::{Deserialize, Serialize};

/// Which instrument measured residency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResidencySource {
    /// The cachestat() system call.
    Cachestat,
    /// mincore() over a temporary mapping.
    Mincore,
}

/// How much of a file is in the page cache.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Residency {
    /// Pages in the page cache.
    pub resident_pages: u64,
    /// Pages the file spans.
    pub total_pages: u64,
    /// The instrument used.
    pub source: ResidencySource,
}

impl Residency {
    /// Resident fraction, 0 to 1 (1 for an empty file).
    pub fn fraction(&self) -> f64 {
        if self.total_pages == 0 {
            1.0
        } else {
            self.resident_pages as f64 / self.total_pages as f64
        }
    }
}

/// Measures residency with cachestat, falling back to mincore.
pub fn measure(file: &File) -> std::io::Result<Residency> {
    let _ = file;
    todo!("measure helper")
}
