//! `strace` output, e.g. from
//! `strace -f -e trace=openat,read,pread64,preadv,preadv2,readv,lseek,close,dup2 -o FILE CMD`.
//!
//! Reads are `read`, `readv` (at the file offset), `pread64`, `preadv` and
//! `preadv2` (at their own offset; `preadv2` with offset -1 uses the file
//! offset); writes are their `write` counterparts. Each read is replayed with
//! the byte count it *returned*, so a short read is replayed short and a read
//! that returned 0 (end of file) or failed (`= -1 EAGAIN ...`, `= ?`) is
//! skipped and counted.
//!
//! The file offset is tracked per open file, as the kernel does: `openat`
//! (or `open`, `creat`) starts one at 0; `dup`, `dup2` and `dup3` share it
//! with the new descriptor; `read`, `readv` and writes move it by what they
//! returned; `lseek` sets it to its result, or, if strace recorded none, to
//! what SEEK_SET, SEEK_CUR or SEEK_END (with the file size given) imply. A
//! descriptor first seen without an open (inherited, or a trace attached
//! with `-p`) starts at offset 0. The file's path comes from the `openat`
//! argument or from `-y` decorations (`read(5</tmp/f>, ...)`); a file never
//! opened in the trace is called `fd N`.
//!
//! With `-f`, several processes may use the same descriptor number for
//! different files at once (fio's job reads its file on descriptor 6 while
//! fio's disk-stats thread opens `/sys/block/*/stat` on its own 6). So a
//! descriptor a process (strace's pid column) opened or duplicated itself
//! is looked up in that process's own table first; one it never opened (a
//! thread sharing another's table, a child inheriting its parent's) is the
//! file most recently opened under that number by anyone. `O_APPEND`
//! writes and `fcntl(F_DUPFD)` are not modelled.
//!
//! With `-f`, a call cut by another thread's line (`read(3,  <unfinished ...>`)
//! is joined with its `<... read resumed>` line and placed at the latter,
//! when it completed.
use std::collections::HashMap;

use super::strace_line::{classify, fd_arg, parse_call, string_arg, Call, Line};
use super::{clip, Collector, Kind, LineParser, TraceError, TraceFormat};

/// An open file: its trace target and its file offset.
#[derive(Debug)]
struct Stream {
    target: u32,
    cursor: u64,
}

/// Parses strace lines, tracking descriptors and offsets.
#[derive(Debug)]
pub(super) struct StraceParser {
    file_size: Option<u64>,
    /// Descriptors each process opened or duplicated itself: (pid, fd) → stream.
    own: HashMap<(u32, i32), usize>,
    /// The stream most recently opened under each descriptor number, by anyone.
    latest: HashMap<i32, usize>,
    streams: Vec<Stream>,
    pending: HashMap<u32, String>,
}

impl StraceParser {
    /// A parser; `file_size` serves `lseek(.., SEEK_END)` without a result.
    pub(super) fn new(file_size: Option<u64>) -> StraceParser {
        StraceParser {
            file_size,
            own: HashMap::new(),
            latest: HashMap::new(),
            streams: Vec::new(),
            pending: HashMap::new(),
        }
    }

    /// The open file behind `fd` in process `pid`: its own, else the latest
    /// opened under that number, else made up (offset 0). A `-y` path that
    /// disagrees with the table wins: strace saw the file.
    fn stream(&mut self, pid: u32, fd: i32, path: Option<&str>, out: &mut Collector) -> usize {
        let known = self
            .own
            .get(&(pid, fd))
            .or_else(|| self.latest.get(&fd))
            .copied();
        if let Some(s) = known {
            if path.is_none_or(|p| out.target(p) == self.streams[s].target) {
                return s;
            }
        }
        let name = path.map_or_else(|| format!("fd {fd}"), str::to_string);
        self.open(pid, fd, &name, out)
    }

    fn open(&mut self, pid: u32, fd: i32, name: &str, out: &mut Collector) -> usize {
        let target = out.target(name);
        self.streams.push(Stream { target, cursor: 0 });
        let s = self.streams.len() - 1;
        self.bind(pid, fd, s);
        s
    }

