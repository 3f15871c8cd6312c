//! Trace replay (`--trace FILE`): a recorded sequence of reads, each with its
//! own offset and length, replayed in its order.
//!
//! Three formats, told apart by their first line or named explicitly:
//! fio iologs version 2 and 3 ([`fio`]), `strace` output ([`strace`]) and a
//! plain `offset,length` CSV ([`csv`]). Every parser feeds a collector
//! with the operations of every file the trace touches; the one to replay is
//! chosen afterwards ([`Follow`]). Writes are kept apart, never replayed; a
//! malformed line is one error naming its line, never a panic.
//!
//! A trace becomes a [`BlockOrder`] through [`Trace::order`], which refuses
//! reads past the end of the file (naming the line) and gives
//! [`BlockOrder::Listed`] when every read is exactly one block of the layout,
//! [`BlockOrder::Extents`] otherwise. Write methods replay the trace's
//! writes the same way ([`Ops::Writes`]).
//!
//! A case holds a [`TraceRef`]: the trace's path, the BLAKE3 hash of its
//! bytes, its format and the file followed. Each trial child parses the
//! trace again ([`TraceRef::load`], before any clock starts) and refuses to
//! run when the hash differs, so every trial of every method, resumed runs
//! included, replays exactly the same operations, while the trial spec sent
//! to the child stays one short line however long the trace is.
use std::fmt;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{BlockOrder, Extent, Layout};
use collect::{Collector, Kind};

mod collect;
pub mod csv;
pub mod fio;
pub mod strace;
mod strace_line;

#[cfg(test)]
mod tests;

/// The format of a trace file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// fio iolog version 2: `FILE ACTION [OFFSET LENGTH]`.
    FioV2,
    /// fio iolog version 3: `USEC FILE ACTION [OFFSET LENGTH]`.
    FioV3,
    /// `strace` output (with or without `-f`, `-tt`, `-T`, `-y`).
    Strace,
    /// `offset,length` lines, with an optional header.
    Csv,
}

impl TraceFormat {
    /// Tells the format from the first line that is neither blank nor a
    /// `#` comment; `None` when it looks like none of them.
    pub fn detect(first_line: &str) -> Option<TraceFormat> {
        let s = first_line.trim();
        if s.starts_with("fio version 2 iolog") {
            Some(TraceFormat::FioV2)
        } else if s.starts_with("fio version") {
            Some(TraceFormat::FioV3) // version 3, or one the fio parser refuses
        } else if csv::looks_like(s) {
            Some(TraceFormat::Csv)
        } else if strace_line::looks_like(s) {
            Some(TraceFormat::Strace)
        } else {
            None
        }
    }

    fn is_fio(self) -> bool {
        matches!(self, TraceFormat::FioV2 | TraceFormat::FioV3)
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TraceFormat::FioV2 => "fio-v2",
            TraceFormat::FioV3 => "fio-v3",
            TraceFormat::Strace => "strace",
            TraceFormat::Csv => "csv",
        })
    }
}

impl FromStr for TraceFormat {
    type Err = TraceError;
    /// `fio` (version from the header), `fio-v2`, `fio-v3`, `strace`, `csv`.
    fn from_str(s: &str) -> Result<Self, TraceError> {
        match s {
            "fio" | "fio-v3" => Ok(TraceFormat::FioV3),
            "fio-v2" => Ok(TraceFormat::FioV2),
            "strace" => Ok(TraceFormat::Strace),
            "csv" => Ok(TraceFormat::Csv),
            _ => Err(TraceError::Options(format!(
                "unknown trace format '{s}' (one of: fio, fio-v2, fio-v3, strace, csv)"
            ))),
        }
    }
}

/// Which file of a trace to replay.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Follow {
    /// The file (or, for strace, the file descriptor of unknown path) with
    /// the most reads; the first one seen on a tie.
    #[default]
    Busiest,
    /// The file with this path: equal to it, or ending with `/` and it.
    Path(String),
    /// The reads made through this file descriptor (strace only).
    Fd(i32),
}

