//! Read-back of written files: what a write trial wrote must read back as
//! exactly what its `fill` workload produced, checked outside any timing.
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::error::{Error, Result};
use crate::plan::Case;

/// Reads back the file a write trial of `case` wrote, outside any timing, and
/// checks it independently of the method: its length is the case's file size,
/// every byte is what the `fill` workload puts at that offset (recomputed
/// here from the offset alone), and the trial's `checksum` is the sum of those
/// bytes. Any difference is an [`Error::ReadBack`] naming the first wrong byte.
///
/// Every block is written exactly once (write methods take `seq`, `random`,
/// `reverse` or `stride:N`, never a sampled pattern), so the bytes of the
/// file are the bytes produced. A replayed trace's writes are checked by
/// [`check_trace_written`] instead.
pub fn check_written(path: &Path, case: &Case, checksum: u64) -> Result<()> {
    if case.read_share.is_some() {
        return check_mixed(path, case, checksum);
    }
    if case.trace.is_some() {
        return check_trace_written(path, case, checksum);
    }
    let fail = |detail: String| Error::ReadBack {
        method: case.method_label(),
        detail,
    };
    let content = case.fill.unwrap_or_default();
    let mut file = open_sized(path, case.file_size, "that were written").map_err(|e| e.or(fail))?;
    let len = case.file_size;
    const CHUNK: usize = 1 << 20;
    let mut found = vec![0u8; CHUNK];
    let mut expected = vec![0u8; CHUNK];
    let mut offset = 0u64;
    let mut total = 0u64;
    while offset < len {
        let n = CHUNK.min((len - offset) as usize);
        file.read_exact(&mut found[..n])
            .map_err(|e| Error::io("read back", path, e))?;
        total = total.wrapping_add(crate::workload::fill(content, offset, &mut expected[..n]));
        if found[..n] != expected[..n] {
            let i = (0..n).find(|&i| found[i] != expected[i]).unwrap_or(0);
            return Err(fail(format!(
                "byte {} of {} is {:#04x}, not the {:#04x} the fill writes there ({})",
                offset + i as u64,
                path.display(),
                found[i],
                expected[i],
                case.group_label()
            )));
        }
        offset += n as u64;
    }
    if total != checksum {
        return Err(fail(format!(
            "the trial's checksum is {checksum:#018x}, but the bytes it wrote sum to {total:#018x} ({})",
            case.group_label()
        )));
    }
    Ok(())
}

