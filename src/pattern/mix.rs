//! Mixed read/write (`--read-share`, fio's `rwmixread`): which operations of
//! an order are reads and which are writes.
//!
//! The choice is a pure function of the seed, the read share and the
//! operation's index in the order, so every method makes the same choice at
//! the same operation: the bytes each read sees (the generated content, or
//! what an earlier write of the same trial put there) are the same whatever
//! the method, and so are their checksums.
use serde::{Deserialize, Serialize};

/// Most a read share may be: every operation a read.
pub const MAX_READ_SHARE: u8 = 100;

/// The read/write mix of a trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Mix {
    /// Percent of the operations that are reads, 0 to 100.
    pub read_share: u8,
    /// The seed the choice is drawn from (the case's seed).
    pub seed: u64,
}

impl Mix {
    /// Whether operation `k` (counted from 0 in the order) is a read.
    #[inline(always)]
    pub fn is_read(&self, k: u64) -> bool {
        match self.read_share {
            0 => false,
            MAX_READ_SHARE.. => true,
            share => splitmix64(self.seed ^ 0x6d69_7865_645f_7277 ^ k) % 100 < u64::from(share),
        }
    }
}

/// SplitMix64's finaliser: a well-mixed 64-bit hash of `x`.
#[inline(always)]
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_of_reads_is_close_to_the_asked_share_and_fixed_by_the_seed() {
        for share in [0u8, 1, 30, 70, 99, 100] {
            let mix = Mix {
                read_share: share,
                seed: 7,
            };
            let reads = (0..100_000).filter(|&k| mix.is_read(k)).count() as f64;
            let want = f64::from(share) * 1000.0;
            assert!((reads - want).abs() <= 1000.0, "{share}%: {reads}");
            let again: Vec<bool> = (0..64).map(|k| mix.is_read(k)).collect();
            assert_eq!(again, (0..64).map(|k| mix.is_read(k)).collect::<Vec<_>>());
        }
        let a = Mix {
            read_share: 50,
            seed: 1,
        };
        let b = Mix { seed: 2, ..a };
        assert!((0..256).any(|k| a.is_read(k) != b.is_read(k)));
    }
}
