//! Claim verdicts as text: each claim's side-by-side table (measured with
//! its CI beside the published band) and its block in the terminal. The
//! claims as CSV rows are [`crate::report::export::claims_csv`].
use crate::report::text_table::Table;
use crate::results::claim::{ClaimOutcome, ClaimVerdict, PairOutcome};

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
                row_verdict(p),
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

/// A row's verdict in words; an undecided one with the verdicts its CI
/// still allows: `unsettled (no effect or smaller than published)`.
pub fn row_verdict(p: &PairOutcome) -> String {
    match p.verdict {
        None => "-".into(),
        Some(ClaimVerdict::Unsettled) if !p.possible.is_empty() => format!(
            "unsettled ({})",
            p.possible
                .iter()
                .map(|v| v.word())
                .collect::<Vec<_>>()
                .join(" or ")
        ),
        Some(v) => v.word().to_string(),
    }
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
