//! `chase`: dependent random reads. The index of the next block is computed
//! from the bytes of the block just read, as in a B-tree descent or a
//! hash-chain walk, so neither readahead nor a deeper queue can fetch it
//! early: each read waits for the one before.
//!
//! The path is still a pure function of (file bytes, layout, seed), so every
//! method visits the same blocks and their checksums agree. The rule:
//!
//! * the blocks it can visit are the full blocks of the file (a short last
//!   block is never visited, so every visit is `block_size` long), or the one
//!   short block when the file is smaller than a block;
//! * `key = mix(seed)`, the start is `reduce(mix(key ^ START), domain)`;
//! * after visit `s` (0-based) of a block whose first 8 bytes, read little
//!   endian and zero-padded, are `w`, the next block is
//!   `reduce(mix(w ^ key ^ (s + 1)·φ), domain)`.
//!
//! `mix` is the SplitMix64 finaliser, `φ = 0x9E3779B97F4A7C15`, and
//! `reduce(h, n) = (h·n) >> 64`. Mixing in the step number means a file of
//! identical blocks (all zeros, say) still gives a random-looking path
//! instead of a cycle.
use std::io::{self, Read, Seek, SeekFrom};

use super::Layout;

const PHI: u64 = 0x9E37_79B9_7F4A_7C15;
const START: u64 = 0x5354_4152_5421_2121;

/// A chase order: where the walk stands when it starts, and how many visits
/// it makes. Everything but the file's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChaseSpec {
    /// The walk before its first visit ([`Chase::new`], or where an earlier
    /// stretch of the same walk stopped).
    pub start: Chase,
    /// Number of visits.
    pub steps: u64,
}

/// Walks a chase path one block at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chase {
    key: u64,
    domain: u64,
    step: u64,
    current: u64,
}

impl Chase {
    /// A walk over `layout` with `seed`, standing on its first block.
    pub fn new(layout: Layout, seed: u64) -> Chase {
        let key = mix(seed);
        let domain = Chase::domain(layout);
        Chase {
            key,
            domain,
            step: 0,
            current: reduce(mix(key ^ START), domain),
        }
    }

    /// Number of blocks a chase can visit: the full blocks, or 1 when the
    /// file is shorter than a block (0 for an empty file).
    pub fn domain(layout: Layout) -> u64 {
        match layout.file_size / layout.block_size {
            0 => u64::from(layout.file_size > 0),
            full => full,
        }
    }

    /// The block to visit now.
    pub fn current(&self) -> u64 {
        self.current
    }

    /// Moves on from the current block, given its bytes (at least the first
    /// 8, or the whole block if shorter); returns the next block.
    #[inline]
    pub fn next(&mut self, block_bytes: &[u8]) -> u64 {
        self.next_word(chase_word(block_bytes))
    }

    /// As [`Chase::next`], given [`chase_word`] of the current block.
    #[inline]
    pub fn next_word(&mut self, word: u64) -> u64 {
        self.step += 1;
        self.current = reduce(
            mix(word ^ self.key ^ self.step.wrapping_mul(PHI)),
            self.domain,
        );
        self.current
    }
}

/// The first 8 bytes of a block as a little-endian number, zero-padded when
/// the block is shorter.
#[inline]
pub fn chase_word(block_bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    let n = block_bytes.len().min(8);
    word[..n].copy_from_slice(&block_bytes[..n]);
    u64::from_le_bytes(word)
}

/// The blocks a chase of `steps` visits, reading only the first 8 bytes of
/// each block from `file`. For checking a method's path, and for footprints.
pub fn chase_path<R: Read + Seek>(
    mut file: R,
    layout: Layout,
    seed: u64,
    steps: u64,
) -> io::Result<Vec<u64>> {
    let mut chase = Chase::new(layout, seed);
    let mut path = Vec::with_capacity(steps.min(1 << 24) as usize);
    let mut word = [0u8; 8];
    for _ in 0..steps {
        let (offset, len) = layout.block(chase.current());
        let n = len.min(8);
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(&mut word[..n])?;
        path.push(chase.current());
        chase.next(&word[..n]);
    }
    Ok(path)
}

