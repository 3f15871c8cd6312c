//! The exports: a run's results written to files the user named, each
//! replaced whole and atomically (see [`crate::files::atomic`]), so an
//! interrupted run never leaves a torn export behind. Every format is one
//! [`Exporter`]: JSON ([`json`]), CSV ([`csv`], with its claims and timeline
//! files beside it), Markdown ([`markdown`]) and the HTML page ([`html`]).
//! The formats a run writes after every group are listed once, in
//! [`REGISTRY`], each with the path [`Exports`] holds for it.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::results::RunResults;

pub mod claims_csv;
pub mod csv;
pub mod csv_rows;
pub mod html;
pub mod json;
pub mod markdown;
pub mod timeline_csv;

pub use self::csv::write_csv;
pub use html::{render_html, write_html};
pub use json::{read_json, write_json};
pub use markdown::{render_markdown, write_markdown};

/// One export format: how a run's results become a file.
pub trait Exporter: Sync {
    /// The format's name (`json`, `csv`, `markdown`, `html`).
    fn name(&self) -> &'static str;

    /// Writes `results` to `path`, replacing it atomically, and any file
    /// the format keeps beside it. One failing file does not stop the
    /// others from being written; the first error is returned.
    fn write(&self, results: &RunResults, path: &Path) -> Result<()>;
}

/// The path [`Exports`] holds for one format.
type PathOf = for<'a> fn(&'a Exports) -> Option<&'a Path>;

/// The formats a run writes after every group, in the order they are
/// written: one line each, the exporter and the path [`Exports`] holds for
/// it (named by its `--export-*` flag).
pub const REGISTRY: &[(&dyn Exporter, PathOf)] = &[
    (&json::Json, |e| e.json.as_deref()),
    (&csv::Csv, |e| e.csv.as_deref()),
    (&markdown::Markdown, |e| e.markdown.as_deref()),
];

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
    /// Each export asked for, with its exporter, in [`REGISTRY`]'s order.
    pub fn named(&self) -> Vec<(&'static dyn Exporter, &Path)> {
        REGISTRY
            .iter()
            .filter_map(|(exporter, path_of)| Some((*exporter, path_of(self)?)))
            .collect()
    }

    /// Whether no export was asked for.
    pub fn is_empty(&self) -> bool {
        self.named().is_empty()
    }

    /// Writes every export asked for. One failing export does not stop the
    /// others from being written; the first error is returned.
    pub fn write_all(&self, results: &RunResults) -> Result<()> {
        let mut first_error = None;
        for (exporter, path) in self.named() {
            if let Err(e) = exporter.write(results, path) {
                first_error.get_or_insert(e);
            }
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
    fn every_format_is_registered_once_and_writes_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut names = Vec::new();
        for (exporter, _) in REGISTRY {
            assert!(!names.contains(&exporter.name()), "{}", exporter.name());
            names.push(exporter.name());
            let path = dir.path().join(format!("r.{}", exporter.name()));
            exporter.write(&crate::fixtures::results(), &path).unwrap();
            assert!(
                std::fs::metadata(&path).unwrap().len() > 0,
                "{}",
                exporter.name()
            );
        }
        // Each registered path is the field of its format.
        let all = Exports {
            json: Some("a.json".into()),
            csv: Some("a.csv".into()),
            markdown: Some("a.md".into()),
        };
        let named: Vec<_> = all
            .named()
            .iter()
            .map(|(e, p)| (e.name(), p.to_path_buf()))
            .collect();
        assert_eq!(
            named,
            [
                ("json", PathBuf::from("a.json")),
                ("csv", PathBuf::from("a.csv")),
                ("markdown", PathBuf::from("a.md")),
            ]
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