/// How to parse a trace.
#[derive(Clone, Debug, Default)]
pub struct TraceOptions {
    /// The format, or `None` to tell it from the first line. For fio, the
    /// header decides between version 2 and 3.
    pub format: Option<TraceFormat>,
    /// Which file to replay.
    pub follow: Follow,
    /// Size of the traced file, for an strace `lseek(.., SEEK_END)` whose
    /// result was not recorded (a recorded result is always used first).
    pub file_size: Option<u64>,
}

/// One operation of a trace: `len` bytes at `offset`, from line `line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceOp {
    /// Byte offset.
    pub offset: u64,
    /// Length in bytes: for strace, what the call returned.
    pub len: u32,
    /// Line of the trace file (1-based).
    pub line: u32,
}

/// What was left out of the replay, and why.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Skipped {
    /// Reads of the followed file that returned 0 bytes (end of file).
    pub empty: u64,
    /// Reads of the followed file that failed (`= -1 EAGAIN`, `= ?`).
    pub failed: u64,
    /// Reads and writes of other files.
    pub other_files: u64,
    /// Lines that are not reads or writes: opens, seeks, syncs, trims, waits,
    /// signals, other system calls.
    pub other: u64,
}

/// A parsed trace: the reads to replay, in order, and the writes left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The format it was read as.
    pub format: TraceFormat,
    /// The file followed: its path, `fd N` when strace never showed its
    /// path, or `None` for a CSV.
    pub target: Option<String>,
    /// The reads, in trace order.
    pub reads: Vec<TraceOp>,
    /// The writes, in trace order: counted and reported, not replayed.
    pub writes: Vec<TraceOp>,
    /// What else was left out.
    pub skipped: Skipped,
}

/// Why a trace could not be used. Every message is one line and names the
/// trace's line when there is one.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The trace could not be read.
    #[error("reading the trace: {0}")]
    Read(#[from] std::io::Error),
    /// A line that does not parse.
    #[error("line {line}: {why}")]
    Malformed {
        /// Line number (1-based).
        line: u32,
        /// What is wrong, quoting the offending text.
        why: String,
    },
    /// A read that ends past the end of the file to replay it on.
    #[error(
        "line {line}: read of {len} bytes at offset {offset} ends past the end of the file \
         ({file_size} bytes)"
    )]
    PastEnd {
        /// Line number.
        line: u32,
        /// Offset of the read.
        offset: u64,
        /// Its length.
        len: u32,
        /// The file's size.
        file_size: u64,
    },
    /// Nothing to replay, or options that do not fit the trace.
    #[error("{0}")]
    Options(String),
}

impl From<TraceError> for crate::error::Error {
    /// A trace that cannot be replayed is a usage error (its message names
    /// the line).
    fn from(e: TraceError) -> Self {
        crate::error::Error::Plan(e.to_string())
    }
}

impl TraceError {
    fn at(line: u32, why: impl Into<String>) -> TraceError {
        TraceError::Malformed {
            line,
            why: why.into(),
        }
    }
}

/// Which operations of a trace a case replays: its reads (read methods) or
/// its writes (write methods).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ops {
    /// The reads.
    Reads,
    /// The writes.
    Writes,
}

impl Ops {
    /// `read` or `write`, for messages.
    fn noun(self) -> &'static str {
        match self {
            Ops::Reads => "read",
            Ops::Writes => "write",
        }
    }
}

impl Trace {
    /// The operations `ops` names.
    pub fn ops(&self, ops: Ops) -> &[TraceOp] {
        match ops {
            Ops::Reads => &self.reads,
            Ops::Writes => &self.writes,
        }
    }

    /// Refuses a read that ends past `file_size`, naming its line.
    pub fn check(&self, file_size: u64) -> Result<(), TraceError> {
        self.check_ops(Ops::Reads, file_size)
    }

