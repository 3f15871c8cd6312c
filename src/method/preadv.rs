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
    options: &[MethodOption::Iov],
    build: |file, layout, config, _| {
        Box::new(PreadvMethod::new(
            file,
            layout,
            config.io.iov.unwrap_or(DEFAULT_IOV),
        ))
    },
};

/// preadv() of up to `iov` consecutive blocks, each into its own buffer.
pub struct PreadvMethod {
    file: File,
    layout: Layout,
    iov: usize,
    buffers: Vec<u8>,
    iovecs: Vec<libc::iovec>,
}

impl PreadvMethod {
    /// A method reading `file` with up to `iov` blocks per call.
    pub fn new(file: File, layout: Layout, iov: u32) -> Self {
        PreadvMethod {
            file,
            layout,
            iov: iov.clamp(1, MAX_IOV) as usize,
            buffers: Vec::new(),
            iovecs: Vec::new(),
        }
    }
}

/// The blocks waiting to be read: `len` consecutive blocks from `first`.
struct Batch<'a> {
    file: &'a File,
    layout: Layout,
    buffers: &'a mut [u8],
    iovecs: &'a mut Vec<libc::iovec>,
    first: u64,
    len: usize,
    counts: LoopCounts,
}

impl Batch<'_> {
    /// Reads the pending blocks with as few preadv() calls as the kernel
    /// allows, then hands each to the workload.
    fn flush(&mut self, workload: &mut dyn Workload) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        let block = self.layout.block_size as usize;
        let (start, _) = self.layout.block(self.first);
        let lens = |k: usize| self.layout.block(self.first + k as u64).1;
        let total: usize = (0..self.len).map(lens).sum();
        let base = self.buffers.as_mut_ptr();
        let mut done = 0;
        while done < total {
            // One iovec per block not yet filled, the first perhaps partly.
            self.iovecs.clear();
            let mut at = 0;
            for k in 0..self.len {
                let len = lens(k);
                if at + len > done {
                    let skip = done.saturating_sub(at);
                    self.iovecs.push(libc::iovec {
                        // SAFETY: k * block + skip < buffers.len(), since
                        // k < iov and skip < len <= block.
                        iov_base: unsafe { base.add(k * block + skip) }.cast(),
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
        for k in 0..self.len {
            let len = lens(k);
            let offset = start + (k * block) as u64;
            workload.consume(offset, &self.buffers[k * block..k * block + len]);
        }
        self.counts.bytes += total as u64;
        self.len = 0;
        Ok(())
    }
}

impl Method for PreadvMethod {
    fn setup(&mut self) -> Result<()> {
        self.buffers = prefaulted_buffer(self.iov * self.layout.block_size as usize);
        self.iovecs = Vec::with_capacity(self.iov);
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        if self.buffers.is_empty() {
            return Err(Error::Trial("run before setup".into()));
        }
        let iov = self.iov;
        let mut batch = Batch {
            file: &self.file,
            layout: self.layout,
            buffers: &mut self.buffers,
            iovecs: &mut self.iovecs,
            first: 0,
            len: 0,
            counts: LoopCounts::default(),
        };
        order.for_each(|index| {
            let follows = batch.len > 0 && index == batch.first + batch.len as u64;
            if batch.len == iov || (batch.len > 0 && !follows) {
                batch.flush(workload)?;
            }
            if batch.len == 0 {
                batch.first = index;
            }
            batch.len += 1;
            Ok::<(), Error>(())
        })?;
        batch.flush(workload)?;
        Ok(batch.counts)
    }

    fn teardown(&mut self) -> Result<()> {
        self.buffers = Vec::new();
        self.iovecs = Vec::new();
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
                .for_each(|i| {
                    let (o, l) = layout.block(i);
                    expected.push((o, bytes[o as usize..o as usize + l].to_vec()));
                    Ok::<(), ()>(())
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
