//! `uring-write` and `uring-direct-write`: writes through io_uring with
//! `--depth` writes in flight, optionally from registered buffers
//! (`--uring-registered`, `WRITE_FIXED`), and, for `uring-direct-write`,
//! with O_DIRECT (the block size and the file size aligned, as for
//! `direct-write`).
//!
//! # Submission
//! The workload produces each block, in the block order, into a free slot
//! (one block-sized buffer per slot, `depth` slots), and the write is
//! queued without a system call. When no slot is free, one
//! `io_uring_enter` submits everything queued and waits for at least one
//! completion. Writes need no ordering, so a slot is free again as soon as
//! its write (and its sync, below) has completed. At depth 1 that is one
//! system call per block, as pwrite; `syscalls` counts `io_uring_enter`
//! calls.
//!
//! # Short writes and errors
//! A short write is resubmitted for the rest of its block; EINTR or EAGAIN
//! completions are resubmitted. Any other error (ENOSPC, EDQUOT, EFBIG,
//! EIO) ends the trial with the error, as for `pwrite`: a full disk is one
//! failed trial with its reason.
//!
//! # Syncs
//! - `--sync end`: fsync or fdatasync of the whole file after the loop, on
//!   the trial's sync clock, as for `pwrite`.
//! - `--sync each`: every block's write is linked (`IOSQE_IO_LINK`) to an
//!   `IORING_OP_FSYNC` of the file (with `IORING_FSYNC_DATASYNC` for
//!   `--sync-call fdatasync`), which the kernel starts when the write has
//!   completed, so each block is followed by a sync of the file while up to
//!   `depth` write+sync pairs are in flight. The slot is reused only once
//!   its sync has completed. The syncs run inside the ring, interleaved with
//!   the writes, so **their time cannot be taken apart from the main loop**:
//!   for this method `sync_ns` holds only the `--sync end` sync, and the
//!   per-block syncs are in the main-loop time (compare with `--metric
//!   total`, the default, which adds both). A short write severs the link
//!   (the sync completes with ECANCELED) and the rest of the block is
//!   resubmitted with a new linked sync.
use std::fs::File;
use std::os::fd::AsRawFd;

use io_uring::{opcode, squeue, types, IoUring};

use super::aligned::AlignedBuf;
use super::direct::{buffer_alignment, enable_direct_write};
use super::uring::{enter, ring_and_buffers, DEFAULT_DEPTH, MAX_DEPTH};
use super::write::{sync_at_end, sync_name};
use super::{
    write_error, LoopCounts, Method, MethodConfig, MethodOption, Spec, SyncCall, SyncPolicy,
};
use crate::error::{Error, Result};
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// One block being written.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// File offset of the block.
    offset: u64,
    /// Bytes of the block.
    len: usize,
    /// Bytes written so far.
    done: usize,
    /// Completions still to come for this slot (writes and syncs).
    pending: u32,
}

/// `uring-write`: io_uring writes at `--depth`.
pub(super) const URING_WRITE: Spec = Spec {
    writes: true,
    maps_file: false,
    direct: false,
    uses_uring: true,
    options: &[
        MethodOption::SyncCall,
        MethodOption::Depth,
        MethodOption::Registered,
        MethodOption::OpenSync,
    ],
    build: |file, layout, config, _| build(file, layout, config, false),
};

/// `uring-direct-write`: io_uring writes with O_DIRECT.
pub(super) const URING_DIRECT_WRITE: Spec = Spec {
    direct: true,
    build: |file, layout, config, _| build(file, layout, config, true),
    ..URING_WRITE
};

fn build(file: File, layout: Layout, config: &MethodConfig, direct: bool) -> Box<dyn Method> {
    let (io, w) = (config.io, config.write);
    Box::new(UringWriteMethod::new(
        file,
        layout,
        io.depth.unwrap_or(DEFAULT_DEPTH),
        io.registered.unwrap_or(false),
        direct,
        w.sync,
        w.sync_call,
    ))
}

/// io_uring writes with up to `depth` in flight.
pub struct UringWriteMethod {
    file: File,
    layout: Layout,
    depth: usize,
    registered: bool,
    direct: bool,
    sync: SyncPolicy,
    sync_call: SyncCall,
    // Declared before `buffers`: dropping the ring unregisters the buffers
    // before they are freed.
    ring: Option<IoUring>,
    buffers: Option<AlignedBuf>,
    stride: usize,
    slots: Vec<Slot>,
    free: Vec<usize>,
    completions: Vec<(u64, i32)>,
    /// Short writes resubmitted in the last run (kept for the tests).
    resubmitted: u64,
    /// Linked syncs that completed in the last run (kept for the tests).
    synced: u64,
}