    /// Refuses an operation of `ops` that ends past `file_size`, naming its line.
    pub fn check_ops(&self, ops: Ops, file_size: u64) -> Result<(), TraceError> {
        match self
            .ops(ops)
            .iter()
            .find(|op| op.offset as u128 + op.len as u128 > file_size as u128)
        {
            Some(op) if ops == Ops::Reads => Err(TraceError::PastEnd {
                line: op.line,
                offset: op.offset,
                len: op.len,
                file_size,
            }),
            Some(op) => Err(TraceError::at(
                op.line,
                format!(
                    "write of {} bytes at offset {} ends past the end of the file ({file_size} bytes)",
                    op.len, op.offset
                ),
            )),
            None => Ok(()),
        }
    }

    /// The order of the reads on a file cut by `layout`, after [`Trace::check`].
    pub fn order(&self, layout: Layout) -> Result<BlockOrder, TraceError> {
        self.order_of(Ops::Reads, layout)
    }

    /// The order of `ops` on a file cut by `layout`, after
    /// [`Trace::check_ops`]: block indices when every operation is exactly
    /// one block, extents otherwise. Zero-byte operations are left out.
    pub fn order_of(&self, ops: Ops, layout: Layout) -> Result<BlockOrder, TraceError> {
        self.check_ops(ops, layout.file_size)?;
        let list = self.ops(ops);
        if list.is_empty() {
            return Err(TraceError::Options(format!(
                "the trace has no {}s to replay",
                ops.noun()
            )));
        }
        let whole_block = |op: &TraceOp| {
            op.offset.is_multiple_of(layout.block_size)
                && op.offset / layout.block_size <= u32::MAX as u64
                && layout.block(op.offset / layout.block_size).1 == op.len as usize
        };
        if list.iter().all(whole_block) {
            let v = list.iter().map(|op| (op.offset / layout.block_size) as u32);
            return Ok(BlockOrder::Listed(v.collect()));
        }
        Ok(BlockOrder::Extents(
            list.iter()
                .filter(|op| op.len > 0)
                .map(|op| Extent {
                    offset: op.offset,
                    len: op.len,
                })
                .collect(),
        ))
    }

    /// Total bytes of the reads.
    pub fn read_bytes(&self) -> u64 {
        self.bytes(Ops::Reads)
    }

    /// Total bytes of `ops`.
    pub fn bytes(&self, ops: Ops) -> u64 {
        self.ops(ops).iter().map(|op| op.len as u64).sum()
    }

    /// The longest operation of `ops`, bytes.
    pub fn longest(&self, ops: Ops) -> u64 {
        self.ops(ops)
            .iter()
            .map(|op| u64::from(op.len))
            .max()
            .unwrap_or(0)
    }

    /// The first operation of `ops` whose offset or length is not a multiple
    /// of `alignment` (O_DIRECT needs both aligned): its line, offset and length.
    pub fn misaligned(&self, ops: Ops, alignment: u64) -> Option<&TraceOp> {
        self.ops(ops).iter().find(|op| {
            !op.offset.is_multiple_of(alignment) || !u64::from(op.len).is_multiple_of(alignment)
        })
    }
}

/// A trace as a case holds it: where it is, the hash of its bytes, how it
/// was read and what it holds. See the module docs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TraceRef {
    /// The trace file (absolute when the user's path could be resolved).
    pub path: PathBuf,
    /// BLAKE3 of the trace file's bytes, hex.
    pub blake3: String,
    /// The format it was read as (detected, or `--trace-format`).
    pub format: TraceFormat,
    /// Which file of the trace is replayed.
    pub follow: Follow,
    /// The file the trace followed (its path as traced, `fd N`), if named.
    #[serde(default)]
    pub target: Option<String>,
    /// Reads replayed by read methods.
    pub reads: u64,
    /// Their bytes.
    pub read_bytes: u64,
    /// Writes: replayed by write methods, skipped by read methods.
    pub writes: u64,
    /// Their bytes.
    pub write_bytes: u64,
    /// The longest read, bytes (a read method's buffer, and the case's block size).
    pub longest_read: u64,
    /// The longest write, bytes.
    pub longest_write: u64,
    /// What the trace holds that is neither replayed read nor write.
    #[serde(default)]
    pub skipped: Skipped,
}

