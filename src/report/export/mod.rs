//! The exports: a run's results written to files the user named, each
//! replaced whole and atomically (see [`crate::files::atomic`]), so an
//! interrupted run never leaves a torn export behind: JSON ([`json`]), CSV
//! ([`csv`], with its claims and timeline files beside it), Markdown
//! ([`markdown`]) and the HTML page ([`html`]).

use std::path::PathBuf;

use crate::error::Result;
use crate::stats::RunResults;

pub mod claims_csv;
pub mod csv;
pub mod html;
pub mod json;
pub mod markdown;
pub mod timeline_csv;

pub use self::csv::write_csv;
pub use html::{render_html, write_html};
pub use json::{read_json, write_json};
pub use markdown::{render_markdown, write_markdown};

/// The export files asked for; each is rewritten whole, atomically, every time
/// [`Exports::write_all`] is called, so it can be called after every group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exports {
    /// The whole results as JSON.
    pub json: Option<PathBuf>,
    /// One row per sample.
    pub csv: Option<PathBuf>,
    /// The Markdown report.
    pub markdown: Option<PathBuf>,
}

impl Exports {
    /// Whether no export was asked for.
    pub fn is_empty(&self) -> bool {
        self.json.is_none() && self.csv.is_none() && self.markdown.is_none()
    }

    /// Writes every export asked for. One failing export does not stop the
    /// others from being written; the first error is returned.
    pub fn write_all(&self, results: &RunResults) -> Result<()> {
        let mut first_error = None;
        let mut keep = |r: Result<()>| {
            if let Err(e) = r {
                first_error.get_or_insert(e);
            }
        };
        if let Some(path) = &self.json {
            keep(write_json(results, path));
        }
        if let Some(path) = &self.csv {
            keep(write_csv(results, path));
            if !results.claims.is_empty() {
                keep(claims_csv::write_claims_csv(
                    results,
                    &claims_csv::path_beside(path),
                ));
            }
            if timeline_csv::has_timelines(results) {
                let beside = timeline_csv::path_beside(path);
                keep(timeline_csv::write_timeline_csv(results, &beside));
            }
        }
        if let Some(path) = &self.markdown {
            keep(write_markdown(results, path));
        }
        first_error.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_export_asked_for_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let exports = Exports {
            json: Some(dir.path().join("r.json")),
            csv: Some(dir.path().join("r.csv")),
            markdown: None,
        };
        assert!(!exports.is_empty());
        assert!(Exports::default().is_empty());
        let results = crate::fixtures::results();
        exports.write_all(&results).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["r.csv", "r.json"]);
        assert_eq!(
            read_json(&dir.path().join("r.json")).unwrap().cases.len(),
            3
        );
    }

    #[test]
    fn one_failing_export_does_not_stop_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let exports = Exports {
            json: Some(dir.path().join("missing-dir").join("r.json")),
            csv: None,
            markdown: Some(dir.path().join("r.md")),
        };
        let err = exports.write_all(&crate::fixtures::results()).unwrap_err();
        assert!(err.to_string().contains("missing-dir"), "{err}");
        assert!(dir.path().join("r.md").exists());
    }
}
