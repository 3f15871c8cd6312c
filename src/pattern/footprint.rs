//! Footprint: how many distinct pieces of the file an order touches, and
//! what share of the file that is. `random` touches every block,
//! `random-replace` about 1 - 1/e ≈ 63% of them, `zipf:1.2` far fewer.
//!
//! The unit is the case's block for generated patterns (a block is what
//! they visit), and the page for a replayed trace, whose reads have any
//! offset and length (a block of a trace is only its longest read): an
//! extent counts every unit it overlaps. In both, `bytes` is what the
//! footprint would take in the page cache, to set against a memory budget.
use serde::{Deserialize, Serialize};

use super::{BlockOrder, Layout};

/// Distinct units touched by an order, for the record.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Footprint {
    /// Units touched at least once.
    pub distinct: u64,
    /// Units in the file.
    pub units: u64,
    /// Bytes per unit: the block size, or the page size for a trace.
    pub unit_bytes: u64,
    /// `distinct / units` (0 for an empty file).
    pub share: f64,
    /// Bytes of the file in the units touched (the last unit may be short).
    pub bytes: u64,
}

impl Footprint {
    fn new(seen: &Bits, layout: Layout) -> Footprint {
        let units = layout.blocks();
        let share = if units == 0 {
            0.0
        } else {
            seen.count as f64 / units as f64
        };
        let last_short =
            units > 0 && seen.get(units - 1) && !layout.file_size.is_multiple_of(layout.block_size);
        let bytes = seen.count * layout.block_size
            - if last_short {
                layout.block_size - layout.file_size % layout.block_size
            } else {
                0
            };
        Footprint {
            distinct: seen.count,
            units,
            unit_bytes: layout.block_size,
            share,
            bytes,
        }
    }
}

/// Counts the distinct units a trial touches, visit by visit or order by
/// order (a duration-bounded trial's chunks), then gives its [`Footprint`].
pub struct Tally {
    /// The file cut into units.
    units: Layout,
    /// The case's layout (block indices refer to it).
    layout: Layout,
    seen: Bits,
}

impl Tally {
    /// An empty tally over a file cut by `layout`, counted in units of `unit` bytes.
    pub fn new(layout: Layout, unit: u64) -> Tally {
        let units = Layout {
            file_size: layout.file_size,
            block_size: unit.max(1),
        };
        Tally {
            units,
            layout,
            seen: Bits::new(units.blocks()),
        }
    }

    /// Counts the `len` bytes at `offset`.
    #[inline]
    pub fn add_extent(&mut self, offset: u64, len: u64) {
        if len == 0 || self.units.file_size == 0 {
            return;
        }
        let first = offset / self.units.block_size;
        let last = offset.saturating_add(len - 1) / self.units.block_size;
        for u in first..=last.min(self.units.blocks() - 1) {
            self.seen.set(u);
        }
    }

    /// Counts every visit of `order`; `false` (and nothing counted) for a
    /// chase, whose visits depend on the file.
    pub fn add_order(&mut self, order: &BlockOrder) -> bool {
        let same_unit = self.units.block_size == self.layout.block_size;
        let layout = self.layout;
        match order {
            BlockOrder::Sequential { count } if same_unit => {
                (0..*count).for_each(|b| self.seen.set(b));
            }
            BlockOrder::Listed(v) if same_unit => {
                v.iter().for_each(|&b| self.seen.set(u64::from(b)));
            }
            BlockOrder::Sequential { count } => (0..*count).for_each(|b| {
                let (offset, len) = layout.block(b);
                self.add_extent(offset, len as u64)
            }),
            BlockOrder::Listed(v) => v.iter().for_each(|&b| {
                let (offset, len) = layout.block(u64::from(b));
                self.add_extent(offset, len as u64)
            }),
            BlockOrder::Extents(v) => v
                .iter()
                .for_each(|e| self.add_extent(e.offset, u64::from(e.len))),
            BlockOrder::Chase(_) => return false,
        }
        true
    }

    /// Adds what `other` counted (a tally over the same file and unit).
    pub fn merge(&mut self, other: &Tally) {
        for (a, b) in self.seen.words.iter_mut().zip(&other.seen.words) {
            self.seen.count += u64::from((b & !*a).count_ones());
            *a |= b;
        }
    }

    /// What was counted.
    pub fn footprint(&self) -> Footprint {
        Footprint::new(&self.seen, self.units)
    }
}

/// The footprint of `order` over a file cut by `layout`, counted in units of
/// `unit` bytes (the layout's block size, or a page for a trace). `None`
/// for a chase, whose blocks depend on the file: count its path with
/// [`footprint_of_blocks`] or a [`Tally`].
pub fn footprint(order: &BlockOrder, layout: Layout, unit: u64) -> Option<Footprint> {
    let mut tally = Tally::new(layout, unit);
    tally.add_order(order).then(|| tally.footprint())
}

