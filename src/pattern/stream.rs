//! Streams: a pattern extended past one pass, for duration-bounded trials,
//! which read for as long as they run rather than a fixed number of blocks.
//!
//! Each worker of a timed trial takes its visits, a chunk at a time, from a
//! [`Stream`] of the case's pattern ([`Source::stream`]):
//!
//! * a **sampled** pattern (`random-replace`, `zipf`, `pareto`, `normal`,
//!   `hotset`, `hotzone`) keeps drawing from its law, from the worker's own
//!   seeded generator. The law itself (which blocks are hot) is drawn once
//!   from the case's seed and shared, so every worker skews toward the same
//!   blocks. A stream never repeats itself: repeating one pass of draws
//!   would turn a stationary law into a loop, which a page cache treats
//!   very differently (a loop larger than the cache misses every time).
//! * a **one-pass** order (`seq`, `random`, `reverse`, `stride`, a trace) is
//!   repeated, each worker starting at its own share of it (worker `w` of
//!   `W` at position `w·len/W`), as `W` readers scanning the same data
//!   from different places would.
//! * a **walk** (`chase`) simply goes on; worker 0 walks the case's own
//!   chase, worker `w` one seeded for it. Its next block depends on the
//!   bytes read, so the caller moves the walk on ([`Stream::set_walk`]).
//!
//! Generating a chunk happens inside the timed loop (its length is not known
//! in advance); it costs nanoseconds per visit against a read's microseconds,
//! the same for every method.
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::chase::{Chase, ChaseSpec};
use super::distributions::Draw;
use super::{BlockOrder, Extent, Layout, Pattern};

/// What the streams of one trial are made from, built once per trial.
#[derive(Clone, Debug)]
pub enum Source {
    /// The law of a sampled pattern.
    Draws(Draw),
    /// One pass of an order, repeated.
    Cycle(BlockOrder),
    /// A chase over this layout.
    Walk(Layout),
}

/// The seed of worker `w`'s stream (worker streams differ; the same seed
/// and worker always give the same stream).
pub fn worker_seed(seed: u64, w: usize) -> u64 {
    seed ^ (w as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl Source {
    /// The source of `pattern` over `layout`: its law when it is sampled, a
    /// walk for `chase`, else `one_pass()` (the case's order, a trace's
    /// included). `seed` fixes the law (which blocks are hot).
    pub fn new(
        pattern: Pattern,
        layout: Layout,
        seed: u64,
        one_pass: impl FnOnce() -> crate::error::Result<BlockOrder>,
    ) -> crate::error::Result<Source> {
        if pattern == Pattern::Chase {
            return Ok(Source::Walk(layout));
        }
        if pattern.is_sampled() {
            let count = u32::try_from(layout.blocks()).map_err(|_| {
                crate::error::Error::Plan(format!(
                    "{} blocks is too many for --pattern {pattern}; use a larger --block",
                    layout.blocks()
                ))
            })?;
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            if let Some(draw) = pattern.draw(count, &mut rng) {
                return Ok(Source::Draws(draw));
            }
        }
        Ok(Source::Cycle(one_pass()?))
    }

    /// Worker `w`'s stream, of `workers`.
    pub fn stream(&self, w: usize, workers: usize, seed: u64) -> Stream<'_> {
        match self {
            Source::Draws(draw) => Stream::Draws {
                draw,
                rng: Box::new(ChaCha8Rng::seed_from_u64(worker_seed(seed, w))),
            },
            Source::Cycle(order) => Stream::Cycle {
                order,
                next: (order.len() as u128 * w as u128 / workers.max(1) as u128) as u64,
            },
            Source::Walk(layout) => Stream::Walk {
                walk: Chase::new(*layout, if w == 0 { seed } else { worker_seed(seed, w) }),
            },
        }
    }
}

/// One worker's endless visits.
#[derive(Clone, Debug)]
pub enum Stream<'a> {
    /// Draws from a law.
    Draws {
        /// The law.
        draw: &'a Draw,
        /// The worker's generator (boxed: it is ten times the size of the other variants).
        rng: Box<ChaCha8Rng>,
    },
    /// A one-pass order, repeated.
    Cycle {
        /// The order.
        order: &'a BlockOrder,
        /// The position of the next visit.
        next: u64,
    },
    /// A chase, where it stands now.
    Walk {
        /// The walk.
        walk: Chase,
    },
}

