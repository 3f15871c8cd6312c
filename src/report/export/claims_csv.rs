//! The claims CSV: one row per claim verdict, written beside the
//! per-sample CSV as `<stem>-claims.csv`, replaced atomically; its rows
//! also make the Markdown report's claims table.
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::results::{claim::ClaimOutcome, RunResults};

/// The columns of a claim row, in order (docs/claims.md describes each).
pub const COLUMNS: [&str; 16] = [
    "study",
    "id",
    "claim",
    "kind",
    "published",
    "verdict",
    "reason",
    "to_settle",
    "measured",
    "ci_low",
    "ci_high",
    "level",
    "precision",
    "runs",
    "interfered_share",
    "more_runs",
];

/// One claim as the cells of [`COLUMNS`] (empty where it has no value).
pub fn claim_row(c: &ClaimOutcome) -> [String; 16] {
    let num = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.6}"));
    [
        c.study.clone(),
        c.id.clone(),
        c.claim.clone(),
        c.kind.clone(),
        c.published.clone(),
        c.verdict.slug().to_string(),
        c.unsettled
            .as_ref()
            .map_or(String::new(), |u| u.reason.word().to_string()),
        c.unsettled
            .as_ref()
            .map_or(String::new(), |u| u.settle.clone()),
        num(c.measured),
        num(c.ci.map(|ci| ci.0)),
        num(c.ci.map(|ci| ci.1)),
        format!("{:.2}", c.level),
        num(c.precision),
        c.runs.to_string(),
        format!("{:.4}", c.interfered_share),
        c.unsettled
            .as_ref()
            .and_then(|u| u.more_runs)
            .map_or(String::new(), |n| n.to_string()),
    ]
}

/// Where the claims CSV of the per-sample CSV at `csv` goes: `dir/stem-claims.csv`.
pub fn path_beside(csv: &Path) -> PathBuf {
    let stem = csv
        .file_stem()
        .map_or("results".into(), |s| s.to_string_lossy());
    csv.with_file_name(format!("{stem}-claims.csv"))
}

/// Writes one row per claim of `results`, atomically; a cell a spreadsheet
/// would read as a formula is neutralised, as in every CSV
/// ([`super::csv_rows::Rows`]).
pub fn write_claims_csv(results: &RunResults, path: &Path) -> Result<()> {
    write_atomically(path, SHARED_MODE, |w| {
        let mut out = super::csv_rows::Rows::new(w, &COLUMNS)?;
        for c in &results.claims {
            out.row(claim_row(c))?;
        }
        out.finish()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_cells_that_a_spreadsheet_would_run_are_neutralised() {
        let claim: ClaimOutcome = serde_json::from_value(serde_json::json!({
            "study": "=HYPERLINK(\"http://x\")",
            "id": "+cmd|' /C calc'!A0",
            "claim": "@SUM(1)",
            "kind": "\tk",
            "published": "-2+3",
            "verdict": "holds",
            "explanation": "",
            "level": 0.9,
            "runs": 2,
        }))
        .unwrap();
        let mut results = crate::fixtures::results();
        results.claims = vec![claim];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r-claims.csv");
        write_claims_csv(&results, &path).unwrap();
        let mut reader = ::csv::Reader::from_path(&path).unwrap();
        let row = reader.records().next().unwrap().unwrap();
        for (i, cell) in row.iter().take(5).enumerate() {
            assert!(cell.starts_with('\''), "{}: {cell:?}", COLUMNS[i]);
        }
        // Numbers stay numbers.
        assert_eq!(&row[11], "0.90");
        assert_eq!(&row[13], "2");
    }
}