impl UringWriteMethod {
    /// A method writing `file` with `depth` writes in flight; `direct` adds
    /// O_DIRECT, `registered` uses fixed buffers, and `sync`/`sync_call`
    /// say when and how the file is synced.
    pub fn new(
        file: File,
        layout: Layout,
        depth: u32,
        registered: bool,
        direct: bool,
        sync: SyncPolicy,
        sync_call: SyncCall,
    ) -> Self {
        UringWriteMethod {
            file,
            layout,
            depth: depth.clamp(1, MAX_DEPTH) as usize,
            registered,
            direct,
            sync,
            sync_call,
            ring: None,
            buffers: None,
            stride: 0,
            slots: Vec::new(),
            free: Vec::new(),
            completions: Vec::new(),
            resubmitted: 0,
            synced: 0,
        }
    }
}

impl Method for UringWriteMethod {
    fn setup(&mut self) -> Result<()> {
        let align = if self.direct {
            buffer_alignment(&enable_direct_write(&self.file, self.layout)?)
        } else {
            crate::system::page_size()
        };
        // More slots than blocks would never be used.
        let slots = self.depth.min(self.layout.blocks() as usize).max(1);
        self.stride = self.layout.block_size as usize;
        // A write and its linked sync take two entries.
        let per_slot = if self.sync == SyncPolicy::Each { 2 } else { 1 };
        let entries = (slots * per_slot).next_power_of_two() as u32;
        let (ring, buffers) =
            ring_and_buffers(slots, self.stride, align, entries, self.registered)?;
        self.slots = vec![Slot::default(); slots];
        self.free = (0..slots).rev().collect();
        self.completions = Vec::with_capacity(2 * entries as usize);
        self.buffers = Some(buffers);
        self.ring = Some(ring);
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let (Some(ring), Some(buffers)) = (self.ring.as_mut(), self.buffers.as_mut()) else {
            return Err(Error::Trial("run before setup".into()));
        };
        let mut pipe = Writer {
            ring,
            base: buffers.as_mut_ptr(),
            stride: self.stride,
            fd: types::Fd(self.file.as_raw_fd()),
            registered: self.registered,
            sync_each: (self.sync == SyncPolicy::Each).then_some(self.sync_call),
            slots: &mut self.slots,
            free: &mut self.free,
            completions: &mut self.completions,
            counts: LoopCounts::default(),
            resubmitted: 0,
            synced: 0,
        };
        let layout = self.layout;
        order.for_each_read(layout, |offset, len| {
            let s = pipe.free_slot()?;
            // SAFETY: the slot is free, so no write in flight reads these
            // bytes; s * stride + len <= the buffer's length.
            let buf =
                unsafe { std::slice::from_raw_parts_mut(pipe.base.add(s * pipe.stride), len) };
            workload.produce(offset, buf);
            pipe.slots[s] = Slot {
                offset,
                len,
                done: 0,
                pending: 0,
            };
            pipe.queue(s)?;
            Ok::<u64, Error>(0)
        })?;
        while pipe.free.len() < pipe.slots.len() {
            pipe.wait()?;
        }
        self.resubmitted = pipe.resubmitted;
        self.synced = pipe.synced;
        Ok(pipe.counts)
    }

    fn sync(&mut self) -> Result<()> {
        sync_at_end(&self.file, self.sync, self.sync_call)
    }

    fn teardown(&mut self) -> Result<()> {
        self.ring = None;
        self.buffers = None;
        self.slots = Vec::new();
        self.free = Vec::new();
        Ok(())
    }
}

/// The slots over one run.
struct Writer<'a> {
    ring: &'a mut IoUring,
    base: *mut u8,
    stride: usize,
    fd: types::Fd,
    registered: bool,
    /// The sync linked to every write (`--sync each`).
    sync_each: Option<SyncCall>,
    slots: &'a mut [Slot],
    free: &'a mut Vec<usize>,
    completions: &'a mut Vec<(u64, i32)>,
    counts: LoopCounts,
    resubmitted: u64,
    synced: u64,
}

