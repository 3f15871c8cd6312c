//! Access patterns: the order in which a trial visits the blocks of a file.
//!
//! The order is computed before the timed loop starts, so generating random
//! numbers is never part of what is timed. `random` is a seeded permutation:
//! every block is visited exactly once and every method touches the same
//! bytes, so their checksums agree.
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// The order of the blocks.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Blocks in file order.
    #[default]
    Seq,
    /// A seeded permutation of the blocks: each block exactly once.
    Random,
    /// As many blocks as the file holds, sampled with replacement.
    RandomReplace,
}

impl Pattern {
    /// The name used on the command line and in exports.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Seq => "seq",
            Pattern::Random => "random",
            Pattern::RandomReplace => "random-replace",
        }
    }
}

/// How a file is cut into blocks: every block is `block_size` long except
/// perhaps the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// File length in bytes.
    pub file_size: u64,
    /// Block length in bytes (at least 1, at most `file_size`).
    pub block_size: u64,
}

impl Layout {
    /// Number of blocks, counting a short last block.
    pub fn blocks(&self) -> u64 {
        self.file_size.div_ceil(self.block_size)
    }

    /// Byte offset and length of block `index`.
    #[inline(always)]
    pub fn block(&self, index: u64) -> (u64, usize) {
        let offset = index * self.block_size;
        let len = self.block_size.min(self.file_size - offset);
        (offset, len as usize)
    }
}

/// The precomputed visiting order of one trial.
#[derive(Clone, Debug)]
pub enum BlockOrder {
    /// Blocks `0..count` in order; nothing is stored.
    Sequential {
        /// Number of blocks.
        count: u64,
    },
    /// Explicit block indices (4 bytes per visit).
    Listed(Vec<u32>),
}

impl BlockOrder {
    /// Builds the order for a pattern. `seed` makes random orders repeatable.
    pub fn new(pattern: Pattern, layout: Layout, seed: u64) -> crate::error::Result<Self> {
        let count = layout.blocks();
        if pattern == Pattern::Seq {
            return Ok(BlockOrder::Sequential { count });
        }
        if count > u32::MAX as u64 {
            return Err(crate::error::Error::Plan(format!(
                "{count} blocks is too many for a random order; use a larger --block"
            )));
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let indices = match pattern {
            Pattern::Random => {
                let mut v: Vec<u32> = (0..count as u32).collect();
                v.shuffle(&mut rng);
                v
            }
            _ => (0..count)
                .map(|_| rng.random_range(0..count as u32))
                .collect(),
        };
        Ok(BlockOrder::Listed(indices))
    }

    /// Whether blocks come in file order (so a cursor-based method needs no seek).
    pub fn is_sequential(&self) -> bool {
        matches!(self, BlockOrder::Sequential { .. })
    }

    /// Number of visits.
    pub fn len(&self) -> u64 {
        match self {
            BlockOrder::Sequential { count } => *count,
            BlockOrder::Listed(v) => v.len() as u64,
        }
    }

    /// True when there is nothing to visit.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `visit(index)` for each block in order. Inlined, so the loop is
    /// as tight as a hand-written one.
    #[inline(always)]
    pub fn for_each<E>(&self, mut visit: impl FnMut(u64) -> Result<(), E>) -> Result<(), E> {
        match self {
            BlockOrder::Sequential { count } => {
                for i in 0..*count {
                    visit(i)?;
                }
            }
            BlockOrder::Listed(v) => {
                for &i in v {
                    visit(i as u64)?;
                }
            }
        }
        Ok(())
    }

    /// Total bytes the order visits.
    pub fn bytes(&self, layout: Layout) -> u64 {
        match self {
            BlockOrder::Sequential { .. } => layout.file_size,
            BlockOrder::Listed(v) => v.iter().map(|&i| layout.block(i as u64).1 as u64).sum(),
        }
    }
}

display_as_value_name!(Pattern);

#[cfg(test)]
mod tests {
    use super::*;

    fn visits(order: &BlockOrder) -> Vec<u64> {
        let mut out = Vec::new();
        order
            .for_each(|i| {
                out.push(i);
                Ok::<(), ()>(())
            })
            .unwrap();
        out
    }

    #[test]
    fn permutation_covers_every_block_exactly_once() {
        let layout = Layout {
            file_size: 1_000_001,
            block_size: 4096,
        };
        let order = BlockOrder::new(Pattern::Random, layout, 7).unwrap();
        let mut seen = visits(&order);
        assert_ne!(
            seen,
            (0..layout.blocks()).collect::<Vec<_>>(),
            "not shuffled"
        );
        seen.sort_unstable();
        assert_eq!(seen, (0..layout.blocks()).collect::<Vec<_>>());
        assert_eq!(order.bytes(layout), layout.file_size);
    }

    #[test]
    fn seed_makes_orders_repeatable() {
        let layout = Layout {
            file_size: 1 << 20,
            block_size: 4096,
        };
        let a = visits(&BlockOrder::new(Pattern::Random, layout, 1).unwrap());
        let b = visits(&BlockOrder::new(Pattern::Random, layout, 1).unwrap());
        let c = visits(&BlockOrder::new(Pattern::Random, layout, 2).unwrap());
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn random_replace_repeats_some_blocks() {
        let layout = Layout {
            file_size: 1 << 20,
            block_size: 4096,
        };
        let order = BlockOrder::new(Pattern::RandomReplace, layout, 3).unwrap();
        let mut v = visits(&order);
        assert_eq!(v.len() as u64, layout.blocks());
        assert!(v.iter().all(|&i| i < layout.blocks()));
        v.sort_unstable();
        v.dedup();
        assert!(
            (v.len() as u64) < layout.blocks(),
            "with replacement, some repeat"
        );
    }

    #[test]
    fn sequential_with_short_last_block() {
        let layout = Layout {
            file_size: 10,
            block_size: 4,
        };
        assert_eq!(layout.blocks(), 3);
        assert_eq!(layout.block(2), (8, 2));
        let order = BlockOrder::new(Pattern::Seq, layout, 0).unwrap();
        assert_eq!(visits(&order), vec![0, 1, 2]);
        assert_eq!(order.bytes(layout), 10);
    }
}
