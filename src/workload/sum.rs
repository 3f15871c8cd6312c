//! `sum`: adds up every byte of every block.

use super::Workload;

/// `sum`.
pub(super) const SUM: super::Spec = super::Spec {
    writes: false,
    order_independent: true,
    build: |_| Box::<Sum>::default(),
};

/// Adds every byte into a 64-bit total.
#[derive(Default, Debug)]
pub struct Sum {
    total: u64,
}

/// Sums bytes through 32-bit lanes in chunks small enough not to overflow,
/// which lets the compiler vectorise the loop.
#[inline]
pub fn sum_bytes(data: &[u8]) -> u64 {
    // 255 * 16 Mi < 2^32, so a chunk of at most 16 MiB cannot overflow u32.
    const CHUNK: usize = 1 << 24;
    let mut total = 0u64;
    for chunk in data.chunks(CHUNK) {
        total += chunk.iter().map(|&b| b as u32).sum::<u32>() as u64;
    }
    total
}

impl Workload for Sum {
    #[inline]
    fn consume(&mut self, _offset: u64, data: &[u8]) {
        self.total = self
            .total
            .wrapping_add(sum_bytes(std::hint::black_box(data)));
    }

    fn checksum(&self) -> u64 {
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_every_byte() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        let expected: u64 = data.iter().map(|&b| b as u64).sum();
        let mut w = Sum::default();
        w.consume(0, &data[..3000]);
        w.consume(3000, &data[3000..]);
        assert_eq!(w.checksum(), expected);
    }

    #[test]
    fn no_overflow_on_large_blocks() {
        let data = vec![255u8; (1 << 24) + 5];
        assert_eq!(sum_bytes(&data), 255 * data.len() as u64);
    }
}
