//! `stdio-write`: a buffered writer, as C programs write with fwrite() (the
//! write side of [`super::stdio`]).
//!
//! std's `BufWriter` plays stdio's part: `--stdio-buffer` bytes of buffer
//! (8 KiB by default, glibc's BUFSIZ) in front of write(), each block put
//! into it with `write_all`. Like glibc, a block at least as large as the
//! buffer bypasses it (after what the buffer holds is written), so
//! stdio-write with `--block` at or above `--stdio-buffer` is write() with
//! extra bookkeeping. For orders that jump, the writer is moved with
//! `seek`, which, like fseek on a write stream, writes out the buffer first
//! and then calls lseek().
//!
//! The main loop ends with a flush (fflush), so every byte is in the file
//! when it ends. `--sync each` flushes and then syncs after every block
//! (fflush + fsync, as a program that wants each record durable does);
//! only the sync is on the sync clock.
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};

use super::write::{sync_at_end, sync_in_loop};
use super::{
    prefaulted_buffer, write_error, LoopCounts, Method, MethodOption, Spec, SyncCall, SyncPolicy,
    SyncTimer, DEFAULT_STDIO_BUFFER,
};
use crate::error::{Error, Result};
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// The file under the buffered writer, counting the system calls made on it.
struct Counting {
    file: File,
    calls: u64,
    /// While set, writes are dropped instead of calling write(): setup uses
    /// it to fault the writer's buffer in.
    prefault: bool,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.prefault {
            return Ok(buf.len());
        }
        self.calls += 1;
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(()) // write() leaves nothing buffered in the process
    }
}

impl Seek for Counting {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.calls += 1;
        self.file.seek(pos)
    }
}

/// `stdio-write`: a buffered writer of `--stdio-buffer` bytes.
pub(super) const STDIO_WRITE: Spec = Spec {
    writes: true,
    maps_file: false,
    direct: false,
    uses_uring: false,
    options: &[
        MethodOption::StdioBuffer,
        MethodOption::SyncCall,
        MethodOption::OpenSync,
    ],
    build: |file, layout, config, timer| {
        let capacity = config.io.stdio_buffer.unwrap_or(DEFAULT_STDIO_BUFFER);
        let w = config.write;
        Box::new(StdioWriteMethod::new(
            file,
            layout,
            capacity,
            (w.sync, w.sync_call),
            timer,
        ))
    },
};

/// A buffered writer of `capacity` bytes, written in block-sized pieces.
pub struct StdioWriteMethod {
    file: Option<File>,
    writer: Option<BufWriter<Counting>>,
    layout: Layout,
    capacity: usize,
    block: super::aligned::AlignedBuf,
    sync: SyncPolicy,
    sync_call: SyncCall,
    timer: Box<dyn SyncTimer>,
    /// Where the writer stands: where the last block ended.
    position: u64,
}

impl StdioWriteMethod {
    /// A method writing `file` through a buffer of `capacity` bytes, syncing
    /// as `sync` says; `timer` times the syncs of `--sync each`.
    pub fn new(
        file: File,
        layout: Layout,
        capacity: u64,
        (sync, sync_call): (SyncPolicy, SyncCall),
        timer: Box<dyn SyncTimer>,
    ) -> Self {
        StdioWriteMethod {
            file: Some(file),
            writer: None,
            layout,
            capacity: capacity.max(1) as usize,
            block: Default::default(),
            sync,
            sync_call,
            timer,
            position: 0,
        }
    }
}

/// A failed buffered write, seek or flush at `offset`.
fn io_error(what: &str, offset: u64, e: std::io::Error) -> Error {
    write_error(format_args!("buffered {what} at byte {offset}"), e)
}

