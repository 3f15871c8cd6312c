//! Skewed orders, sampled with replacement, one visit per block of the file:
//!
//! * popularity patterns (`zipf:THETA`, `pareto:H`, `hotset:P/Q`) draw a
//!   *rank* (0 = most popular) and map it to a block through a seeded
//!   permutation, so the hot blocks are spread over the file rather than
//!   packed at its start;
//! * the locality pattern (`normal:SIGMA`) draws the block itself, from a
//!   normal law centred on the middle of the file, so hot blocks are
//!   neighbours.
//!
//! The permutation is the `random` order of the same seed: rank `r` goes to
//! the block that `random` visits `r`-th, so zipf, pareto and hotset with one
//! seed agree on which block is hottest.
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal, Pareto, Zipf};

use super::orders::permutation;

/// How popularity falls with rank.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Popularity {
    /// P(rank k) ∝ 1/(k+1)^theta.
    Zipf(f64),
    /// P(rank < q·count) = q^a with a = ln(1-h)/ln(h): the top share h of the
    /// ranks gets a share 1-h of the accesses (fio's pareto:h).
    Pareto(f64),
    /// A share `accesses`% of the draws is uniform over the first `blocks`%
    /// of the ranks, the rest uniform over the others.
    Hotset {
        /// P, in percent.
        accesses: f64,
        /// Q, in percent.
        blocks: f64,
    },
}

/// A law drawn from with replacement, one visit at a time: the sampled
/// patterns (`random-replace`, `zipf`, `pareto`, `hotset`, `hotzone`,
/// `normal`). A one-pass order is `count` draws; a duration-bounded trial
/// draws for as long as it runs, from the same law.
#[derive(Clone, Debug)]
pub enum Draw {
    /// Uniform over `0..count` (`random-replace`).
    Uniform {
        /// Blocks.
        count: u32,
    },
    /// A rank from a popularity law, mapped to a block through `to_block`
    /// (a permutation, so hot blocks are spread over the file), or taken as
    /// the block itself when `to_block` is empty (`hotzone`: the hot ranks
    /// are the first blocks of the file).
    Ranked {
        /// The law of the ranks.
        ranks: RankLaw,
        /// Rank → block; empty for the identity.
        to_block: Vec<u32>,
    },
    /// A block from a normal law centred on the middle of the file,
    /// drawn again while outside it.
    Normal {
        /// The law, in blocks.
        law: Normal<f64>,
        /// Blocks, as a real.
        count: f64,
    },
}

/// The law of a popularity rank, ready to draw from.
#[derive(Clone, Copy, Debug)]
pub enum RankLaw {
    /// rand_distr's Zipf over `1..=count` (shifted to `0..count`).
    Zipf(Zipf<f64>, u32),
    /// `count / X` with X ~ Pareto(1, a).
    Pareto(Pareto<f64>, u32),
    /// Uniform over the `hot` first ranks with probability `p`, else over the others.
    Hotset {
        /// Hot ranks.
        hot: u32,
        /// Probability of a hot draw.
        p: f64,
        /// Ranks.
        count: u32,
    },
}

impl RankLaw {
    fn new(law: Popularity, count: u32) -> RankLaw {
        let n = f64::from(count.max(1));
        match law {
            Popularity::Zipf(theta) => RankLaw::Zipf(
                Zipf::new(n, theta).expect("n >= 1 and theta > 0 (checked when parsed)"),
                count,
            ),
            Popularity::Pareto(h) => RankLaw::Pareto(
                Pareto::new(1.0, pareto_shape(h)).expect("0 < h < 1 (checked when parsed)"),
                count,
            ),
            Popularity::Hotset { accesses, blocks } => RankLaw::Hotset {
                hot: hot_count(count, blocks),
                p: accesses / 100.0,
                count,
            },
        }
    }

    /// One rank in `0..count` (0 is the most popular).
    #[inline]
    fn draw(&self, rng: &mut ChaCha8Rng) -> u32 {
        match *self {
            RankLaw::Zipf(zipf, count) => (zipf.sample(rng) as u32).clamp(1, count) - 1,
            // If X ~ Pareto(1, a) then 1/X has P(1/X < q) = q^a: fio's
            // n·u^(1/a) with u uniform, drawn by rand_distr.
            RankLaw::Pareto(pareto, count) => {
                ((f64::from(count) / pareto.sample(rng)) as u32).min(count - 1)
            }
            RankLaw::Hotset { hot, p, count } => {
                if hot == count || rng.random_bool(p) {
                    rng.random_range(0..hot)
                } else {
                    rng.random_range(hot..count)
                }
            }
        }
    }
}