impl Stream<'_> {
    /// Replaces `chunk` with the next `n` visits. A walk's chunk starts
    /// where the walk stands; move it on with [`Stream::set_walk`] once
    /// the chunk has been read.
    pub fn fill(&mut self, chunk: &mut BlockOrder, n: usize) {
        let taken = std::mem::replace(chunk, BlockOrder::Sequential { count: 0 });
        *chunk = match self {
            Stream::Draws { draw, rng } => {
                let mut v = listed(taken);
                v.extend((0..n).map(|_| draw.next(rng.as_mut())));
                BlockOrder::Listed(v)
            }
            Stream::Cycle { order, next } => {
                let len = order.len();
                let mut step = || {
                    let at = *next;
                    *next = (at + 1) % len;
                    at
                };
                match order {
                    _ if len == 0 => BlockOrder::Listed(Vec::new()),
                    BlockOrder::Extents(extents) => {
                        let mut v = extents_of(taken);
                        v.extend((0..n).map(|_| extents[step() as usize]));
                        BlockOrder::Extents(v)
                    }
                    BlockOrder::Listed(blocks) => {
                        let mut v = listed(taken);
                        v.extend((0..n).map(|_| blocks[step() as usize]));
                        BlockOrder::Listed(v)
                    }
                    // File order, as indices (a cursor method seeks only
                    // where the order jumps, so a run of them costs no seek).
                    _ => {
                        let mut v = listed(taken);
                        v.extend((0..n).map(|_| step() as u32));
                        BlockOrder::Listed(v)
                    }
                }
            }
            Stream::Walk { walk } => BlockOrder::Chase(ChaseSpec {
                start: *walk,
                steps: n as u64,
            }),
        };
    }

    /// Where the walk stands after a chunk (the caller followed it); no
    /// effect on the other streams.
    pub fn set_walk(&mut self, now: Chase) {
        if let Stream::Walk { walk } = self {
            *walk = now;
        }
    }

    /// Whether the stream is a walk, whose chunks depend on the bytes read.
    pub fn is_walk(&self) -> bool {
        matches!(self, Stream::Walk { .. })
    }
}

/// The allocation of a list of block indices, emptied, to reuse.
fn listed(chunk: BlockOrder) -> Vec<u32> {
    match chunk {
        BlockOrder::Listed(mut v) => {
            v.clear();
            v
        }
        _ => Vec::new(),
    }
}