/// The low bit of `user_data`: the entry is the slot's sync, not its write.
const SYNC_BIT: u64 = 1;

impl Writer<'_> {
    /// A free slot, waiting for completions while there is none.
    fn free_slot(&mut self) -> Result<usize> {
        loop {
            if let Some(s) = self.free.pop() {
                return Ok(s);
            }
            self.wait()?;
        }
    }

    /// Submits what is queued, waits for as many completions as the
    /// nearest slot to finishing still needs (2 for a write and its linked
    /// sync, so that depth 1 takes one system call per block), and reaps.
    fn wait(&mut self) -> Result<()> {
        let want = self
            .slots
            .iter()
            .map(|s| s.pending)
            .filter(|&p| p > 0)
            .min()
            .unwrap_or(1);
        enter(self.ring, want as usize, &mut self.counts)?;
        self.reap()
    }

    /// The sync linked to slot `s`'s write: fsync or fdatasync of the
    /// file, or sync_file_range of the slot's block.
    fn fsync_entry(&self, s: usize, call: SyncCall) -> squeue::Entry {
        let entry = match call {
            SyncCall::Fsync => opcode::Fsync::new(self.fd).build(),
            SyncCall::Fdatasync => opcode::Fsync::new(self.fd)
                .flags(types::FsyncFlags::DATASYNC)
                .build(),
            SyncCall::SyncFileRange => {
                let slot = self.slots[s];
                opcode::SyncFileRange::new(self.fd, slot.len as u32)
                    .offset(slot.offset)
                    .flags(
                        libc::SYNC_FILE_RANGE_WAIT_BEFORE
                            | libc::SYNC_FILE_RANGE_WRITE
                            | libc::SYNC_FILE_RANGE_WAIT_AFTER,
                    )
                    .build()
            }
        };
        entry.user_data(((s as u64) << 1) | SYNC_BIT)
    }

    /// Queues the write of the rest of slot `s`, and its linked sync with
    /// `--sync each`.
    fn queue(&mut self, s: usize) -> Result<()> {
        let slot = self.slots[s];
        // SAFETY: s * stride + done < the buffer's length, as done < len <= stride.
        let buf = unsafe { self.base.add(s * self.stride + slot.done) };
        let len = (slot.len - slot.done) as u32;
        let at = slot.offset + slot.done as u64;
        let write = if self.registered {
            opcode::WriteFixed::new(self.fd, buf, len, s as u16)
                .offset(at)
                .build()
        } else {
            opcode::Write::new(self.fd, buf, len).offset(at).build()
        }
        .user_data((s as u64) << 1);
        // On the stack: this runs once per block, inside the timed loop.
        let pending = match self.sync_each {
            Some(call) => {
                let pair = [
                    write.flags(squeue::Flags::IO_LINK),
                    self.fsync_entry(s, call),
                ];
                self.push(&pair)?;
                2
            }
            None => {
                self.push(std::slice::from_ref(&write))?;
                1
            }
        };
        self.slots[s].pending += pending;
        Ok(())
    }

    /// Queues `entries` together (a linked pair must not be split between
    /// two submissions).
    fn push(&mut self, entries: &[squeue::Entry]) -> Result<()> {
        // SAFETY: the buffers stay valid and untouched until the writes
        // complete: a slot is produced into only when free.
        while unsafe { self.ring.submission().push_multiple(entries) }.is_err() {
            // Cannot happen with at most `depth` slots in flight, but a
            // full queue is submitted rather than trusted.
            enter(self.ring, 0, &mut self.counts)?;
        }
        Ok(())
    }

    /// Takes every completion off the queue: finished slots become free,
    /// short writes are queued again for the rest of their block.
    fn reap(&mut self) -> Result<()> {
        self.completions.clear();
        self.completions
            .extend(self.ring.completion().map(|c| (c.user_data(), c.result())));
        for i in 0..self.completions.len() {
            let (user_data, res) = self.completions[i];
            let s = (user_data >> 1) as usize;
            self.slots[s].pending -= 1;
            if user_data & SYNC_BIT != 0 {
                self.synced(s, res)?;
            } else {
                self.written(s, res)?;
            }
            let slot = self.slots[s];
            if slot.pending == 0 && slot.done == slot.len {
                self.free.push(s);
            }
        }
        Ok(())
    }

    /// A write of slot `s` completed with `res`.
    fn written(&mut self, s: usize, res: i32) -> Result<()> {
        let slot = self.slots[s];
        let at = slot.offset + slot.done as u64;
        if res < 0 {
            if matches!(-res, libc::EINTR | libc::EAGAIN) {
                return self.queue(s);
            }
            let e = std::io::Error::from_raw_os_error(-res);
            return Err(write_error(
                format_args!(
                    "io_uring write of {} bytes at byte {at}",
                    slot.len - slot.done
                ),
                e,
            ));
        }
        if res == 0 {
            return Err(Error::Trial(format!(
                "io_uring write at byte {at} wrote nothing"
            )));
        }
        self.slots[s].done += res as usize;
        if self.slots[s].done < slot.len {
            self.resubmitted += 1;
            return self.queue(s);
        }
        self.counts.bytes += slot.len as u64;
        Ok(())
    }

    /// The sync linked to a write of slot `s` completed with `res`.
    fn synced(&mut self, s: usize, res: i32) -> Result<()> {
        let Some(call) = self.sync_each else {
            return Ok(());
        };
        if res >= 0 {
            self.synced += 1;
            return Ok(());
        }
        if -res == libc::ECANCELED {
            // ECANCELED: the write before it was short or failed; that
            // write's own completion resubmits it (with a new sync) or
            // ends the trial.
            return Ok(());
        }
        if matches!(-res, libc::EINTR | libc::EAGAIN) {
            let entry = self.fsync_entry(s, call);
            self.push(&[entry])?;
            self.slots[s].pending += 1;
            return Ok(());
        }
        Err(write_error(
            format_args!("io_uring {}", sync_name(call)),
            std::io::Error::from_raw_os_error(-res),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Pattern;
    use crate::workload::{FillContent, Workload};

    /// The fill workload's bytes, and the offsets it was asked for.
    struct Fill(Vec<u64>);
    impl Workload for Fill {
        fn consume(&mut self, _: u64, _: &[u8]) {}
        fn produce(&mut self, offset: u64, data: &mut [u8]) {
            self.0.push(offset);
            crate::workload::fill(FillContent::Pattern, offset, data);
        }
        fn checksum(&self) -> u64 {
            0
        }
    }

    #[test]
    fn every_block_is_written_once_at_every_depth_and_sync() {
        let layout = Layout {
            file_size: 100_000,
            block_size: 4096,
        };
        let mut expected = vec![0u8; layout.file_size as usize];
        crate::workload::fill(FillContent::Pattern, 0, &mut expected);
        for pattern in [Pattern::Seq, Pattern::Random] {
            for depth in [1, 3, 32, 256] {
                for registered in [false, true] {
                    for sync in [SyncPolicy::None, SyncPolicy::Each] {
                        let f = tempfile::tempfile().unwrap();
                        let order = BlockOrder::new(pattern, layout, 5).unwrap();
                        let mut m = UringWriteMethod::new(
                            f.try_clone().unwrap(),
                            layout,
                            depth,
                            registered,
                            false,
                            sync,
                            SyncCall::Fdatasync,
                        );
                        crate::fixtures::require_uring(m.setup());
                        let mut fill = Fill(Vec::new());
                        let counts = m.run(&order, &mut fill).unwrap();
                        m.teardown().unwrap();
                        let what = format!("{pattern} depth {depth} {registered} {sync}");
                        assert_eq!(counts.bytes, layout.file_size, "{what}");
                        let syncs = if sync == SyncPolicy::Each {
                            layout.blocks()
                        } else {
                            0
                        };
                        assert_eq!(m.synced, syncs, "one linked sync per block: {what}");
                        assert_eq!(m.resubmitted, 0, "{what}");
                        let mut offsets = Vec::new();
                        order
                            .for_each_read(layout, |o, _| {
                                offsets.push(o);
                                Ok::<u64, ()>(0)
                            })
                            .unwrap();
                        assert_eq!(fill.0, offsets, "produced in the block order: {what}");
                        let mut written = Vec::new();
                        std::io::Read::read_to_end(&mut &f, &mut written).unwrap();
                        assert!(written == expected, "{what}");
                        if depth == 1 {
                            // One io_uring_enter per block (write and its sync together).
                            assert_eq!(counts.syscalls, layout.blocks(), "{what}");
                        }
                    }
                }
            }
        }
    }
}