impl Draw {
    /// A popularity law over `count` blocks (at least 1): ranks drawn from
    /// `law`, mapped to blocks through a permutation drawn from `rng` first
    /// when `spread` (so the hot blocks are spread over the file), else
    /// taken as the blocks themselves (the hot blocks are the first).
    pub fn ranked(law: Popularity, count: u32, spread: bool, rng: &mut ChaCha8Rng) -> Draw {
        let count = count.max(1);
        Draw::Ranked {
            to_block: if spread {
                permutation(count, rng)
            } else {
                Vec::new()
            },
            ranks: RankLaw::new(law, count),
        }
    }

    /// The truncated normal law of `normal:SIGMA` over `count` blocks (at
    /// least 1); `sigma_percent` > 0 (checked when parsed).
    pub fn normal(sigma_percent: f64, count: u32) -> Draw {
        let n = f64::from(count.max(1));
        Draw::Normal {
            law: Normal::new(n / 2.0, n * sigma_percent / 100.0)
                .expect("sigma > 0 (checked when parsed)"),
            count: n,
        }
    }

    /// The next block.
    #[inline]
    pub fn next(&self, rng: &mut ChaCha8Rng) -> u32 {
        match self {
            Draw::Uniform { count } => rng.random_range(0..*count),
            Draw::Ranked { ranks, to_block } => {
                let rank = ranks.draw(rng);
                if to_block.is_empty() {
                    rank
                } else {
                    to_block[rank as usize]
                }
            }
            Draw::Normal { law, count } => loop {
                let x = law.sample(rng);
                if x >= 0.0 && x < *count {
                    break x as u32;
                }
            },
        }
    }

    /// `visits` draws.
    pub fn take(&self, visits: u32, rng: &mut ChaCha8Rng) -> Vec<u32> {
        (0..visits).map(|_| self.next(rng)).collect()
    }
}

/// `count` visits of a popularity pattern: a permutation is drawn first,
/// then `count` ranks, each mapped through it.
pub fn popular(law: Popularity, count: u32, rng: &mut ChaCha8Rng) -> Vec<u32> {
    if count == 0 {
        return Vec::new();
    }
    let perm = permutation(count, rng);
    let mut visits = ranks(law, count, rng);
    for v in &mut visits {
        *v = perm[*v as usize];
    }
    visits
}

/// `count` ranks in `0..count` drawn from `law` (0 is the most popular).
pub fn ranks(law: Popularity, count: u32, rng: &mut ChaCha8Rng) -> Vec<u32> {
    if count == 0 {
        return Vec::new();
    }
    let law = RankLaw::new(law, count);
    (0..count).map(|_| law.draw(rng)).collect()
}

/// `a = ln(1-h)/ln(h)`, the shape that gives fio's pareto:h.
pub fn pareto_shape(h: f64) -> f64 {
    (1.0 - h).ln() / h.ln()
}

/// Number of hot blocks of `hotset:P/Q`: Q% of `count`, rounded, at least 1
/// and, when there are two blocks or more, leaving at least one cold.
pub fn hot_count(count: u32, blocks_percent: f64) -> u32 {
    if count <= 1 {
        return count;
    }
    let hot = (count as f64 * blocks_percent / 100.0).round() as u32;
    hot.clamp(1, count - 1)
}

