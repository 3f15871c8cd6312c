//! `md5`, `sha256`, `blake3`: a message digest of every block, the case of
//! the 2004 freebsd-current thread (read into a small buffer vs mmap).
//!
//! Blocks are fed to the hasher in the order the method delivers them, so a
//! sequential order gives the digest of the file itself, and every method
//! given the same order gives the same digest. The checksum is the first 8
//! bytes of the digest as a little-endian `u64`; [`Digest::digest_hex`] gives
//! the whole digest. Finishing the digest is left to [`Workload::checksum`],
//! which a trial calls after the timed loop.

use sha2::Digest as _;

use super::Workload;

/// Which message digest a [`Digest`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DigestAlgorithm {
    /// MD5 (RFC 1321), 16-byte digest, via the RustCrypto `md-5` crate.
    Md5,
    /// SHA-256 (FIPS 180-4), 32-byte digest, via the RustCrypto `sha2` crate.
    Sha256,
    /// BLAKE3, 32-byte digest, via the `blake3` crate (one thread).
    Blake3,
}

/// `md5`.
pub(super) const MD5: super::Spec = super::Spec {
    writes: false,
    order_independent: false,
    build: |_| Box::new(Digest::new(DigestAlgorithm::Md5)),
};

/// `sha256`.
pub(super) const SHA256: super::Spec = super::Spec {
    build: |_| Box::new(Digest::new(DigestAlgorithm::Sha256)),
    ..MD5
};

/// `blake3`.
pub(super) const BLAKE3: super::Spec = super::Spec {
    build: |_| Box::new(Digest::new(DigestAlgorithm::Blake3)),
    ..MD5
};

/// The running state of one of the supported hashers.
#[derive(Clone, Debug)]
enum Hasher {
    Md5(md5::Md5),
    Sha256(sha2::Sha256),
    // Boxed: the BLAKE3 state is about 2 KB, the others about 100 bytes.
    Blake3(Box<blake3::Hasher>),
}

impl Hasher {
    fn new(algorithm: DigestAlgorithm) -> Self {
        match algorithm {
            DigestAlgorithm::Md5 => Hasher::Md5(md5::Md5::new()),
            DigestAlgorithm::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
            DigestAlgorithm::Blake3 => Hasher::Blake3(Box::default()),
        }
    }

    #[inline]
    fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Md5(h) => h.update(data),
            Hasher::Sha256(h) => h.update(data),
            Hasher::Blake3(h) => {
                h.update(data);
            }
        }
    }

    /// The digest of everything so far, leaving the state as it is.
    fn finish(&self) -> Vec<u8> {
        match self {
            Hasher::Md5(h) => h.clone().finalize().to_vec(),
            Hasher::Sha256(h) => h.clone().finalize().to_vec(),
            Hasher::Blake3(h) => h.finalize().as_bytes().to_vec(),
        }
    }
}

/// Feeds every block, in the order delivered, to a message digest.
#[derive(Clone, Debug)]
pub struct Digest {
    algorithm: DigestAlgorithm,
    hasher: Hasher,
}

impl Digest {
    /// A fresh digest of nothing yet.
    pub fn new(algorithm: DigestAlgorithm) -> Self {
        Digest {
            algorithm,
            hasher: Hasher::new(algorithm),
        }
    }

    /// The algorithm this workload computes.
    pub fn algorithm(&self) -> DigestAlgorithm {
        self.algorithm
    }

    /// The full digest of everything consumed so far.
    pub fn digest_bytes(&self) -> Vec<u8> {
        self.hasher.finish()
    }

    /// The full digest of everything consumed so far, in lowercase hex (as
    /// `md5sum`, `sha256sum` and `b3sum` print it).
    pub fn digest_hex(&self) -> String {
        use std::fmt::Write as _;
        let bytes = self.digest_bytes();
        let mut hex = String::with_capacity(2 * bytes.len());
        for b in bytes {
            // Writing to a String cannot fail.
            let _ = write!(hex, "{b:02x}");
        }
        hex
    }
}

impl Workload for Digest {
    #[inline]
    fn consume(&mut self, _offset: u64, data: &[u8]) {
        self.hasher.update(data);
    }

