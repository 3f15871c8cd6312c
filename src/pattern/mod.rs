//! Access patterns: the order in which a trial visits the blocks of a file.
//!
//! The order is computed before the timed loop starts, so generating random
//! numbers is never part of what is timed, and every method touches the same
//! offsets, so their checksums agree. Four shapes of order exist:
//!
//! * block indices in file order ([`BlockOrder::Sequential`]), stored as
//!   nothing but their count;
//! * listed block indices ([`BlockOrder::Listed`]): every generated pattern
//!   but `seq` and `chase`, and a trace whose reads are all whole blocks;
//! * byte extents ([`BlockOrder::Extents`]): a replayed trace, whose reads
//!   have any offset and length;
//! * a dependent walk ([`BlockOrder::Chase`]): the next block is known only
//!   once the current one is read; its path is still fixed by the file's
//!   bytes and the seed.
//!
//! Every method visits every shape through [`BlockOrder::for_each_read`],
//! which hands it `(offset, len)` and, for a walk, takes back
//! [`chase::chase_word`] of the bytes it read. Nothing here can panic on a
//! shape: there is no block-index-only visitor to call on the wrong one.
//!
//! [`stream`] extends every pattern past one pass, for duration-bounded
//! trials; [`footprint`] counts the distinct blocks an order touches.
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub mod chase;
pub mod distributions;
mod footprint;
mod mix;
pub mod orders;
#[macro_use]
mod spec;
pub mod stream;
pub mod trace;

use chase::ChaseSpec;
pub use footprint::{footprint, footprint_of_blocks, Footprint, Tally};
pub use spec::{Order, Param, PatternError, PatternSpec, Real, Share};

patterns! {
    /// The order in which a trial visits the blocks of a file. Adding a
    /// pattern is one file in `src/pattern/kinds/` (its constructor and its
    /// [`PatternSpec`]) plus one line here.
    pub enum Pattern, default Seq {
        /// `seq`: blocks in file order.
        Seq => seq::SEQ,
        /// `random`: a seeded permutation of the blocks, each exactly once.
        Random => random::RANDOM,
        /// `random-replace`: as many blocks as the file holds, uniform with replacement.
        RandomReplace => random_replace::RANDOM_REPLACE,
        /// `reverse`: blocks from the last to the first.
        Reverse => reverse::REVERSE,
        /// `stride:N`: every Nth block, wrapping around; every block exactly once.
        Stride(u64) => stride::STRIDE,
        /// `zipf:THETA`: block popularity follows Zipf's law with exponent THETA.
        Zipf(Real) => zipf::ZIPF,
        /// `pareto:H`: a share 1-H of the accesses goes to a share H of the blocks (fio's pareto).
        Pareto(Real) => pareto::PARETO,
        /// `normal:SIGMA`: centred on the middle of the file, SIGMA in % of the file.
        Normal(Real) => normal::NORMAL,
        /// `hotset:P/Q`: P% of the accesses go to Q% of the blocks, the hot
        /// blocks spread over the file (each block as likely as any other to be hot).
        Hotset(Share) => hotset::HOTSET,
        /// `hotzone:P/Q`: P% of the accesses go to the first Q% of the file, one
        /// contiguous zone (fio's `random_distribution=zoned:P/Q/(100-P)/(100-Q)`).
        Hotzone(Share) => hotzone::HOTZONE,
        /// `chase`: each next block is computed from the bytes of the block just read.
        Chase => chase::CHASE,
        /// `trace`: the reads (or writes) of a recorded trace, replayed in their
        /// order; set by `--trace FILE`, never given to `--pattern`.
        Trace => trace::TRACE,
    }
}
pub use mix::{Mix, MAX_READ_SHARE};

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

/// One read of a replayed trace: `len` bytes at `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    /// Byte offset in the file.
    pub offset: u64,
    /// Length in bytes (a trace refuses reads of 4 GiB or more).
    pub len: u32,
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
    /// Explicit byte ranges of any length, in order (16 bytes per visit).
    Extents(Vec<Extent>),
    /// A walk whose next block comes from the bytes of the current one.
    Chase(ChaseSpec),
}

