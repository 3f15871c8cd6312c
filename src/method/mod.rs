//! I/O methods: the paths bytes take between a file and the program.
//!
//! A method knows nothing of clocks, statistics or output: the trial calls
//! [`Method::setup`], [`Method::run`], [`Method::sync`] and
//! [`Method::teardown`] and times each call itself. The one exception is the
//! syncs a write method makes inside its main loop (`--sync each`): it runs
//! them through a [`SyncTimer`] the trial gives it, so that their time can be
//! reported apart.
//!
//! Adding a method is one file plus one line in the registry below: the file
//! holds the method and its [`Spec`] (capabilities, the options that apply,
//! how to build it); the line names the variant and points at the spec.
use std::fs::File;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

pub mod aligned;
pub mod direct;
mod direct_write;
mod durability;
mod fadvise;
mod mixed;
mod mmap;
mod mmap_options;
mod mmap_write;
mod options;
mod preadv;
mod read;
mod stdio;
mod stdio_write;
pub mod uring;
mod uring_write;
mod write;

pub use durability::{Msync, OpenSync};
pub use fadvise::Fadvise;
pub use mmap::MmapMethod;
pub use mmap_options::{Advice, MmapOptions, Populate, Share};
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
    /// Bytes delivered to the workload (read methods) or written (write
    /// methods); for a mixed case (`--read-share`), both together.
    pub bytes: u64,
    /// Of `bytes`, those written by a mixed case's writes (0 for every other case).
    #[serde(default)]
    pub written: u64,
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
    /// fsync, fdatasync or sync_file_range (every write method but `mmap-write`).
    pub sync_call: SyncCall,
    /// `mmap-write`: msync with MS_SYNC or MS_ASYNC.
    pub msync: Msync,
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
    /// Many files (`--files`): leaves the file it works on (a mapping is
    /// unmapped, the descriptor closed) and takes `file`, of `layout`, as a
    /// program that reads many files would, keeping what does not depend on
    /// the file (a buffer). Only the methods that declare
    /// [`MethodOption::Files`] implement it.
    fn next_file(&mut self, file: File, layout: Layout) -> Result<()> {
        let _ = (file, layout);
        Err(Error::Trial("this method reads one file only".into()))
    }
}

/// An option that applies to some methods only: each option list multiplies
/// the cases of the methods that declare it in their [`Spec`], and no others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodOption {
    /// `--populate`: pre-faulting of a mapping.
    Populate,
    /// `--advice`: madvise() on a mapping.
    Advice,
    /// `--share`: MAP_SHARED or MAP_PRIVATE.
    Share,
    /// `--sync-call`: fsync, fdatasync or sync_file_range (with a sync policy other than none).
    SyncCall,
    /// `--open-sync`: the file opened with O_DSYNC or O_SYNC (the trial opens it).
    OpenSync,
    /// `--msync`: msync with MS_SYNC or MS_ASYNC (with a sync policy other than none).
    Msync,
    /// `--size-with`: how a fresh file is sized before it is mapped.
    SizeWith,
    /// `--fill calloc`: the write buffer is calloc'd and never stored into.
    CallocBuffer,
    /// `--stdio-buffer`: the buffered reader's (or writer's) capacity.
    StdioBuffer,
    /// `--iov`: blocks per vectored call.
    Iov,
    /// `--depth`: requests in flight.
    Depth,
    /// `--uring-registered`: registered (fixed) buffers.
    Registered,
    /// `--fadvise`: posix_fadvise() on the file in setup.
    Fadvise,
    /// `--read-share`: a share of the operations are writes, to the same
    /// file (read+write, pread+pwrite, loads and stores through one mapping).
    ReadShare,
    /// `--files`: many files, each opened (mapped), read and closed
    /// (unmapped) in the main loop ([`Method::next_file`]).
    Files,
}

/// The options a trial builds its method with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodConfig<'a> {
    /// Options of the mapping methods.
    pub mmap: MmapOptions,
    /// Options of the write methods.
    pub write: WriteOptions,
    /// Options of the stdio, preadv and io_uring methods.
    pub io: &'a IoOptions,
    /// A mixed case's read/write mix (`--read-share`); `None`: the method only reads (or writes).
    pub mix: Option<crate::pattern::Mix>,
}

/// Builds a method for one trial over an open file (opened for writing when
/// the method writes); the timer times the syncs a write method makes inside
/// its main loop.
pub type Build = fn(File, Layout, &MethodConfig, Box<dyn SyncTimer>) -> Box<dyn Method>;