/// The allocation of a list of extents, emptied, to reuse.
fn extents_of(chunk: BlockOrder) -> Vec<Extent> {
    match chunk {
        BlockOrder::Extents(mut v) => {
            v.clear();
            v
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    const LAYOUT: Layout = Layout {
        file_size: 1000 * 4096,
        block_size: 4096,
    };

    fn indices(chunk: &BlockOrder) -> Vec<u32> {
        match chunk {
            BlockOrder::Listed(v) => v.clone(),
            other => panic!("{}", other.kind()),
        }
    }

    fn pass(pattern: &str) -> crate::error::Result<BlockOrder> {
        BlockOrder::new(pattern.parse().unwrap(), LAYOUT, 5)
    }

    #[test]
    fn a_sampled_stream_extends_the_one_pass_order_and_never_loops() {
        for p in ["zipf:1.1", "random-replace", "normal:5", "hotzone:90/10"] {
            let pattern: Pattern = p.parse().unwrap();
            let source = Source::new(pattern, LAYOUT, 5, || pass(p)).unwrap();
            assert!(matches!(source, Source::Draws(_)), "{p}");
            // Worker streams are their own, and repeatable.
            let mut a = source.stream(0, 2, 5);
            let mut b = source.stream(1, 2, 5);
            let mut chunk = BlockOrder::Listed(Vec::new());
            a.fill(&mut chunk, 3000);
            let first = indices(&chunk);
            b.fill(&mut chunk, 3000);
            assert_ne!(first, indices(&chunk), "{p}");
            let mut again = source.stream(0, 2, 5);
            again.fill(&mut chunk, 3000);
            assert_eq!(first, indices(&chunk), "{p}");
            // Past one pass (1000 visits) it does not repeat the pass.
            assert_ne!(first[..1000], first[1000..2000], "{p}");
        }
    }

    #[test]
    fn random_replace_draws_what_the_timed_trials_always_drew() {
        let source = Source::new(Pattern::RandomReplace, LAYOUT, 9, || unreachable!()).unwrap();
        let mut s = source.stream(2, 4, 9);
        let mut chunk = BlockOrder::Listed(Vec::new());
        s.fill(&mut chunk, 100);
        let mut rng = ChaCha8Rng::seed_from_u64(9 ^ 3u64.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let old: Vec<u32> = (0..100).map(|_| rng.random_range(0..1000u32)).collect();
        assert_eq!(indices(&chunk), old);
    }

    #[test]
    fn one_pass_orders_repeat_from_each_workers_share() {
        let source = Source::new(Pattern::Seq, LAYOUT, 1, || pass("seq")).unwrap();
        let mut s = source.stream(1, 4, 1);
        let mut chunk = BlockOrder::Listed(Vec::new());
        s.fill(&mut chunk, 3);
        assert_eq!(indices(&chunk), vec![250, 251, 252]);
        let mut last = source.stream(3, 4, 1);
        last.fill(&mut chunk, 251);
        assert_eq!(indices(&chunk)[249..], [999, 0], "wraps around");
        let order = pass("random").unwrap();
        let BlockOrder::Listed(perm) = &order else {
            panic!()
        };
        let perm = perm.clone();
        let source = Source::new(Pattern::Random, LAYOUT, 5, || Ok(order)).unwrap();
        let mut s = source.stream(0, 1, 5);
        s.fill(&mut chunk, 1500);
        let got = indices(&chunk);
        assert_eq!(got[..1000], perm[..]);
        assert_eq!(got[1000..], perm[..500]);
        let extents = BlockOrder::Extents(vec![
            Extent { offset: 1, len: 2 },
            Extent { offset: 7, len: 3 },
        ]);
        let source = Source::new(Pattern::Trace, LAYOUT, 5, || Ok(extents)).unwrap();
        let mut s = source.stream(1, 2, 5);
        s.fill(&mut chunk, 3);
        let BlockOrder::Extents(v) = &chunk else {
            panic!()
        };
        assert_eq!(v.iter().map(|e| e.offset).collect::<Vec<_>>(), [7, 1, 7]);
    }

    #[test]
    fn a_walk_goes_on_from_where_it_was_moved() {
        let source = Source::new(Pattern::Chase, LAYOUT, 3, || unreachable!()).unwrap();
        let mut s = source.stream(0, 2, 3);
        assert!(s.is_walk());
        let mut chunk = BlockOrder::Listed(Vec::new());
        s.fill(&mut chunk, 10);
        let BlockOrder::Chase(spec) = chunk else {
            panic!()
        };
        assert_eq!(
            spec.start,
            Chase::new(LAYOUT, 3),
            "worker 0 walks the case's chase"
        );
        assert_eq!(spec.steps, 10);
        let mut moved = spec.start;
        moved.next_word(42);
        s.set_walk(moved);
        s.fill(&mut chunk, 1);
        assert!(matches!(chunk, BlockOrder::Chase(ChaseSpec { start, .. }) if start == moved));
        let other = source.stream(1, 2, 3);
        assert!(matches!(other, Stream::Walk { walk } if walk != Chase::new(LAYOUT, 3)));
    }
}
