//! Free disk space, checked before a large test file is generated, so that a
//! plan the disk cannot hold is refused with one line instead of filling it.
use std::path::Path;

use crate::error::{Error, Result};

/// Test-only: when set to a number of bytes, [`available_bytes`] reports it
/// instead of asking the file system (so the refusal can be tested).
pub const OVERRIDE_ENV: &str = "FAULTLINE_TEST_FREE_BYTES";

/// Bytes an unprivileged user may still write on the file system holding
/// `dir` (statvfs `f_bavail × f_frsize`), or the test override.
pub fn available_bytes(dir: &Path) -> Option<u64> {
    if let Some(v) = std::env::var(OVERRIDE_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return Some(v);
    }
    let stat = nix::sys::statvfs::statvfs(dir).ok()?;
    Some((stat.blocks_available() as u64).saturating_mul(stat.fragment_size() as u64))
}

/// Headroom left free beyond the files themselves.
pub const HEADROOM: u64 = 256 << 20;

/// Refuses when `needed` bytes (plus [`HEADROOM`]) do not fit in `available`
/// on the file system of `dir`. Pure: the caller measures.
pub fn check(needed: u64, available: u64, dir: &Path) -> Result<()> {
    if needed == 0 || needed.saturating_add(HEADROOM) <= available {
        return Ok(());
    }
    Err(Error::Stopped(format!(
        "not enough disk space in {}: the test file needs {} (plus {} headroom) and only {} is free; \
         free some space, pick another --data-dir, or give a smaller --size",
        dir.display(),
        crate::size::format_size(needed),
        crate::size::format_size(HEADROOM),
        crate::size::format_size(available)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_when_the_file_does_not_fit() {
        let dir = Path::new("/data");
        assert!(check(1 << 30, 2 << 30, dir).is_ok());
        assert!(check(0, 0, dir).is_ok(), "nothing to generate");
        let err = check(1 << 30, 1 << 30, dir).unwrap_err().to_string();
        assert!(
            err.starts_with("not enough disk space in /data: the test file needs 1 GiB"),
            "{err}"
        );
        assert!(!err.contains('\n'));
    }

    #[test]
    fn reads_the_real_file_system() {
        let dir = tempfile::tempdir().unwrap();
        if std::env::var(OVERRIDE_ENV).is_err() {
            assert!(available_bytes(dir.path()).is_some_and(|b| b > 0));
        }
    }
}
