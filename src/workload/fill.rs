//! `fill`: what the write methods write.
//!
//! The content is a function of the file offset alone, so whoever checks a
//! written file (the runner's read-back, or a `sum` read of a kept file) can
//! recompute it without knowing the method, the block size or the order the
//! blocks were written in:
//!
//! - `zero`: every byte is 0 (the 2020 post wrote zeros);
//! - `calloc`: every byte is 0, and the workload stores nothing: the method's
//!   buffer is zeroed memory never touched before the write (the 2020 post's
//!   calloc'd buffer), so only `write` and `pwrite` take it;
//! - `pattern`: the 8 bytes at offset `8·i` are [`pattern_word`]`(i)`,
//!   little-endian. A block written at the wrong offset, or not at all, shows
//!   up as a wrong byte.
//!
//! The checksum is the wrapping sum of the bytes produced, the same number the
//! `sum` workload computes when it reads them back. For `zero` it is 0, and
//! nothing is re-read to compute it.
use serde::{Deserialize, Serialize};

use super::Workload;

/// The content the `fill` workload writes.
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
pub enum FillContent {
    /// Every byte 0.
    Zero,
    /// A deterministic, position-dependent pattern (every 8 bytes a mix of their offset).
    //  (`pattern_word` computes it: this comment is `--help` text, so it
    //  names no Rust item.)
    #[default]
    Pattern,
    /// Zeros the workload never stores: the method's buffer is calloc'd and
    /// untouched (`write` and `pwrite` only).
    Calloc,
}

display_as_value_name!(FillContent);

/// The pattern's 8 bytes at offset `8·index` (little-endian): a
/// multiply-xorshift mix of the index, so neighbouring words differ in every
/// byte and no block repeats another.
#[inline(always)]
pub fn pattern_word(index: u64) -> u64 {
    let mut z = index.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z ^= z >> 29;
    z = z.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z ^ (z >> 32)
}

/// The pattern's byte at `offset`.
#[inline(always)]
pub fn pattern_byte(offset: u64) -> u8 {
    (pattern_word(offset / 8) >> (8 * (offset % 8))) as u8
}

/// The sum of the 8 bytes of `w`.
#[inline(always)]
fn byte_sum(w: u64) -> u64 {
    const LOW: u64 = 0x00ff_00ff_00ff_00ff;
    // Four 16-bit lanes of at most 510 each, then added into the top lane.
    let pairs = (w & LOW) + ((w >> 8) & LOW);
    pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48
}

/// Writes the pattern's bytes for `offset..offset + out.len()` into `out` and
/// returns their sum.
pub fn fill_pattern(offset: u64, out: &mut [u8]) -> u64 {
    let mut sum = 0u64;
    let head = ((8 - offset % 8) % 8).min(out.len() as u64) as usize;
    for (i, b) in out[..head].iter_mut().enumerate() {
        *b = pattern_byte(offset + i as u64);
        sum += *b as u64;
    }
    let body_start = offset + head as u64;
    let mut words = out[head..].chunks_exact_mut(8);
    let mut index = body_start / 8;
    for chunk in &mut words {
        let w = pattern_word(index);
        chunk.copy_from_slice(&w.to_le_bytes());
        sum += byte_sum(w);
        index += 1;
    }
    let tail = words.into_remainder();
    let tail_start = index * 8;
    for (i, b) in tail.iter_mut().enumerate() {
        *b = pattern_byte(tail_start + i as u64);
        sum += *b as u64;
    }
    sum
}

/// Writes `content`'s bytes for `offset..offset + out.len()` into `out` and
/// returns their sum.
pub fn fill(content: FillContent, offset: u64, out: &mut [u8]) -> u64 {
    match content {
        FillContent::Zero | FillContent::Calloc => {
            out.fill(0);
            0
        }
        FillContent::Pattern => fill_pattern(offset, out),
    }
}

/// `fill`.
pub(super) const FILL: super::Spec = super::Spec {
    writes: true,
    order_independent: true,
    build: |c| Box::new(Fill::new(c.fill.unwrap_or_default())),
};

/// The `fill` workload: produces each block for a write method.
#[derive(Debug)]
pub struct Fill {
    content: FillContent,
    total: u64,
}