/// What faultline knows about a method, declared once in the method's own
/// file: whether it writes, maps the file, uses O_DIRECT or io_uring, which
/// options apply to it, and how to build it.
pub struct Spec {
    /// It writes: it works on a file faultline creates in its scratch
    /// directory, and takes the `fill` workload and the write options.
    pub writes: bool,
    /// It maps the file (so the mapping options may apply).
    pub maps_file: bool,
    /// It opens the file with O_DIRECT: block sizes (and, for writes, file
    /// sizes) must be multiples of the device's logical block size.
    pub direct: bool,
    /// It reads or writes through io_uring (checked before the run: the
    /// kernel may refuse to set up a ring).
    pub uses_uring: bool,
    /// The options that multiply its cases.
    pub options: &'static [MethodOption],
    /// How a trial builds it.
    pub build: Build,
}

registry! {
    /// The registry of methods, by command-line name: one line per method.
    pub enum MethodKind => Spec, default Read {
        /// read() into a block-sized buffer with a moving cursor (lseek+read for non-sequential orders).
        Read => read::READ,
        /// pread() into a block-sized buffer.
        Pread => read::PREAD,
        /// The whole file mapped once; the workload reads the mapping in place.
        Mmap => mmap::MMAP,
        /// The whole file mapped once; each block is copied into a buffer first.
        MmapCopy => mmap::MMAP_COPY,
        /// write() from a block-sized buffer with a moving cursor (lseek+write for non-sequential orders).
        Write => write::WRITE,
        /// pwrite() from a block-sized buffer.
        Pwrite => write::PWRITE,
        /// The whole file mapped MAP_SHARED and stored into (a fresh file is sized first).
        MmapWrite => mmap_write::MMAP_WRITE,
        /// pread() with O_DIRECT into a buffer aligned to the device's logical block size.
        Direct => direct::DIRECT,
        /// A buffered reader (std's BufReader of --stdio-buffer bytes) read in --block pieces, like C stdio.
        Stdio => stdio::STDIO,
        /// preadv() of up to --iov consecutive blocks per call, each block into its own buffer.
        Preadv => preadv::PREADV,
        /// io_uring reads with --depth reads in flight, delivered in order.
        Uring => uring::URING,
        /// io_uring reads with O_DIRECT into aligned buffers.
        UringDirect => uring::URING_DIRECT,
        /// pwrite() with O_DIRECT from a buffer aligned to the device's logical block size.
        DirectWrite => direct_write::DIRECT_WRITE,
        /// io_uring writes with --depth writes in flight (--sync each links an fsync to each write).
        UringWrite => uring_write::URING_WRITE,
        /// io_uring writes with O_DIRECT from aligned buffers.
        UringDirectWrite => uring_write::URING_DIRECT_WRITE,
        /// A buffered writer (std's BufWriter of --stdio-buffer bytes) written in --block pieces, like C's fwrite.
        StdioWrite => stdio_write::STDIO_WRITE,
    }
}

impl MethodKind {
    /// Whether the method writes (see [`Spec::writes`]).
    pub fn writes(self) -> bool {
        self.spec().writes
    }

    /// Whether the method maps the file for reading (so the mmap options
    /// `--populate`, `--advice` and `--share` apply).
    pub fn maps_file(self) -> bool {
        self.spec().maps_file && !self.spec().writes
    }

    /// Whether `option` applies to the method.
    pub fn takes(self, option: MethodOption) -> bool {
        self.spec().options.contains(&option)
    }

    /// Whether the method reads with O_DIRECT, so that the block size must
    /// be a multiple of the device's logical block size.
    pub fn direct_io(self) -> bool {
        self.spec().direct && !self.spec().writes
    }

    /// Whether the method writes with O_DIRECT, so that the block size and
    /// the file size must be multiples of the scratch directory's device's
    /// logical block size, and its file system must accept O_DIRECT.
    pub fn direct_write(self) -> bool {
        self.spec().direct && self.spec().writes
    }

    /// Whether the method reads or writes through io_uring.
    pub fn uses_uring(self) -> bool {
        self.spec().uses_uring
    }

    /// Builds the method for one trial over an open file (opened for writing
    /// when the method writes). `timer` times the syncs a write method makes
    /// in its main loop.
    pub fn build(
        self,
        file: File,
        layout: Layout,
        config: &MethodConfig,
        timer: Box<dyn SyncTimer>,
    ) -> Box<dyn Method> {
        (self.spec().build)(file, layout, config, timer)
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
/// first touch of the buffer is not counted in the main loop, starting on a
/// page boundary: the copy into it (copy_to_user, memcpy) runs at its best
/// alignment in every trial, not at wherever the heap put it.
pub(crate) fn prefaulted_buffer(len: usize) -> aligned::AlignedBuf {
    aligned::AlignedBuf::filled(len, crate::system::page_size(), 0xa5)
}

/// [`prefaulted_buffer`] of zeros.
pub(crate) fn zeroed_buffer(len: usize) -> aligned::AlignedBuf {
    aligned::AlignedBuf::filled(len, crate::system::page_size(), 0)
}
