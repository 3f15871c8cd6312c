//! A small JSON record faultline keeps in its data directory (the noise,
//! the trial times): read back only when it is a regular file of at most
//! a given size that parses, else treated as absent.
use std::io::Read;
use std::path::Path;

/// The record at `path`, if it is a regular file whose first `most_bytes`
/// parse as a `T`.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path, most_bytes: u64) -> Option<T> {
    let file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(most_bytes).read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
}