    /// Makes `fd` in `pid` (and the latest under that number) mean stream `s`.
    fn bind(&mut self, pid: u32, fd: i32, s: usize) {
        self.own.insert((pid, fd), s);
        self.latest.insert(fd, s);
    }

    /// `close(fd)` in `pid`: forgets its own binding, and the latest if it
    /// was the same file (or if the process closed one it never opened).
    fn close(&mut self, pid: u32, fd: i32) {
        match self.own.remove(&(pid, fd)) {
            Some(s) if self.latest.get(&fd) != Some(&s) => {}
            _ => {
                self.latest.remove(&fd);
            }
        }
    }

    fn call(
        &mut self,
        pid: u32,
        number: u32,
        text: &str,
        out: &mut Collector,
    ) -> Result<(), TraceError> {
        let name = &text[..text.find('(').unwrap_or(0)];
        let (offset_at, write) = match name {
            "read" | "readv" => (None, false),
            "pread64" | "preadv" | "preadv2" => (Some(3), false),
            "write" | "writev" => (None, true),
            "pwrite64" | "pwritev" | "pwritev2" => (Some(3), true),
            "lseek" | "open" | "openat" | "openat2" | "creat" | "close" | "dup" | "dup2"
            | "dup3" => {
                out.other += 1;
                return self.bookkeeping(pid, number, text, out);
            }
            _ => {
                out.other += 1;
                return Ok(());
            }
        };
        let bad =
            |why: String| TraceError::at(number, format!("{name}: {why} in '{}'", clip(text)));
        let call = parse_call(text).map_err(|why| bad(why.to_string()))?;
        let needed = offset_at.map_or(3, |i| i + 1);
        if call.args.len() < needed {
            return Err(bad(format!("expected at least {needed} arguments")));
        }
        let (fd, path) = fd_arg(call.args[0])
            .ok_or_else(|| bad("the first argument is not a descriptor".into()))?;
        let s = self.stream(pid, fd, path, out);
        let n = match call.result {
            Some(n) if n > 0 => n as u64,
            result => {
                match (write, result) {
                    (true, _) => out.other += 1,
                    (false, Some(0)) => {
                        out.push(self.streams[s].target, Some(fd), Kind::Empty, 0, 0, number)?
                    }
                    (false, _) => {
                        out.push(self.streams[s].target, Some(fd), Kind::Failed, 0, 0, number)?
                    }
                }
                return Ok(());
            }
        };
        let explicit = match offset_at {
            Some(i) => {
                let o: i64 = call.args[i]
                    .parse()
                    .map_err(|_| bad(format!("offset '{}' is not a number", call.args[i])))?;
                match o {
                    -1 if name.ends_with("v2") => None,
                    o if o < 0 => return Err(bad(format!("negative offset {o}"))),
                    o => Some(o as u64),
                }
            }
            None => None,
        };
        let offset = match explicit {
            Some(o) => o,
            None => {
                let stream = &mut self.streams[s];
                let at = stream.cursor;
                stream.cursor = at
                    .checked_add(n)
                    .ok_or_else(|| bad("the file offset overflows".into()))?;
                at
            }
        };
        let kind = if write { Kind::Write } else { Kind::Read };
        out.push(self.streams[s].target, Some(fd), kind, offset, n, number)
    }

