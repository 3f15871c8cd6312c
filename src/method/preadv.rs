//! `preadv`: vectored reads of up to `--iov` blocks per system call.
//!
//! Of the two ways to use preadv() (split each block over N buffers, or
//! read N blocks into N buffers with one call), faultline does the second:
//! it is what a program gains from the vectored call, N times fewer system
//! calls while each block still lands in a buffer of its own, and every
//! workload sees each block whole (`touch` steps through a block by pages,
//! so pieces of blocks would change what it reads).
//!
//! One preadv() reads one contiguous range of the file, so a call takes the
//! next visits of the order only while they are consecutive blocks of the
//! file: up to N for `seq`, and mostly one for the random orders, which then
//! behave as pread() with a one-element vector. A short read is resumed
//! where it stopped. Blocks are handed to the workload in the order's order.
use std::fs::File;
use std::os::fd::AsRawFd;

use super::{prefaulted_buffer, LoopCounts, Method, MethodOption, Spec};
use crate::error::{Error, Result};
use crate::pattern::chase::chase_word;
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// Blocks per call when `--iov` is not given.
pub const DEFAULT_IOV: u32 = 4;

/// Most blocks per call (Linux's IOV_MAX).
pub const MAX_IOV: u32 = 1024;

/// `preadv`: up to `--iov` blocks per call.
pub(super) const PREADV: Spec = Spec {
    writes: false,
    maps_file: false,
    direct: false,
    uses_uring: false,
    options: &[MethodOption::Iov, MethodOption::Fadvise],
    build: |file, layout, config, _| {
        let mut method = PreadvMethod::new(file, layout, config.io.iov.unwrap_or(DEFAULT_IOV));
        method.fadvise = config.io.fadvise;
        Box::new(method)
    },
};

/// preadv() of up to `iov` consecutive blocks, each into its own buffer.
pub struct PreadvMethod {
    file: File,
    layout: Layout,
    iov: usize,
    fadvise: Option<super::Fadvise>,
    buffers: super::aligned::AlignedBuf,
    iovecs: Vec<libc::iovec>,
    pending: Vec<(u64, usize)>,
}

impl PreadvMethod {
    /// A method reading `file` with up to `iov` blocks per call.
    pub fn new(file: File, layout: Layout, iov: u32) -> Self {
        PreadvMethod {
            file,
            layout,
            iov: iov.clamp(1, MAX_IOV) as usize,
            fadvise: None,
            buffers: Default::default(),
            iovecs: Vec::new(),
            pending: Vec::new(),
        }
    }
}

/// The reads waiting to be made: consecutive ranges of the file, each into
/// its own buffer (`stride` bytes apart), the first at `pending[0].0`.
struct Batch<'a> {
    file: &'a File,
    stride: usize,
    buffers: &'a mut [u8],
    iovecs: &'a mut Vec<libc::iovec>,
    pending: &'a mut Vec<(u64, usize)>,
    counts: LoopCounts,
}

impl Batch<'_> {
    /// Whether a read of `offset` starts where the pending ones end.
    #[inline]
    fn follows(&self, offset: u64) -> bool {
        self.pending
            .last()
            .is_some_and(|&(at, len)| at + len as u64 == offset)
    }

    /// Reads the pending blocks with as few preadv() calls as the kernel
    /// allows, then hands each to the workload.
    fn flush(&mut self, workload: &mut dyn Workload) -> Result<()> {
        let Some(&(start, _)) = self.pending.first() else {
            return Ok(());
        };
        let stride = self.stride;
        let total: usize = self.pending.iter().map(|&(_, len)| len).sum();
        let base = self.buffers.as_mut_ptr();
        let mut done = 0;
        while done < total {
            // One iovec per block not yet filled, the first perhaps partly.
            self.iovecs.clear();
            let mut at = 0;
            for (k, &(_, len)) in self.pending.iter().enumerate() {
                if at + len > done {
                    let skip = done.saturating_sub(at);
                    self.iovecs.push(libc::iovec {
                        // SAFETY: k * stride + skip < buffers.len(), since
                        // k < iov and skip < len <= stride.
                        iov_base: unsafe { base.add(k * stride + skip) }.cast(),
                        iov_len: len - skip,
                    });
                }
                at += len;
            }
            let offset = start + done as u64;
            // SAFETY: every iovec points into `buffers`, which outlives the
            // call and is not otherwise borrowed during it.
            let n = unsafe {
                libc::preadv(
                    self.file.as_raw_fd(),
                    self.iovecs.as_ptr(),
                    self.iovecs.len() as libc::c_int,
                    offset as libc::off_t,
                )
            };
            self.counts.syscalls += 1;
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Error::Trial(format!("preadv at byte {offset} failed: {e}")));
            }
            if n == 0 {
                return Err(Error::Trial(format!(
                    "the file ended early at byte {offset} (was it truncated?)"
                )));
            }
            done += n as usize;
        }
        for (k, &(offset, len)) in self.pending.iter().enumerate() {
            workload.consume(offset, &self.buffers[k * stride..k * stride + len]);
        }
        self.counts.bytes += total as u64;
        self.pending.clear();
        Ok(())
    }
}

