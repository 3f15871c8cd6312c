//! `touch`: reads one byte per page of each block (or one per block when the
//! block is smaller than a page), the least work that forces each page in.

use super::Workload;

/// `touch`.
pub(super) const TOUCH: super::Spec = super::Spec {
    writes: false,
    order_independent: true,
    build: |c| Box::new(Touch::new(c.page_size)),
};

/// Reads the first byte of every page-sized step of each block.
#[derive(Debug)]
pub struct Touch {
    page: usize,
    total: u64,
}

impl Touch {
    /// A touch workload stepping by `page_size` bytes.
    pub fn new(page_size: usize) -> Self {
        Touch {
            page: page_size.max(1),
            total: 0,
        }
    }
}

impl Workload for Touch {
    #[inline]
    fn consume(&mut self, _offset: u64, data: &[u8]) {
        let data = std::hint::black_box(data);
        let mut total = self.total;
        let mut i = 0;
        while i < data.len() {
            total = total.wrapping_add(data[i] as u64);
            i += self.page;
        }
        self.total = total;
    }

    fn checksum(&self) -> u64 {
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touches_one_byte_per_page() {
        let mut data = vec![0u8; 3 * 4096 + 10];
        data[0] = 1;
        data[4096] = 2;
        data[8192] = 4;
        data[12288] = 8;
        data[5] = 100; // not on a page start: not touched
        let mut w = Touch::new(4096);
        w.consume(0, &data);
        assert_eq!(w.checksum(), 15);
    }

    #[test]
    fn small_blocks_touch_their_first_byte() {
        let mut w = Touch::new(4096);
        w.consume(0, &[3, 9]);
        w.consume(2, &[5, 9]);
        assert_eq!(w.checksum(), 8);
    }
}
