//! `uring` and `uring-direct`: reads through io_uring with `--depth` reads
//! in flight, optionally into registered buffers (`--uring-registered`),
//! and, for `uring-direct`, with O_DIRECT.
//!
//! # Order of delivery
//! Reads complete in any order, but digest workloads are order-dependent,
//! so blocks are handed to the workload in the order they were submitted,
//! which is the block order's. A small reorder ring does it: `depth` slots,
//! the read with sequence number `s` using slot `s % depth`. A completion
//! marks its slot done; the oldest undelivered read (the head) is delivered
//! as soon as it is done, with every done read after it. A slot is reused
//! only once delivered, so at most `depth` reads are ever in flight, and a
//! read that completes early waits in its slot for the ones before it (the
//! price: one slow read at the head holds back the reuse of the others).
//!
//! # Submission
//! New reads are queued without a system call until all `depth` slots are
//! in use; then one `io_uring_enter` submits everything queued and waits
//! for at least one completion. At depth 1 that is one system call per
//! block, as pread; at depth 32 the device sees up to 32 requests at once.
//! A short read is resubmitted for the rest of its block. The ring is set
//! up with the kernel's defaults (no SQPOLL, no IOPOLL).
//!
//! `syscalls` counts `io_uring_enter` calls.
use std::fs::File;
use std::os::fd::AsRawFd;

use io_uring::{opcode, types, IoUring};

use super::aligned::{AlignedBuf, Alignment};
use super::direct::{buffer_alignment, enable_direct};
use super::{LoopCounts, Method, MethodConfig, MethodOption, Spec};
use crate::error::{Error, Result};
use crate::pattern::chase::chase_word;
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// Reads in flight when `--depth` is not given.
pub const DEFAULT_DEPTH: u32 = 1;

/// Most reads in flight.
pub const MAX_DEPTH: u32 = 256;

/// Why io_uring cannot be used here, and what to do instead.
pub fn unavailable(e: &std::io::Error) -> String {
    let why = match e.raw_os_error() {
        Some(libc::ENOSYS) => {
            "this kernel has no io_uring (built without it, or older than Linux 5.1)".to_string()
        }
        Some(libc::EPERM) | Some(libc::EACCES) => {
            let sysctl = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
                .ok()
                .map(|s| s.trim().to_string());
            match sysctl.as_deref() {
                Some("2") => "the sysctl kernel.io_uring_disabled is 2 (io_uring off for everyone)"
                    .to_string(),
                Some("1") => "the sysctl kernel.io_uring_disabled is 1 and this process is not \
                              in kernel.io_uring_group"
                    .to_string(),
                _ => "a seccomp policy (a container runtime's default profile, say) or a \
                      security module forbids it"
                    .to_string(),
            }
        }
        _ => "the kernel refused to set up a ring".to_string(),
    };
    format!(
        "io_uring is not available: io_uring_setup failed ({e}): {why}; \
         use --method pread or direct instead"
    )
}

/// A ring of `entries` submission entries and one buffer of `slots` ×
/// `stride` bytes aligned to `align`; with `registered`, each slot's stride
/// is registered as a fixed buffer (index = slot). Shared with `uring-write`.
///
/// The caller must drop the ring before the buffers (the registration
/// points into them): declare the ring field first, and drop it first.
pub(super) fn ring_and_buffers(
    slots: usize,
    stride: usize,
    align: usize,
    entries: u32,
    registered: bool,
) -> Result<(IoUring, AlignedBuf)> {
    let mut buffers = AlignedBuf::new(slots * stride, align);
    let ring = IoUring::new(entries).map_err(|e| Error::Trial(unavailable(&e)))?;
    if registered {
        let base = buffers.as_mut_ptr();
        let iovecs: Vec<libc::iovec> = (0..slots)
            .map(|k| libc::iovec {
                // SAFETY: k * stride is inside the buffer.
                iov_base: unsafe { base.add(k * stride) }.cast(),
                iov_len: stride,
            })
            .collect();
        // SAFETY: the buffers outlive the registration: the caller drops
        // the ring first (see above).
        unsafe { ring.submitter().register_buffers(&iovecs) }.map_err(|e| {
            let hint = if e.raw_os_error() == Some(libc::ENOMEM) {
                " (is RLIMIT_MEMLOCK too low? see ulimit -l)"
            } else {
                ""
            };
            Error::Trial(format!(
                "registering {slots} buffers of {stride} bytes with io_uring failed: {e}{hint}"
            ))
        })?;
    }
    Ok((ring, buffers))
}

