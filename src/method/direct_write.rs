//! `direct-write`: pwrite() with O_DIRECT from a buffer aligned to the
//! device's logical block size, so the written bytes go to the device
//! without passing through the page cache.
//!
//! O_DIRECT is switched on in setup as for `direct` (and refused the same
//! way on a file system without direct I/O). Every byte written is one the
//! workload produced: the last block is never padded, so the file size must
//! be a multiple of the alignment as well as the block size
//! ([`super::direct::misaligned_write`]).
//!
//! O_DIRECT does not make the data durable: the device may still hold it in
//! its volatile cache, and a fresh file's size and block allocation are
//! metadata. So the sync policies mean what they mean for `pwrite`: with
//! `--sync each` every block is followed by fsync or fdatasync (on the
//! trial's sync clock), with `--sync end` the whole file is synced once.
use std::fs::File;

use super::aligned::AlignedBuf;
use super::direct::{buffer_alignment, enable_direct_write};
use super::write::{pwrite_all, sync_at_end, sync_in_loop};
use super::{LoopCounts, Method, MethodOption, Spec, SyncCall, SyncPolicy, SyncTimer};
use crate::error::{Error, Result};
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// `direct-write`: O_DIRECT pwrite().
pub(super) const DIRECT_WRITE: Spec = Spec {
    writes: true,
    maps_file: false,
    direct: true,
    uses_uring: false,
    options: &[MethodOption::SyncCall, MethodOption::OpenSync],
    build: |file, layout, config, timer| {
        let w = config.write;
        Box::new(DirectWriteMethod::new(
            file,
            layout,
            w.sync,
            w.sync_call,
            timer,
        ))
    },
};

/// O_DIRECT pwrite() from one aligned block-sized buffer.
pub struct DirectWriteMethod {
    file: File,
    layout: Layout,
    sync: SyncPolicy,
    sync_call: SyncCall,
    timer: Box<dyn SyncTimer>,
    buffer: Option<AlignedBuf>,
    alignment: Option<super::aligned::Alignment>,
}

impl DirectWriteMethod {
    /// A method writing `file` with O_DIRECT, syncing as `sync` and
    /// `sync_call` say; `timer` times the syncs of `--sync each`.
    pub fn new(
        file: File,
        layout: Layout,
        sync: SyncPolicy,
        sync_call: SyncCall,
        timer: Box<dyn SyncTimer>,
    ) -> Self {
        DirectWriteMethod {
            file,
            layout,
            sync,
            sync_call,
            timer,
            buffer: None,
            alignment: None,
        }
    }
}

impl Method for DirectWriteMethod {
    fn setup(&mut self) -> Result<()> {
        let alignment = enable_direct_write(&self.file, self.layout)?;
        // The block size is a multiple of the alignment: no rounding needed.
        self.buffer = Some(AlignedBuf::new(
            self.layout.block_size as usize,
            buffer_alignment(&alignment),
        ));
        self.alignment = Some(alignment);
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let layout = self.layout;
        let (Some(buffer), Some(alignment)) = (self.buffer.as_mut(), self.alignment.as_ref())
        else {
            return Err(Error::Trial("run before setup".into()));
        };
        let buffer = buffer.as_mut_slice();
        let (file, timer, call) = (&self.file, self.timer.as_mut(), self.sync_call);
        let each = self.sync == SyncPolicy::Each;
        let mut counts = LoopCounts::default();
        order.for_each_read(layout, |offset, len| {
            super::direct::check_aligned(offset, alignment)?;
            let buf = &mut buffer[..len];
            workload.produce(offset, buf);
            pwrite_all(file, buf, offset, "O_DIRECT pwrite", &mut counts)?;
            if each {
                sync_in_loop(file, call, (offset, len as u64), timer, &mut counts)?;
            }
            counts.bytes += len as u64;
            Ok::<u64, Error>(0)
        })?;
        Ok(counts)
    }

    fn sync(&mut self) -> Result<()> {
        sync_at_end(&self.file, self.sync, self.sync_call)
    }

    fn teardown(&mut self) -> Result<()> {
        self.buffer = None;
        Ok(())
    }
}