/// The read-back of a trace's writes, replayed over an overwrite target
/// (generated from the case's seed): every byte a write covered is the
/// fill's, every other byte is still the generated content, and the trial's
/// checksum is the sum of the fill's bytes over every write, in order
/// (a byte written twice counts twice, as it was produced twice).
pub fn check_trace_written(path: &Path, case: &Case, checksum: u64) -> Result<()> {
    let fail = |detail: String| Error::ReadBack {
        method: case.method_label(),
        detail,
    };
    let Some(reference) = &case.trace else {
        return check_written(path, case, checksum);
    };
    let trace = reference.load(Some(case.file_size))?;
    let content = case.fill.unwrap_or_default();
    let writes = trace.ops(crate::pattern::trace::Ops::Writes);
    // The sum of what the fill produced, write by write.
    let mut expected_sum = 0u64;
    let mut scratch = Vec::new();
    for op in writes {
        scratch.resize(op.len as usize, 0);
        expected_sum =
            expected_sum.wrapping_add(crate::workload::fill(content, op.offset, &mut scratch));
    }
    // The ranges written, merged.
    let mut ranges: Vec<(u64, u64)> = writes
        .iter()
        .filter(|op| op.len > 0)
        .map(|op| (op.offset, op.offset + u64::from(op.len)))
        .collect();
    ranges.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let mut file =
        open_sized(path, case.file_size, "it had before the writes").map_err(|e| e.or(fail))?;
    let len = case.file_size;
    const CHUNK: usize = 1 << 20;
    let mut found = vec![0u8; CHUNK];
    let mut expected = vec![0u8; CHUNK];
    let mut generated = crate::files::dataset::GeneratedContent::new(case.seed);
    let mut next_range = 0;
    let mut offset = 0u64;
    while offset < len {
        let n = CHUNK.min((len - offset) as usize);
        file.read_exact(&mut found[..n])
            .map_err(|e| Error::io("read back", path, e))?;
        generated.read(offset, &mut expected[..n]);
        let end = offset + n as u64;
        while next_range < merged.len() && merged[next_range].1 <= offset {
            next_range += 1;
        }
        let mut r = next_range;
        while r < merged.len() && merged[r].0 < end {
            let (a, b) = (merged[r].0.max(offset), merged[r].1.min(end));
            let span = &mut expected[(a - offset) as usize..(b - offset) as usize];
            crate::workload::fill(content, a, span);
            r += 1;
        }
        if found[..n] != expected[..n] {
            let i = (0..n).find(|&i| found[i] != expected[i]).unwrap_or(0);
            let at = offset + i as u64;
            let written = merged.iter().any(|&(a, b)| a <= at && at < b);
            return Err(fail(format!(
                "byte {at} of {} is {:#04x}, not the {:#04x} {} ({})",
                path.display(),
                found[i],
                expected[i],
                if written {
                    "the trace's write puts there"
                } else {
                    "it held before (no write of the trace covers it)"
                },
                case.group_label()
            )));
        }
        offset = end;
    }
    if expected_sum != checksum {
        return Err(fail(format!(
            "the trial's checksum is {checksum:#018x}, but the trace's writes sum to {expected_sum:#018x} ({})",
            case.group_label()
        )));
    }
    Ok(())
}

/// Why [`open_sized`] failed: an I/O error, or a file of another size
/// (the detail, for the caller's own read-back error).
enum OpenFailure {
    Io(Error),
    Size(String),
}

impl OpenFailure {
    /// The error, with a size mismatch made by `fail`.
    fn or(self, fail: impl FnOnce(String) -> Error) -> Error {
        match self {
            OpenFailure::Io(e) => e,
            OpenFailure::Size(detail) => fail(detail),
        }
    }
}

/// Opens a written file for reading back (never through a symlink) and
/// checks it has `size` bytes; `what` ends the size message (`not the N …`).
fn open_sized(path: &Path, size: u64, what: &str) -> std::result::Result<File, OpenFailure> {
    let file: File = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| OpenFailure::Io(Error::io("open for reading back", path, e)))?;
    let len = file
        .metadata()
        .map_err(|e| OpenFailure::Io(Error::io("stat", path, e)))?
        .len();
    if len != size {
        return Err(OpenFailure::Size(format!(
            "{} is {len} bytes, not the {size} {what}",
            path.display()
        )));
    }
    Ok(file)
}

