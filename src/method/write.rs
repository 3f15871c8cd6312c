//! `write` and `pwrite`: system calls that copy each block from a buffer into
//! the page cache.
//!
//! The workload produces each block into one block-sized buffer, which is then
//! written at the block's offset: `write` moves the file cursor (with an
//! `lseek` first when the order jumps), `pwrite` names the offset. With
//! `--sync each` every block is followed by `fsync`, `fdatasync` or a
//! `sync_file_range` of the block (`--sync-call`); with
//! `--sync end` the whole file is synced once after the loop, on its own clock.
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;

use serde::{Deserialize, Serialize};

use super::{
    prefaulted_buffer, write_error, LoopCounts, Method, MethodConfig, MethodOption, Spec, SyncTimer,
};
use crate::error::{Error, Result};
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// When a write method makes its data durable.
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
pub enum SyncPolicy {
    /// Never: the data may still be dirty in the page cache when the trial ends.
    #[default]
    None,
    /// Once, after the main loop: the whole file (msync of the whole mapping for mmap-write).
    End,
    /// After every block (msync of the block's pages for mmap-write).
    Each,
}

/// The system call `write` and `pwrite` sync with (`mmap-write` always uses msync).
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
pub enum SyncCall {
    /// fsync(): data and all metadata.
    #[default]
    Fsync,
    /// fdatasync(): data, and metadata only when needed to read it back (e.g. the size).
    Fdatasync,
    /// sync_file_range(WAIT_BEFORE|WRITE|WAIT_AFTER) of the block (`--sync each`) or of the
    /// whole file (`--sync end`): data write-back only, no metadata, no device cache flush.
    SyncFileRange,
}

display_as_value_name!(SyncPolicy, SyncCall);

/// Which system call writes each block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// write() at the file cursor; lseek() first when the order jumps.
    Write,
    /// pwrite() at the block's offset.
    Pwrite,
}

/// `write`: write() at the file cursor.
pub(super) const WRITE: Spec = Spec {
    writes: true,
    maps_file: false,
    direct: false,
    uses_uring: false,
    options: &[
        MethodOption::SyncCall,
        MethodOption::CallocBuffer,
        MethodOption::OpenSync,
    ],
    build: |file, layout, config, timer| build(file, layout, config, timer, Call::Write),
};

/// `pwrite`: pwrite() at each block's offset.
pub(super) const PWRITE: Spec = Spec {
    build: |file, layout, config, timer| build(file, layout, config, timer, Call::Pwrite),
    ..WRITE
};

fn build(
    file: File,
    layout: Layout,
    config: &MethodConfig,
    timer: Box<dyn SyncTimer>,
    call: Call,
) -> Box<dyn Method> {
    let w = config.write;
    Box::new(
        WriteMethod::new(file, layout, call, w.sync, w.sync_call, timer)
            .zeroed_buffer(w.zeroed_buffer),
    )
}

/// write()/pwrite() from one block-sized buffer.
pub struct WriteMethod {
    file: File,
    layout: Layout,
    call: Call,
    /// Where the file cursor stands (`write`): where the last write ended.
    cursor: u64,
    sync: SyncPolicy,
    sync_call: SyncCall,
    timer: Box<dyn SyncTimer>,
    buffer: super::aligned::AlignedBuf,
    zeroed: bool,
}

impl WriteMethod {
    /// A method writing `file` with `call`, syncing as `sync` and
    /// `sync_call` say; `timer` times the syncs of `--sync each`.
    pub fn new(
        file: File,
        layout: Layout,
        call: Call,
        sync: SyncPolicy,
        sync_call: SyncCall,
        timer: Box<dyn SyncTimer>,
    ) -> Self {
        WriteMethod {
            file,
            layout,
            call,
            cursor: 0,
            sync,
            sync_call,
            timer,
            buffer: Default::default(),
            zeroed: false,
        }
    }

    /// With `true`, setup allocates the buffer zeroed and leaves it untouched
    /// (calloc: large buffers get pages only when write() reads them)
    /// instead of pre-faulting it; for `--fill calloc`.
    pub fn zeroed_buffer(mut self, zeroed: bool) -> Self {
        self.zeroed = zeroed;
        self
    }
}

