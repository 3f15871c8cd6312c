//! Cross-method checksums: for one file, pattern (with its parameters, or
//! the trace and its hash), block size and workload, every method must
//! produce the same checksum, or the run stops naming both.
//! (What a write trial wrote is checked against its fill by
//! [`crate::files::readback`].)
use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::pattern::Pattern;
use crate::plan::Case;
use crate::workload::{FillContent, WorkloadKind};

type Key = (
    (Pattern, Option<crate::pattern::trace::TraceRef>),
    u64,
    u64,
    WorkloadKind,
    Option<FillContent>,
    u64,
    Option<(crate::workload::ScaleFactor, crate::workload::ScaleUnit)>,
    (Option<u8>, Option<crate::plan::FileSet>),
);

/// The first checksum seen for each (pattern, block, file, workload, fill,
/// seed, scale factor with its unit, read share and file set). Threads are not in the key: a threaded trial's
/// checksum equals the one-thread checksum ([`crate::trial::threads`]), so it is
/// checked against it.
/// Write methods meet each other here (their workload is `fill`), never read
/// methods; a written file is checked against the read side by [`crate::files::readback::check_written`].
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
        // against the generated file itself ([`crate::trial::timed`]).
        if case.duration_s.is_some() {
            return Ok(());
        }
        let key = (
            (case.pattern, case.trace.clone()),
            case.block_size,
            case.file_size,
            case.workload,
            case.fill,
            case.seed,
            case.scale.map(|s| (s, case.scale_unit.unwrap_or_default())),
            (case.read_share, case.files),
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
                    case.pattern_label(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::plan::CacheState;

    fn case(method: MethodKind, cache: CacheState) -> Case {
        let mut case = crate::fixtures::case(method);
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

    #[test]
    fn a_patterns_parameters_are_part_of_the_key() {
        let mut book = ChecksumBook::default();
        let mut a = case(MethodKind::Read, CacheState::Warm);
        a.pattern = "zipf:1.2".parse().unwrap();
        book.check(&a, 1).unwrap();
        let mut b = case(MethodKind::Mmap, CacheState::Warm);
        b.pattern = "zipf:0.8".parse().unwrap();
        book.check(&b, 2).unwrap();
        b.pattern = "zipf:1.2".parse().unwrap();
        let err = book.check(&b, 2).unwrap_err().to_string();
        assert!(err.contains("zipf:1.2"), "{err}");
        let mut hot = case(MethodKind::Mmap, CacheState::Warm);
        hot.pattern = "hotset:90/10".parse().unwrap();
        book.check(&hot, 3).unwrap();
        hot.pattern = "hotzone:90/10".parse().unwrap();
        book.check(&hot, 4).unwrap();
    }
}