impl Method for PreadvMethod {
    fn setup(&mut self) -> Result<()> {
        super::fadvise::apply(&self.file, self.fadvise)?;
        self.buffers = prefaulted_buffer(self.iov * self.layout.block_size as usize);
        self.iovecs = Vec::with_capacity(self.iov);
        self.pending = Vec::with_capacity(self.iov);
        Ok(())
    }

    /// A dependent order (`chase`) reads one block per call: the next
    /// block is known only once this one has arrived.
    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        if self.buffers.is_empty() {
            return Err(Error::Trial("run before setup".into()));
        }
        let iov = self.iov;
        let dependent = order.is_dependent();
        let mut batch = Batch {
            file: &self.file,
            stride: self.layout.block_size as usize,
            buffers: &mut self.buffers,
            iovecs: &mut self.iovecs,
            pending: &mut self.pending,
            counts: LoopCounts::default(),
        };
        batch.pending.clear();
        order.for_each_read(self.layout, |offset, len| {
            let n = batch.pending.len();
            if n == iov || (n > 0 && !batch.follows(offset)) {
                batch.flush(workload)?;
            }
            batch.pending.push((offset, len));
            if dependent {
                batch.flush(workload)?;
                return Ok(chase_word(&batch.buffers[..len]));
            }
            Ok::<u64, Error>(0)
        })?;
        batch.flush(workload)?;
        Ok(batch.counts)
    }

    fn teardown(&mut self) -> Result<()> {
        self.buffers = Default::default();
        self.iovecs = Vec::new();
        self.pending = Vec::new();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Pattern;
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

    #[test]
    fn every_block_once_in_order_with_n_blocks_per_call() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 249) as u8).collect();
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&bytes).unwrap();
        let layout = Layout {
            file_size: bytes.len() as u64,
            block_size: 1000,
        };
        for (pattern, iov) in [
            (Pattern::Seq, 1),
            (Pattern::Seq, 3),
            (Pattern::Seq, 64),
            (Pattern::Random, 4),
            (Pattern::RandomReplace, 4),
        ] {
            let order = BlockOrder::new(pattern, layout, 5).unwrap();
            let mut m = PreadvMethod::new(f.try_clone().unwrap(), layout, iov);
            m.setup().unwrap();
            let mut seen = Blocks::default();
            let counts = m.run(&order, &mut seen).unwrap();
            let mut expected = Vec::new();
            order
                .for_each_read(layout, |o, l| {
                    expected.push((o, bytes[o as usize..o as usize + l].to_vec()));
                    Ok::<u64, ()>(0)
                })
                .unwrap();
            assert_eq!(seen.0, expected, "{pattern} iov {iov}");
            assert_eq!(counts.bytes, order.bytes(layout));
            if pattern == Pattern::Seq {
                // 10 blocks, `iov` per call.
                assert_eq!(counts.syscalls, 10u64.div_ceil(iov as u64), "iov {iov}");
            }
        }
    }
}