impl Method for StdioWriteMethod {
    fn setup(&mut self) -> Result<()> {
        let file = self
            .file
            .take()
            .ok_or_else(|| Error::Trial("setup twice".into()))?;
        let mut writer = BufWriter::with_capacity(
            self.capacity,
            Counting {
                file,
                calls: 0,
                prefault: true,
            },
        );
        // Fault the writer's buffer in without writing the file: fill it
        // (all but one byte, then that byte, so neither write bypasses it)
        // and flush it into nothing.
        let fill = prefaulted_buffer(self.capacity - 1);
        let prefault = writer
            .write_all(&fill)
            .and_then(|()| writer.write_all(&[0xa5]))
            .and_then(|()| writer.flush());
        prefault.map_err(|e| Error::Trial(format!("buffer setup failed: {e}")))?;
        writer.get_mut().prefault = false;
        self.writer = Some(writer);
        self.block = prefaulted_buffer(self.layout.block_size as usize);
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let layout = self.layout;
        let writer = self
            .writer
            .as_mut()
            .ok_or_else(|| Error::Trial("run before setup".into()))?;
        let (block, position) = (&mut self.block, &mut self.position);
        let (call, timer) = (self.sync_call, self.timer.as_mut());
        let each = self.sync == SyncPolicy::Each;
        let calls_before = writer.get_ref().calls;
        let mut counts = LoopCounts::default();
        order.for_each_read(layout, |offset, len| {
            if offset != *position {
                writer
                    .seek(SeekFrom::Start(offset))
                    .map_err(|e| io_error("seek", offset, e))?;
            }
            let buf = &mut block[..len];
            workload.produce(offset, buf);
            writer
                .write_all(buf)
                .map_err(|e| io_error("write", offset, e))?;
            *position = offset + len as u64;
            if each {
                writer.flush().map_err(|e| io_error("flush", offset, e))?;
                let file = &writer.get_ref().file;
                sync_in_loop(file, call, (offset, len as u64), timer, &mut counts)?;
            }
            counts.bytes += len as u64;
            Ok::<u64, Error>(0)
        })?;
        writer
            .flush()
            .map_err(|e| io_error("flush", *position, e))?;
        counts.syscalls += writer.get_ref().calls - calls_before;
        Ok(counts)
    }

    fn sync(&mut self) -> Result<()> {
        match &self.writer {
            Some(writer) => sync_at_end(&writer.get_ref().file, self.sync, self.sync_call),
            None => Ok(()),
        }
    }

    fn teardown(&mut self) -> Result<()> {
        if let Some(writer) = self.writer.take() {
            // Free the buffer (it was flushed at the end of the loop); keep
            // the file open until the method is dropped, as the others do.
            let (counting, _) = writer.into_parts();
            self.file = Some(counting.file);
        }
        self.block = Default::default();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::Untimed;
    use crate::pattern::Pattern;
    use std::io::Read;

    /// Produces the block's offset pattern: byte i of the file is i % 251.
    struct Offsets;
    impl Workload for Offsets {
        fn consume(&mut self, _: u64, _: &[u8]) {}
        fn produce(&mut self, offset: u64, out: &mut [u8]) {
            for (i, b) in out.iter_mut().enumerate() {
                *b = ((offset + i as u64) % 251) as u8;
            }
        }
        fn checksum(&self) -> u64 {
            0
        }
    }

    fn written(pattern: Pattern, capacity: u64, sync: SyncPolicy) -> (Vec<u8>, LoopCounts) {
        let layout = Layout {
            file_size: 10_000,
            block_size: 1000,
        };
        let file = tempfile::tempfile().unwrap();
        let mut copy = file.try_clone().unwrap();
        let order = BlockOrder::new(pattern, layout, 3).unwrap();
        let calls = (sync, SyncCall::SyncFileRange);
        let mut m = StdioWriteMethod::new(file, layout, capacity, calls, Box::new(Untimed));
        m.setup().unwrap();
        let counts = m.run(&order, &mut Offsets).unwrap();
        m.sync().unwrap();
        m.teardown().unwrap();
        let mut bytes = Vec::new();
        copy.seek(SeekFrom::Start(0)).unwrap();
        copy.read_to_end(&mut bytes).unwrap();
        (bytes, counts)
    }

    #[test]
    fn every_order_writes_every_byte_where_it_belongs() {
        let want: Vec<u8> = (0..10_000u64).map(|i| (i % 251) as u8).collect();
        for pattern in [Pattern::Seq, Pattern::Random, Pattern::Reverse] {
            for sync in [SyncPolicy::None, SyncPolicy::End, SyncPolicy::Each] {
                let (bytes, counts) = written(pattern, 4096, sync);
                assert_eq!(bytes, want, "{pattern} {sync}");
                assert_eq!(counts.bytes, 10_000);
            }
        }
    }

    #[test]
    fn a_sequential_write_goes_out_a_buffer_at_a_time() {
        // 10 000 bytes in 1000-byte blocks through a 4 KiB buffer: the
        // buffer is written out twice when full and once by the last flush.
        let (_, counts) = written(Pattern::Seq, 4096, SyncPolicy::None);
        assert_eq!(counts.syscalls, 3);
        // A buffer smaller than a block is bypassed: one write per block.
        let (_, counts) = written(Pattern::Seq, 512, SyncPolicy::None);
        assert_eq!(counts.syscalls, 10);
        // --sync each: a flush (one write) and a sync per block.
        let (_, counts) = written(Pattern::Seq, 4096, SyncPolicy::Each);
        assert_eq!(counts.syscalls, 20);
    }
}
