//! Facts about the running system that many layers ask for: the page size and
//! the effective user id. Each is one system call, wrapped once here.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_size_is_a_power_of_two_of_at_least_4_kib() {
        let p = page_size();
        assert!(p >= 4096 && p.is_power_of_two(), "{p}");
    }
}