impl TraceRef {
    /// Reads and parses the trace at `path`, hashing its bytes as it goes.
    /// Errors are one line naming the file (and the trace's line).
    pub fn open(path: &Path, options: &TraceOptions) -> crate::error::Result<(TraceRef, Trace)> {
        let (trace, blake3) = parse_hashed(path, options)?;
        let reference = TraceRef {
            path: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
            blake3,
            format: trace.format,
            follow: options.follow.clone(),
            target: trace.target.clone(),
            reads: trace.reads.len() as u64,
            read_bytes: trace.bytes(Ops::Reads),
            writes: trace.writes.len() as u64,
            write_bytes: trace.bytes(Ops::Writes),
            longest_read: trace.longest(Ops::Reads),
            longest_write: trace.longest(Ops::Writes),
            skipped: trace.skipped,
        };
        Ok((reference, trace))
    }

    /// Parses the trace again, as the case recorded it, and refuses a trace
    /// whose bytes changed since the case was planned.
    pub fn load(&self, file_size: Option<u64>) -> crate::error::Result<Trace> {
        let options = TraceOptions {
            format: Some(self.format),
            follow: self.follow.clone(),
            file_size,
        };
        let (trace, blake3) = parse_hashed(&self.path, &options)?;
        if blake3 != self.blake3 {
            return Err(crate::error::Error::BadFile {
                path: self.path.clone(),
                why: "the trace changed since the run was planned (its BLAKE3 hash differs);                       start a new run to replay it"
                    .into(),
            });
        }
        Ok(trace)
    }

    /// One line on what the trace holds, e.g. `fio-v3 trace of data.bin: 64
    /// reads (256 KiB, up to 4 KiB each), 0 writes`.
    pub fn describe(&self) -> String {
        let size = crate::size::format_size;
        let mut line = format!(
            "{} {} of {}: {} reads ({}, up to {} each), {} writes ({})",
            self.format,
            self.name(),
            self.target.as_deref().unwrap_or("its file"),
            self.reads,
            size(self.read_bytes),
            size(self.longest_read),
            self.writes,
            size(self.write_bytes)
        );
        let s = self.skipped;
        let left_out = [
            (s.empty, "reads at end of file"),
            (s.failed, "failed calls"),
            (s.other_files, "operations on other files"),
        ];
        let parts: Vec<String> = left_out
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
        if !parts.is_empty() {
            line.push_str(&format!("; left out: {}", parts.join(", ")));
        }
        line
    }

    /// The file name of the trace, for labels.
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.path.display().to_string())
    }
}

/// A trace as the plan is made from it: its reference (what cases hold)
/// and its operations (to check them against the files before any trial).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedTrace {
    /// What the cases hold.
    pub reference: TraceRef,
    /// The parsed trace.
    pub trace: Trace,
}

