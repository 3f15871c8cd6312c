//! Claim verdicts as text: each claim's side-by-side table (measured with
//! its CI beside the published band), its block in the terminal, and the
//! claims as rows for the CSV (`<stem>-claims.csv`, beside the per-sample
//! CSV) and the Markdown report.
use std::io;
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::report::text_table::Table;
use crate::results::claim::ClaimOutcome;
use crate::stats::RunResults;

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
/// would read as a formula is neutralised.
pub fn write_claims_csv(results: &RunResults, path: &Path) -> Result<()> {
    write_atomically(path, SHARED_MODE, |w| {
        let mut out = ::csv::Writer::from_writer(w);
        out.write_record(COLUMNS).map_err(io::Error::from)?;
        for c in &results.claims {
            out.write_record(claim_row(c).iter().map(|cell| neutral(cell)))
                .map_err(io::Error::from)?;
        }
        out.flush()
    })
}

/// A cell a spreadsheet would take for a formula (`= + - @` first) gets a
/// leading apostrophe; numbers that start with `-` are left as they are.
fn neutral(cell: &str) -> String {
    let formula = cell.starts_with(['=', '+', '@'])
        || (cell.starts_with('-') && cell.parse::<f64>().is_err());
    if formula {
        format!("'{cell}")
    } else {
        cell.to_string()
    }
}

/// A measured factor with two decimals (three significant digits above 100).
pub fn short2(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// The side-by-side rows as a table: comparison, measured with its CI,
/// published band, verdict.
pub fn side_by_side(claim: &ClaimOutcome) -> Table {
    let share = claim.kind == "share";
    let value = |x: f64| {
        if share {
            format!("{:.0}%", x * 100.0)
        } else {
            short2(x)
        }
    };
    let rows = claim
        .pairs
        .iter()
        .map(|p| {
            vec![
                p.label.clone(),
                match (p.measured, p.ci) {
                    (Some(m), Some((l, h))) => format!("{} [{}–{}]", value(m), value(l), value(h)),
                    _ => "-".into(),
                },
                p.published.clone(),
                p.verdict.map_or("-".into(), |v| v.word().to_string()),
            ]
        })
        .collect();
    Table::new(
        &format!("published: {}", claim.published),
        &[
            "comparison",
            &format!("measured [{:.0}% CI]", claim.level * 100.0),
            "published",
            "verdict",
        ],
        rows,
    )
}

/// Every claim in one table: study and id, verdict (with its reason),
/// measured with its CI, published, what would settle it.
pub fn claims_table(claims: &[ClaimOutcome]) -> Table {
    let rows = claims
        .iter()
        .map(|c| {
            let measured = match (c.measured, c.ci) {
                (Some(m), Some((l, h))) if c.kind == "share" => {
                    format!("{:.0}% [{:.0}–{:.0}]", m * 100.0, l * 100.0, h * 100.0)
                }
                (Some(m), Some((l, h))) => format!("{} [{}–{}]", short2(m), short2(l), short2(h)),
                _ => format!("{} comparisons", c.pairs.len()),
            };
            vec![
                format!("{}/{}", c.study, c.id),
                c.verdict_words(),
                c.claim.clone(),
                measured,
                c.published.clone(),
                c.runs.to_string(),
                c.unsettled
                    .as_ref()
                    .map_or("-".to_string(), |u| u.settle.clone()),
            ]
        })
        .collect();
    Table::new(
        "each study claim, judged at its stated size (90% CIs)",
        &[
            "claim",
            "verdict",
            "text",
            "measured [90% CI]",
            "published",
            "runs",
            "to settle it",
        ],
        rows,
    )
}

/// The claim as terminal text: `[verdict] claim`, the published figure
/// with each comparison's measured CI beside its published band, then the
/// explanation and, when unsettled, what would settle it.
pub fn render_claim(claim: &ClaimOutcome) -> String {
    let mut out = format!("  [{}] {}\n", claim.verdict_words(), claim.claim);
    for line in side_by_side(claim).render_text().lines() {
        out.push_str(&format!("      {line}\n"));
    }
    out.push_str(&format!("      {}\n", claim.explanation));
    if let Some(u) = &claim.unsettled {
        out.push_str(&format!("      to settle it: {}\n", u.settle));
    }
    out
}