/// The read-back of a mixed case (`--read-share`) over its overwrite target
/// (generated from the case's seed), recomputed from the order and the mix
/// alone: every block a write covered holds the fill pattern, every other
/// block still the generated content; and the trial's `checksum` is the
/// read workload's over the bytes each read should have seen (a block read
/// after a write of it sees the write), so a read that missed a write of
/// the same trial fails here.
pub fn check_mixed(path: &Path, case: &Case, checksum: u64) -> Result<()> {
    let fail = |detail: String| Error::ReadBack {
        method: case.method_label(),
        detail,
    };
    let Some(mix) = case.mix() else {
        return check_written(path, case, checksum);
    };
    let layout = case.layout();
    let order = case.block_order()?;
    let mut written = vec![false; layout.blocks() as usize];
    let mut content = crate::files::dataset::GeneratedContent::new(case.seed);
    let mut workload = case.build_workload(crate::system::page_size());
    let mut expected = vec![0u8; layout.block_size as usize];
    let mut k = 0u64;
    order.for_each_read(layout, |offset, len| {
        let block = (offset / layout.block_size) as usize;
        if mix.is_read(k) {
            let bytes = &mut expected[..len];
            if written[block] {
                crate::workload::fill_pattern(offset, bytes);
            } else {
                content.read(offset, bytes);
            }
            workload.consume(offset, bytes);
        } else {
            written[block] = true;
        }
        k += 1;
        Ok::<u64, Error>(0)
    })?;
    if workload.checksum() != checksum {
        return Err(fail(format!(
            "the trial's checksum is {checksum:#018x}, but the bytes its reads should have seen give {:#018x} ({})",
            workload.checksum(),
            case.group_label()
        )));
    }
    let mut file = open_sized(path, case.file_size, "that were written").map_err(|e| e.or(fail))?;
    let mut found = vec![0u8; layout.block_size as usize];
    for (block, &was_written) in written.iter().enumerate() {
        let (offset, len) = layout.block(block as u64);
        file.read_exact(&mut found[..len])
            .map_err(|e| Error::io("read back", path, e))?;
        let want = &mut expected[..len];
        if was_written {
            crate::workload::fill_pattern(offset, want);
        } else {
            content.read(offset, want);
        }
        if found[..len] != *want {
            let i = (0..len).find(|&i| found[i] != want[i]).unwrap_or(0);
            return Err(fail(format!(
                "byte {} of {} is {:#04x}, not the {:#04x} {} ({})",
                offset + i as u64,
                path.display(),
                found[i],
                want[i],
                if was_written {
                    "its writes stored there"
                } else {
                    "it was generated with (no write covered it)"
                },
                case.group_label()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::workload::{FillContent, WorkloadKind};

    fn case(method: MethodKind) -> Case {
        let mut case = crate::fixtures::case(method);
        (case.block_size, case.file_size) = (4096, 1 << 20);
        case
    }

    fn written(content: FillContent, len: usize) -> (tempfile::NamedTempFile, Case, u64) {
        let mut data = vec![0u8; len];
        let sum = crate::workload::fill(content, 0, &mut data);
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &data).unwrap();
        let mut c = case(MethodKind::Pwrite);
        c.workload = WorkloadKind::Fill;
        c.fill = Some(content);
        c.file_size = len as u64;
        (file, c, sum)
    }

    #[test]
    fn a_correct_file_passes_the_read_back() {
        let (file, c, sum) = written(FillContent::Pattern, 3 << 20 | 5);
        check_written(file.path(), &c, sum).unwrap();
        let (file, c, sum) = written(FillContent::Zero, 1000);
        assert_eq!(sum, 0);
        check_written(file.path(), &c, sum).unwrap();
    }

    #[test]
    fn the_read_back_names_the_first_wrong_byte() {
        let (file, c, sum) = written(FillContent::Pattern, 2 << 20);
        let mut data = std::fs::read(file.path()).unwrap();
        let at = (1 << 20) + 17;
        data[at] ^= 0xff;
        std::fs::write(file.path(), &data).unwrap();
        let err = check_written(file.path(), &c, sum).unwrap_err().to_string();
        assert!(
            err.starts_with("read-back after pwrite: byte 1048593 of "),
            "{err}"
        );
    }

    #[test]
    fn the_read_back_checks_length_and_checksum() {
        let (file, mut c, sum) = written(FillContent::Pattern, 4096);
        let err = check_written(file.path(), &c, sum + 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains("checksum"), "{err}");
        c.file_size = 8192;
        let err = check_written(file.path(), &c, sum).unwrap_err().to_string();
        assert!(err.contains("is 4096 bytes, not the 8192"), "{err}");
        // A block written at the wrong place: same sum, wrong bytes.
        let (file, c, sum) = written(FillContent::Pattern, 8192);
        let mut data = std::fs::read(file.path()).unwrap();
        data.swap(0, 4096);
        std::fs::write(file.path(), &data).unwrap();
        assert!(check_written(file.path(), &c, sum).is_err());
    }
}