/// Submits what is queued on `ring` and waits for `want` completions,
/// retrying on EINTR; EBUSY (completions waiting to be reaped) is not an
/// error. Counts the `io_uring_enter` calls in `counts`.
pub(super) fn enter(ring: &mut IoUring, want: usize, counts: &mut LoopCounts) -> Result<()> {
    loop {
        counts.syscalls += 1;
        match ring.submit_and_wait(want) {
            Ok(_) => return Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => return Ok(()),
            Err(e) => return Err(Error::Trial(format!("io_uring_enter failed: {e}"))),
        }
    }
}

/// One read: in flight, or done and waiting for its turn to be delivered.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// Sequence number of the read.
    seq: u64,
    /// File offset of the block.
    offset: u64,
    /// Bytes of the block.
    want: usize,
    /// Bytes asked for (the block rounded up to the alignment with O_DIRECT).
    request: usize,
    /// Bytes read so far.
    filled: usize,
    /// Whether all of the block has arrived.
    done: bool,
}

/// `uring`: io_uring reads at `--depth`.
pub(super) const URING: Spec = Spec {
    writes: false,
    maps_file: false,
    direct: false,
    uses_uring: true,
    options: &[
        MethodOption::Depth,
        MethodOption::Registered,
        MethodOption::Fadvise,
    ],
    build: |file, layout, config, _| build(file, layout, config, false),
};

/// `uring-direct`: io_uring reads with O_DIRECT (no page cache, so no
/// `--fadvise`).
pub(super) const URING_DIRECT: Spec = Spec {
    direct: true,
    options: &[MethodOption::Depth, MethodOption::Registered],
    build: |file, layout, config, _| build(file, layout, config, true),
    ..URING
};

fn build(file: File, layout: Layout, config: &MethodConfig, direct: bool) -> Box<dyn Method> {
    let io = config.io;
    let mut method = UringMethod::new(
        file,
        layout,
        io.depth.unwrap_or(DEFAULT_DEPTH),
        io.registered.unwrap_or(false),
        direct,
    );
    method.fadvise = io.fadvise.filter(|_| !direct);
    Box::new(method)
}

/// io_uring reads with up to `depth` in flight.
pub struct UringMethod {
    file: File,
    layout: Layout,
    depth: usize,
    registered: bool,
    direct: bool,
    fadvise: Option<super::Fadvise>,
    // Declared before `buffers`: dropping the ring unregisters the buffers
    // before they are freed.
    ring: Option<IoUring>,
    buffers: Option<AlignedBuf>,
    alignment: Option<Alignment>,
    stride: usize,
    slots: Vec<Slot>,
    completions: Vec<(u64, i32)>,
    /// Reads of the last run that completed before the one before them (kept
    /// for the tests: it shows the reorder ring had work to do).
    overtaken: u64,
}

impl UringMethod {
    /// A method reading `file` with `depth` reads in flight; `direct` adds
    /// O_DIRECT and `registered` uses fixed buffers.
    pub fn new(file: File, layout: Layout, depth: u32, registered: bool, direct: bool) -> Self {
        UringMethod {
            file,
            layout,
            depth: depth.clamp(1, MAX_DEPTH) as usize,
            registered,
            direct,
            fadvise: None,
            ring: None,
            buffers: None,
            alignment: None,
            stride: 0,
            slots: Vec::new(),
            completions: Vec::new(),
            overtaken: 0,
        }
    }
}

