//! The input file is what it was: a cheap fingerprint of a file (size,
//! modification and change times, inode and device, and a hash of 16
//! blocks of 4 KiB spread over it, first and last included), taken when a
//! run starts, checked after every group and before a run is resumed. A
//! change, even one that keeps the size, stops the run with "the file
//! changed during the run" instead of mixing samples of two files (or
//! reporting a confusing checksum mismatch between methods).
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Blocks hashed, spread over the file.
const PROBES: u64 = 16;
/// Bytes in each hashed block.
const PROBE: u64 = 4096;

/// What identifies a file's bytes, cheaply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Length in bytes.
    pub size: u64,
    /// Modification time, ns since the epoch.
    pub mtime_ns: i64,
    /// Status change time, ns since the epoch.
    pub ctime_ns: i64,
    /// Inode number.
    pub inode: u64,
    /// Device number.
    pub device: u64,
    /// BLAKE3 of the sampled blocks, hex.
    pub sample_hash: String,
}

impl Fingerprint {
    /// Takes the fingerprint of `path` (following symbolic links).
    pub fn of(path: &Path) -> Result<Fingerprint> {
        let file = File::open(path).map_err(|e| Error::io("open", path, e))?;
        let meta = file.metadata().map_err(|e| Error::io("stat", path, e))?;
        let size = meta.len();
        let mut hasher = blake3::Hasher::new();
        let mut block = vec![0u8; PROBE as usize];
        let last_start = size.saturating_sub(PROBE);
        for i in 0..PROBES {
            let offset = last_start * i / (PROBES - 1);
            let len = PROBE.min(size - offset) as usize;
            let n = read_at_most(&file, &mut block[..len], offset)
                .map_err(|e| Error::io("read", path, e))?;
            hasher.update(&offset.to_le_bytes());
            hasher.update(&block[..n]);
        }
        Ok(Fingerprint {
            size,
            mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
            ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
            inode: meta.ino(),
            device: meta.dev(),
            sample_hash: hasher.finalize().to_hex().to_string(),
        })
    }

    /// What differs between this fingerprint and `now`, in words (empty
    /// when nothing does). `times` compares the modification and change
    /// times too (a user's file); a file faultline generated may be
    /// rewritten with the same bytes (`--warm-by written`), so its times
    /// are left out.
    pub fn differences(&self, now: &Fingerprint, times: bool) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.size != now.size {
            out.push("size");
        }
        if times && self.mtime_ns != now.mtime_ns {
            out.push("modification time");
        }
        if times && self.ctime_ns != now.ctime_ns {
            out.push("change time");
        }
        if (self.inode, self.device) != (now.inode, now.device) {
            out.push("inode");
        }
        if self.sample_hash != now.sample_hash {
            out.push("content");
        }
        out
    }
}

/// Reads into `buf` from `offset` until it is full or the file ends.
fn read_at_most(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// Checks `path` against the fingerprint taken when the run started: a
/// difference is the error "the file changed during the run", naming what
/// changed.
pub fn check_unchanged(path: &Path, then: &Fingerprint, times: bool) -> Result<()> {
    let now = match Fingerprint::of(path) {
        Ok(now) => now,
        Err(e) => {
            return Err(Error::Stopped(format!(
                "the file changed during the run: {} cannot be read any more ({e})",
                path.display()
            )))
        }
    };
    let changed = then.differences(&now, times);
    if changed.is_empty() {
        return Ok(());
    }
    Err(Error::Stopped(format!(
        "the file changed during the run: {}'s {} differ from when the run started, so later trials would not measure the same bytes; the run stopped",
        path.display(),
        changed.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_same_size_change_anywhere_sampled_and_a_replacement_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let then = Fingerprint::of(&path).unwrap();
        assert!(check_unchanged(&path, &then, true).is_ok());
        // The same size, one byte changed in the last block.
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all_at(&[8], (1 << 20) - 1).unwrap();
        let e = check_unchanged(&path, &then, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the file changed during the run") && e.contains("content"),
            "{e}"
        );
        // Replaced by another file with the same bytes: another inode.
        let other = dir.path().join("g");
        std::fs::write(&other, vec![7u8; 1 << 20]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        let e = check_unchanged(&path, &then, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("inode"), "{e}");
        std::fs::remove_file(&path).unwrap();
        let e = check_unchanged(&path, &then, true).unwrap_err().to_string();
        assert!(e.contains("cannot be read any more"), "{e}");
    }

    #[test]
    fn small_files_are_hashed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"abc").unwrap();
        let a = Fingerprint::of(&path).unwrap();
        std::fs::write(&path, b"abd").unwrap();
        let b = Fingerprint::of(&path).unwrap();
        assert_eq!(a.differences(&b, false), ["content"]);
    }
}
