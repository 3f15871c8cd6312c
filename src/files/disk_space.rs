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

/// Refuses a directory whose file system takes no files, each cause in its
/// own words: mounted read-only, or a pseudo file system (procfs, sysfs…)
/// whose files the kernel makes up. `probe` is `dir` or its nearest
/// existing ancestor (where `dir` would be made). A full disk is
/// [`check`]'s.
pub fn check_writable(dir: &Path, probe: &Path) -> Result<()> {
    if let Ok(stat) = nix::sys::statvfs::statvfs(probe) {
        if stat.flags().contains(nix::sys::statvfs::FsFlags::ST_RDONLY) {
            return Err(Error::Plan(format!(
                "{}: is on a read-only file system ({} is mounted read-only): faultline cannot write its test files there; pick another --data-dir",
                dir.display(),
                probe.display()
            )));
        }
    }
    if let Ok(file) = std::fs::File::open(probe) {
        if let Some(fs) = super::dataset::pseudo_filesystem(&file) {
            return Err(Error::Plan(format!(
                "{}: is on {fs}, a pseudo file system whose files the kernel makes up: faultline cannot keep test files there; pick another --data-dir",
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Refuses when `needed` bytes (plus [`HEADROOM`]) do not fit in `available`
/// on the file system of `dir`. `size_given`: whether the user chose the
/// file size with `--size` (`Some(true)`), left it at its default
/// (`Some(false)`), or has no such flag (`None`): the advice names it as
/// such, or does not offer it. Pure: the caller measures.
pub fn check(needed: u128, available: u64, dir: &Path, size_given: Option<bool>) -> Result<()> {
    if needed == 0 || needed.saturating_add(u128::from(HEADROOM)) <= u128::from(available) {
        return Ok(());
    }
    let advice = match size_given {
        Some(true) => "free some space, pick another --data-dir, or give a smaller --size",
        Some(false) => {
            "free some space, pick another --data-dir, or give a --size smaller than the default"
        }
        None => "free some space, or pick another --data-dir",
    };
    Err(Error::Stopped(format!(
        "not enough disk space in {}: the test file needs {} (plus {} headroom) and only {} is free; \
         {advice}",
        dir.display(),
        crate::plan::resources::format_wide(needed),
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
        assert!(check(1 << 30, 2 << 30, dir, Some(true)).is_ok());
        assert!(check(0, 0, dir, Some(true)).is_ok(), "nothing to generate");
        let err = check(1 << 30, 1 << 30, dir, Some(true))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("not enough disk space in /data: the test file needs 1 GiB"),
            "{err}"
        );
        assert!(err.ends_with("or give a smaller --size"), "{err}");
        assert!(!err.contains('\n'));
        let err = check(u128::from(u64::MAX) * 3, 1 << 30, dir, Some(false))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("needs 5.534e19 bytes"),
            "never saturated: {err}"
        );
        assert!(err.ends_with("a --size smaller than the default"), "{err}");
        let e = check_writable(Path::new("/proc/x"), Path::new("/proc"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("is on procfs, a pseudo file system"), "{e}");
    }

    #[test]
    fn reads_the_real_file_system() {
        let dir = tempfile::tempdir().unwrap();
        if std::env::var(OVERRIDE_ENV).is_err() {
            assert!(available_bytes(dir.path()).is_some_and(|b| b > 0));
        }
    }
}