/// A reader that hashes what passes through it.
struct Hashing<R> {
    inner: R,
    hasher: blake3::Hasher,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// Parses the trace at `path` and returns it with the BLAKE3 hash of all its bytes.
fn parse_hashed(path: &Path, options: &TraceOptions) -> crate::error::Result<(Trace, String)> {
    let refuse = |why: String| crate::error::Error::BadFile {
        path: path.to_path_buf(),
        why,
    };
    // Opened as every input is: a regular file only (a trace is read again
    // by every trial), never waiting on a FIFO.
    let file = crate::input::open(path, "trace file").map_err(|e| match e {
        crate::error::Error::BadFile { why, .. } if why.contains("not a regular file") => {
            refuse(why.replace(
                "give the trace file as a regular file (faultline never reads from a pipe or a device)",
                "a trace is read again by every trial, so give a regular file",
            ))
        }
        other => other,
    })?;
    let mut reader = std::io::BufReader::with_capacity(
        1 << 16,
        Hashing {
            inner: file,
            hasher: blake3::Hasher::new(),
        },
    );
    let bad = |e: TraceError| crate::error::Error::BadFile {
        path: path.to_path_buf(),
        why: e.to_string(),
    };
    let trace = parse(&mut reader, options).map_err(bad)?;
    // Whatever the parser did not read (nothing, normally) is hashed too.
    std::io::copy(&mut reader, &mut std::io::sink()).map_err(|e| bad(TraceError::Read(e)))?;
    let hash = reader.into_inner().hasher.finalize().to_hex().to_string();
    Ok((trace, hash))
}

/// Parses a trace from a reader, line by line.
pub fn parse(mut reader: impl BufRead, options: &TraceOptions) -> Result<Trace, TraceError> {
    let mut parser: Option<Box<dyn LineParser>> = None;
    let mut format = options.format;
    let mut out = Collector::default();
    let mut buf = Vec::new();
    let mut number: u32 = 0;
    loop {
        buf.clear();
        if crate::input::read_line(&mut reader, &mut buf, crate::input::MAX_TRACE_LINE).map_err(
            |e| match e.kind() {
                std::io::ErrorKind::InvalidData => {
                    TraceError::at(number.saturating_add(1), e.to_string())
                }
                _ => TraceError::Read(e),
            },
        )? == 0
        {
            break;
        }
        number = number
            .checked_add(1)
            .ok_or_else(|| TraceError::Options("the trace has more than 2^32 lines".into()))?;
        let text = String::from_utf8_lossy(&buf);
        let line = text.trim_end_matches(['\n', '\r']);
        if parser.is_none() {
            if line.trim().is_empty() || (format.is_none() && line.starts_with('#')) {
                continue;
            }
            let f = match format {
                Some(f) if f.is_fio() => TraceFormat::FioV3,
                Some(f) => f,
                None => TraceFormat::detect(line).ok_or_else(|| {
                    TraceError::at(
                        number,
                        format!(
                            "cannot tell the trace format from '{}' (fio iolog, strace output \
                             or offset,length CSV); name it with --trace-format",
                            clip(line)
                        ),
                    )
                })?,
            };
            let p: Box<dyn LineParser> = match f {
                TraceFormat::FioV2 | TraceFormat::FioV3 => Box::new(fio::FioParser::default()),
                TraceFormat::Strace => Box::new(strace::StraceParser::new(options.file_size)),
                TraceFormat::Csv => Box::new(csv::CsvParser::default()),
            };
            parser = Some(p);
        }
        let p = parser.as_mut().expect("set above");
        p.line(number, line, &mut out)?;
        if let Some(f) = p.format() {
            format = Some(f);
        }
    }
    let Some(mut parser) = parser else {
        return Err(TraceError::Options("the trace is empty".into()));
    };
    parser.finish(&mut out);
    let format = parser
        .format()
        .or(format)
        .expect("known once a line was parsed");
    out.select(format, &options.follow)
}

/// Parses a trace held in a string.
pub fn parse_str(text: &str, options: &TraceOptions) -> Result<Trace, TraceError> {
    parse(text.as_bytes(), options)
}

/// One format's parser, fed one line at a time.
trait LineParser {
    /// Handles line `number` (without its line ending).
    fn line(&mut self, number: u32, line: &str, out: &mut Collector) -> Result<(), TraceError>;
    /// Called after the last line.
    fn finish(&mut self, _out: &mut Collector) {}
    /// The exact format, once known.
    fn format(&self) -> Option<TraceFormat>;
}

/// The first 60 characters of a line, for messages.
fn clip(line: &str) -> String {
    match line.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}
