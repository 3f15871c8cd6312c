//! The trial times this machine measured: every complete run records, per
//! case, how long its trials took (the child's wall time plus the run's
//! own cost per trial: cache preparation, the spawn, residency checks) and
//! how many runs the case took under which rules, in the data directory
//! (`trial-times.json`). A later dry run of the same case estimates from
//! them instead of from assumed device and page-cache rates.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};

/// The file's name in the data directory.
pub const FILE: &str = "trial-times.json";

/// Larger than this, the file is not one faultline wrote: it is ignored.
const MOST_BYTES: u64 = 16 << 20;

/// Cases kept: the most recently measured ones.
const MOST_CASES: usize = 2000;

/// What one case's trials took the last time it ran here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseTime {
    /// Seconds per trial: the median of the child's wall time, plus the
    /// run's average cost per trial around the child.
    pub seconds: f64,
    /// Measured runs the case took (more than planned when the rules added
    /// rounds).
    pub runs: u32,
    /// The rules those runs followed, in the words the output uses.
    pub rules: String,
    /// When it was measured (UTC, RFC 3339).
    pub when: String,
}

/// Every case measured here, keyed by the case's whole description
/// ([`key`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrialTimes {
    /// The format key: faultline's own file ([`super::made`]).
    pub faultline_trial_times: u32,
    /// By case.
    pub cases: BTreeMap<String, CaseTime>,
}

/// The key of a case: its whole description as JSON (method and options,
/// pattern, block, file size, cache state, seed, target), so that only the
/// same work is matched.
pub fn key<T: Serialize>(case: &T) -> Option<String> {
    serde_json::to_string(case).ok()
}

/// Where the record of data directory `dir` is.
pub fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// The record in `dir`, if a readable, sane one is there.
pub fn read(dir: &Path) -> Option<TrialTimes> {
    let mut times: TrialTimes = super::record::read_json(&path(dir), MOST_BYTES)?;
    times
        .cases
        .retain(|_, t| t.seconds.is_finite() && t.seconds >= 0.0 && t.runs > 0);
    Some(times)
}

/// Adds `measured` to the record in `dir` (a case measured again replaces
/// its entry), keeping the [`MOST_CASES`] most recent; a file there that
/// faultline did not write is refused, as for every output.
pub fn record(dir: &Path, measured: BTreeMap<String, CaseTime>) -> Result<()> {
    let mut times = read(dir).unwrap_or_default();
    times.faultline_trial_times = 1;
    times.cases.extend(measured);
    if times.cases.len() > MOST_CASES {
        let mut by_age: Vec<(String, String)> = times
            .cases
            .iter()
            .map(|(k, t)| (t.when.clone(), k.clone()))
            .collect();
        by_age.sort();
        let drop = times.cases.len() - MOST_CASES;
        for (_, k) in by_age.into_iter().take(drop) {
            times.cases.remove(&k);
        }
    }
    write_atomically(&path(dir), SHARED_MODE, |w| {
        serde_json::to_writer(&mut *w, &times).map_err(std::io::Error::from)?;
        w.write_all(b"\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(seconds: f64, when: &str) -> CaseTime {
        CaseTime {
            seconds,
            runs: 5,
            rules: "rules: 5 runs".into(),
            when: when.into(),
        }
    }

    #[test]
    fn records_merge_replace_and_refuse_what_faultline_did_not_write() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), None);
        let one = BTreeMap::from([("a".to_string(), time(0.5, "2026-11-26T10:00:00Z"))]);
        record(dir.path(), one).unwrap();
        let two = BTreeMap::from([
            ("a".to_string(), time(0.25, "2026-11-26T11:00:00Z")),
            ("b".to_string(), time(2.0, "2026-11-26T11:00:00Z")),
        ]);
        record(dir.path(), two).unwrap();
        let read_back = read(dir.path()).unwrap();
        assert_eq!(read_back.cases.len(), 2);
        assert_eq!(
            read_back.cases["a"].seconds, 0.25,
            "measured again: replaced"
        );
        assert!(crate::files::made::by_faultline(&path(dir.path())));
        // Nonsense entries are ignored, and a file it did not write is
        // neither read as a record nor replaced.
        std::fs::write(
            path(dir.path()),
            r#"{"faultline_trial_times":1,"cases":{"x":{"seconds":-1,"runs":5,"rules":"","when":""}}}"#,
        )
        .unwrap();
        assert!(read(dir.path()).unwrap().cases.is_empty());
        std::fs::write(path(dir.path()), "{\"cases\": {}}").unwrap();
        assert!(record(dir.path(), BTreeMap::new()).is_err());
        std::fs::write(path(dir.path()), "not json").unwrap();
        assert_eq!(read(dir.path()), None);
    }

    #[test]
    fn the_oldest_cases_go_first_past_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let many: BTreeMap<String, CaseTime> = (0..MOST_CASES + 3)
            .map(|i| {
                (
                    format!("c{i}"),
                    time(1.0, &format!("2026-11-26T10:{:05}", i)),
                )
            })
            .collect();
        record(dir.path(), many).unwrap();
        let kept = read(dir.path()).unwrap().cases;
        assert_eq!(kept.len(), MOST_CASES);
        assert!(!kept.contains_key("c0") && !kept.contains_key("c2"));
        assert!(kept.contains_key(&format!("c{}", MOST_CASES + 2)));
    }
}