/// `count` visits of `normal:SIGMA`: block `floor(x)` with x drawn from
/// N(count/2, count·SIGMA/100), drawn again while it falls outside the file
/// (a truncated normal; at SIGMA = 100 about 38% of draws land inside).
pub fn normal(sigma_percent: f64, count: u32, rng: &mut ChaCha8Rng) -> Vec<u32> {
    if count == 0 {
        return Vec::new();
    }
    Draw::normal(sigma_percent, count).take(count, rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const N: u32 = 200_000;

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    /// Share of the draws whose rank is below `k`.
    fn share_below(ranks: &[u32], k: u32) -> f64 {
        ranks.iter().filter(|&&r| r < k).count() as f64 / ranks.len() as f64
    }

    /// Share of the visits that go to the `k` most visited blocks (black box).
    fn top_blocks_share(visits: &[u32], count: u32, k: usize) -> f64 {
        let mut hits = vec![0u32; count as usize];
        for &v in visits {
            hits[v as usize] += 1;
        }
        hits.sort_unstable_by(|a, b| b.cmp(a));
        hits[..k].iter().map(|&h| h as f64).sum::<f64>() / visits.len() as f64
    }

    fn zipf_top_share(theta: f64, n: u32, k: u32) -> f64 {
        let h = |m: u32| (1..=m).map(|i| (i as f64).powf(-theta)).sum::<f64>();
        h(k) / h(n)
    }

    #[test]
    fn zipf_top_one_percent_matches_theory() {
        for theta in [0.8, 1.0, 1.2] {
            let expected = zipf_top_share(theta, N, N / 100);
            let ranks = ranks(Popularity::Zipf(theta), N, &mut rng(1));
            let got = share_below(&ranks, N / 100);
            assert!(
                (got - expected).abs() < 0.01,
                "theta {theta}: {got} vs {expected}"
            );
            let blocks = popular(Popularity::Zipf(theta), N, &mut rng(1));
            let got = top_blocks_share(&blocks, N, (N / 100) as usize);
            assert!(
                (got - expected).abs() < 0.03,
                "theta {theta} blocks: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn zipf_hot_blocks_are_spread_over_the_file() {
        let visits = popular(Popularity::Zipf(1.2), N, &mut rng(2));
        let perm = permutation(N, &mut rng(2));
        let mut hits = vec![0u32; N as usize];
        visits.iter().for_each(|&v| hits[v as usize] += 1);
        let hottest = (0..N).max_by_key(|&b| hits[b as usize]).unwrap();
        assert_eq!(hottest, perm[0], "rank 0 is the block random visits first");
        let top: Vec<u32> = perm[..100].to_vec();
        let span = top.iter().max().unwrap() - top.iter().min().unwrap();
        assert!(span > N / 2, "the 100 hottest blocks span {span} blocks");
    }

    #[test]
    fn pareto_is_fios_80_20_rule_with_its_tail() {
        for h in [0.1, 0.2, 0.3] {
            let ranks = ranks(Popularity::Pareto(h), N, &mut rng(3));
            let got = share_below(&ranks, (N as f64 * h) as u32);
            assert!((got - (1.0 - h)).abs() < 0.01, "h {h}: {got}");
            let a = pareto_shape(h);
            for q in [0.001, 0.01, 0.5] {
                let got = share_below(&ranks, (N as f64 * q) as u32);
                let expected = q.powf(a);
                assert!(
                    (got - expected).abs() < 0.01,
                    "h {h} q {q}: {got} vs {expected}"
                );
            }
        }
    }

    #[test]
    fn hotset_sends_p_percent_to_q_percent() {
        for (p, q) in [(90.0, 10.0), (80.0, 20.0), (99.0, 1.0), (100.0, 5.0)] {
            let law = Popularity::Hotset {
                accesses: p,
                blocks: q,
            };
            let hot = hot_count(N, q);
            let got = share_below(&ranks(law, N, &mut rng(4)), hot);
            assert!((got - p / 100.0).abs() < 0.01, "{p}/{q}: {got}");
            let got = top_blocks_share(&popular(law, N, &mut rng(4)), N, hot as usize);
            // Ranking blocks by their hits lets a few lucky cold blocks in.
            assert!((got - p / 100.0).abs() < 0.03, "{p}/{q} blocks: {got}");
        }
        assert_eq!(hot_count(10, 0.01), 1);
        assert_eq!(hot_count(10, 99.9), 9);
        assert_eq!(hot_count(1, 50.0), 1);
    }

    #[test]
    fn normal_spread_is_sigma_around_the_middle() {
        let sigma = 10.0;
        let visits = normal(sigma, N, &mut rng(5));
        assert!(visits.iter().all(|&v| v < N));
        let (mid, sd) = (N as f64 / 2.0, N as f64 * sigma / 100.0);
        let within = |k: f64| {
            visits
                .iter()
                .filter(|&&v| (v as f64 + 0.5 - mid).abs() < k * sd)
                .count() as f64
                / N as f64
        };
        assert!((within(1.0) - 0.6827).abs() < 0.01, "{}", within(1.0));
        assert!((within(2.0) - 0.9545).abs() < 0.01, "{}", within(2.0));
        let mean = visits.iter().map(|&v| v as f64).sum::<f64>() / N as f64;
        assert!((mean - mid).abs() < 0.01 * N as f64, "mean {mean}");
    }

    #[test]
    fn wide_normal_stays_inside_the_file() {
        let visits = normal(100.0, 1000, &mut rng(6));
        assert!(visits.iter().all(|&v| v < 1000));
        assert_eq!(normal(50.0, 1, &mut rng(6)), vec![0]);
        assert!(normal(5.0, 0, &mut rng(6)).is_empty());
    }

    #[test]
    fn tiny_files() {
        for law in [
            Popularity::Zipf(1.2),
            Popularity::Pareto(0.2),
            Popularity::Hotset {
                accesses: 90.0,
                blocks: 10.0,
            },
        ] {
            assert_eq!(popular(law, 1, &mut rng(7)), vec![0]);
            assert!(popular(law, 0, &mut rng(7)).is_empty());
            assert!(popular(law, 3, &mut rng(7)).iter().all(|&v| v < 3));
        }
    }
}
