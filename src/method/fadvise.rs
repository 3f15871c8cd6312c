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

    #[test]
    fn a_pipe_refuses_the_hint_with_one_line() {
        let (r, _w) = nix::unistd::pipe().unwrap();
        let file = File::from(r);
        let err = apply(&file, Some(Fadvise::Random)).unwrap_err().to_string();
        assert!(err.starts_with("posix_fadvise(random) failed: "), "{err}");
    }
}
