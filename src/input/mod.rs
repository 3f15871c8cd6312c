//! The one way faultline opens and reads a file it is given: plans, JSON
//! exports (`report`, `compare`, `--baseline`), journals (`--resume`),
//! traces, PPM images and the user's `--file`.
//!
//! [`open`] opens read-only and non-blocking, then looks at what it opened:
//! anything but a regular file (a FIFO that would wait for a writer, a
//! character device such as `/dev/zero` that never ends, a directory, a
//! socket) is refused, with what it is, before a byte is read. Reading then
//! has bounds, each with a message that names it: a whole file is read only
//! up to a maximum size ([`read_limited`]), and a line only up to a maximum
//! length ([`read_line`]), so that a 3 GiB trace without a newline is one
//! clear line, not an allocation failure.
use std::fs::File;
use std::io::{BufRead, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use crate::error::{Error, Result};
use crate::size::format_size;

/// Largest plan file (`run --plan`).
pub const MAX_PLAN_BYTES: u64 = 1 << 20;
/// Largest JSON export `report`, `compare` and `--baseline` read.
pub const MAX_JSON_BYTES: u64 = 1 << 30;
/// Largest journal `--resume` reads.
pub const MAX_JOURNAL_BYTES: u64 = 4 << 30;
/// Longest journal line (one trial's record).
pub const MAX_JOURNAL_LINE: usize = 64 << 20;
/// Longest trace line (an strace line with a long quoted buffer fits).
pub const MAX_TRACE_LINE: usize = 1 << 20;

/// What kind of file a file type is, for messages.
pub fn kind(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_fifo() {
        "a FIFO (named pipe)"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Opens `path`, a `what` (`plan`, `journal`, `JSON export`, `trace`...),
/// for reading: without blocking on a FIFO, and refusing anything that is
/// not a regular file once it is open (so a file swapped for a FIFO after a
/// check is refused too). Missing and unreadable files are bad input
/// ([`Error::BadFile`]), each in its own words.
pub fn open(path: &Path, what: &str) -> Result<File> {
    let bad = |why: String| Error::BadFile {
        path: path.to_path_buf(),
        why,
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => bad(format!("no such {what}")),
            std::io::ErrorKind::PermissionDenied => bad(format!(
                "permission denied (faultline opens the {what} read-only: check its mode and the directories above it)"
            )),
            _ => bad(format!("cannot be opened as a {what}: {e}")),
        })?;
    let meta = file
        .metadata()
        .map_err(|e| bad(format!("cannot be inspected: {e}")))?;
    if !meta.is_file() {
        return Err(bad(format!(
            "is {}, not a regular file; give the {what} as a regular file (faultline never reads from a pipe or a device)",
            kind(&meta.file_type())
        )));
    }
    // Reads block normally from here (a regular file never waits anyway).
    use std::os::unix::io::AsRawFd;
    // SAFETY: fcntl on a descriptor this function owns.
    unsafe {
        let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok(file)
}

/// The refusal of a `what` at `path` that is larger than `limit` bytes.
pub fn too_large(path: &Path, what: &str, size: Option<u64>, limit: u64) -> Error {
    let size = size.map_or_else(|| "more".to_string(), |s| format!("{s} bytes"));
    Error::BadFile {
        path: path.to_path_buf(),
        why: format!(
            "is {size}, larger than the {} ({limit} bytes) a {what} may be; faultline does not read it",
            format_size(limit)
        ),
    }
}

/// A reader over `file` (opened with [`open`]) that refuses, up front, a
/// file larger than `limit`, and stops with an error if it grows past it
/// while being read.
pub fn limited(file: File, path: &Path, what: &str, limit: u64) -> Result<Limited> {
    let size = file
        .metadata()
        .map_err(|e| Error::io("stat", path, e))?
        .len();
    if size > limit {
        return Err(too_large(path, what, Some(size), limit));
    }
    Ok(Limited {
        inner: file.take(limit + 1),
        read: 0,
        limit,
        what: what.to_string(),
    })
}

/// See [`limited`].
pub struct Limited {
    inner: std::io::Take<File>,
    read: u64,
    limit: u64,
    what: String,
}

impl Read for Limited {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "grew past the {} a {} may be while it was read",
                    format_size(self.limit),
                    self.what
                ),
            ));
        }
        Ok(n)
    }
}

/// The whole of the `what` at `path`, opened with [`open`], if it is at most
/// `limit` bytes.
pub fn read_limited(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>> {
    let mut reader = limited(open(path, what)?, path, what, limit)?;
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(|e| Error::BadFile {
        path: path.to_path_buf(),
        why: e.to_string(),
    })?;
    Ok(bytes)
}

/// Reads one line (up to and including `\n`) into `buf`, as
/// `BufRead::read_until` does, but refuses a line longer than `max` bytes
/// (an `InvalidData` error naming the limit) instead of reading it whole.
/// Returns the bytes read; 0 at the end.
pub fn read_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(total);
        }
        let (take, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        if total + take > max.saturating_add(1) || (!done && total + take > max) {
            return Err(line_too_long(max));
        }
        buf.extend_from_slice(&available[..take]);
        reader.consume(take);
        total += take;
        if done {
            return Ok(total);
        }
    }
}

/// The error of a line longer than `max` bytes.
pub fn line_too_long(max: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "a line is longer than the {} faultline reads in one line",
            format_size(max as u64)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anything_but_a_regular_file_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        for (path, kind) in [
            (fifo.as_path(), "is a FIFO (named pipe)"),
            (Path::new("/dev/zero"), "is a character device"),
            (dir.path(), "is a directory"),
        ] {
            let e = open(path, "plan").unwrap_err().to_string();
            assert!(e.contains(kind), "{e}");
        }
        let e = open(&dir.path().join("absent"), "trace")
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("no such trace"), "{e}");
    }

    #[test]
    fn a_file_past_its_limit_is_refused_naming_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p");
        std::fs::write(&path, vec![b'x'; 2000]).unwrap();
        assert_eq!(read_limited(&path, "plan", 2000).unwrap().len(), 2000);
        let e = read_limited(&path, "plan", 1024).unwrap_err().to_string();
        assert!(
            e.contains("is 2000 bytes, larger than the 1 KiB (1024 bytes) a plan may be"),
            "{e}"
        );
    }

    #[test]
    fn a_line_past_its_limit_is_an_error_and_shorter_ones_read_as_read_until() {
        let text = b"ab\ncdef\n\nlast";
        let mut reader = &text[..];
        let mut lines = Vec::new();
        loop {
            let mut buf = Vec::new();
            if read_line(&mut reader, &mut buf, 4).unwrap() == 0 {
                break;
            }
            lines.push(buf);
        }
        assert_eq!(lines, [&b"ab\n"[..], b"cdef\n", b"\n", b"last"]);
        let mut reader = &b"abcdefgh\n"[..];
        let e = read_line(&mut reader, &mut Vec::new(), 4).unwrap_err();
        assert!(e.to_string().contains("longer than the 4 B"), "{e}");
        let mut endless = std::io::BufReader::new(std::io::repeat(b'x'));
        assert!(read_line(&mut endless, &mut Vec::new(), 1 << 16).is_err());
    }
}
