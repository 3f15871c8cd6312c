//! Facts about the running system that many layers ask for: the page size,
//! the effective user id, and whether a stop was asked for (SIGINT,
//! SIGTERM, SIGHUP or SIGQUIT, set by the session's handlers and read wherever long work can
//! stop cleanly, such as generating a test file).

/// The system's page size in bytes (4096 if sysconf cannot tell).
pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(n).ok().filter(|&p| p > 0).unwrap_or(4096)
}

/// The effective user id of this process.
pub fn current_uid() -> u32 {
    // SAFETY: geteuid() has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The flag SIGINT, SIGTERM, SIGHUP and SIGQUIT set: one per process, so that work done
/// before the trials (generating a test file) sees a stop too.
pub fn stop_flag() -> &'static std::sync::Arc<std::sync::atomic::AtomicBool> {
    static FLAG: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicBool>> =
        std::sync::OnceLock::new();
    FLAG.get_or_init(Default::default)
}

/// Whether a stop signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) asked this process to stop.
pub fn stop_requested() -> bool {
    stop_flag().load(std::sync::atomic::Ordering::SeqCst)
}

/// Set by a run once its trials start: a stop then still lets the writes
/// in progress finish (a stopped run writes its exports, whole, before it
/// ends). Elsewhere (`report`), a stop abandons a file being written.
static FINISH_WRITES_ON_STOP: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Lets writes finish after a stop, for the rest of this process (see
/// [`finishes_writes_on_stop`]).
pub fn finish_writes_on_stop() {
    FINISH_WRITES_ON_STOP.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Whether a write in progress finishes after a stop (a run's exports), or
/// is abandoned, its temporary file removed (`report`'s files).
pub fn finishes_writes_on_stop() -> bool {
    FINISH_WRITES_ON_STOP.load(std::sync::atomic::Ordering::SeqCst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_size_is_a_power_of_two_of_at_least_4_kib() {
        let p = page_size();
        assert!(p >= 4096 && p.is_power_of_two(), "{p}");
    }
}
