//! `--fadvise`: the posix_fadvise() hint a read method gives its file in
//! setup, before the main loop (the `--advice` of the methods that read
//! through a descriptor: read, pread, preadv, stdio, uring).
//!
//! The hint covers the whole file (offset 0, length 0). It is given in
//! setup, whose time is reported apart from the main loop's; `willneed`
//! starts reading the file into the page cache there and does not wait for
//! it, so part of its effect lands in the loop, as it would in a program.
use std::fs::File;
use std::os::fd::AsRawFd;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A posix_fadvise() hint.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Fadvise {
    /// POSIX_FADV_NORMAL: the default read-ahead.
    Normal,
    /// POSIX_FADV_SEQUENTIAL: twice the default read-ahead window.
    Sequential,
    /// POSIX_FADV_RANDOM: no read-ahead.
    Random,
    /// POSIX_FADV_NOREUSE: the data will be used once (Linux 6.3+ lets such pages age faster).
    Noreuse,
    /// POSIX_FADV_WILLNEED: start reading the whole file into the page cache now.
    Willneed,
}

display_as_value_name!(Fadvise);

impl Fadvise {
    /// The constant posix_fadvise() takes.
    fn advice(self) -> libc::c_int {
        match self {
            Fadvise::Normal => libc::POSIX_FADV_NORMAL,
            Fadvise::Sequential => libc::POSIX_FADV_SEQUENTIAL,
            Fadvise::Random => libc::POSIX_FADV_RANDOM,
            Fadvise::Noreuse => libc::POSIX_FADV_NOREUSE,
            Fadvise::Willneed => libc::POSIX_FADV_WILLNEED,
        }
    }
}

/// Gives `file` the hint, if there is one; a refusal is an error naming it.
pub(crate) fn apply(file: &File, hint: Option<Fadvise>) -> Result<()> {
    let Some(hint) = hint else {
        return Ok(());
    };
    // SAFETY: a valid descriptor; the hint has no effect on memory.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, hint.advice()) };
    if rc != 0 {
        return Err(Error::Trial(format!(
            "posix_fadvise({hint}) failed: {}",
            std::io::Error::from_raw_os_error(rc)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hint_is_accepted_on_a_regular_file_and_none_does_nothing() {
        let file = tempfile::tempfile().unwrap();
        apply(&file, None).unwrap();
        for hint in [
            Fadvise::Normal,
            Fadvise::Sequential,
            Fadvise::Random,
            Fadvise::Noreuse,
            Fadvise::Willneed,
        ] {
            apply(&file, Some(hint)).unwrap();
        }
        assert_eq!(Fadvise::Noreuse.to_string(), "noreuse");
    }

    /// The share of `file`'s pages in the page cache (mincore on a map of it).
    fn resident_share(file: &File) -> f64 {
        // SAFETY: a private read-only map of a file this test owns and does not change.
        let map = unsafe { memmap2::Mmap::map(file) }.unwrap();
        let pages = map.len().div_ceil(4096);
        let mut vec = vec![0u8; pages];
        // SAFETY: `vec` has one byte per page of the mapping.
        let rc = unsafe { libc::mincore(map.as_ptr() as *mut _, map.len(), vec.as_mut_ptr()) };
        assert_eq!(rc, 0, "mincore: {}", std::io::Error::last_os_error());
        vec.iter().filter(|&&b| b & 1 == 1).count() as f64 / pages as f64
    }

    #[test]
    fn a_read_methods_setup_gives_its_file_the_hint() {
        use std::io::Write;
        // On the disk the tests build on (not a tmpfs, which cannot evict).
        let mut file = tempfile::tempfile_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        file.write_all(&vec![7u8; 8 << 20]).unwrap();
        file.sync_all().unwrap();
        // SAFETY: a valid descriptor.
        let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(rc, 0);
        assert!(resident_share(&file) < 0.05, "evicted before the setup");
        let layout = crate::pattern::Layout {
            file_size: 8 << 20,
            block_size: 4096,
        };
        let reopened = file.try_clone().unwrap();
        let mut method =
            super::super::read::ReadMethod::new(reopened, layout, super::super::read::Call::Pread)
                .fadvise(Some(Fadvise::Willneed));
        super::super::Method::setup(&mut method).unwrap();
        // WILLNEED starts the reads and returns: wait for them.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut share = resident_share(&file);
        while share < 0.95 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
            share = resident_share(&file);
        }
        assert!(
            share >= 0.95,
            "setup with willneed read {share:.2} of the file in"
        );
    }

    #[test]
    fn a_pipe_refuses_the_hint_with_one_line() {
        let (r, _w) = nix::unistd::pipe().unwrap();
        let file = File::from(r);
        let err = apply(&file, Some(Fadvise::Random)).unwrap_err().to_string();
        assert!(err.starts_with("posix_fadvise(random) failed: "), "{err}");
    }
}
