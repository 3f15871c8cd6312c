//! Many files (`--files N`, fio's `nrfiles`): N generated files of one size
//! or of sizes drawn from a range (`--file-size 4k..64k`, fio's `filesize`
//! range), read one after another in one trial, each opened (or mapped),
//! read and closed (or unmapped) inside the main loop.
//!
//! Everything here is a pure function of the set and the seed: the size of
//! each file, the content seed of each, the order the files are visited in,
//! and the names they have on disk. The generator
//! ([`crate::files::file_set`]), the runner (which prepares the cache of
//! every file) and the trial (which reads them) all take them from here.
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::size::format_size;

/// Most files in a set (`--files`): generating, preparing and checking
/// them is one open and one fsync-free write each, and their names stay
/// in one directory.
pub const MAX_FILES: u32 = 100_000;
/// Largest file of a set (`--file-size`).
pub const MAX_FILE_SIZE: u64 = 1 << 30;
/// Most bytes a set may hold in all.
pub const MAX_SET_BYTES: u64 = 64 << 30;
/// A set's files when `--file-size` is not given.
pub const DEFAULT_FILE_SIZE: u64 = 4 << 10;

/// N files of a size, or of sizes drawn uniformly from `min..=max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileSet {
    /// How many files.
    pub count: u32,
    /// The smallest a file may be, bytes (at least 1).
    pub min_size: u64,
    /// The largest a file may be, bytes (`min_size` for one size).
    pub max_size: u64,
}

impl std::fmt::Display for FileSet {
    /// `10000 files of 4 KiB`, `200 files of 4 KiB..64 KiB`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} files of {}", self.count, self.size_label())
    }
}

impl FileSet {
    /// `4 KiB` or `4 KiB..64 KiB`.
    pub fn size_label(&self) -> String {
        if self.min_size == self.max_size {
            format_size(self.min_size)
        } else {
            format!(
                "{}..{}",
                format_size(self.min_size),
                format_size(self.max_size)
            )
        }
    }

    /// Each file's size, in file order: drawn from the seed, so the same
    /// set and seed always give the same sizes.
    pub fn sizes(&self, seed: u64) -> Vec<u64> {
        if self.min_size == self.max_size {
            return vec![self.min_size; self.count as usize];
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x6669_6c65_7369_7a65);
        (0..self.count)
            .map(|_| rng.random_range(self.min_size..=self.max_size))
            .collect()
    }

    /// The bytes of every file together (a case's `file_size`).
    pub fn total(&self, seed: u64) -> u64 {
        self.sizes(seed).iter().sum()
    }

    /// The seed of file `index`'s content.
    pub fn content_seed(seed: u64, index: u32) -> u64 {
        seed ^ (u64::from(index) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// The directory the set is generated in, inside the data directory
    /// (named with faultline's prefix, as every file it makes).
    pub fn dir_name(&self, seed: u64) -> String {
        format!(
            "faultline-files-{}-{}-{}-{seed:016x}",
            self.count, self.min_size, self.max_size
        )
    }

    /// The set and seed a directory name made by [`FileSet::dir_name`]
    /// stands for; `None` for any other name (one out of a set's bounds
    /// included).
    pub fn parse_dir_name(name: &str) -> Option<(FileSet, u64)> {
        let rest = name.strip_prefix("faultline-files-")?;
        let mut parts = rest.split('-');
        let count: u32 = parts.next()?.parse().ok()?;
        let min_size: u64 = parts.next()?.parse().ok()?;
        let max_size: u64 = parts.next()?.parse().ok()?;
        let seed = parts.next()?;
        if parts.next().is_some() || seed.len() != 16 {
            return None;
        }
        let seed = u64::from_str_radix(seed, 16).ok()?;
        let set = FileSet {
            count,
            min_size,
            max_size,
        };
        let in_bounds = (1..=MAX_FILES).contains(&count)
            && (1..=max_size).contains(&min_size)
            && max_size <= MAX_FILE_SIZE;
        (in_bounds && set.dir_name(seed) == name).then_some((set, seed))
    }

    /// The index a member's name ([`FileSet::file_name`]) stands for.
    pub fn parse_file_name(name: &str) -> Option<u32> {
        let digits = name.strip_prefix("faultline-")?.strip_suffix(".data")?;
        let index: u32 = digits.parse().ok()?;
        (FileSet::file_name(index) == name).then_some(index)
    }

    /// `10000 files of 4 KiB, 39.1 MiB in all` for `seed`'s sizes.
    pub fn describe_total(&self, seed: u64) -> String {
        format!("{self}, {} in all", format_size(self.total(seed)))
    }

    /// The name of file `index` in the set's directory.
    pub fn file_name(index: u32) -> String {
        format!("faultline-{index:06}.data")
    }

    /// The order a trial visits the files in: file order for `seq`, a
    /// seeded shuffle for `random` (the only two patterns a set takes).
    pub fn visit_order(&self, random: bool, seed: u64) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.count).collect();
        if random {
            order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        }
        order
    }
}

