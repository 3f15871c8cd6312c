//! I/O methods: the paths bytes take between a file and the program.
//!
//! A method knows nothing of clocks, statistics or output: the trial calls
//! [`Method::setup`], [`Method::run`], [`Method::sync`] and
//! [`Method::teardown`] and times each call itself. The one exception is the
//! syncs a write method makes inside its main loop (`--sync each`): it runs
//! them through a [`SyncTimer`] the trial gives it, so that their time can be
//! reported apart. Adding a method is one file plus a line in [`MethodKind`].
use std::fs::File;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

pub mod aligned;
pub mod direct;
mod direct_write;
mod mmap;
mod mmap_write;
mod options;
mod preadv;
mod read;
mod stdio;
pub mod uring;
mod uring_write;
mod write;

pub use mmap::{Advice, MmapMethod, MmapOptions, Populate, Share};
pub use mmap_write::SizeWith;
pub use options::{IoOptions, Switch, DEFAULT_STDIO_BUFFER};
pub use preadv::{DEFAULT_IOV, MAX_IOV};
pub use uring::{DEFAULT_DEPTH, MAX_DEPTH};
pub use write::{SyncCall, SyncPolicy};

/// What the main loop did, counted by the method itself (no clocks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopCounts {
    /// I/O system calls issued in the main loop (read, pread, write, pwrite,
    /// lseek, and the syncs of `--sync each`); 0 for plain access through a mapping.
    pub syscalls: u64,
    /// Bytes delivered to the workload (read methods) or written (write methods).
    pub bytes: u64,
}

/// Runs the sync calls a write method makes inside its main loop, timing
/// each, so that their total can be reported apart from the loop. The trial
/// provides it; methods never read a clock themselves.
pub trait SyncTimer {
    /// Calls `sync` once and adds its duration to the total.
    fn time(&mut self, sync: &mut dyn FnMut() -> std::io::Result<()>) -> std::io::Result<()>;
}

/// A [`SyncTimer`] that only calls (for methods that never sync in their loop, and tests).
#[derive(Clone, Copy, Debug, Default)]
pub struct Untimed;

impl SyncTimer for Untimed {
    fn time(&mut self, sync: &mut dyn FnMut() -> std::io::Result<()>) -> std::io::Result<()> {
        sync()
    }
}

/// The options of the write methods.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// When the data is made durable.
    pub sync: SyncPolicy,
    /// fsync or fdatasync (every write method but `mmap-write`).
    pub sync_call: SyncCall,
    /// How `mmap-write` sizes a fresh file; `None` when the file already has its size.
    pub size_with: Option<SizeWith>,
    /// `write`, `pwrite`: the buffer is zeroed memory left untouched (calloc),
    /// not pre-faulted (`--fill calloc`).
    pub zeroed_buffer: bool,
}

/// One way of getting a file's bytes to a workload.
pub trait Method {
    /// Prepares the method: allocate and pre-fault buffers, map the file,
    /// apply advice or populate. Timed apart from the main loop.
    fn setup(&mut self) -> Result<()>;
    /// The main loop: deliver every block of `order` to `workload`.
    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts>;
    /// Makes what the main loop wrote durable (fsync or fdatasync; msync of
    /// the whole mapping for `mmap-write`). The trial calls it after the main
    /// loop, on its own clock, when the case's sync policy is `end`. Read
    /// methods have nothing to sync.
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    /// Releases what setup acquired (munmap, free). Timed apart from the main loop.
    fn teardown(&mut self) -> Result<()>;
}

/// The registry of methods, by command-line name.
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
pub enum MethodKind {
    /// read() into a block-sized buffer with a moving cursor (lseek+read for non-sequential orders).
    Read,
    /// pread() into a block-sized buffer.
    Pread,
    /// The whole file mapped once; the workload reads the mapping in place.
    Mmap,
    /// The whole file mapped once; each block is copied into a buffer first.
    MmapCopy,
    /// write() from a block-sized buffer with a moving cursor (lseek+write for non-sequential orders).
    Write,
    /// pwrite() from a block-sized buffer.
    Pwrite,
    /// The whole file mapped MAP_SHARED and stored into (a fresh file is sized first).
    MmapWrite,
    /// pread() with O_DIRECT into a buffer aligned to the device's logical block size.
    Direct,
    /// A buffered reader (std's BufReader of --stdio-buffer bytes) read in --block pieces, like C stdio.
    Stdio,
    /// preadv() of up to --iov consecutive blocks per call, each block into its own buffer.
    Preadv,
    /// io_uring reads with --depth reads in flight, delivered in order.
    Uring,
    /// io_uring reads with O_DIRECT into aligned buffers.
    UringDirect,
    /// pwrite() with O_DIRECT from a buffer aligned to the device's logical block size.
    DirectWrite,
    /// io_uring writes with --depth writes in flight (--sync each links an fsync to each write).
    UringWrite,
    /// io_uring writes with O_DIRECT from aligned buffers.
    UringDirectWrite,
}