impl Fill {
    /// A workload writing `content`.
    pub fn new(content: FillContent) -> Self {
        Fill { content, total: 0 }
    }
}

impl Workload for Fill {
    fn consume(&mut self, _offset: u64, _data: &[u8]) {
        unreachable!("fill is a write workload; the plan pairs it with write methods only")
    }

    #[inline]
    fn produce(&mut self, offset: u64, out: &mut [u8]) {
        if self.content == FillContent::Calloc {
            // The buffer is already zeros, and must stay untouched.
            return;
        }
        let sum = fill(self.content, offset, out);
        self.total = self.total.wrapping_add(std::hint::black_box(sum));
    }

    fn checksum(&self) -> u64 {
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{sum_bytes, Sum};

    /// The pattern byte by byte, the slow way.
    fn naive(offset: u64, len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|i| {
                let o = offset + i;
                pattern_word(o / 8).to_le_bytes()[(o % 8) as usize]
            })
            .collect()
    }

    #[test]
    fn pattern_matches_the_definition_at_any_alignment() {
        for offset in [0u64, 1, 3, 7, 8, 9, 4095, 4096, 1 << 33] {
            for len in [0usize, 1, 2, 7, 8, 9, 15, 16, 17, 100, 4096] {
                let mut out = vec![0xeeu8; len];
                let sum = fill_pattern(offset, &mut out);
                let expected = naive(offset, len);
                assert_eq!(out, expected, "offset {offset}, len {len}");
                assert_eq!(sum, sum_bytes(&expected), "offset {offset}, len {len}");
            }
        }
    }

    #[test]
    fn blocks_in_any_order_give_the_file_and_one_checksum() {
        let size = 10_000usize;
        let mut whole = vec![0u8; size];
        let mut sequential = Fill::new(FillContent::Pattern);
        sequential.produce(0, &mut whole);
        // 1-byte and 333-byte blocks, backwards: same bytes, same checksum.
        for block in [1usize, 333] {
            let mut pieces = vec![0u8; size];
            let mut w = Fill::new(FillContent::Pattern);
            let starts: Vec<usize> = (0..size).step_by(block).collect();
            for &s in starts.iter().rev() {
                let end = (s + block).min(size);
                w.produce(s as u64, &mut pieces[s..end]);
            }
            assert_eq!(pieces, whole, "block {block}");
            assert_eq!(w.checksum(), sequential.checksum(), "block {block}");
        }
        // What `sum` reads back is what `fill` wrote.
        let mut sum = Sum::default();
        sum.consume(0, &whole);
        assert_eq!(sum.checksum(), sequential.checksum());
        assert_ne!(sequential.checksum(), 0);
    }

    #[test]
    fn pattern_does_not_repeat_between_blocks() {
        let mut a = vec![0u8; 4096];
        let mut b = vec![0u8; 4096];
        fill_pattern(0, &mut a);
        fill_pattern(4096, &mut b);
        assert_ne!(a, b);
        let distinct: std::collections::HashSet<u8> = a.iter().copied().collect();
        assert!(distinct.len() > 200, "bytes spread over the range");
    }

    #[test]
    fn zero_fills_zeros_with_checksum_zero() {
        let mut out = vec![7u8; 100];
        let mut w = Fill::new(FillContent::Zero);
        w.produce(5, &mut out);
        assert!(out.iter().all(|&b| b == 0));
        assert_eq!(w.checksum(), 0);
    }

    #[test]
    fn byte_sum_adds_the_eight_bytes() {
        for w in [0u64, u64::MAX, 0x0102_0304_0506_0708, 0xff00_ff00_ff00_ff00] {
            let expected: u64 = w.to_le_bytes().iter().map(|&b| b as u64).sum();
            assert_eq!(byte_sum(w), expected, "{w:#x}");
        }
    }

    #[test]
    fn calloc_stores_nothing_and_sums_to_zero() {
        let mut f = Fill::new(FillContent::Calloc);
        let mut out = vec![0xa5u8; 100];
        f.produce(0, &mut out);
        assert!(out.iter().all(|&b| b == 0xa5), "untouched");
        assert_eq!(f.checksum(), 0);
        // What a read-back expects at any offset: zeros.
        assert_eq!(fill(FillContent::Calloc, 7, &mut out), 0);
        assert!(out.iter().all(|&b| b == 0));
    }
}