/// SplitMix64's finaliser: a bijection of u64 that spreads every input bit.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Maps `h` to `0..n` without division (Lemire's multiply-shift).
#[inline]
fn reduce(h: u64, n: u64) -> u64 {
    ((h as u128 * n as u128) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use std::io::Cursor;

    fn file(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..len).map(|_| rng.random()).collect()
    }

    fn layout(file_size: u64, block_size: u64) -> Layout {
        Layout {
            file_size,
            block_size,
        }
    }

    /// What an mmap method does: slices of the whole file.
    fn walk_slices(bytes: &[u8], layout: Layout, seed: u64, steps: u64) -> Vec<u64> {
        let mut chase = Chase::new(layout, seed);
        (0..steps)
            .map(|_| {
                let at = chase.current();
                let (off, len) = layout.block(at);
                chase.next(&bytes[off as usize..off as usize + len]);
                at
            })
            .collect()
    }

    #[test]
    fn every_way_of_reading_gives_the_same_path() {
        let l = layout(1 << 20, 4096);
        let bytes = file(1 << 20, 1);
        let by_seek = chase_path(Cursor::new(&bytes), l, 9, 256).unwrap();
        assert_eq!(by_seek, walk_slices(&bytes, l, 9, 256));
        assert_eq!(by_seek, chase_path(Cursor::new(&bytes), l, 9, 256).unwrap());
        assert_ne!(
            by_seek,
            chase_path(Cursor::new(&bytes), l, 10, 256).unwrap()
        );
    }

    #[test]
    fn changing_the_file_changes_the_path() {
        let l = layout(1 << 20, 4096);
        let mut bytes = file(1 << 20, 2);
        let before = walk_slices(&bytes, l, 3, 100);
        // A byte past the first 8 of a block does not matter...
        let (off, _) = l.block(before[5]);
        bytes[off as usize + 100] ^= 0xff;
        assert_eq!(walk_slices(&bytes, l, 3, 100), before);
        // ...but one of the first 8 of a visited block sends the walk elsewhere.
        bytes[off as usize + 3] ^= 0xff;
        let after = walk_slices(&bytes, l, 3, 100);
        assert_eq!(after[..6], before[..6]);
        assert_ne!(after[6..], before[6..]);
    }

    #[test]
    fn identical_blocks_still_give_a_random_walk() {
        let l = layout(4096 * 1000, 4096);
        let zeros = vec![0u8; 4096 * 1000];
        let mut path = walk_slices(&zeros, l, 4, 1000);
        path.sort_unstable();
        path.dedup();
        // Uniform with replacement covers 1 - 1/e ≈ 63% of the blocks.
        assert!((550..720).contains(&path.len()), "{} distinct", path.len());
    }

    #[test]
    fn never_visits_a_short_last_block() {
        let l = layout(10 * 4096 + 100, 4096);
        assert_eq!(Chase::domain(l), 10);
        let path = walk_slices(&file(10 * 4096 + 100, 5), l, 6, 500);
        assert!(path.iter().all(|&b| b < 10));
        // A file shorter than one block is that one short block.
        let tiny = layout(5, 5);
        assert_eq!(Chase::domain(tiny), 1);
        assert_eq!(walk_slices(b"abcde", tiny, 1, 3), vec![0, 0, 0]);
        assert_eq!(Chase::domain(layout(0, 1)), 0);
    }

    #[test]
    fn blocks_shorter_than_a_word_use_what_they_have() {
        assert_eq!(chase_word(&[1, 2]), 0x0201);
        assert_eq!(chase_word(&[1, 2, 3, 4, 5, 6, 7, 8, 9]), 0x0807060504030201);
        let l = layout(64, 2);
        let bytes = file(64, 7);
        assert_eq!(
            chase_path(Cursor::new(&bytes), l, 1, 50).unwrap(),
            walk_slices(&bytes, l, 1, 50)
        );
    }
}
