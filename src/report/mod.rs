//! Reports: the terminal table, verdict lines and the exports. Nothing here measures.
//! (Temporary stand-ins until the report module lands.)
use std::path::PathBuf;

use crate::results::RunResults;

/// Where the exports go.
#[derive(Clone, Debug, Default)]
pub struct Exports {
    /// JSON export.
    pub json: Option<PathBuf>,
    /// CSV export.
    pub csv: Option<PathBuf>,
    /// Markdown export.
    pub markdown: Option<PathBuf>,
}

impl Exports {
    /// Writes every export asked for.
    pub fn write_all(&self, results: &RunResults) -> crate::error::Result<()> {
        if let Some(p) = &self.json {
            std::fs::write(p, serde_json::to_vec_pretty(results).unwrap())
                .map_err(|e| crate::error::Error::io("write", p, e))?;
        }
        Ok(())
    }
}

/// The terminal table.
pub fn render_table(results: &RunResults) -> String {
    format!(
        "{:#?}",
        results.cases.iter().map(|c| &c.summary).collect::<Vec<_>>()
    )
}

/// One verdict line per comparison.
pub fn verdict_lines(results: &RunResults) -> Vec<String> {
    results
        .comparisons
        .iter()
        .map(|c| format!("{c:?}"))
        .collect()
}

/// One line per failed trial.
pub fn failure_lines(results: &RunResults) -> Vec<String> {
    results.failures.iter().map(|f| format!("{f:?}")).collect()
}
