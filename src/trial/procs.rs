//! The child's side of `--procs N`: meeting points with the runner, and the
//! process's own PSS. The protocol is described in [`crate::runner::procs`].
use std::io::Write;

use crate::error::{Error, Result};

/// The line a child prints when it is ready.
pub const READY: &str = "ready";

/// In the child: says it is ready, then waits for the runner's go.
pub fn ready_and_wait() -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{READY}")
        .and_then(|_| out.flush())
        .map_err(|e| Error::Trial(format!("telling the runner it is ready: {e}")))?;
    drop(out);
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| Error::Trial(format!("waiting for the runner's go: {e}")))?;
    if line.trim() != "go" {
        return Err(Error::Trial("the runner did not release the trial".into()));
    }
    Ok(())
}

/// This process's PSS in KiB, from /proc/self/smaps_rollup.
pub fn own_pss_kib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/smaps_rollup").ok()?;
    parse_pss(&text)
}

/// The `Pss:` line of an smaps_rollup text, in KiB.
pub fn parse_pss(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pss_is_read_from_smaps_rollup() {
        let text = "00400000-7fff [rollup]\nRss:  1234 kB\nPss:  567 kB\nPss_Anon: 1 kB\n";
        assert_eq!(parse_pss(text), Some(567));
        assert_eq!(parse_pss("Rss: 1 kB\n"), None);
        assert!(own_pss_kib().is_some_and(|k| k > 0));
    }
}
