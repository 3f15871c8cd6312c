//! `mmap-write`: the file mapped `MAP_SHARED` and stored into.
//!
//! A fresh target is sized first, in setup, with `ftruncate` (a sparse file:
//! blocks are allocated when the dirty pages are written back) or `fallocate`
//! (blocks allocated now). An overwrite target already has its size. The
//! workload produces each block directly into the mapping. With `--sync each`
//! every block's pages are `msync`ed after it is stored; with `--sync end`
//! the whole mapping is, once, on its own clock. `--msync sync` (the
//! default) is `MS_SYNC`, which waits for the write-back; `--msync async` is
//! `MS_ASYNC`, which on Linux returns at once (dirty shared pages are
//! already tracked, and written back when the kernel chooses).
//!
//! # Safety
//! A store into a page the file system cannot back (the disk is full and the
//! file is sparse, or the file was truncated underneath) raises SIGBUS. That is
//! why each trial runs in its own process: the signal kills one trial child,
//! which the runner reports as a failed trial. `--size-with fallocate`
//! allocates every block before the loop, so a full disk is an error in setup
//! instead.
use std::fs::File;
use std::os::unix::io::AsRawFd;

use serde::{Deserialize, Serialize};

use super::durability::Msync;
use super::{write_error, LoopCounts, Method, MethodOption, Spec, SyncPolicy, SyncTimer};
use crate::error::{Error, Result};
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// How `mmap-write` gives a fresh file its size before mapping it.
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
pub enum SizeWith {
    /// ftruncate(): a sparse file, blocks allocated at write-back.
    #[default]
    Truncate,
    /// fallocate(): every block allocated before the main loop.
    Fallocate,
    /// lseek() to the last byte and write() one zero byte there, as the 2020
    /// post did (a sparse file but for its last block). The post wrote at
    /// offset `size`, leaving a file one byte longer than it mapped; this
    /// writes at `size - 1`, so the file is the planned size.
    SeekWrite,
}

display_as_value_name!(SizeWith);

/// `mmap-write`: stores into a shared mapping, synced with msync.
pub(super) const MMAP_WRITE: Spec = Spec {
    writes: true,
    maps_file: true,
    direct: false,
    uses_uring: false,
    options: &[MethodOption::SizeWith, MethodOption::Msync],
    build: |file, layout, config, timer| {
        let w = config.write;
        Box::new(MmapWriteMethod::new(file, layout, w.size_with, w.sync, timer).msync(w.msync))
    },
};

/// A writable shared mapping of the whole file.
pub struct MmapWriteMethod {
    file: File,
    layout: Layout,
    size_with: Option<SizeWith>,
    sync: SyncPolicy,
    msync: Msync,
    timer: Box<dyn SyncTimer>,
    map: Option<memmap2::MmapMut>,
}

impl MmapWriteMethod {
    /// A method storing into `file`; `size_with` sizes a fresh (empty) file
    /// first, `None` for a file that already has its size.
    pub fn new(
        file: File,
        layout: Layout,
        size_with: Option<SizeWith>,
        sync: SyncPolicy,
        timer: Box<dyn SyncTimer>,
    ) -> Self {
        MmapWriteMethod {
            file,
            layout,
            size_with,
            sync,
            msync: Msync::Sync,
            timer,
            map: None,
        }
    }

    /// Syncs with msync(MS_ASYNC) instead of MS_SYNC when `msync` says so.
    pub fn msync(mut self, msync: Msync) -> Self {
        self.msync = msync;
        self
    }
}

/// msync of `len` bytes of `map` at `start` (memmap2 aligns the start to a
/// page), waiting for the write-back or not as `msync` says.
fn msync_range(
    map: &memmap2::MmapMut,
    msync: Msync,
    start: usize,
    len: usize,
) -> std::io::Result<()> {
    match msync {
        Msync::Sync => map.flush_range(start, len),
        Msync::Async => map.flush_async_range(start, len),
    }
}

/// fallocate(fd, 0, 0, len): allocates the blocks and sets the size.
fn fallocate(file: &File, len: u64) -> std::io::Result<()> {
    // SAFETY: plain syscall on a valid descriptor.
    let rc = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len as libc::off_t) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// lseek(fd, len - 1, SEEK_SET) and write(fd, "", 1): the file becomes `len` bytes.
fn seek_write_last(file: &mut File, len: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    if len == 0 {
        return Ok(());
    }
    file.seek(SeekFrom::Start(len - 1))?;
    file.write_all(&[0])
}

impl Method for MmapWriteMethod {
    fn setup(&mut self) -> Result<()> {
        let len = self.layout.file_size;
        match self.size_with {
            None => {}
            Some(SizeWith::Truncate) => self
                .file
                .set_len(len)
                .map_err(|e| write_error(format_args!("ftruncate to {len} bytes"), e))?,
            Some(SizeWith::SeekWrite) => seek_write_last(&mut self.file, len)
                .map_err(|e| write_error(format_args!("lseek + 1-byte write at {len} bytes"), e))?,
            Some(SizeWith::Fallocate) => fallocate(&self.file, len).map_err(|e| {
                if e.raw_os_error() == Some(libc::EOPNOTSUPP) {
                    Error::Trial(format!(
                        "fallocate failed: {e}: this file system cannot preallocate; use --size-with truncate"
                    ))
                } else {
                    write_error(format_args!("fallocate of {len} bytes"), e)
                }
            })?,
        }
        // SAFETY: the file is one faultline created for this trial and no one
        // else truncates it; if that happened anyway, the SIGBUS ends this
        // trial's process only (see module docs).
        let map = unsafe {
            memmap2::MmapOptions::new()
                .len(len as usize)
                .map_mut(&self.file)
        }
        .map_err(|e| Error::Trial(format!("mmap (MAP_SHARED, writable) failed: {e}")))?;
        self.map = Some(map);
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let layout = self.layout;
        let each = self.sync == SyncPolicy::Each;
        let msync = self.msync;
        let map = self
            .map
            .as_mut()
            .ok_or_else(|| Error::Trial("run before setup".into()))?;
        let timer = &mut self.timer;
        let mut counts = LoopCounts::default();
        let map_len = map.len();
        order.for_each_read(layout, |offset, len| {
            let start = offset as usize;
            let block = map.get_mut(start..start.wrapping_add(len)).ok_or_else(|| {
                Error::Trial(format!(
                    "a write of {len} bytes at offset {offset} is outside the {map_len}-byte mapping"
                ))
            })?;
            workload.produce(offset, block);
            if each {
                // msync of the pages the block spans (memmap2 aligns the start).
                timer
                    .time(&mut || msync_range(map, msync, start, len))
                    .map_err(|e| write_error("msync", e))?;
                counts.syscalls += 1;
            }
            counts.bytes += len as u64;
            Ok::<u64, Error>(0)
        })?;
        Ok(counts)
    }

    fn sync(&mut self) -> Result<()> {
        if self.sync == SyncPolicy::End {
            if let Some(map) = &self.map {
                msync_range(map, self.msync, 0, map.len()).map_err(|e| write_error("msync", e))?;
            }
        }
        Ok(())
    }

    fn teardown(&mut self) -> Result<()> {
        self.map = None; // munmap: dirty pages stay in the page cache
        Ok(())
    }
}
