//! The machine's noise, as the last `faultline calibrate` measured it: the
//! spread of one paired log ratio, kept in the data directory
//! (`noise.json`) so that `reproduce --dry-run` can plan each claim's runs
//! from this machine rather than from an assumption.
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};

/// The file's name in the data directory.
pub const FILE: &str = "noise.json";

/// Larger than this, the file is not one faultline wrote: it is ignored.
const MOST_BYTES: u64 = 64 << 10;

/// One calibration's noise figure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Noise {
    /// Pooled sd of one paired log ratio (0.10: about ±10% per pair).
    pub pair_sd: f64,
    /// When it was measured (UTC, RFC 3339).
    pub when: String,
    /// What was measured, e.g. `read, seq 16 KiB sum, warm`.
    pub what: String,
}

/// Where the noise file of data directory `dir` is.
pub fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// The noise recorded in `dir`, if a readable, sane record is there.
pub fn read(dir: &Path) -> Option<Noise> {
    let noise: Noise = super::record::read_json(&path(dir), MOST_BYTES)?;
    (noise.pair_sd.is_finite() && noise.pair_sd > 0.0 && noise.pair_sd < 10.0).then_some(noise)
}

/// The record as written: the format key first, so that the next
/// `calibrate` knows the file as faultline's own ([`super::made`]) and
/// replaces it.
#[derive(Serialize)]
struct Record<'a> {
    faultline_noise: u32,
    #[serde(flatten)]
    noise: &'a Noise,
}

/// Records `noise` in `dir`, replacing the last record (only a record
/// faultline wrote: anything else there is refused, as for every output).
pub fn write(dir: &Path, noise: &Noise) -> Result<()> {
    let record = Record {
        faultline_noise: 1,
        noise,
    };
    write_atomically(&path(dir), SHARED_MODE, |w| {
        serde_json::to_writer_pretty(&mut *w, &record).map_err(std::io::Error::from)?;
        w.write_all(b"\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_ignores_what_it_did_not_write() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), None);
        let n = Noise {
            pair_sd: 0.12,
            when: "2026-11-26T06:00:00Z".into(),
            what: "read".into(),
        };
        write(dir.path(), &n).unwrap();
        assert_eq!(read(dir.path()), Some(n.clone()));
        // The next calibration replaces its own record.
        let m = Noise {
            pair_sd: 0.2,
            ..n.clone()
        };
        write(dir.path(), &m).unwrap();
        assert_eq!(read(dir.path()), Some(m));
        // Never a file it did not write.
        std::fs::write(path(dir.path()), "{\"pair_sd\": 0.1}").unwrap();
        assert!(write(dir.path(), &n).is_err());
        std::fs::write(
            path(dir.path()),
            "{\"pair_sd\": -1, \"when\": \"\", \"what\": \"\"}",
        )
        .unwrap();
        assert_eq!(read(dir.path()), None, "not a noise figure");
        std::fs::write(path(dir.path()), "not json").unwrap();
        assert_eq!(read(dir.path()), None);
    }
}