/// Writes all of `buf` at `offset` with pwrite(), resuming after short
/// writes; `what` names the call in errors ("pwrite", "O_DIRECT pwrite").
/// Shared with `direct-write`.
pub(super) fn pwrite_all(
    file: &File,
    buf: &[u8],
    offset: u64,
    what: &str,
    counts: &mut LoopCounts,
) -> Result<()> {
    let mut done = 0;
    while done < buf.len() {
        let at = offset + done as u64;
        let n = file
            .write_at(&buf[done..], at)
            .map_err(|e| write_error(format_args!("{what} at byte {at}"), e))?;
        counts.syscalls += 1;
        if n == 0 {
            return Err(Error::Trial(format!("{what} at byte {at} wrote nothing")));
        }
        done += n;
    }
    Ok(())
}

/// The sync of `--sync each` after the block of `len` bytes at `offset`:
/// `call` on `file` (sync_file_range over the block only), timed by `timer`
/// and counted as a system call.
pub(super) fn sync_in_loop(
    file: &File,
    call: SyncCall,
    (offset, len): (u64, u64),
    timer: &mut dyn SyncTimer,
    counts: &mut LoopCounts,
) -> Result<()> {
    timer
        .time(&mut || sync_file(file, call, offset, len))
        .map_err(|e| write_error(sync_name(call), e))?;
    counts.syscalls += 1;
    Ok(())
}

/// Runs the sync call on `file`; sync_file_range covers the `len` bytes at
/// `offset` (`len` 0: to the end of the file), the others the whole file.
pub(super) fn sync_file(file: &File, call: SyncCall, offset: u64, len: u64) -> std::io::Result<()> {
    match call {
        SyncCall::Fsync => file.sync_all(),
        SyncCall::Fdatasync => file.sync_data(),
        SyncCall::SyncFileRange => {
            use std::os::unix::io::AsRawFd;
            super::durability::sync_file_range(file.as_raw_fd(), offset, len)
        }
    }
}

/// The sync of `--sync end`, after the loop: `call` on `file` when `policy`
/// is [`SyncPolicy::End`], nothing otherwise. Shared by every write method
/// that writes through a file descriptor.
pub(super) fn sync_at_end(file: &File, policy: SyncPolicy, call: SyncCall) -> Result<()> {
    if policy == SyncPolicy::End {
        sync_file(file, call, 0, 0).map_err(|e| write_error(sync_name(call), e))?;
    }
    Ok(())
}

pub(super) fn sync_name(call: SyncCall) -> &'static str {
    match call {
        SyncCall::Fsync => "fsync",
        SyncCall::Fdatasync => "fdatasync",
        SyncCall::SyncFileRange => "sync_file_range",
    }
}

impl Method for WriteMethod {
    fn setup(&mut self) -> Result<()> {
        let len = self.layout.block_size as usize;
        self.buffer = if self.zeroed {
            super::zeroed_buffer(len)
        } else {
            prefaulted_buffer(len)
        };
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let layout = self.layout;
        let mut counts = LoopCounts::default();
        let WriteMethod {
            file,
            call,
            cursor,
            sync,
            sync_call,
            timer,
            buffer,
            ..
        } = self;
        let each = *sync == SyncPolicy::Each;
        order.for_each_read(layout, |offset, len| {
            let buf = &mut buffer[..len];
            workload.produce(offset, buf);
            match call {
                Call::Write => {
                    let mut done = 0;
                    if offset != *cursor {
                        file.seek(SeekFrom::Start(offset))
                            .map_err(|e| write_error(format_args!("lseek to byte {offset}"), e))?;
                        counts.syscalls += 1;
                    }
                    // Set before writing: an error ends the trial anyway.
                    *cursor = offset + len as u64;
                    while done < len {
                        let at = offset + done as u64;
                        let n = file
                            .write(&buf[done..])
                            .map_err(|e| write_error(format_args!("write at byte {at}"), e))?;
                        counts.syscalls += 1;
                        if n == 0 {
                            return Err(Error::Trial(format!("write at byte {at} wrote nothing")));
                        }
                        done += n;
                    }
                }
                Call::Pwrite => pwrite_all(file, buf, offset, "pwrite", &mut counts)?,
            }
            if each {
                let range = (offset, len as u64);
                sync_in_loop(file, *sync_call, range, timer.as_mut(), &mut counts)?;
            }
            counts.bytes += len as u64;
            Ok(0)
        })?;
        Ok(counts)
    }

    fn sync(&mut self) -> Result<()> {
        sync_at_end(&self.file, self.sync, self.sync_call)
    }

    fn teardown(&mut self) -> Result<()> {
        self.buffer = Default::default();
        Ok(())
    }
}
