//! Cross-method validation: for one file, pattern, block size and workload,
//! every method must produce the same checksum; and what a write trial wrote
//! must read back as exactly what its workload produced.
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::error::{Error, Result};
use crate::pattern::Pattern;
use crate::plan::Case;
use crate::workload::{FillContent, WorkloadKind};

type Key = (
    Pattern,
    u64,
    u64,
    WorkloadKind,
    Option<FillContent>,
    u64,
    Option<(crate::workload::ScaleFactor, crate::workload::ScaleUnit)>,
);

/// The first checksum seen for each (pattern, block, file, workload, fill,
/// seed, scale factor with its unit). Threads are not in the key: a threaded trial's
/// checksum equals the one-thread checksum ([`crate::threads`]), so it is
/// checked against it.
/// Write methods meet each other here (their workload is `fill`), never read
/// methods; a written file is checked against the read side by [`check_written`].
#[derive(Default, Debug)]
pub struct ChecksumBook {
    seen: HashMap<Key, (String, u64)>,
}

impl ChecksumBook {
    /// Records `checksum` for `case`, or fails naming both methods if an
    /// earlier trial of the same bytes gave another.
    pub fn check(&mut self, case: &Case, checksum: u64) -> Result<()> {
        // A duration-bounded trial reads as many blocks as time allows, so
        // its checksum differs from trial to trial; the child checks it
        // against the generated file itself ([`crate::timed`]).
        if case.duration_s.is_some() {
            return Ok(());
        }
        let key = (
            case.pattern,
            case.block_size,
            case.file_size,
            case.workload,
            case.fill,
            case.seed,
            case.scale.map(|s| (s, case.scale_unit.unwrap_or_default())),
        );
        let label = case.method_label();
        match self.seen.get(&key) {
            None => {
                self.seen.insert(key, (label, checksum));
                Ok(())
            }
            Some((_, first)) if *first == checksum => Ok(()),
            Some((first_label, first)) => Err(Error::ChecksumMismatch {
                a: first_label.clone(),
                a_sum: *first,
                b: label,
                b_sum: checksum,
                what: format!(
                    "{} {} blocks, {} workload",
                    case.pattern,
                    crate::size::format_size(case.block_size),
                    match case.fill {
                        Some(fill) => format!("{} {fill}", case.workload),
                        None => case.workload.to_string(),
                    }
                ),
            }),
        }
    }
}

/// Reads back the file a write trial of `case` wrote, outside any timing, and
/// checks it independently of the method: its length is the case's file size,
/// every byte is what the `fill` workload puts at that offset (recomputed
/// here from the offset alone), and the trial's `checksum` is the sum of those
/// bytes. Any difference is an [`Error::ReadBack`] naming the first wrong byte.
///
/// Every block is written exactly once (write methods take `seq` or `random`,
/// never `random-replace`), so the bytes of the file are the bytes produced.
pub fn check_written(path: &Path, case: &Case, checksum: u64) -> Result<()> {
    let fail = |detail: String| Error::ReadBack {
        method: case.method_label(),
        detail,
    };
    let content = case.fill.unwrap_or_default();
    let mut file: File = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| Error::io("open for reading back", path, e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::io("stat", path, e))?
        .len();
    if len != case.file_size {
        return Err(fail(format!(
            "{} is {len} bytes, not the {} that were written",
            path.display(),
            case.file_size
        )));
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::CacheState;
    use crate::method::MethodKind;

    fn case(method: MethodKind, cache: CacheState) -> Case {
        let mut case = crate::report::fixtures::case(method);
        (case.block_size, case.file_size, case.cache) = (4096, 1 << 20, cache);
        case
    }

    #[test]
    fn agreeing_methods_pass_and_a_mismatch_names_both() {
        let mut book = ChecksumBook::default();
        book.check(&case(MethodKind::Read, CacheState::Warm), 42)
            .unwrap();
        book.check(&case(MethodKind::Mmap, CacheState::Cold), 42)
            .unwrap();
        let err = book
            .check(&case(MethodKind::Pread, CacheState::Warm), 43)
            .unwrap_err()
            .to_string();
        assert!(err.contains("read") && err.contains("pread"), "{err}");
        let mut other = case(MethodKind::Pread, CacheState::Warm);
        other.workload = WorkloadKind::Touch;
        book.check(&other, 7).unwrap();
        // The same bytes with another fill are another key.
        let mut zero = case(MethodKind::Write, CacheState::AsIs);
        zero.workload = WorkloadKind::Fill;
        zero.fill = Some(FillContent::Zero);
        book.check(&zero, 0).unwrap();
        let mut pattern = zero.clone();
        pattern.fill = Some(FillContent::Pattern);
        book.check(&pattern, 99).unwrap();
        pattern.method = MethodKind::MmapWrite;
        assert!(book.check(&pattern, 98).is_err());
    }

    fn written(content: FillContent, len: usize) -> (tempfile::NamedTempFile, Case, u64) {
        let mut data = vec![0u8; len];
        let sum = crate::workload::fill(content, 0, &mut data);
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &data).unwrap();
        let mut c = case(MethodKind::Pwrite, CacheState::AsIs);
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
