//! Who holds a `flock` on a file, as `/proc/locks` tells: whether the
//! lock is kept by a live process, or only by a copy of the descriptor left
//! in a child of a process that is gone (see [`crate::files::locks`]).
//!
//! `/proc/locks` lists each lock once, with the process that took it (for
//! `flock`, its pid at the time), not every process that holds a copy of
//! the descriptor. A run killed while it forks a trial child leaves its
//! lock listed under its own pid, now gone, while the child that is dying
//! keeps it held.
use std::fs::File;
use std::os::unix::fs::MetadataExt;

/// What `/proc/locks` says about the `flock` locks held on a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holders {
    /// At least one lock on it was taken by a process that is still alive.
    Live,
    /// Every lock on it was taken by a process that is gone (or, from
    /// another pid namespace, one this process cannot see): only a
    /// descendant that is ending keeps it.
    Gone,
    /// No lock on it is listed (it was let go meanwhile), or `/proc/locks`
    /// cannot be read.
    Unknown,
}

/// The holders of the `flock` locks on the file `file` is open on.
pub fn flock_holders(file: &File) -> Holders {
    let Ok(meta) = file.metadata() else {
        return Holders::Unknown;
    };
    let Ok(table) = std::fs::read_to_string("/proc/locks") else {
        return Holders::Unknown;
    };
    holders_in(&table, meta.ino(), is_alive)
}

/// [`flock_holders`] from the text of `/proc/locks`, for the file of inode
/// `ino`, with `alive` telling whether a pid is a live process. Inodes are
/// matched without their device: a file system may list another device
/// there than `stat` gives (btrfs subvolumes), and a clash of inode numbers
/// across devices only costs a wait.
fn holders_in(table: &str, ino: u64, alive: impl Fn(i64) -> bool) -> Holders {
    let mut found = Holders::Unknown;
    for line in table.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // "1: FLOCK  ADVISORY  WRITE 4209 fe:00:10010731 0 EOF"; a process
        // waiting for the lock has "->" after the number: not a holder.
        let [_, kind, _, _, pid, file, ..] = fields.as_slice() else {
            continue;
        };
        if *kind != "FLOCK" {
            continue;
        }
        let Some(lock_ino) = file.rsplit(':').next().and_then(|i| i.parse::<u64>().ok()) else {
            continue;
        };
        if lock_ino != ino {
            continue;
        }
        match pid.parse::<i64>() {
            Ok(pid) if alive(pid) => return Holders::Live,
            _ => found = Holders::Gone,
        }
    }
    found
}

/// Whether `pid` is a process that runs (a zombie, which holds no
/// descriptor, does not; nor does a pid of 0 or less, which `/proc/locks`
/// gives for a taker outside this pid namespace that is gone).
fn is_alive(pid: i64) -> bool {
    if pid <= 0 {
        return false;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the command name, which may hold spaces and ')'.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    !matches!(state, Some("Z" | "X" | "x"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "\
1: FLOCK  ADVISORY  WRITE 4209 fe:00:10010731 0 EOF
1: -> FLOCK  ADVISORY  WRITE 5000 fe:00:10010731 0 EOF
2: POSIX  ADVISORY  WRITE 77 fe:00:555 0 EOF
3: FLOCK  ADVISORY  READ 81 00:2a:555 0 EOF
3: FLOCK  ADVISORY  READ 82 00:2a:555 0 EOF
";

    #[test]
    fn a_lock_is_live_while_its_taker_runs_and_gone_after() {
        assert_eq!(holders_in(TABLE, 10010731, |_| true), Holders::Live);
        assert_eq!(
            holders_in(TABLE, 10010731, |pid| pid == 5000),
            Holders::Gone,
            "a waiter is no holder"
        );
        assert_eq!(holders_in(TABLE, 999, |_| true), Holders::Unknown);
        // POSIX locks are not ours; of two shared holders one alive is live.
        assert_eq!(holders_in(TABLE, 555, |pid| pid == 77), Holders::Gone);
        assert_eq!(holders_in(TABLE, 555, |pid| pid == 82), Holders::Live);
    }

    #[test]
    fn this_process_is_alive_and_a_reaped_child_or_zombie_is_not() {
        assert!(is_alive(i64::from(std::process::id())));
        assert!(!is_alive(0) && !is_alive(-1));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = i64::from(child.id());
        // Exited, not yet reaped: a zombie.
        let started = std::time::Instant::now();
        while is_alive(pid) {
            assert!(started.elapsed().as_secs() < 10, "`true` did not exit");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(
            std::fs::metadata(format!("/proc/{pid}")).is_ok(),
            "a zombie"
        );
        child.wait().unwrap();
        assert!(!is_alive(pid));
    }
}