impl Method for UringMethod {
    fn setup(&mut self) -> Result<()> {
        super::fadvise::apply(&self.file, self.fadvise)?;
        let block = self.layout.block_size;
        let alignment = if self.direct {
            Some(enable_direct(&self.file, block)?)
        } else {
            None
        };
        // More slots than blocks would never be used.
        let slots = self.depth.min(self.layout.blocks() as usize).max(1);
        self.stride = alignment.as_ref().map_or(block, |a| a.round_up(block)) as usize;
        let align = alignment
            .as_ref()
            .map_or(crate::system::page_size(), buffer_alignment);
        let (ring, buffers) = ring_and_buffers(
            slots,
            self.stride,
            align,
            slots.next_power_of_two() as u32,
            self.registered,
        )?;
        self.slots = vec![Slot::default(); slots];
        self.completions = Vec::with_capacity(2 * slots.next_power_of_two());
        self.alignment = alignment;
        self.buffers = Some(buffers);
        self.ring = Some(ring);
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let (Some(ring), Some(buffers)) = (self.ring.as_mut(), self.buffers.as_mut()) else {
            return Err(Error::Trial("run before setup".into()));
        };
        let mut pipe = Pipeline {
            ring,
            base: buffers.as_mut_ptr(),
            stride: self.stride,
            fd: types::Fd(self.file.as_raw_fd()),
            registered: self.registered,
            slots: &mut self.slots,
            completions: &mut self.completions,
            next: 0,
            head: 0,
            counts: LoopCounts::default(),
            overtaken: 0,
        };
        let layout = self.layout;
        let alignment = self.alignment.as_ref();
        // A dependent order (chase) has one read in flight whatever the
        // depth: the next offset comes from the bytes of this read.
        let dependent = order.is_dependent();
        order.for_each_read(layout, |offset, want| {
            if pipe.in_flight() == pipe.slots.len() {
                pipe.deliver(workload)?;
            }
            let request = match alignment {
                Some(a) => {
                    super::direct::check_aligned(offset, a)?;
                    a.round_up(want as u64) as usize
                }
                None => want,
            };
            pipe.start(offset, want, request)?;
            if !dependent {
                return Ok::<u64, Error>(0);
            }
            while pipe.in_flight() > 0 {
                pipe.deliver(workload)?;
            }
            Ok(chase_word(pipe.last_delivered()))
        })?;
        while pipe.in_flight() > 0 {
            pipe.deliver(workload)?;
        }
        self.overtaken = pipe.overtaken;
        Ok(pipe.counts)
    }

    fn teardown(&mut self) -> Result<()> {
        self.ring = None;
        self.buffers = None;
        self.slots = Vec::new();
        Ok(())
    }
}

/// The reorder ring over one run.
struct Pipeline<'a> {
    ring: &'a mut IoUring,
    base: *mut u8,
    stride: usize,
    fd: types::Fd,
    registered: bool,
    slots: &'a mut [Slot],
    completions: &'a mut Vec<(u64, i32)>,
    /// Sequence number of the next read to start.
    next: u64,
    /// Sequence number of the oldest read not yet delivered.
    head: u64,
    counts: LoopCounts,
    /// Reads that completed while the read before them was still in flight.
    overtaken: u64,
}

