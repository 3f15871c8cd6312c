//! Files the tests make and look for.
use std::path::{Path, PathBuf};

/// Entries of `dir`, sorted (empty when it does not exist).
pub fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

/// The first entry of `dir` (in name order) whose name ends with `suffix`.
pub fn file_ending(dir: &Path, suffix: &str) -> Option<PathBuf> {
    entries(dir)
        .into_iter()
        .find(|p| p.to_string_lossy().ends_with(suffix))
}

/// Writes a user's file of `len` bytes at `path`, every byte a hash of its
/// offset, and returns its bytes.
pub fn user_file(path: &Path, len: usize) -> Vec<u8> {
    let bytes: Vec<u8> = (0..len as u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    std::fs::write(path, &bytes).expect("the user's file written");
    bytes
}
