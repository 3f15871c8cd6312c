//! `read` and `pread`: system calls that copy each block into a buffer.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;

use super::{prefaulted_buffer, LoopCounts, Method, MethodOption, Spec};
use crate::error::{Error, Result};
use crate::pattern::chase::chase_word;
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// Which system call fills the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// read() at the file cursor; lseek() first when the next read does not
    /// start where the last one ended.
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
    options: &[
        MethodOption::Fadvise,
        MethodOption::ReadShare,
        MethodOption::Files,
    ],
    build: |file, layout, config, _| match config.mix {
        Some(mix) => Box::new(super::mixed::MixedMethod::new(
            file,
            layout,
            super::mixed::Path::Cursor,
            mix,
            config.mmap,
        )),
        None => Box::new(ReadMethod::new(file, layout, Call::Read).fadvise(config.io.fadvise)),
    },
};

/// `pread`: pread() at each block's offset.
pub(super) const PREAD: Spec = Spec {
    build: |file, layout, config, _| match config.mix {
        Some(mix) => Box::new(super::mixed::MixedMethod::new(
            file,
            layout,
            super::mixed::Path::Positional,
            mix,
            config.mmap,
        )),
        None => Box::new(ReadMethod::new(file, layout, Call::Pread).fadvise(config.io.fadvise)),
    },
    ..READ
};

/// read()/pread() into one block-sized buffer.
pub struct ReadMethod {
    file: File,
    layout: Layout,
    call: Call,
    fadvise: Option<super::Fadvise>,
    buffer: super::aligned::AlignedBuf,
    /// Where the file cursor stands (`read`): where the last read ended.
    cursor: u64,
}

impl ReadMethod {
    /// A method reading `file` with `call`.
    pub fn new(file: File, layout: Layout, call: Call) -> Self {
        ReadMethod {
            file,
            layout,
            call,
            fadvise: None,
            buffer: Default::default(),
            cursor: 0,
        }
    }

    /// With `Some`, setup gives the file this posix_fadvise() hint (`--fadvise`).
    pub fn fadvise(mut self, advice: Option<super::Fadvise>) -> Self {
        self.fadvise = advice;
        self
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
        super::fadvise::apply(&self.file, self.fadvise)?;
        self.buffer = prefaulted_buffer(self.layout.block_size as usize);
        Ok(())
    }

    fn next_file(&mut self, file: File, layout: Layout) -> Result<()> {
        // The old descriptor is closed here; the buffer is kept (it is
        // never smaller than a block: every file has the case's block size).
        self.file = file;
        self.layout = layout;
        self.cursor = 0;
        if self.buffer.len() < layout.block_size as usize {
            self.buffer = prefaulted_buffer(layout.block_size as usize);
        }
        super::fadvise::apply(&self.file, self.fadvise)
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let layout = self.layout;
        let dependent = order.is_dependent();
        let mut counts = LoopCounts::default();
        let ReadMethod {
            file,
            call,
            buffer,
            cursor,
            ..
        } = self;
        order.for_each_read(layout, |offset, len| {
            let buf = &mut buffer[..len];
            let mut filled = 0;
            match call {
                Call::Read => {
                    if offset != *cursor {
                        file.seek(SeekFrom::Start(offset)).map_err(io_error)?;
                        counts.syscalls += 1;
                    }
                    while filled < len {
                        let n = file.read(&mut buf[filled..]).map_err(io_error)?;
                        counts.syscalls += 1;
                        if n == 0 {
                            *cursor = offset + filled as u64;
                            return Err(short_read(offset + filled as u64));
                        }
                        filled += n;
                    }
                    *cursor = offset + len as u64;
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
            Ok(if dependent { chase_word(buf) } else { 0 })
        })?;
        Ok(counts)
    }

    fn teardown(&mut self) -> Result<()> {
        self.buffer = Default::default();
        Ok(())
    }
}