/// Parses `--file-size`: one size (`4k`) or a range (`4k..64k`), each from
/// 1 byte to [`MAX_FILE_SIZE`], the first no larger than the second.
pub fn parse_file_size(input: &str) -> std::result::Result<(u64, u64), String> {
    let one = |s: &str| -> std::result::Result<u64, String> {
        let n = crate::size::parse_size(s).map_err(|e| e.to_string())?;
        if n == 0 || n > MAX_FILE_SIZE {
            return Err(format!(
                "{s} is out of range: each file holds 1 byte to {}",
                format_size(MAX_FILE_SIZE)
            ));
        }
        Ok(n)
    };
    match input.split_once("..") {
        Some((a, b)) => {
            let (min, max) = (one(a)?, one(b)?);
            if min > max {
                return Err(format!(
                    "the range {input} runs backwards: give the smaller size first"
                ));
            }
            Ok((min, max))
        }
        None => {
            let n = one(input)?;
            Ok((n, n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_fixed_by_the_seed_and_stay_in_the_range() {
        let set = FileSet {
            count: 500,
            min_size: 4096,
            max_size: 65536,
        };
        let sizes = set.sizes(1);
        assert_eq!(sizes.len(), 500);
        assert!(sizes.iter().all(|s| (4096..=65536).contains(s)));
        assert_eq!(sizes, set.sizes(1));
        assert_ne!(sizes, set.sizes(2));
        assert_eq!(set.total(1), sizes.iter().sum::<u64>());
        let one = FileSet {
            count: 3,
            min_size: 10,
            max_size: 10,
        };
        assert_eq!(one.sizes(9), [10, 10, 10]);
        assert_eq!(one.to_string(), "3 files of 10 B");
        assert_eq!(set.to_string(), "500 files of 4 KiB..64 KiB");
    }

    #[test]
    fn file_sizes_parse_one_size_or_a_range_and_refuse_the_rest() {
        assert_eq!(parse_file_size("4k"), Ok((4096, 4096)));
        assert_eq!(parse_file_size("4k..64k"), Ok((4096, 65536)));
        for bad in ["0", "64k..4k", "2G", "x", "4k..", "..4k"] {
            assert!(parse_file_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn directory_and_file_names_parse_back_and_nothing_else_does() {
        let set = FileSet {
            count: 200,
            min_size: 4096,
            max_size: 65536,
        };
        let name = set.dir_name(0xab);
        assert_eq!(FileSet::parse_dir_name(&name), Some((set, 0xab)));
        assert_eq!(
            set.describe_total(1),
            format!(
                "200 files of 4 KiB..64 KiB, {} in all",
                format_size(set.total(1))
            )
        );
        for other in [
            format!("{name}.tmp-12"),
            format!("{name}-1"),
            "faultline-files-0-1-1-0000000000000001".to_string(),
            "faultline-files-1-5-4-0000000000000001".to_string(),
            "faultline-files-1-1-1-1".to_string(),
            "faultline-files-01-1-1-0000000000000001".to_string(),
            "faultline-4096-0000000000000001.data".to_string(),
        ] {
            assert_eq!(FileSet::parse_dir_name(&other), None, "{other}");
        }
        assert_eq!(FileSet::parse_file_name(&FileSet::file_name(42)), Some(42));
        for other in [
            "faultline-42.data",
            "faultline-000042.data.x",
            "x-000042.data",
        ] {
            assert_eq!(FileSet::parse_file_name(other), None, "{other}");
        }
    }

    #[test]
    fn the_random_order_visits_every_file_once() {
        let set = FileSet {
            count: 100,
            min_size: 1,
            max_size: 1,
        };
        let mut order = set.visit_order(true, 5);
        assert_ne!(order, set.visit_order(false, 5));
        order.sort_unstable();
        assert_eq!(order, set.visit_order(false, 5));
    }
}
