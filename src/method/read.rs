//! `read` and `pread`: system calls that copy each block into a buffer.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;

use super::{prefaulted_buffer, LoopCounts, Method, Spec};
use crate::error::{Error, Result};
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// Which system call fills the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// read() at the file cursor; lseek() first when the order jumps.
    Read,
    /// pread() at the block's offset.
    Pread,
}

/// `read`: read() at the file cursor.
pub(super) const READ: Spec = Spec {
    writes: false,
    maps_file: false,
    direct: false,
    uses_uring: false,
    options: &[],
    build: |file, layout, _, _| Box::new(ReadMethod::new(file, layout, Call::Read)),
};

/// `pread`: pread() at each block's offset.
pub(super) const PREAD: Spec = Spec {
    build: |file, layout, _, _| Box::new(ReadMethod::new(file, layout, Call::Pread)),
    ..READ
};

/// read()/pread() into one block-sized buffer.
pub struct ReadMethod {
    file: File,
    layout: Layout,
    call: Call,
    buffer: Vec<u8>,
}

impl ReadMethod {
    /// A method reading `file` with `call`.
    pub fn new(file: File, layout: Layout, call: Call) -> Self {
        ReadMethod {
            file,
            layout,
            call,
            buffer: Vec::new(),
        }
    }
}

fn short_read(offset: u64) -> Error {
    Error::Trial(format!(
        "the file ended early at byte {offset} (was it truncated?)"
    ))
}

fn io_error(e: std::io::Error) -> Error {
    Error::Trial(format!("read failed: {e}"))
}

impl Method for ReadMethod {
    fn setup(&mut self) -> Result<()> {
        self.buffer = prefaulted_buffer(self.layout.block_size as usize);
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let layout = self.layout;
        let sequential = order.is_sequential();
        let mut counts = LoopCounts::default();
        let ReadMethod {
            file, call, buffer, ..
        } = self;
        order.for_each(|index| {
            let (offset, len) = layout.block(index);
            let buf = &mut buffer[..len];
            let mut filled = 0;
            match call {
                Call::Read => {
                    if !sequential {
                        file.seek(SeekFrom::Start(offset)).map_err(io_error)?;
                        counts.syscalls += 1;
                    }
                    while filled < len {
                        let n = file.read(&mut buf[filled..]).map_err(io_error)?;
                        counts.syscalls += 1;
                        if n == 0 {
                            return Err(short_read(offset + filled as u64));
                        }
                        filled += n;
                    }
                }
                Call::Pread => {
                    while filled < len {
                        let n = file
                            .read_at(&mut buf[filled..], offset + filled as u64)
                            .map_err(io_error)?;
                        counts.syscalls += 1;
                        if n == 0 {
                            return Err(short_read(offset + filled as u64));
                        }
                        filled += n;
                    }
                }
            }
            workload.consume(offset, buf);
            counts.bytes += len as u64;
            Ok(())
        })?;
        Ok(counts)
    }

    fn teardown(&mut self) -> Result<()> {
        self.buffer = Vec::new();
        Ok(())
    }
}
