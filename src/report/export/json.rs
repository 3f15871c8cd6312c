//! The JSON export: the whole [`RunResults`], pretty-printed, replaced atomically.
//!
//! It holds everything the other reports are drawn from (every sample, the
//! summaries, comparisons, failures, warnings and the environment), so
//! [`read_json`] can render them again later without rerunning anything.
use std::io::{self, Read};
use std::path::Path;

use crate::error::{Error, Result};
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::results::RunResults;

/// Writes `results` to `path` as pretty JSON, atomically: a reader sees the
/// previous export or this one, never a mix.
pub fn write_json(results: &RunResults, path: &Path) -> Result<()> {
    write_atomically(path, SHARED_MODE, |w| {
        serde_json::to_writer_pretty(&mut *w, results).map_err(io::Error::from)?;
        w.write_all(b"\n")
    })
}

/// The JSON export as an [`super::Exporter`]: [`write_json`].
pub struct Json;

impl super::Exporter for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn write(&self, results: &RunResults, path: &Path) -> Result<()> {
        write_json(results, path)
    }
}

/// Reads results written by [`write_json`].
///
/// The file is opened as every input is ([`crate::input::open`]: a
/// regular file only) and read up to [`crate::input::MAX_JSON_BYTES`].
/// A file that does not start as a JSON object is refused after its first
/// kilobyte, not read whole. An export of up to [`SLICE_BYTES`] is read
/// whole and parsed from memory (serde_json parses a slice faster than a
/// reader, which it reads byte by byte); a larger one is mapped read-only
/// and parsed from the map, so that its text (700 MB for 100,000 cases)
/// is never copied to the heap: its pages are the page cache's, which the
/// kernel may drop and read again.
pub fn read_json(path: &Path) -> Result<RunResults> {
    read_json_whole_up_to(path, SLICE_BYTES)
}

/// [`read_json`], reading an export of up to `slice_bytes` whole.
fn read_json_whole_up_to(path: &Path, slice_bytes: u64) -> Result<RunResults> {
    let what = "JSON export";
    let parse = |e: serde_json::Error| {
        Error::io("parse", path, io::Error::new(io::ErrorKind::InvalidData, e))
    };
    let file = crate::input::open(path, what)?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
    let whole = file.try_clone().map_err(|e| Error::io("open", path, e))?;
    let mut reader = crate::input::limited(file, path, what, crate::input::MAX_JSON_BYTES)?;
    let mut bytes = Vec::new();
    (&mut reader)
        .take(1024)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, e))?;
    if bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b != b'{')
    {
        if let Err(e) = serde_json::from_slice::<RunResults>(&bytes) {
            return Err(parse(e));
        }
    }
    if size > slice_bytes {
        // SAFETY: a read-only private map of a regular file faultline
        // never writes; its pages are the page cache's, not the heap's.
        // (A file truncated by someone else while it is parsed would end
        // the process with SIGBUS, as it would any program mapping it.)
        let map = unsafe { memmap2::MmapOptions::new().map_copy_read_only(&whole) }
            .map_err(|e| Error::io("map", path, e))?;
        if map.len() as u64 > crate::input::MAX_JSON_BYTES {
            return Err(crate::input::too_large(
                path,
                what,
                Some(map.len() as u64),
                crate::input::MAX_JSON_BYTES,
            ));
        }
        let _ = map.advise(memmap2::Advice::Sequential);
        return serde_json::from_slice(&map).map_err(parse);
    }
    drop(whole);
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, e))?;
    serde_json::from_slice(&bytes).map_err(parse)
}

/// The largest export [`read_json`] reads whole before parsing it; a larger
/// one is parsed from a read-only map of the file.
pub const SLICE_BYTES: u64 = 64 << 20;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        let results = fixtures::results();
        write_json(&results, &path).unwrap();
        let back = read_json(&path).unwrap();

        assert_eq!(back.command_line, results.command_line);
        assert_eq!(back.settings.file, results.settings.file);
        assert_eq!(back.settings.runs, results.settings.runs);
        assert_eq!(back.settings.metric, results.settings.metric);
        assert_eq!(back.cases.len(), results.cases.len());
        for (b, r) in back.cases.iter().zip(&results.cases) {
            assert_eq!(b.id, r.id);
            assert_eq!(b.case, r.case);
            assert_eq!(b.label, r.label);
            assert_eq!(b.summary, r.summary);
            assert_eq!(b.samples, r.samples);
        }
        assert_eq!(back.comparisons.len(), 1);
        assert_eq!(
            back.comparisons[0].throughput_ratio,
            results.comparisons[0].throughput_ratio
        );
        assert_eq!(back.comparisons[0].verdict, results.comparisons[0].verdict);
        assert_eq!(back.failures, results.failures);
        assert_eq!(back.warnings, results.warnings);
        assert_eq!(back.complete, results.complete);
        assert_eq!(
            serde_json::to_value(&back.environment).unwrap(),
            serde_json::to_value(&results.environment).unwrap()
        );
    }

    #[test]
    fn is_pretty_and_leaves_only_the_export() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        write_json(&fixtures::results(), &path).unwrap();
        // Rewriting replaces it in place.
        write_json(&fixtures::results(), &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\n  \""), "{}", &text[..20]);
        assert!(text.ends_with("}\n"));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("results.json")]);
    }

    #[test]
    fn errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.json");
        let err = read_json(&missing).unwrap_err().to_string();
        assert!(err.contains("missing.json: no such JSON export"), "{err}");

        let torn = dir.path().join("torn.json");
        std::fs::write(&torn, "{\"environment\": {").unwrap();
        // Read whole or mapped, the same error.
        for whole_up_to in [SLICE_BYTES, 0] {
            let err = read_json_whole_up_to(&torn, whole_up_to)
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("parse ") && err.contains("torn.json"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_large_export_parsed_from_a_map_gives_the_same_results() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        let results = fixtures::results();
        write_json(&results, &path).unwrap();
        let whole = read_json_whole_up_to(&path, SLICE_BYTES).unwrap();
        let streamed = read_json_whole_up_to(&path, 0).unwrap();
        assert_eq!(
            serde_json::to_value(&streamed).unwrap(),
            serde_json::to_value(&whole).unwrap()
        );
        assert_eq!(
            serde_json::to_value(&streamed).unwrap(),
            serde_json::to_value(&results).unwrap()
        );
        // Trailing text after the object is refused either way.
        let mut text = std::fs::read(&path).unwrap();
        text.extend_from_slice(b"{}");
        std::fs::write(&path, &text).unwrap();
        for whole_up_to in [SLICE_BYTES, 0] {
            let err = read_json_whole_up_to(&path, whole_up_to)
                .unwrap_err()
                .to_string();
            assert!(err.contains("trailing characters"), "{err}");
        }
        // Something other than an object, refused after its first kilobyte.
        std::fs::write(&path, "[1, 2, 3]").unwrap();
        for whole_up_to in [SLICE_BYTES, 0] {
            let err = read_json_whole_up_to(&path, whole_up_to)
                .unwrap_err()
                .to_string();
            assert!(err.starts_with("parse "), "{err}");
        }
    }
}