    /// `lseek`, opens, `close` and `dup*`: they change offsets and descriptors.
    fn bookkeeping(
        &mut self,
        pid: u32,
        number: u32,
        text: &str,
        out: &mut Collector,
    ) -> Result<(), TraceError> {
        let name = text.split('(').next().unwrap_or(text);
        let call = parse_call(text)
            .map_err(|why| TraceError::at(number, format!("{name}: {why} in '{}'", clip(text))))?;
        let bad = |why: String| {
            TraceError::at(number, format!("{}: {why} in '{}'", call.name, clip(text)))
        };
        let fd_of = |i: usize| {
            call.args
                .get(i)
                .and_then(|a| fd_arg(a))
                .ok_or_else(|| bad(format!("argument {} is not a descriptor", i + 1)))
        };
        match call.name {
            "lseek" => {
                let (fd, path) = fd_of(0)?;
                let s = self.stream(pid, fd, path, out);
                let to = self.seek(&call, self.streams[s].cursor).map_err(bad)?;
                if let Some(to) = to {
                    self.streams[s].cursor = to;
                }
            }
            "open" | "creat" | "openat" | "openat2" => {
                let Some(fd) = call
                    .result
                    .filter(|&r| r >= 0)
                    .and_then(|r| i32::try_from(r).ok())
                else {
                    return Ok(());
                };
                let path_at = if call.name.starts_with("openat") {
                    1
                } else {
                    0
                };
                let name = call
                    .result_path
                    .map(str::to_string)
                    .or_else(|| call.args.get(path_at).and_then(|a| string_arg(a)))
                    .unwrap_or_else(|| format!("fd {fd}"));
                self.open(pid, fd, &name, out);
            }
            "close" => {
                let (fd, _) = fd_of(0)?;
                self.close(pid, fd);
            }
            _ => {
                let Some(new) = call
                    .result
                    .filter(|&r| r >= 0)
                    .and_then(|r| i32::try_from(r).ok())
                else {
                    return Ok(());
                };
                let (old, path) = fd_of(0)?;
                let s = self.stream(pid, old, path, out);
                self.bind(pid, new, s);
            }
        }
        Ok(())
    }

    /// Where an `lseek` left the offset: its result, or what its arguments
    /// imply when strace recorded none; `None` when it failed.
    fn seek(&self, call: &Call<'_>, cursor: u64) -> Result<Option<u64>, String> {
        match call.result {
            Some(to) if to >= 0 => return Ok(Some(to as u64)),
            Some(_) => return Ok(None),
            None => {}
        }
        let (Some(offset), Some(whence)) = (call.args.get(1), call.args.get(2)) else {
            return Err("expected 3 arguments".into());
        };
        let offset: i64 = offset
            .parse()
            .map_err(|_| format!("offset '{offset}' is not a number"))?;
        let base = match *whence {
            "SEEK_SET" => 0,
            "SEEK_CUR" => cursor,
            "SEEK_END" => self.file_size.ok_or(
                "SEEK_END without a recorded result needs the traced file's size".to_string(),
            )?,
            other => {
                return Err(format!(
                    "cannot tell where {other} without a result leaves the offset"
                ))
            }
        };
        match base.checked_add_signed(offset) {
            Some(to) => Ok(Some(to)),
            None => Err(format!("seeks to {base} + {offset}, outside 0..2^64")),
        }
    }
}

impl LineParser for StraceParser {
    fn line(&mut self, number: u32, line: &str, out: &mut Collector) -> Result<(), TraceError> {
        if line.trim().is_empty() {
            return Ok(());
        }
        match classify(line) {
            None => Err(TraceError::at(
                number,
                format!("not strace output: '{}'", clip(line)),
            )),
            Some(Line::Note) => Ok(()),
            Some(Line::Call { pid, text }) => self.call(pid, number, text, out),
            Some(Line::Unfinished { pid, text }) => {
                if self.pending.insert(pid, text.to_string()).is_some() {
                    out.other += 1;
                }
                Ok(())
            }
            Some(Line::Resumed { pid, name, rest }) => match self.pending.remove(&pid) {
                Some(first) if first.split_once('(').is_some_and(|(n, _)| n == name) => {
                    self.call(pid, number, &(first + rest), out)
                }
                _ => {
                    out.other += 1;
                    Ok(())
                }
            },
        }
    }

    fn finish(&mut self, out: &mut Collector) {
        out.other += self.pending.len() as u64;
        self.pending.clear();
    }

    fn format(&self) -> Option<TraceFormat> {
        Some(TraceFormat::Strace)
    }
}
