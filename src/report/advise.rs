//! `faultline advise`'s output: the candidates ranked with their verdicts,
//! the winner against the runner-up and why, and where the answer would
//! change. Rendering only: every number comes from [`AdviseResults`].
use std::io;
use std::path::Path;

use super::units::sig3;
use crate::analysis::ranking::AdviseResults;
use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::stats::crossover::Side;
use crate::stats::Verdict;

/// The text `advise` prints.
pub fn render_text(r: &AdviseResults) -> String {
    let mut out = format!("advise: {}\n", r.workload);
    let trials: usize = r.run.cases.iter().map(|c| c.samples.len()).sum();
    out.push_str(&format!(
        "{} candidate(s) measured, {trials} trials, each against {}:\n",
        r.ranking.len(),
        r.run.cases.first().map_or("-", |c| c.label.as_str())
    ));
    for (i, c) in r.ranking.iter().enumerate() {
        let against = match &c.against_baseline {
            Some((e, v)) => format!(
                "{}x [{}–{}] {}",
                sig3(e.ratio),
                sig3(e.ci95_low),
                sig3(e.ci95_high),
                match v {
                    Verdict::Faster => "faster",
                    Verdict::Slower => "slower",
                    Verdict::WithinNoise => "within noise",
                    Verdict::Unsettled => "unsettled (machine busy)",
                }
            ),
            None => "(baseline)".to_string(),
        };
        out.push_str(&format!(
            "{:>3}. {:<44} {:>8} GiB/s  {against}\n",
            i + 1,
            c.label,
            sig3(c.median_bps / (1u64 << 30) as f64)
        ));
    }
    for s in &r.skipped {
        out.push_str(&format!("     not measured: {s}\n"));
    }
    if let (Some(h), [first, second, ..]) = (&r.head_to_head, r.ranking.as_slice()) {
        let e = &h.ratio;
        let ci = format!(
            "{}x [{}–{}]",
            sig3(e.ratio),
            sig3(e.ci95_low),
            sig3(e.ci95_high)
        );
        let line = match h.side {
            Side::BFaster => format!(
                "winner: {} is faster than {}, head to head {ci}",
                first.label, second.label
            ),
            Side::NoDifference => format!(
                "no winner: {} and {} do not differ, head to head {ci}",
                first.label, second.label
            ),
            _ => format!(
                "not settled: {} against {}: {ci}, which does not decide (more runs or a quieter machine would)",
                first.label, second.label
            ),
        };
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(why) = &r.why {
        out.push_str(&format!("why: {why}\n"));
    }
    if let Some(m) = &r.block_map {
        out.push_str(&format!(
            "where it changes along the block size ({} against {}): {}\n",
            m.methods[1],
            m.methods[0],
            super::map::words(m)
        ));
        for line in super::map::crossover_lines(m) {
            out.push_str(&format!("  {line}\n"));
        }
        out.push_str(&format!("  {}\n", super::map::cost_line(m)));
    }
    if let Some(m) = &r.size_map {
        out.push_str(&format!(
            "where it changes along the file size ({} against {}, {}): {}\n",
            m.methods[1],
            m.methods[0],
            m.fixed,
            super::map::words(m)
        ));
        for line in super::map::crossover_lines(m) {
            out.push_str(&format!("  {line}\n"));
        }
        out.push_str(&format!("  {}\n", super::map::cost_line(m)));
    }
    for n in &r.not_mapped {
        out.push_str(&format!("not mapped: {n}\n"));
    }
    out
}

/// Writes the JSON export atomically.
pub fn write_json(r: &AdviseResults, path: &Path) -> Result<()> {
    write_atomically(path, SHARED_MODE, |w| {
        serde_json::to_writer_pretty(&mut *w, r).map_err(io::Error::from)?;
        w.write_all(b"\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::ranking::{head_to_head, rank};

    #[test]
    fn the_ranking_names_the_winner_and_why() {
        let run = crate::fixtures::results();
        let ranking = rank(&run);
        let r = AdviseResults {
            faultline_advise: crate::analysis::ranking::ADVISE_FORMAT,
            workload: "seq 16 KiB reads of f (1 GiB), warm".into(),
            skipped: vec!["uring: io_uring is not available".into()],
            head_to_head: head_to_head(&run, &ranking, 0.05),
            ranking,
            why: Some("sys 0.05 vs 0.31 ms/MiB".into()),
            run,
            block_map: None,
            size_map: None,
            not_mapped: vec!["file size: needs root".into()],
        };
        let text = render_text(&r);
        assert!(text.contains("  1. mmap"), "{text}");
        assert!(text.contains("1.42x [1.38–1.46] faster"), "{text}");
        assert!(text.contains("(baseline)"), "{text}");
        assert!(text.contains("not measured: uring"), "{text}");
        assert!(text.contains("why: sys 0.05"), "{text}");
        assert!(text.contains("not mapped: file size"), "{text}");
    }
}
