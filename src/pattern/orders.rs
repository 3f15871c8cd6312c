//! Deterministic and permuted orders: `random` (a seeded permutation),
//! `reverse` and `stride:N`. (`random-replace` is drawn visit by visit,
//! [`super::distributions::Draw::Uniform`].)
//!
//! `random` draws exactly the numbers it drew before the parameterized
//! patterns existed, so old seeds give the same orders.
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// A seeded permutation of `0..count`: the `random` order, and the map from
/// popularity rank to block of the skewed patterns.
pub fn permutation(count: u32, rng: &mut ChaCha8Rng) -> Vec<u32> {
    let mut v: Vec<u32> = (0..count).collect();
    v.shuffle(rng);
    v
}

/// `count-1, count-2, ..., 0`.
pub fn reverse(count: u32) -> Vec<u32> {
    (0..count).rev().collect()
}

/// `stride:N` over `count` blocks. Visit `k` goes to block
/// `(c + j·N) mod count`, where `g = gcd(N, count)`, `c = k / (count/g)` and
/// `j = k mod (count/g)`: the walk `0, N, 2N, ...` (mod count) until it comes
/// back to where it started, then the same walk shifted by one block, `g`
/// walks in all. So every block is visited exactly once whatever N is: when
/// `gcd(N, count) = 1` it is the plain modular walk; when N divides `count`
/// it is column order (`0, N, 2N, ..., 1, 1+N, ...`); when `N mod count` is
/// 0 or 1 it is file order.
pub fn stride(count: u32, n: u64) -> Vec<u32> {
    let count64 = count as u64;
    let mut out = Vec::with_capacity(count as usize);
    if count == 0 {
        return out;
    }
    let step = n % count64;
    let cycle = count64 / gcd(step, count64);
    for start in 0..count64 / cycle {
        let mut at = start;
        for _ in 0..cycle {
            out.push(at as u32);
            at += step;
            if at >= count64 {
                at -= count64;
            }
        }
    }
    out
}

/// Whether `stride:N` over `count` blocks is plain file order.
pub fn stride_is_sequential(count: u64, n: u64) -> bool {
    count <= 1 || n % count <= 1
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_permutation(v: &[u32], count: u32) -> bool {
        let mut s = v.to_vec();
        s.sort_unstable();
        s == (0..count).collect::<Vec<_>>()
    }

    #[test]
    fn stride_coprime_is_the_modular_walk() {
        assert_eq!(stride(7, 3), vec![0, 3, 6, 2, 5, 1, 4]);
        assert_eq!(stride(7, 10), stride(7, 3), "N is taken mod count");
    }

    #[test]
    fn stride_not_coprime_shifts_by_one_after_each_cycle() {
        assert_eq!(stride(8, 2), vec![0, 2, 4, 6, 1, 3, 5, 7]);
        assert_eq!(stride(12, 8), vec![0, 8, 4, 1, 9, 5, 2, 10, 6, 3, 11, 7]);
        assert_eq!(stride(9, 3), vec![0, 3, 6, 1, 4, 7, 2, 5, 8]);
    }

    #[test]
    fn stride_degenerate_cases_are_file_order() {
        assert_eq!(stride(5, 1), vec![0, 1, 2, 3, 4]);
        assert_eq!(stride(5, 5), vec![0, 1, 2, 3, 4]);
        assert_eq!(stride(5, 6), vec![0, 1, 2, 3, 4]);
        assert!(stride_is_sequential(5, 6) && stride_is_sequential(1, 7));
        assert!(!stride_is_sequential(5, 2));
        assert_eq!(stride(0, 3), Vec::<u32>::new());
    }

    #[test]
    fn reverse_order() {
        assert_eq!(reverse(4), vec![3, 2, 1, 0]);
    }

    proptest::proptest! {
        #[test]
        fn stride_always_visits_every_block_once(count in 1u32..500, n in 1u64..2000) {
            proptest::prop_assert!(is_permutation(&stride(count, n), count));
        }
    }
}
