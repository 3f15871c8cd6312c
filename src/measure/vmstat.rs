//! /proc/vmstat snapshots and the deltas faultline records.
//!
//! /proc/vmstat is system-wide: its deltas include whatever else the machine
//! did meanwhile. faultline keeps only the paging counters that explain a
//! result (faults, page-ins, reclaim scans and steals, refaults).
use std::collections::BTreeMap;

/// A reading of /proc/vmstat.
#[derive(Clone, Debug, Default)]
pub struct VmstatSnapshot(pub BTreeMap<String, i64>);

/// Where the kernel exposes the counters.
pub const VMSTAT_PATH: &str = "/proc/vmstat";

/// Reads /proc/vmstat.
pub fn snapshot() -> std::io::Result<VmstatSnapshot> {
    let text = std::fs::read_to_string(VMSTAT_PATH)?;
    Ok(parse(&text))
}

/// The kernel's count of processes its OOM killer has ended since boot
/// (`oom_kill`, Linux 4.13 and later); `None` where it is not kept. A trial
/// killed by SIGKILL while it rose was ended for lack of memory.
pub fn oom_kills() -> Option<i64> {
    snapshot().ok()?.0.get("oom_kill").copied()
}

/// Parses /proc/vmstat text: one `name value` pair per line.
///
/// Lines that are not exactly a name and an integer are skipped.
pub fn parse(text: &str) -> VmstatSnapshot {
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let (Some(name), Some(value), None) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        if let Ok(v) = value.parse::<i64>() {
            map.insert(name.to_string(), v);
        }
    }
    VmstatSnapshot(map)
}

/// Whether `key` is one of the counters faultline records.
pub fn is_recorded(key: &str) -> bool {
    matches!(
        key,
        "pgfault" | "pgmajfault" | "pgpgin" | "pgpgout" | "workingset_refault_file"
    ) || key.starts_with("pgscan")
        || key.starts_with("pgsteal")
}

impl VmstatSnapshot {
    /// Deltas since `earlier` of pgfault, pgmajfault, pgpgin, pgpgout, the
    /// pgscan* and pgsteal* families and workingset_refault_file.
    ///
    /// Keys missing from either snapshot are left out.
    pub fn delta_since(&self, earlier: &VmstatSnapshot) -> BTreeMap<String, i64> {
        self.0
            .iter()
            .filter(|(k, _)| is_recorded(k))
            .filter_map(|(k, now)| {
                let then = earlier.0.get(k)?;
                Some((k.clone(), now.saturating_sub(*then)))
            })
            .collect()
    }

    /// The value of one counter, if present.
    pub fn get(&self, key: &str) -> Option<i64> {
        self.0.get(key).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "nr_free_pages 1000\n\
        pgpgin 10\n\
        pgpgout 20\n\
        pgfault 100\n\
        pgmajfault 3\n\
        pgscan_kswapd 0\n\
        pgscan_direct 5\n\
        pgsteal_kswapd 7\n\
        pgsteal_file 1\n\
        workingset_refault_file 2\n\
        workingset_refault_anon 9\n\
        pgactivate 50\n";

    const AFTER: &str = "nr_free_pages 400\n\
        pgpgin 4106\n\
        pgpgout 20\n\
        pgfault 612\n\
        pgmajfault 4\n\
        pgscan_kswapd 12\n\
        pgscan_direct 5\n\
        pgsteal_kswapd 9\n\
        workingset_refault_file 10\n\
        workingset_refault_anon 19\n\
        pgactivate 90\n\
        pgscan_anon 3\n";

    #[test]
    fn parses_name_value_lines_and_skips_junk() {
        let s = parse("pgfault 12\n\nbogus\nnr_x -3\ntoo many 1\nnot_a_number x\npgpgin 7");
        assert_eq!(s.get("pgfault"), Some(12));
        assert_eq!(s.get("pgpgin"), Some(7));
        assert_eq!(s.get("nr_x"), Some(-3));
        assert_eq!(s.0.len(), 3);
    }

    #[test]
    fn delta_keeps_only_recorded_keys_present_in_both() {
        let d = parse(AFTER).delta_since(&parse(BEFORE));
        let expect: BTreeMap<String, i64> = [
            ("pgfault", 512),
            ("pgmajfault", 1),
            ("pgpgin", 4096),
            ("pgpgout", 0),
            ("pgscan_direct", 0),
            ("pgscan_kswapd", 12),
            ("pgsteal_kswapd", 2),
            ("workingset_refault_file", 8),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        // pgsteal_file is missing after, pgscan_anon before: both skipped.
        assert_eq!(d, expect);
    }

    #[test]
    fn recorded_keys() {
        for k in [
            "pgfault",
            "pgscan_khugepaged",
            "pgsteal_anon",
            "workingset_refault_file",
        ] {
            assert!(is_recorded(k), "{k}");
        }
        for k in [
            "nr_free_pages",
            "pgactivate",
            "workingset_refault_anon",
            "pgfault2x",
        ] {
            assert!(!is_recorded(k), "{k}");
        }
    }

    #[test]
    fn real_vmstat_has_pgfault() {
        let s = snapshot().expect("read /proc/vmstat");
        assert!(s.get("pgfault").is_some_and(|v| v > 0));
        let d = snapshot().unwrap().delta_since(&s);
        assert!(d.contains_key("pgfault"));
        assert!(d.values().all(|v| *v >= 0));
    }
}