impl BlockOrder {
    /// Builds the order for a pattern (as its spec says, [`Order`]).
    /// `seed` makes random orders repeatable. A trace's order comes from its
    /// file ([`trace::Trace::order`]); asked for here, it is an error.
    pub fn new(pattern: Pattern, layout: Layout, seed: u64) -> crate::error::Result<Self> {
        match pattern.spec().order {
            Order::Sequential => Ok(BlockOrder::Sequential {
                count: layout.blocks(),
            }),
            Order::Own(build) => build(pattern, layout, seed),
            Order::Listed(list) => BlockOrder::listed(pattern, layout, seed, list),
            Order::Drawn(_) => BlockOrder::listed(pattern, layout, seed, |p, count, rng| {
                match p.draw(count, rng) {
                    Some(draw) if count > 0 => draw.take(count, rng),
                    _ => Vec::new(),
                }
            }),
        }
    }

    /// The listed order `list` makes from the block count and a generator
    /// seeded with `seed`; an error when the blocks do not fit `u32` indices.
    pub fn listed(
        pattern: Pattern,
        layout: Layout,
        seed: u64,
        list: fn(Pattern, u32, &mut ChaCha8Rng) -> Vec<u32>,
    ) -> crate::error::Result<Self> {
        let count = layout.blocks();
        if count > u32::MAX as u64 {
            return Err(crate::error::Error::Plan(format!(
                "{count} blocks is too many for --pattern {pattern}; use a larger --block"
            )));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Ok(BlockOrder::Listed(list(pattern, count as u32, &mut rng)))
    }

    /// Whether blocks come in file order (so a cursor-based method needs no seek).
    pub fn is_sequential(&self) -> bool {
        matches!(self, BlockOrder::Sequential { .. })
    }

    /// Whether the order is block indices (so it can be split into lists of them).
    pub fn is_indexed(&self) -> bool {
        matches!(self, BlockOrder::Sequential { .. } | BlockOrder::Listed(_))
    }

    /// Whether the order depends on the bytes read ([`BlockOrder::Chase`]).
    pub fn is_dependent(&self) -> bool {
        matches!(self, BlockOrder::Chase(_))
    }

    /// Number of visits.
    pub fn len(&self) -> u64 {
        match self {
            BlockOrder::Sequential { count } => *count,
            BlockOrder::Listed(v) => v.len() as u64,
            BlockOrder::Extents(v) => v.len() as u64,
            BlockOrder::Chase(spec) => spec.steps,
        }
    }

    /// True when there is nothing to visit.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `visit(offset, len)` for each read in order, for every shape of
    /// order. `visit` reads the bytes and returns [`chase::chase_word`] of
    /// them when [`BlockOrder::is_dependent`] (the walk needs it to know
    /// where to go next); for the other orders its return value is ignored.
    #[inline(always)]
    pub fn for_each_read<E>(
        &self,
        layout: Layout,
        mut visit: impl FnMut(u64, usize) -> Result<u64, E>,
    ) -> Result<(), E> {
        match self {
            BlockOrder::Sequential { count } => {
                for i in 0..*count {
                    let (offset, len) = layout.block(i);
                    visit(offset, len)?;
                }
            }
            BlockOrder::Listed(v) => {
                for &i in v {
                    let (offset, len) = layout.block(i as u64);
                    visit(offset, len)?;
                }
            }
            BlockOrder::Extents(v) => {
                for e in v {
                    visit(e.offset, e.len as usize)?;
                }
            }
            BlockOrder::Chase(spec) => {
                let mut walk = spec.start;
                for _ in 0..spec.steps {
                    let (offset, len) = layout.block(walk.current());
                    let word = visit(offset, len)?;
                    walk.next_word(word);
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
            BlockOrder::Extents(v) => v.iter().map(|e| e.len as u64).sum(),
            // A chase visits full blocks only (or the one short block of a
            // file smaller than a block), so every visit has the same length.
            BlockOrder::Chase(spec) => spec.steps * layout.block(0).1 as u64,
        }
    }

    /// The longest single read, for sizing a method's buffer.
    pub fn max_len(&self, layout: Layout) -> usize {
        match self {
            BlockOrder::Extents(v) => v.iter().map(|e| e.len as usize).max().unwrap_or(0),
            _ => layout.block_size.min(layout.file_size) as usize,
        }
    }

    /// `blocks`, `extents` or `dependent`, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            BlockOrder::Sequential { .. } | BlockOrder::Listed(_) => "blocks",
            BlockOrder::Extents(_) => "extents",
            BlockOrder::Chase(_) => "dependent",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block indices of an indexed order.
    fn visits(order: &BlockOrder) -> Vec<u64> {
        match order {
            BlockOrder::Sequential { count } => (0..*count).collect(),
            BlockOrder::Listed(v) => v.iter().map(|&i| u64::from(i)).collect(),
            other => panic!("not block indices: {}", other.kind()),
        }
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

    /// Every registered pattern that builds its own order (the registry's
    /// examples; a trace's order comes from its file), and `stride:1`.
    fn all() -> Vec<String> {
        let mut all: Vec<String> = Pattern::specs()
            .iter()
            .filter(|s| s.listed)
            .map(|s| s.example.to_string())
            .collect();
        all.push("stride:1".into());
        all
    }

    fn reads(order: &BlockOrder, layout: Layout, file: &[u8]) -> Vec<(u64, usize)> {
        let mut out = Vec::new();
        order
            .for_each_read(layout, |offset, len| {
                out.push((offset, len));
                let block = &file[offset as usize..offset as usize + len];
                Ok::<u64, ()>(chase::chase_word(block))
            })
            .unwrap();
        out
    }

    #[test]
    fn every_pattern_is_repeatable_and_stays_in_the_file() {
        let layout = Layout {
            file_size: 1000 * 4096 + 10,
            block_size: 4096,
        };
        let file: Vec<u8> = (0..layout.file_size).map(|i| (i * 7 % 251) as u8).collect();
        for p in all() {
            let p: Pattern = p.parse().unwrap();
            let a = BlockOrder::new(p, layout, 11).unwrap();
            let b = BlockOrder::new(p, layout, 11).unwrap();
            let ra = reads(&a, layout, &file);
            assert_eq!(ra, reads(&b, layout, &file), "{p}");
            assert_eq!(a.len(), layout.blocks(), "{p}: one visit per block");
            assert_eq!(ra.len() as u64, a.len());
            assert!(
                ra.iter().all(|&(o, l)| o + l as u64 <= layout.file_size),
                "{p}"
            );
            assert_eq!(
                ra.iter().map(|r| r.1 as u64).sum::<u64>(),
                a.bytes(layout),
                "{p}"
            );
            if a.is_indexed() {
                let by_index: Vec<(u64, usize)> =
                    visits(&a).into_iter().map(|i| layout.block(i)).collect();
                assert_eq!(by_index, ra, "{p}");
            }
            if p.uses_seed() {
                let c = BlockOrder::new(p, layout, 12).unwrap();
                assert_ne!(ra, reads(&c, layout, &file), "{p}: the seed matters");
            }
            if p.visits_each_block_once() {
                let mut v = visits(&a);
                v.sort_unstable();
                assert_eq!(v, (0..layout.blocks()).collect::<Vec<_>>(), "{p}");
            }
        }
    }

    #[test]
    fn old_seeds_give_the_old_orders() {
        // The code of `random` and `random-replace` before this change.
        use rand::seq::SliceRandom;
        use rand::RngExt;
        let layout = Layout {
            file_size: 1 << 20,
            block_size: 4096,
        };
        let count = layout.blocks() as u32;
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut old: Vec<u32> = (0..count).collect();
        old.shuffle(&mut rng);
        let BlockOrder::Listed(new) = BlockOrder::new(Pattern::Random, layout, 5).unwrap() else {
            panic!()
        };
        assert_eq!(new, old);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let old: Vec<u32> = (0..count).map(|_| rng.random_range(0..count)).collect();
        let BlockOrder::Listed(new) = BlockOrder::new(Pattern::RandomReplace, layout, 5).unwrap()
        else {
            panic!()
        };
        assert_eq!(new, old);
    }

    #[test]
    fn reverse_and_degenerate_strides() {
        let layout = Layout {
            file_size: 10,
            block_size: 4,
        };
        let reverse = BlockOrder::new(Pattern::Reverse, layout, 0).unwrap();
        assert_eq!(visits(&reverse), vec![2, 1, 0]);
        for n in [1, 3, 4] {
            let order = BlockOrder::new(Pattern::Stride(n), layout, 0).unwrap();
            assert!(
                order.is_sequential(),
                "stride:{n} over 3 blocks is file order"
            );
        }
        let order = BlockOrder::new(Pattern::Stride(2), layout, 0).unwrap();
        assert_eq!(visits(&order), vec![0, 2, 1]);
    }

    #[test]
    fn chase_walks_the_same_path_as_chase_path() {
        let layout = Layout {
            file_size: 64 * 4096,
            block_size: 4096,
        };
        let file: Vec<u8> = (0..layout.file_size)
            .map(|i| (i * 31 % 253) as u8)
            .collect();
        let order = BlockOrder::new(Pattern::Chase, layout, 3).unwrap();
        assert!(order.is_dependent() && !order.is_indexed());
        let walked: Vec<u64> = reads(&order, layout, &file)
            .iter()
            .map(|r| r.0 / 4096)
            .collect();
        let path = chase::chase_path(std::io::Cursor::new(&file), layout, 3, 64).unwrap();
        assert_eq!(walked, path);
        assert!(footprint(&order, layout, 4096).is_none());
        let f = footprint_of_blocks(path, layout);
        assert!(f.distinct > 20 && f.distinct < 64, "{f:?}");
    }

    #[test]
    fn extents_are_visited_as_they_are_and_a_trace_has_no_generated_order() {
        let layout = Layout {
            file_size: 100,
            block_size: 10,
        };
        let order = BlockOrder::Extents(vec![
            Extent { offset: 3, len: 7 },
            Extent {
                offset: 90,
                len: 10,
            },
        ]);
        let file: Vec<u8> = (0..100).collect();
        assert_eq!(reads(&order, layout, &file), vec![(3, 7), (90, 10)]);
        assert_eq!((order.bytes(layout), order.max_len(layout)), (17, 10));
        let err = BlockOrder::new(Pattern::Trace, layout, 1).unwrap_err();
        assert!(err.to_string().contains("--trace FILE"), "{err}");
    }

    #[test]
    fn extreme_parameters_do_not_panic() {
        let layout = Layout {
            file_size: 5000 * 512,
            block_size: 512,
        };
        for p in [
            "zipf:1e-300",
            "zipf:1e300",
            "zipf:1",
            "pareto:1e-15",
            "pareto:0.999999999",
            "pareto:0.5",
            "normal:1e-300",
            "normal:100",
            "hotset:100/1e-9",
            "hotset:1e-9/99.999",
            "stride:18446744073709551615",
        ] {
            let order = BlockOrder::new(p.parse().unwrap(), layout, 1).unwrap();
            assert_eq!(order.len(), 5000, "{p}");
            assert!(visits(&order).iter().all(|&b| b < 5000), "{p}");
        }
        let tiny = Layout {
            file_size: 1,
            block_size: 1,
        };
        for p in all() {
            let order = BlockOrder::new(p.parse().unwrap(), tiny, 1).unwrap();
            assert_eq!(reads(&order, tiny, &[7]), vec![(0, 1)], "{p}");
        }
    }

    /// `cargo test --release -- --ignored --nocapture timing`: how long
    /// building each order takes for a 100 GiB file of 4 KiB blocks.
    #[test]
    #[ignore]
    fn timing_of_large_orders() {
        let layout = Layout {
            file_size: 100 << 30,
            block_size: 4096,
        };
        for p in all() {
            let started = std::time::Instant::now();
            let order = BlockOrder::new(p.parse().unwrap(), layout, 1).unwrap();
            println!(
                "{p:>16}: {:>6.2} s for {} visits",
                started.elapsed().as_secs_f64(),
                order.len()
            );
        }
    }
}