/// The footprint of a list of block indices of `layout` (those past the end
/// are ignored), in blocks.
pub fn footprint_of_blocks(visits: impl IntoIterator<Item = u64>, layout: Layout) -> Footprint {
    let blocks = layout.blocks();
    let mut seen = Bits::new(blocks);
    visits
        .into_iter()
        .filter(|&b| b < blocks)
        .for_each(|b| seen.set(b));
    Footprint::new(&seen, layout)
}

/// A bit per unit (an eighth of a byte per unit) and the number set.
struct Bits {
    words: Vec<u64>,
    count: u64,
}

impl Bits {
    fn new(len: u64) -> Bits {
        Bits {
            words: vec![0; len.div_ceil(64) as usize],
            count: 0,
        }
    }

    fn set(&mut self, i: u64) {
        let (word, bit) = ((i / 64) as usize, 1u64 << (i % 64));
        if let Some(w) = self.words.get_mut(word) {
            if *w & bit == 0 {
                *w |= bit;
                self.count += 1;
            }
        }
    }

    fn get(&self, i: u64) -> bool {
        self.words
            .get((i / 64) as usize)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::{Extent, Pattern};

    const LAYOUT: Layout = Layout {
        file_size: 100_000 * 4096,
        block_size: 4096,
    };

    fn of(pattern: &str) -> Footprint {
        let order = BlockOrder::new(pattern.parse::<Pattern>().unwrap(), LAYOUT, 1).unwrap();
        footprint(&order, LAYOUT, LAYOUT.block_size).unwrap()
    }

    #[test]
    fn footprints_of_the_patterns() {
        for p in ["seq", "random", "reverse", "stride:7"] {
            assert_eq!(of(p).distinct, 100_000, "{p}");
            assert_eq!(of(p).share, 1.0);
            assert_eq!(of(p).bytes, LAYOUT.file_size);
        }
        let rr = of("random-replace").share;
        assert!((rr - (1.0 - (-1.0f64).exp())).abs() < 0.01, "{rr}");
        assert!(of("zipf:1.2").share < 0.2, "{}", of("zipf:1.2").share);
        assert!(of("zipf:1.2").share < of("zipf:0.8").share);
        // hotset:100/10 never leaves its 10%, nor hotzone:100/10 its zone.
        assert!((of("hotset:100/10").share - 0.1).abs() < 0.001);
        assert!((of("hotzone:100/10").share - 0.1).abs() < 0.001);
        assert!(of("normal:1").share < 0.06);
    }

    #[test]
    fn extents_count_every_unit_they_overlap() {
        let layout = Layout {
            file_size: 10 * 4096,
            block_size: 8192,
        };
        let order = BlockOrder::Extents(vec![
            Extent {
                offset: 4095,
                len: 2,
            }, // pages 0 and 1
            Extent {
                offset: 4096,
                len: 4096,
            }, // page 1
            Extent {
                offset: 9 * 4096,
                len: 10,
            }, // page 9
            Extent {
                offset: 5000,
                len: 0,
            }, // nothing
        ]);
        let f = footprint(&order, layout, 4096).unwrap();
        assert_eq!((f.distinct, f.units, f.unit_bytes), (3, 10, 4096));
        assert!((f.share - 0.3).abs() < 1e-12);
        assert_eq!(f.bytes, 3 * 4096);
        // Blocks counted in pages: block 1 of 8 KiB is pages 2 and 3.
        let f = footprint(&BlockOrder::Listed(vec![1, 1]), layout, 4096).unwrap();
        assert_eq!(f.distinct, 2);
    }

    #[test]
    fn a_short_last_block_counts_its_own_bytes() {
        let layout = Layout {
            file_size: 10_000,
            block_size: 4096,
        };
        let f = footprint(&BlockOrder::Listed(vec![2]), layout, 4096).unwrap();
        assert_eq!((f.distinct, f.bytes), (1, 10_000 - 8192));
    }

    #[test]
    fn chase_needs_its_path() {
        let order = BlockOrder::new(Pattern::Chase, LAYOUT, 1).unwrap();
        assert!(footprint(&order, LAYOUT, 4096).is_none());
        let f = footprint_of_blocks([3, 3, 5, 1 << 40], LAYOUT);
        assert_eq!(f.distinct, 2);
    }

    #[test]
    fn empty_file() {
        let layout = Layout {
            file_size: 0,
            block_size: 1,
        };
        let f = footprint(
            &BlockOrder::new(Pattern::Random, layout, 0).unwrap(),
            layout,
            1,
        )
        .unwrap();
        assert_eq!((f.distinct, f.share, f.bytes), (0, 0.0, 0));
    }
}