impl MethodKind {
    /// The name used on the command line and in exports.
    pub fn name(self) -> &'static str {
        match self {
            MethodKind::Read => "read",
            MethodKind::Pread => "pread",
            MethodKind::Mmap => "mmap",
            MethodKind::MmapCopy => "mmap-copy",
            MethodKind::Write => "write",
            MethodKind::Pwrite => "pwrite",
            MethodKind::MmapWrite => "mmap-write",
            MethodKind::Direct => "direct",
            MethodKind::Stdio => "stdio",
            MethodKind::Preadv => "preadv",
            MethodKind::Uring => "uring",
            MethodKind::UringDirect => "uring-direct",
            MethodKind::DirectWrite => "direct-write",
            MethodKind::UringWrite => "uring-write",
            MethodKind::UringDirectWrite => "uring-direct-write",
        }
    }

    /// Whether the method maps the file for reading (so the mmap options
    /// `--populate`, `--advice` and `--share` apply).
    pub fn maps_file(self) -> bool {
        matches!(self, MethodKind::Mmap | MethodKind::MmapCopy)
    }

    /// Whether the method writes: it then works on a file faultline creates in
    /// its scratch directory, and takes the `fill` workload and the write options.
    pub fn writes(self) -> bool {
        matches!(
            self,
            MethodKind::Write
                | MethodKind::Pwrite
                | MethodKind::MmapWrite
                | MethodKind::DirectWrite
                | MethodKind::UringWrite
                | MethodKind::UringDirectWrite
        )
    }

    /// Whether the method syncs with fsync/fdatasync (so `--sync-call` applies).
    pub fn sync_call_applies(self) -> bool {
        self.writes() && self != MethodKind::MmapWrite
    }

    /// Builds the method for one trial over an open file (opened for writing
    /// when the method writes). `timer` times the syncs a write method makes
    /// in its main loop.
    pub fn build(
        self,
        file: File,
        layout: Layout,
        mmap: MmapOptions,
        write: WriteOptions,
        io: &IoOptions,
        timer: Box<dyn SyncTimer>,
    ) -> Box<dyn Method> {
        use write::{Call, WriteMethod};
        match self {
            MethodKind::Read => Box::new(read::ReadMethod::new(file, layout, read::Call::Read)),
            MethodKind::Pread => Box::new(read::ReadMethod::new(file, layout, read::Call::Pread)),
            MethodKind::Mmap => Box::new(mmap::MmapMethod::new(file, layout, mmap, false)),
            MethodKind::MmapCopy => Box::new(mmap::MmapMethod::new(file, layout, mmap, true)),
            MethodKind::Write => Box::new(
                WriteMethod::new(
                    file,
                    layout,
                    Call::Write,
                    write.sync,
                    write.sync_call,
                    timer,
                )
                .zeroed_buffer(write.zeroed_buffer),
            ),
            MethodKind::Pwrite => Box::new(
                WriteMethod::new(
                    file,
                    layout,
                    Call::Pwrite,
                    write.sync,
                    write.sync_call,
                    timer,
                )
                .zeroed_buffer(write.zeroed_buffer),
            ),
            MethodKind::MmapWrite => Box::new(mmap_write::MmapWriteMethod::new(
                file,
                layout,
                write.size_with,
                write.sync,
                timer,
            )),
            MethodKind::Direct => Box::new(direct::DirectMethod::new(file, layout)),
            MethodKind::Stdio => Box::new(stdio::StdioMethod::new(
                file,
                layout,
                io.stdio_buffer.unwrap_or(DEFAULT_STDIO_BUFFER),
            )),
            MethodKind::Preadv => Box::new(preadv::PreadvMethod::new(
                file,
                layout,
                io.iov.unwrap_or(DEFAULT_IOV),
            )),
            MethodKind::Uring | MethodKind::UringDirect => Box::new(uring::UringMethod::new(
                file,
                layout,
                io.depth.unwrap_or(DEFAULT_DEPTH),
                io.registered.unwrap_or(false),
                self == MethodKind::UringDirect,
            )),
            MethodKind::DirectWrite => Box::new(direct_write::DirectWriteMethod::new(
                file,
                layout,
                write.sync,
                write.sync_call,
                timer,
            )),
            MethodKind::UringWrite | MethodKind::UringDirectWrite => {
                Box::new(uring_write::UringWriteMethod::new(
                    file,
                    layout,
                    io.depth.unwrap_or(DEFAULT_DEPTH),
                    io.registered.unwrap_or(false),
                    self == MethodKind::UringDirectWrite,
                    write.sync,
                    write.sync_call,
                ))
            }
        }
    }
}

/// The error of a failed write-side call: [`Error::DiskFull`] when the file
/// system is out of space or the file reached its size limit (ENOSPC, EDQUOT,
/// EFBIG), else [`Error::Trial`].
pub(crate) fn write_error(what: impl std::fmt::Display, e: std::io::Error) -> Error {
    match e.raw_os_error() {
        Some(libc::ENOSPC | libc::EDQUOT | libc::EFBIG) => Error::DiskFull(format!("{what}: {e}")),
        _ => Error::Trial(format!("{what} failed: {e}")),
    }
}

/// A buffer of `len` bytes whose pages are already faulted in, so that the
/// first touch of the buffer is not counted in the main loop.
pub(crate) fn prefaulted_buffer(len: usize) -> Vec<u8> {
    vec![0xa5u8; len]
}

display_as_value_name!(MethodKind);
