//! `compare` of a fleet (20 exports or more): the hosts × verdicts matrix,
//! one letter per cell, the hosts off the majority marked, and the hosts
//! grouped by kernel, file system and CPU model. The numbers come from
//! [`crate::analysis::across::verdicts`]; this only lays them out, within the
//! width (the matrix splits its columns into blocks when they do not fit).
use crate::analysis::across::verdicts::{Grouping, VerdictMatrix};
use crate::report::terminal::run_comparison::run_letter;
use crate::report::terminal::{width, wrap};
use crate::stats::Verdict;

/// The letter of a verdict in the matrix.
fn symbol(v: Option<Verdict>) -> char {
    match v {
        Some(Verdict::Faster) => 'F',
        Some(Verdict::Slower) => 'S',
        Some(Verdict::WithinNoise) => '=',
        Some(Verdict::Unsettled) => '?',
        None => '·',
    }
}

/// The fleet's verdicts as text, at most `max` columns wide. `hosts` names
/// each run (its export's file name without `.json`, which a fleet run
/// names after the host).
pub fn render_verdict_matrix(
    matrix: &VerdictMatrix,
    groups: &[Grouping],
    hosts: &[String],
    max: usize,
) -> String {
    let mut out = String::new();
    let push_wrapped = |out: &mut String, line: &str| {
        for l in wrap(line, max) {
            out.push_str(&l);
            out.push('\n');
        }
    };
    out.push('\n');
    push_wrapped(
        &mut out,
        &format!(
            "Verdicts by host ({} hosts; F faster, S slower, = within noise, · not run; \
             * differs from the majority of the hosts):",
            hosts.len()
        ),
    );
    for (i, c) in matrix.comparisons.iter().enumerate() {
        let majority = match matrix.majority[i] {
            Some(v) => format!("majority {}", symbol(Some(v))),
            None => "no majority".to_string(),
        };
        push_wrapped(&mut out, &format!("  {:>2}  {c} ({majority})", i + 1));
    }
    let labels: Vec<String> = hosts
        .iter()
        .enumerate()
        .map(|(i, h)| format!("{:>2}  {h}", run_letter(i)))
        .collect();
    let label_w = labels.iter().map(|l| width(l)).max().unwrap_or(0);
    let off_w = " off 99".len();
    let cell_w = 3;
    // Columns per block: what fits beside the labels and the count.
    let room = max.saturating_sub(2 + label_w + off_w);
    let per_block = (room / cell_w).max(1);
    let n = matrix.comparisons.len();
    let mut start = 0;
    while start < n {
        let end = (start + per_block).min(n);
        let mut header = format!("  {:label_w$}", "");
        for c in start..end {
            header.push_str(&format!("{:>2} ", c + 1));
        }
        out.push('\n');
        out.push_str(header.trim_end());
        out.push('\n');
        for (run, label) in labels.iter().enumerate() {
            let mut line = format!("  {label}{}", " ".repeat(label_w - width(label)));
            for c in start..end {
                let mark = if matrix.off_majority(run, c) {
                    '*'
                } else {
                    ' '
                };
                line.push_str(&format!(" {}{mark}", symbol(matrix.cells[run][c])));
            }
            let off = matrix.off_majority_of(run).len();
            if end == n && off > 0 {
                line.push_str(&format!(" off {off}"));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        start = end;
    }
    let off: Vec<String> = (0..hosts.len())
        .filter(|&r| !matrix.off_majority_of(r).is_empty())
        .map(|r| format!("{} {}", run_letter(r), hosts[r]))
        .collect();
    out.push('\n');
    push_wrapped(
        &mut out,
        &if off.is_empty() {
            "Every host gave the majority's verdicts.".to_string()
        } else {
            format!(
                "Off the majority: {} of {} hosts: {}.",
                off.len(),
                hosts.len(),
                off.join(", ")
            )
        },
    );
    out.push_str("\nHosts by environment (the hosts off the majority marked *):\n");
    for g in groups {
        for (value, runs) in &g.groups {
            let members: Vec<String> = runs
                .iter()
                .map(|&r| {
                    let mark = if matrix.off_majority_of(r).is_empty() {
                        ""
                    } else {
                        "*"
                    };
                    format!("{}{mark}", run_letter(r))
                })
                .collect();
            push_wrapped(
                &mut out,
                &format!("  {} {value} ({}): {}", g.by, runs.len(), members.join(" ")),
            );
        }
    }
    out
}
