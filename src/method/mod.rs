//! I/O methods: the paths bytes take from a file into the program.
//!
//! A method knows nothing of clocks, statistics or output: the trial calls
//! [`Method::setup`], [`Method::run`] and [`Method::teardown`] and times each
//! call itself. Adding a method is one file plus a line in [`MethodKind`].
use std::fs::File;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

pub mod aligned;
pub mod direct;
mod mmap;
mod options;
mod preadv;
mod read;
mod stdio;
pub mod uring;

pub use mmap::{Advice, MmapOptions, Populate, Share};
pub use options::{IoOptions, Switch, DEFAULT_STDIO_BUFFER};
pub use preadv::{DEFAULT_IOV, MAX_IOV};
pub use uring::{DEFAULT_DEPTH, MAX_DEPTH};

/// What the main loop did, counted by the method itself (no clocks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopCounts {
    /// I/O system calls issued (read, pread, lseek); 0 for access through a mapping.
    pub syscalls: u64,
    /// Bytes delivered to the workload.
    pub bytes: u64,
}

/// One way of getting a file's bytes to a workload.
pub trait Method {
    /// Prepares the method: allocate and pre-fault buffers, map the file,
    /// apply advice or populate. Timed apart from the main loop.
    fn setup(&mut self) -> Result<()>;
    /// The main loop: deliver every block of `order` to `workload`.
    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts>;
    /// Releases what setup acquired (munmap, free). Timed apart from the main loop.
    fn teardown(&mut self) -> Result<()>;
}

/// The registry of read methods, by command-line name.
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
}

impl MethodKind {
    /// The name used on the command line and in exports.
    pub fn name(self) -> &'static str {
        match self {
            MethodKind::Read => "read",
            MethodKind::Pread => "pread",
            MethodKind::Mmap => "mmap",
            MethodKind::MmapCopy => "mmap-copy",
            MethodKind::Direct => "direct",
            MethodKind::Stdio => "stdio",
            MethodKind::Preadv => "preadv",
            MethodKind::Uring => "uring",
            MethodKind::UringDirect => "uring-direct",
        }
    }

    /// Whether the method maps the file (so the mmap options apply).
    pub fn maps_file(self) -> bool {
        matches!(self, MethodKind::Mmap | MethodKind::MmapCopy)
    }

    /// Builds the method for one trial over an open file.
    pub fn build(self, file: File, layout: Layout, mmap: MmapOptions) -> Box<dyn Method> {
        match self {
            MethodKind::Read => Box::new(read::ReadMethod::new(file, layout, read::Call::Read)),
            MethodKind::Pread => Box::new(read::ReadMethod::new(file, layout, read::Call::Pread)),
            MethodKind::Mmap => Box::new(mmap::MmapMethod::new(file, layout, mmap, false)),
            MethodKind::MmapCopy => Box::new(mmap::MmapMethod::new(file, layout, mmap, true)),
            MethodKind::Direct => Box::new(direct::DirectMethod::new(file, layout)),
            MethodKind::Stdio
            | MethodKind::Preadv
            | MethodKind::Uring
            | MethodKind::UringDirect => self.build_with(file, layout, mmap, &IoOptions::default()),
        }
    }

    /// [`Self::build`], with the options of the methods that have them.
    pub fn build_with(
        self,
        file: File,
        layout: Layout,
        mmap: MmapOptions,
        io: &IoOptions,
    ) -> Box<dyn Method> {
        match self {
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
            _ => self.build(file, layout, mmap),
        }
    }
}

impl std::fmt::Display for MethodKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A buffer of `len` bytes whose pages are already faulted in, so that the
/// first touch of the buffer is not counted in the main loop.
pub(crate) fn prefaulted_buffer(len: usize) -> Vec<u8> {
    vec![0xa5u8; len]
}
