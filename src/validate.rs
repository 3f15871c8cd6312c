//! Cross-method validation: for one file, pattern, block size and workload,
//! every method must produce the same checksum.
use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::pattern::Pattern;
use crate::plan::Case;
use crate::workload::WorkloadKind;

type Key = (Pattern, u64, u64, WorkloadKind, u64);

/// The first checksum seen for each (pattern, block, file, workload, seed).
#[derive(Default, Debug)]
pub struct ChecksumBook {
    seen: HashMap<Key, (String, u64)>,
}

impl ChecksumBook {
    /// Records `checksum` for `case`, or fails naming both methods if an
    /// earlier trial of the same bytes gave another.
    pub fn check(&mut self, case: &Case, checksum: u64) -> Result<()> {
        let key = (
            case.pattern,
            case.block_size,
            case.file_size,
            case.workload,
            case.seed,
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
                    case.workload
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::{CacheState, WarmBy};
    use crate::method::MethodKind;

    fn case(method: MethodKind, cache: CacheState) -> Case {
        Case {
            method,
            pattern: Pattern::Seq,
            block_size: 4096,
            file_size: 1 << 20,
            workload: WorkloadKind::Sum,
            cache,
            warm_by: WarmBy::Seq,
            populate: None,
            advice: None,
            share: None,
            seed: 1,
            io: Default::default(),
            latency: false,
        }
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
    }
}
