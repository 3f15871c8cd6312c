//! The durability options beyond `--sync` and `--sync-call`: the open flag
//! that makes every write synchronous (`--open-sync`, `O_DSYNC` or `O_SYNC`)
//! and how `mmap-write` msyncs (`--msync`, `MS_SYNC` or `MS_ASYNC`).
//!
//! The open flag is the trial's business (it opens the file); the methods
//! that write through a descriptor declare [`super::MethodOption::OpenSync`]
//! and the trial adds [`OpenSync::flags`] when it opens their file.
use serde::{Deserialize, Serialize};

/// The flag a write method's file is opened with so that each write is
/// durable before it returns.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
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
pub enum OpenSync {
    /// Neither: a write returns once its bytes are in the page cache.
    #[default]
    None,
    /// O_DSYNC: each write returns once its data (and the metadata needed to read it) is durable.
    Dsync,
    /// O_SYNC: each write returns once its data and all its metadata are durable.
    Sync,
}

impl OpenSync {
    /// The open(2) flags it adds.
    pub fn flags(self) -> libc::c_int {
        match self {
            OpenSync::None => 0,
            OpenSync::Dsync => libc::O_DSYNC,
            OpenSync::Sync => libc::O_SYNC,
        }
    }
}

/// How `mmap-write` syncs the pages it stored into (with `--sync end` or `each`).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
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
pub enum Msync {
    /// msync(MS_SYNC): returns once the pages are written back.
    #[default]
    Sync,
    /// msync(MS_ASYNC): schedules write-back and returns (on Linux it only
    /// checks the range: dirty shared pages are already tracked).
    Async,
}

display_as_value_name!(OpenSync, Msync);

/// sync_file_range(fd, offset, len, WAIT_BEFORE | WRITE | WAIT_AFTER): writes
/// the range's dirty pages out and waits for them; `len` 0 means to the end
/// of the file. It writes no metadata and flushes no device cache, so it is
/// not a durability guarantee (see sync_file_range(2)).
pub(super) fn sync_file_range(fd: libc::c_int, offset: u64, len: u64) -> std::io::Result<()> {
    let flags = libc::SYNC_FILE_RANGE_WAIT_BEFORE
        | libc::SYNC_FILE_RANGE_WRITE
        | libc::SYNC_FILE_RANGE_WAIT_AFTER;
    // SAFETY: a plain system call on a descriptor the caller owns.
    let rc =
        unsafe { libc::sync_file_range(fd, offset as libc::off64_t, len as libc::off64_t, flags) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::io::AsRawFd;

    #[test]
    fn open_flags_are_the_posix_ones() {
        assert_eq!(OpenSync::None.flags(), 0);
        assert_eq!(OpenSync::Dsync.flags(), libc::O_DSYNC);
        assert_eq!(OpenSync::Sync.flags(), libc::O_SYNC);
        assert_eq!(OpenSync::Dsync.to_string(), "dsync");
        assert_eq!(Msync::Async.to_string(), "async");
    }

    #[test]
    fn sync_file_range_writes_a_range_and_refuses_a_bad_descriptor() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&[7u8; 8192]).unwrap();
        sync_file_range(file.as_raw_fd(), 4096, 4096).unwrap();
        sync_file_range(file.as_raw_fd(), 0, 0).unwrap();
        let err = sync_file_range(-1, 0, 0).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EBADF));
    }
}