    /// The first 8 bytes of the digest, little-endian.
    fn checksum(&self) -> u64 {
        let bytes = self.digest_bytes();
        let mut first = [0u8; 8];
        first.copy_from_slice(&bytes[..8]);
        u64::from_le_bytes(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [DigestAlgorithm; 3] = [
        DigestAlgorithm::Md5,
        DigestAlgorithm::Sha256,
        DigestAlgorithm::Blake3,
    ];

    fn hex_of(algorithm: DigestAlgorithm, data: &[u8]) -> String {
        let mut d = Digest::new(algorithm);
        d.consume(0, data);
        d.digest_hex()
    }

    #[test]
    fn known_vectors_for_abc() {
        assert_eq!(
            hex_of(DigestAlgorithm::Md5, b"abc"),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            hex_of(DigestAlgorithm::Sha256, b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex_of(DigestAlgorithm::Blake3, b"abc"),
            "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"
        );
    }

    #[test]
    fn known_vectors_for_empty_input() {
        let empty = |a| Digest::new(a).digest_hex();
        assert_eq!(
            empty(DigestAlgorithm::Md5),
            "d41d8cd98f00b204e9800998ecf8427e"
        );
        assert_eq!(
            empty(DigestAlgorithm::Sha256),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            empty(DigestAlgorithm::Blake3),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
        );
    }

    #[test]
    fn checksum_is_first_eight_digest_bytes_little_endian() {
        let mut d = Digest::new(DigestAlgorithm::Md5);
        d.consume(0, b"abc");
        // 90 01 50 98 3c d2 4f b0 ...
        assert_eq!(d.checksum(), 0xb04f_d23c_9850_0190);
        for a in ALL {
            let mut d = Digest::new(a);
            d.consume(0, b"abc");
            let bytes = d.digest_bytes();
            assert_eq!(
                d.checksum(),
                u64::from_le_bytes(bytes[..8].try_into().unwrap())
            );
        }
    }

    #[test]
    fn blocks_fed_in_turn_equal_the_whole_at_once() {
        let data: Vec<u8> = (0..100_003u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for a in ALL {
            let whole = hex_of(a, &data);
            for block in [1usize, 63, 64, 4096, 65_536] {
                let mut d = Digest::new(a);
                for (i, chunk) in data.chunks(block).enumerate() {
                    d.consume((i * block) as u64, chunk);
                }
                assert_eq!(d.digest_hex(), whole, "{a:?} with {block}-byte blocks");
            }
        }
    }

    #[test]
    fn checksum_does_not_disturb_the_running_state() {
        for a in ALL {
            let mut d = Digest::new(a);
            d.consume(0, b"ab");
            let _ = d.checksum();
            d.consume(2, b"c");
            assert_eq!(d.digest_hex(), hex_of(a, b"abc"), "{a:?}");
        }
    }

    #[test]
    fn digest_lengths() {
        assert_eq!(Digest::new(DigestAlgorithm::Md5).digest_bytes().len(), 16);
        assert_eq!(
            Digest::new(DigestAlgorithm::Sha256).digest_bytes().len(),
            32
        );
        assert_eq!(
            Digest::new(DigestAlgorithm::Blake3).digest_bytes().len(),
            32
        );
    }

    #[test]
    fn registry_names_and_builds() {
        use crate::workload::WorkloadKind;
        use clap::ValueEnum;
        for (kind, name, algorithm) in [
            (WorkloadKind::Md5, "md5", DigestAlgorithm::Md5),
            (WorkloadKind::Sha256, "sha256", DigestAlgorithm::Sha256),
            (WorkloadKind::Blake3, "blake3", DigestAlgorithm::Blake3),
        ] {
            assert_eq!(kind.to_string(), name);
            assert_eq!(WorkloadKind::from_str(name, false), Ok(kind));
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{name}\""));
            let mut built = kind.build(&crate::workload::WorkloadConfig::default());
            built.consume(0, b"abc");
            let mut direct = Digest::new(algorithm);
            direct.consume(0, b"abc");
            assert_eq!(built.checksum(), direct.checksum());
        }
    }
}
