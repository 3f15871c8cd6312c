//! The one line that ends a run in which trials failed, or which measured
//! nothing: how many failed, how many were measured, and why, most common
//! reason first. A run that prints it exits non-zero.
use std::collections::BTreeMap;

use crate::results::RunResults;

/// Most distinct reasons the line quotes; the rest are counted.
const MAX_REASONS: usize = 3;

/// `N trial(s) failed and M were measured: 3× timed out after …; 1× killed
/// by SIGKILL …`, or `nothing was measured: …`; `None` when every trial
/// gave a sample and there was at least one.
pub fn failure_summary(results: &RunResults) -> Option<String> {
    let measured: usize = results.cases.iter().map(|c| c.samples.len()).sum();
    let failed = results.failures.len();
    if failed == 0 && measured > 0 {
        return None;
    }
    if failed == 0 {
        return Some("nothing was measured: the plan ran no trial".to_string());
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &results.failures {
        *counts.entry(f.reason.as_str()).or_default() += 1;
    }
    let mut reasons: Vec<(&str, usize)> = counts.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut why: Vec<String> = reasons
        .iter()
        .take(MAX_REASONS)
        .map(|(reason, n)| format!("{n}× {reason}"))
        .collect();
    if reasons.len() > MAX_REASONS {
        why.push(format!(
            "{} other reason(s) (the exports list every failed trial)",
            reasons.len() - MAX_REASONS
        ));
    }
    let head = if measured == 0 {
        format!("nothing was measured: all {failed} trial(s) failed")
    } else {
        format!("{failed} trial(s) failed and {measured} were measured")
    };
    Some(format!("{head}: {}", why.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_failures_by_reason_and_says_when_nothing_was_measured() {
        let mut results = crate::fixtures::results();
        results.failures.clear();
        assert_eq!(failure_summary(&results), None);
        let failure = |reason: &str| crate::results::TrialFailure {
            case: 0,
            run: 0,
            warmup: false,
            reason: reason.into(),
            attempt: 0,
            profile_control: false,
        };
        results.failures = vec![failure("b"), failure("a"), failure("a")];
        let line = failure_summary(&results).unwrap();
        assert!(line.starts_with("3 trial(s) failed and "), "{line}");
        assert!(line.ends_with(": 2× a; 1× b"), "{line}");
        for case in &mut results.cases {
            case.samples.clear();
        }
        let line = failure_summary(&results).unwrap();
        assert!(
            line.starts_with("nothing was measured: all 3 trial(s) failed: "),
            "{line}"
        );
        results.failures.clear();
        assert!(failure_summary(&results).unwrap().contains("no trial"));
    }
}