impl Pipeline<'_> {
    fn in_flight(&self) -> usize {
        (self.next - self.head) as usize
    }

    /// The bytes of the last read delivered (valid until its slot is
    /// queued again); empty before any.
    fn last_delivered(&self) -> &[u8] {
        if self.head == 0 {
            return &[];
        }
        let s = self.slot_of(self.head - 1);
        // SAFETY: the slot's read completed and was delivered, so nothing
        // writes these bytes until the slot is queued again, which needs
        // `&mut self`.
        unsafe { std::slice::from_raw_parts(self.base.add(s * self.stride), self.slots[s].want) }
    }

    fn slot_of(&self, seq: u64) -> usize {
        (seq % self.slots.len() as u64) as usize
    }

    /// Starts reading a block into the next slot (queued, not yet submitted).
    fn start(&mut self, offset: u64, want: usize, request: usize) -> Result<()> {
        let s = self.slot_of(self.next);
        self.slots[s] = Slot {
            seq: self.next,
            offset,
            want,
            request,
            filled: 0,
            done: false,
        };
        self.next += 1;
        self.queue(s)
    }

    /// Queues a read of the rest of slot `s`.
    fn queue(&mut self, s: usize) -> Result<()> {
        let slot = self.slots[s];
        // SAFETY: s * stride + filled < buffer length, as filled < request <= stride.
        let buf = unsafe { self.base.add(s * self.stride + slot.filled) };
        let len = (slot.request - slot.filled) as u32;
        let at = slot.offset + slot.filled as u64;
        let entry = if self.registered {
            opcode::ReadFixed::new(self.fd, buf, len, s as u16)
                .offset(at)
                .build()
        } else {
            opcode::Read::new(self.fd, buf, len).offset(at).build()
        }
        .user_data(s as u64);
        // SAFETY: the buffer stays valid and untouched until the read
        // completes: a slot is reused only after its block is delivered.
        while unsafe { self.ring.submission().push(&entry) }.is_err() {
            // Cannot happen with at most `depth` reads outstanding, but a
            // full queue is emptied rather than trusted.
            self.enter(0)?;
        }
        Ok(())
    }

    /// Submits what is queued and waits for `want` completions.
    fn enter(&mut self, want: usize) -> Result<()> {
        enter(self.ring, want, &mut self.counts)
    }

    /// Waits until the head read is done, then delivers it and every done
    /// read after it, in order.
    fn deliver(&mut self, workload: &mut dyn Workload) -> Result<()> {
        loop {
            let mut delivered = false;
            while self.head < self.next {
                let s = self.slot_of(self.head);
                let slot = self.slots[s];
                if !slot.done {
                    break;
                }
                let start = s * self.stride;
                // SAFETY: the slot's read completed, so nothing writes these
                // bytes until the slot is queued again, after this borrow ends.
                let data = unsafe { std::slice::from_raw_parts(self.base.add(start), slot.want) };
                workload.consume(slot.offset, data);
                self.counts.bytes += slot.want as u64;
                self.head += 1;
                delivered = true;
            }
            if delivered {
                return Ok(());
            }
            self.enter(1)?;
            self.reap()?;
        }
    }

    /// Takes every completion off the queue; short reads are queued again
    /// for the rest of their block.
    fn reap(&mut self) -> Result<()> {
        self.completions.clear();
        self.completions
            .extend(self.ring.completion().map(|c| (c.user_data(), c.result())));
        for i in 0..self.completions.len() {
            let (user_data, res) = self.completions[i];
            let s = user_data as usize;
            let slot = &mut self.slots[s];
            let at = slot.offset + slot.filled as u64;
            if res < 0 {
                let e = std::io::Error::from_raw_os_error(-res);
                if matches!(-res, libc::EINTR | libc::EAGAIN) {
                    self.queue(s)?;
                    continue;
                }
                return Err(Error::Trial(format!(
                    "io_uring read of {} bytes at byte {at} failed: {e}",
                    slot.request - slot.filled
                )));
            }
            if res == 0 {
                return Err(Error::Trial(format!(
                    "the file ended early at byte {at} (was it truncated?)"
                )));
            }
            slot.filled += res as usize;
            if slot.filled >= slot.want {
                slot.done = true;
                let seq = slot.seq;
                // (A lower bound: only the read just before is looked at.)
                if seq > self.head && !self.slots[self.slot_of(seq - 1)].done {
                    self.overtaken += 1;
                }
            } else {
                self.queue(s)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::{chase, Pattern};
    use std::io::Write;

    #[derive(Default)]
    struct Blocks(Vec<(u64, Vec<u8>)>);
    impl Workload for Blocks {
        fn consume(&mut self, offset: u64, data: &[u8]) {
            self.0.push((offset, data.to_vec()));
        }
        fn checksum(&self) -> u64 {
            0
        }
    }

    fn expected(order: &BlockOrder, layout: Layout, bytes: &[u8]) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        order
            .for_each_read(layout, |o, l| {
                out.push((o, bytes[o as usize..o as usize + l].to_vec()));
                Ok::<u64, ()>(chase::chase_word(&bytes[o as usize..o as usize + l]))
            })
            .unwrap();
        out
    }

    #[test]
    fn blocks_arrive_in_submission_order_at_every_depth() {
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 241) as u8).collect();
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&bytes).unwrap();
        let layout = Layout {
            file_size: bytes.len() as u64,
            block_size: 4096,
        };
        for pattern in [Pattern::Seq, Pattern::Random, Pattern::RandomReplace] {
            for depth in [1, 2, 7, 32, 256] {
                for registered in [false, true] {
                    let order = BlockOrder::new(pattern, layout, 11).unwrap();
                    let mut m =
                        UringMethod::new(f.try_clone().unwrap(), layout, depth, registered, false);
                    crate::fixtures::require_uring(m.setup());
                    let mut seen = Blocks::default();
                    let counts = m.run(&order, &mut seen).unwrap();
                    m.teardown().unwrap();
                    let what = format!("{pattern} depth {depth} registered {registered}");
                    assert!(seen.0 == expected(&order, layout, &bytes), "{what}");
                    assert_eq!(counts.bytes, order.bytes(layout), "{what}");
                    if depth == 1 {
                        // One io_uring_enter per block.
                        assert_eq!(counts.syscalls, layout.blocks(), "{what}");
                    }
                }
            }
        }
    }

    #[test]
    fn cold_reads_that_overtake_each_other_are_still_delivered_in_order() {
        use std::os::fd::AsRawFd;
        let bytes: Vec<u8> = (0..(8u32 << 20))
            .map(|i| (i.wrapping_mul(31) >> 7) as u8)
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cold.bin");
        std::fs::write(&path, &bytes).unwrap();
        let layout = Layout {
            file_size: bytes.len() as u64,
            block_size: 4096,
        };
        let order = BlockOrder::new(Pattern::Random, layout, 3).unwrap();
        let mut overtaken = 0;
        for direct in [false, true] {
            let f = File::open(&path).unwrap();
            f.sync_all().unwrap();
            // SAFETY: a valid descriptor; advice has no memory effects.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            let mut m = UringMethod::new(f, layout, 32, false, direct);
            crate::fixtures::require_uring(m.setup());
            let mut seen = Blocks::default();
            m.run(&order, &mut seen).unwrap();
            assert!(
                seen.0 == expected(&order, layout, &bytes),
                "direct {direct}"
            );
            overtaken += m.overtaken;
        }
        // On a real device, some of 2048 random reads 32 deep finish out of order.
        eprintln!("{overtaken} reads overtook an earlier one");
    }

    #[test]
    fn unavailable_says_why_and_what_to_do() {
        let nosys = unavailable(&std::io::Error::from_raw_os_error(libc::ENOSYS));
        assert!(nosys.contains("no io_uring"), "{nosys}");
        assert!(nosys.ends_with("use --method pread or direct instead"));
        let perm = unavailable(&std::io::Error::from_raw_os_error(libc::EPERM));
        assert!(
            perm.contains("io_uring_setup failed (Operation not permitted"),
            "{perm}"
        );
        assert!(
            perm.contains("io_uring_disabled") || perm.contains("seccomp"),
            "{perm}"
        );
    }
}
