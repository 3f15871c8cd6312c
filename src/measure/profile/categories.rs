//! Where the cycles go: THE table of categories ([`CATEGORIES`]) and the
//! rule that puts each sampled stack into exactly one of them ([`classify`]).
//! docs/profile.md explains each category to users; this is its definition.
//!
//! # The rule
//!
//! A stack is a list of frames from the leaf (where the CPU was) up to the
//! root, kernel frames first when the sample was taken in the kernel. Each row
//! of [`CATEGORIES`] has a rank (its place in the table), a side (kernel
//! frames, user frames or either), a reach and name patterns:
//!
//! * [`Reach::Anywhere`]: the row claims the sample when any frame on its
//!   side matches: the leaf *or one of its callers*. These rows describe
//!   contexts that own everything done beneath them: a `memcpy`-like
//!   `clear_page` or an `xas_find` inside page-fault handling is page-fault
//!   handling; `copy_page` under readahead is readahead.
//! * [`Reach::Leaf`]: the row claims the sample only when the leaf frame of
//!   its side matches (inlined frames count: a leaf inside an inlined
//!   function is that function). For code whose own cost is the point but
//!   which sits under everything else: `entry_SYSCALL_64` is a caller of
//!   every kernel sample of a system call, and only its own instructions are
//!   "syscall entry and exit".
//!
//! Two things come first. A sample inside an asynchronous interrupt
//! ([`INTERRUPT_ENTRY`]: device interrupts, timer and IPI vectors, and the
//! softirqs run on their way out) is judged by the interrupt's own frames
//! only: a disk-completion interrupt that lands in `copy_to_user` is block
//! I/O, a timer softirq is "other kernel", a TLB-shootdown IPI is a TLB flush.
//! (Page faults are exceptions the code itself raised, and keep their
//! callers.) And rows on the user side claim only samples taken in user mode
//! (the leaf is a user frame): kernel work done on a user function's behalf
//! is never that function's.
//!
//! Walk the table from the top: the **first row (highest rank) that claims
//! the sample wins**. A sample no row claims is "other kernel" when its leaf
//! is a kernel frame and "other user" otherwise.
//!
//! The ranks run from the most specific context to the least: TLB flushes
//! and IPIs > readahead and block I/O > page faults > copy from user > copy
//! to user > page-cache lookup > syscall entry/exit (leaf only) > user
//! memcpy > workload. So a user `memcpy` that faults is page-fault handling
//! while in the fault (the fault's frames sit on top of it) and user memcpy
//! otherwise; a `copy_to_user` that faults on the user buffer is page-fault
//! handling; `rep_movs_alternative` under `copy_folio_from_iter` is a copy
//! *from* user (the write side); and the rest of `filemap_read` other than
//! the copy, which ranks higher, is page-cache lookup.
use serde::{Deserialize, Serialize};

/// A category of CPU time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// TLB flushes and the inter-processor interrupts that carry them.
    Tlb,
    /// Readahead and block-I/O submission and completion.
    Readahead,
    /// Page-fault handling: the exception entry, `handle_mm_fault`,
    /// fault-around (`filemap_map_pages`), `set_pte` and relatives.
    PageFault,
    /// The kernel copying from user space (the write side).
    CopyFromUser,
    /// The kernel copying to user space (`copy_to_user`, `rep_movs_alternative`).
    CopyToUser,
    /// Finding the data in the page cache (`filemap_get_pages`, xarray walks).
    PageCache,
    /// System-call entry and exit (the leaf only).
    Syscall,
    /// memcpy/memmove in user space.
    UserMemcpy,
    /// The workload's own computation (checksum, digest, scaling, fill).
    Workload,
    /// Kernel time no row claims.
    OtherKernel,
    /// User time no row claims.
    OtherUser,
}

impl Category {
    /// Every category, in table order, then the two fallbacks.
    pub const ALL: [Category; 11] = [
        Category::Tlb,
        Category::Readahead,
        Category::PageFault,
        Category::CopyFromUser,
        Category::CopyToUser,
        Category::PageCache,
        Category::Syscall,
        Category::UserMemcpy,
        Category::Workload,
        Category::OtherKernel,
        Category::OtherUser,
    ];

    /// The name reports use, e.g. `copy to user`.
    pub fn label(self) -> &'static str {
        match self {
            Category::Tlb => "TLB flushes and IPIs",
            Category::Readahead => "readahead and block I/O",
            Category::PageFault => "page faults",
            Category::CopyFromUser => "copy from user",
            Category::CopyToUser => "copy to user",
            Category::PageCache => "page-cache lookup",
            Category::Syscall => "syscall entry/exit",
            Category::UserMemcpy => "user memcpy",
            Category::Workload => "workload",
            Category::OtherKernel => "other kernel",
            Category::OtherUser => "other user",
        }
    }

    /// The name in exports, e.g. `copy-to-user` (serde's name).
    pub fn id(self) -> &'static str {
        match self {
            Category::Tlb => "tlb",
            Category::Readahead => "readahead",
            Category::PageFault => "page-fault",
            Category::CopyFromUser => "copy-from-user",
            Category::CopyToUser => "copy-to-user",
            Category::PageCache => "page-cache",
            Category::Syscall => "syscall",
            Category::UserMemcpy => "user-memcpy",
            Category::Workload => "workload",
            Category::OtherKernel => "other-kernel",
            Category::OtherUser => "other-user",
        }
    }

    /// Whether its time is spent in the kernel (the user-only mode cannot see it).
    pub fn in_kernel(self) -> bool {
        !matches!(
            self,
            Category::UserMemcpy | Category::Workload | Category::OtherUser
        )
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// Which frames a row looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Kernel frames.
    Kernel,
    /// User frames.
    User,
    /// Either (for [`Reach::Leaf`]: the leaf of the whole stack).
    Either,
}

/// How far up the stack a row looks: see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// The leaf or any caller.
    Anywhere,
    /// The leaf of the row's side only.
    Leaf,
}

/// How a pattern matches a frame's name.
#[derive(Clone, Copy, Debug)]
pub enum Pat {
    /// The whole name.
    Exact(&'static str),
    /// The start of the name.
    Prefix(&'static str),
    /// Anywhere in the name (for Rust paths, which may sit inside `<... as ...>`).
    Contains(&'static str),
}

impl Pat {
    fn matches(&self, name: &str) -> bool {
        match *self {
            Pat::Exact(p) => name == p,
            Pat::Prefix(p) => name.starts_with(p),
            Pat::Contains(p) => name.contains(p),
        }
    }
}

/// One row of the table.
#[derive(Debug)]
pub struct Rule {
    /// The category it claims stacks for.
    pub category: Category,
    /// Which frames it looks at.
    pub side: Side,
    /// The leaf only, or the leaf and its callers.
    pub reach: Reach,
    /// Function names (kernel symbols, demangled Rust paths, libc symbols).
    pub patterns: &'static [Pat],
}

use Pat::{Contains, Exact, Prefix};

/// THE table. Its order is the rank: the first row that claims a stack wins.
/// Kernel names are those of Linux 4.x to 6.x (older names kept, so that a
/// profile taken on an older kernel still falls into the same rows).
pub const CATEGORIES: &[Rule] = &[
    Rule {
        category: Category::Tlb,
        side: Side::Kernel,
        reach: Reach::Anywhere,
        patterns: &[
            Prefix("flush_tlb"),
            Prefix("native_flush_tlb"),
            Prefix("__flush_tlb"),
            Prefix("tlb_flush"),
            Prefix("tlb_finish_mmu"),
            Prefix("smp_call_function"),
            Prefix("on_each_cpu"),
            Prefix("flush_smp_call_function"),
            Prefix("__sysvec_call_function"),
            Prefix("sysvec_call_function"),
            Prefix("asm_sysvec_call_function"),
            Contains("_ipi"),
        ],
    },
    Rule {
        category: Category::Readahead,
        side: Side::Kernel,
        reach: Reach::Anywhere,
        patterns: &[
            Prefix("page_cache_ra_"),
            Prefix("page_cache_sync_ra"),
            Prefix("page_cache_async_ra"),
            Prefix("ondemand_readahead"),
            Prefix("do_page_cache_ra"),
            Prefix("force_page_cache_ra"),
            Prefix("read_pages"),
            Prefix("readahead"),
            Prefix("ksys_readahead"),
            Prefix("generic_fadvise"),
            Prefix("submit_bio"),
            Prefix("__submit_bio"),
            Prefix("blk_"),
            Prefix("__blk_"),
            Prefix("bio_"),
            Prefix("ext4_mpage_readpages"),
            Prefix("ext4_readahead"),
            Prefix("mpage_read"),
            Prefix("iomap_readahead"),
            Prefix("iomap_read_folio"),
            Prefix("iomap_dio_"),
            Prefix("virtio_queue_rq"),
            Prefix("nvme_queue_rq"),
        ],
    },
    Rule {
        category: Category::PageFault,
        side: Side::Kernel,
        reach: Reach::Anywhere,
        patterns: &[
            Exact("asm_exc_page_fault"),
            Exact("exc_page_fault"),
            Exact("page_fault"),
            Exact("do_page_fault"),
            Exact("__do_page_fault"),
            Exact("do_user_addr_fault"),
            Exact("do_kern_addr_fault"),
            Prefix("handle_mm_fault"),
            Prefix("__handle_mm_fault"),
            Exact("handle_pte_fault"),
            Prefix("do_fault"),
            Prefix("do_read_fault"),
            Prefix("do_cow_fault"),
            Prefix("do_shared_fault"),
            Prefix("do_anonymous_page"),
            Prefix("do_wp_page"),
            Prefix("do_pte_missing"),
            Prefix("__do_fault"),
            Prefix("filemap_map_pages"),
            Prefix("filemap_fault"),
            Prefix("filemap_map_folio"),
            Prefix("next_uptodate_folio"),
            Prefix("next_uptodate_page"),
            Prefix("finish_fault"),
            Prefix("set_pte"),
            Prefix("alloc_set_pte"),
            Prefix("lock_mm_and_find_vma"),
            Prefix("lock_vma_under_rcu"),
            Prefix("fault_around"),
            Prefix("do_fault_around"),
        ],
    },
    Rule {
        category: Category::CopyFromUser,
        side: Side::Kernel,
        reach: Reach::Anywhere,
        patterns: &[
            Prefix("copy_from_user"),
            Prefix("_copy_from_user"),
            Prefix("__copy_from_user"),
            Prefix("raw_copy_from_user"),
            Prefix("_copy_from_iter"),
            Prefix("copy_from_iter"),
            Prefix("__copy_from_iter"),
            Prefix("copy_page_from_iter"),
            Prefix("copy_folio_from_iter"),
            Prefix("iov_iter_copy_from_user"),
            Prefix("fault_in_iov_iter_readable"),
        ],
    },
    Rule {
        category: Category::CopyToUser,
        side: Side::Kernel,
        reach: Reach::Anywhere,
        patterns: &[
            Prefix("copy_to_user"),
            Prefix("_copy_to_user"),
            Prefix("__copy_to_user"),
            Prefix("raw_copy_to_user"),
            Prefix("copy_user_"),
            Prefix("_copy_to_iter"),
            Prefix("copy_to_iter"),
            Prefix("__copy_to_iter"),
            Prefix("copy_page_to_iter"),
            Prefix("copy_folio_to_iter"),
            Prefix("filemap_copy_folio"),
            Prefix("rep_movs_alternative"),
            Prefix("copyout"),
        ],
    },
    Rule {
        category: Category::PageCache,
        side: Side::Kernel,
        reach: Reach::Anywhere,
        patterns: &[
            Prefix("filemap_get_pages"),
            Prefix("filemap_get_read_batch"),
            Prefix("filemap_read"),
            Prefix("filemap_get_folio"),
            Prefix("__filemap_get_folio"),
            Prefix("filemap_get_entry"),
            Prefix("find_get_"),
            Prefix("pagecache_get_page"),
            Prefix("generic_file_buffered_read"),
            Prefix("xas_"),
            Prefix("xa_"),
            Prefix("folio_mark_accessed"),
            Prefix("mark_page_accessed"),
            Prefix("generic_file_read_iter"),
        ],
    },
    Rule {
        category: Category::Syscall,
        side: Side::Either,
        reach: Reach::Leaf,
        patterns: &[
            // Kernel side.
            Prefix("entry_SYSCALL"),
            Prefix("entry_SYSRET"),
            Prefix("do_syscall_"),
            Prefix("syscall_exit"),
            Prefix("syscall_return"),
            Prefix("exit_to_user_mode"),
            Prefix("syscall_trace"),
            Prefix("__x64_sys_"),
            Prefix("__ia32_sys_"),
            Prefix("x64_sys_call"),
            Prefix("ksys_"),
            Prefix("__fdget"),
            Prefix("fdget"),
            Prefix("fput"),
            Prefix("__fput"),
            Prefix("clear_bhb_loop"),
            // User side: libc's system-call wrappers, when the sample is in
            // user mode there (the instructions around `syscall`; in the
            // user-only mode a timer that expired during the call is taken on
            // the first user instruction after it).
            Prefix("__libc_read"),
            Prefix("__libc_pread"),
            Prefix("__libc_write"),
            Prefix("__libc_pwrite"),
            Prefix("__GI___libc_read"),
            Prefix("__GI___libc_write"),
            Prefix("__GI___pread"),
            Prefix("__GI___pwrite"),
            Prefix("__GI___lseek"),
            Prefix("__GI_munmap"),
            Prefix("__GI___mmap"),
            Exact("read"),
            Exact("write"),
            Exact("pread64"),
            Exact("pwrite64"),
            Exact("preadv64"),
            Exact("pwritev64"),
            Exact("__read"),
            Exact("__write"),
            Exact("__pread64"),
            Exact("__pwrite64"),
            Exact("lseek64"),
            Exact("__lseek64"),
            Exact("syscall"),
        ],
    },
    Rule {
        category: Category::UserMemcpy,
        side: Side::User,
        reach: Reach::Anywhere,
        patterns: &[
            Prefix("__memmove_"),
            Prefix("__memcpy_"),
            Prefix("__mempcpy_"),
            Exact("memcpy"),
            Exact("memmove"),
            Exact("mempcpy"),
            Exact("__memcpy"),
            Exact("__memmove"),
            Exact("core::intrinsics::copy_nonoverlapping"),
            Exact("core::ptr::copy_nonoverlapping"),
            Prefix("compiler_builtins::mem::memcpy"),
            Prefix("compiler_builtins::mem::memmove"),
        ],
    },
    Rule {
        category: Category::Workload,
        side: Side::User,
        reach: Reach::Anywhere,
        patterns: &[
            Contains("faultline::workload::"),
            Contains("md5::"),
            Contains("md5_"),
            Contains("sha2::"),
            Contains("sha256_"),
            Contains("blake3::"),
            Prefix("blake3_"),
            Prefix("_blake3_"),
        ],
    },
];

/// One symbolized frame.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    /// The function's name (demangled).
    pub name: String,
    /// A kernel frame (as opposed to a user one).
    pub kernel: bool,
    /// A function inlined into the frame after it (from debug information).
    pub inlined: bool,
}

impl Frame {
    /// A kernel frame.
    pub fn kernel(name: &str) -> Frame {
        Frame {
            name: name.to_string(),
            kernel: true,
            inlined: false,
        }
    }

    /// A user frame.
    pub fn user(name: &str) -> Frame {
        Frame {
            name: name.to_string(),
            kernel: false,
            inlined: false,
        }
    }
}

/// Kernel frames where an asynchronous interrupt enters: the frames beneath
/// it (its callers in the stack) were interrupted; they did not ask for the
/// work above.
pub const INTERRUPT_ENTRY: &[Pat] = &[
    Prefix("asm_common_interrupt"),
    Prefix("asm_sysvec_"),
    Prefix("asm_spurious_interrupt"),
    Prefix("asm_exc_nmi"),
    Prefix("apic_timer_interrupt"),
    Prefix("common_interrupt"),
];

/// Does `rule` claim the stack (leaf first)?
fn claims(rule: &Rule, stack: &[Frame]) -> bool {
    let hit = |f: &Frame| rule.patterns.iter().any(|p| p.matches(&f.name));
    if rule.side == Side::User && stack.first().is_some_and(|f| f.kernel) {
        return false;
    }
    match rule.reach {
        Reach::Anywhere => stack
            .iter()
            .filter(|f| match rule.side {
                Side::Kernel => f.kernel,
                Side::User => !f.kernel,
                Side::Either => true,
            })
            .any(hit),
        Reach::Leaf => {
            let leaf = match rule.side {
                Side::Kernel => stack.iter().find(|f| f.kernel),
                Side::User => stack.iter().find(|f| !f.kernel),
                Side::Either => stack.first(),
            };
            leaf.is_some_and(hit)
        }
    }
}

/// The category of a stack given leaf first (see the module documentation).
pub fn classify(stack: &[Frame]) -> Category {
    // Inside an interrupt only the interrupt's own frames count.
    let cut = stack
        .iter()
        .position(|f| f.kernel && INTERRUPT_ENTRY.iter().any(|p| p.matches(&f.name)));
    let stack = match cut {
        Some(i) => &stack[..=i],
        None => stack,
    };
    CATEGORIES
        .iter()
        .find(|rule| claims(rule, stack))
        .map(|rule| rule.category)
        .unwrap_or(match stack.first() {
            Some(f) if f.kernel => Category::OtherKernel,
            _ => Category::OtherUser,
        })
}

/// Kernel frames in folded stacks end with this (the suffix perf's and
/// inferno's tools use; inferno's `java` palette colours them).
pub const KERNEL_SUFFIX: &str = "_[k]";
/// Inlined frames end with this.
pub const INLINE_SUFFIX: &str = "_[i]";

/// One folded stack, root first, in inferno's format (without the count):
/// frames joined by `;`, kernel frames suffixed `_[k]`, inlined ones `_[i]`.
/// A `;` inside a name (Rust's `[u8; 32]`) becomes `,`.
pub fn fold(leaf_first: &[Frame]) -> String {
    let mut s = String::with_capacity(leaf_first.len() * 32);
    for (i, f) in leaf_first.iter().rev().enumerate() {
        if i > 0 {
            s.push(';');
        }
        s.extend(f.name.chars().map(|c| match c {
            ';' => ',',
            '\n' | '\r' => ' ',
            c => c,
        }));
        if f.kernel {
            s.push_str(KERNEL_SUFFIX);
        } else if f.inlined {
            s.push_str(INLINE_SUFFIX);
        }
    }
    s
}

/// The frames of a folded stack (root first, as [`fold`] writes it), leaf first.
pub fn unfold(folded: &str) -> Vec<Frame> {
    folded
        .rsplit(';')
        .filter(|s| !s.is_empty())
        .map(|s| {
            if let Some(n) = s.strip_suffix(KERNEL_SUFFIX) {
                Frame::kernel(n)
            } else if let Some(n) = s.strip_suffix(INLINE_SUFFIX) {
                Frame {
                    name: n.to_string(),
                    kernel: false,
                    inlined: true,
                }
            } else {
                Frame::user(s)
            }
        })
        .collect()
}

/// The category of a folded stack.
pub fn classify_folded(folded: &str) -> Category {
    classify(&unfold(folded))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Category::*;

    fn c(folded: &str) -> Category {
        classify_folded(folded)
    }

    /// faultline's own read loop down to ext4, root first.
    const READ_ROOT: &str = "main;faultline::trial::run_trial;<faultline::method::read::Read as faultline::method::Method>::run;__GI___libc_read;entry_SYSCALL_64_[k];do_syscall_64_[k];__x64_sys_read_[k];ksys_read_[k];vfs_read_[k];ext4_file_read_iter_[k];generic_file_read_iter_[k]";

    #[test]
    fn every_category_has_one_name_and_the_table_covers_all_but_the_fallbacks() {
        let mut labels: Vec<_> = Category::ALL.iter().map(|c| c.label()).collect();
        labels.sort();
        labels.dedup();
        assert_eq!(labels.len(), Category::ALL.len());
        for cat in Category::ALL {
            let json = serde_json::to_string(&cat).unwrap();
            assert_eq!(json, format!("\"{}\"", cat.id()));
            let ruled = CATEGORIES.iter().any(|r| r.category == cat);
            assert_eq!(ruled, !matches!(cat, OtherKernel | OtherUser), "{cat}");
        }
    }

    #[test]
    fn reads_copy_is_copy_to_user() {
        let s = format!("{READ_ROOT};filemap_read_[k];copy_page_to_iter_[k];_copy_to_iter_[k];rep_movs_alternative_[k]");
        assert_eq!(c(&s), CopyToUser);
        // The 2019 kernel's name.
        let s = format!("{READ_ROOT};generic_file_buffered_read_[k];copy_page_to_iter_[k];copy_user_enhanced_fast_string_[k]");
        assert_eq!(c(&s), CopyToUser);
    }

    #[test]
    fn finding_the_page_is_page_cache_lookup() {
        let s = format!("{READ_ROOT};filemap_read_[k];filemap_get_pages_[k];filemap_get_read_batch_[k];xas_load_[k]");
        assert_eq!(c(&s), PageCache);
        // The rest of filemap_read, not the copy: page cache too.
        assert_eq!(
            c(&format!(
                "{READ_ROOT};filemap_read_[k];folio_mark_accessed_[k]"
            )),
            PageCache
        );
        assert_eq!(
            c(&format!("{READ_ROOT};filemap_read_[k];touch_atime_[k]")),
            PageCache
        );
    }

    #[test]
    fn syscall_entry_and_exit_only_as_the_leaf() {
        assert_eq!(c("main;__GI___libc_read;entry_SYSCALL_64_[k]"), Syscall);
        assert_eq!(
            c("main;__GI___libc_read;entry_SYSCALL_64_[k];do_syscall_64_[k];syscall_exit_to_user_mode_[k]"),
            Syscall
        );
        // generic_file_read_iter as the leaf is page cache, not the syscall.
        assert_eq!(c(READ_ROOT), PageCache);
        // Other per-call work with a leaf no row knows: other kernel.
        assert_eq!(
            c("main;__GI___libc_read;entry_SYSCALL_64_[k];do_syscall_64_[k];__x64_sys_read_[k];ksys_read_[k];vfs_read_[k];rw_verify_area_[k]"),
            OtherKernel
        );
        // User-only mode: the libc wrapper is the leaf.
        assert_eq!(c("main;f;__GI___libc_read"), Syscall);
        assert_eq!(c("main;f;read"), Syscall);
    }

    #[test]
    fn user_memcpy_and_the_faults_under_it() {
        let user = "main;<faultline::method::mmap::MmapMethod as faultline::method::Method>::run;__memmove_avx_unaligned_erms";
        assert_eq!(c(user), UserMemcpy);
        let fault = format!("{user};asm_exc_page_fault_[k];exc_page_fault_[k];do_user_addr_fault_[k];handle_mm_fault_[k];__handle_mm_fault_[k];do_fault_[k];filemap_map_pages_[k]");
        assert_eq!(c(&format!("{fault};next_uptodate_folio_[k]")), PageFault);
        assert_eq!(
            c(&format!("{fault};next_uptodate_folio_[k];xas_find_[k]")),
            PageFault
        );
        assert_eq!(c(&format!("{fault};set_pte_range_[k]")), PageFault);
        assert_eq!(c(&format!("{user};asm_exc_page_fault_[k]")), PageFault);
        // A kernel copy inside fault handling (copy-on-write) is the fault's.
        assert_eq!(
            c("main;f;asm_exc_page_fault_[k];exc_page_fault_[k];handle_mm_fault_[k];do_wp_page_[k];copy_mc_enhanced_fast_string_[k]"),
            PageFault
        );
    }

    #[test]
    fn a_copy_to_user_that_faults_is_a_page_fault() {
        let s = format!("{READ_ROOT};filemap_read_[k];_copy_to_iter_[k];rep_movs_alternative_[k];asm_exc_page_fault_[k];exc_page_fault_[k];handle_mm_fault_[k];do_anonymous_page_[k];clear_page_erms_[k]");
        assert_eq!(c(&s), PageFault);
    }

    #[test]
    fn readahead_under_a_fault_or_a_read_is_readahead() {
        let s = "main;f;asm_exc_page_fault_[k];exc_page_fault_[k];handle_mm_fault_[k];filemap_fault_[k];page_cache_ra_order_[k];page_cache_ra_unbounded_[k];read_pages_[k];ext4_mpage_readpages_[k];submit_bio_[k]";
        assert_eq!(c(s), Readahead);
        let s = format!("{READ_ROOT};filemap_read_[k];filemap_get_pages_[k];page_cache_async_ra_[k];xas_load_[k]");
        assert_eq!(c(&s), Readahead);
    }

    #[test]
    fn the_write_sides_copy_is_copy_from_user() {
        let s = "main;__GI___libc_write;entry_SYSCALL_64_[k];do_syscall_64_[k];__x64_sys_write_[k];ksys_write_[k];vfs_write_[k];ext4_buffered_write_iter_[k];generic_perform_write_[k];copy_folio_from_iter_atomic_[k];rep_movs_alternative_[k]";
        // rep_movs_alternative is listed under copy to user, but copy from
        // user ranks higher and claims the stack through its caller.
        assert_eq!(c(s), CopyFromUser);
    }

    #[test]
    fn tlb_flushes_rank_first() {
        let s = "main;munmap;entry_SYSCALL_64_[k];do_syscall_64_[k];__x64_sys_munmap_[k];do_vmi_munmap_[k];tlb_finish_mmu_[k];flush_tlb_mm_range_[k];on_each_cpu_cond_mask_[k];smp_call_function_many_cond_[k]";
        assert_eq!(c(s), Tlb);
        let s = "main;f;asm_sysvec_call_function_single_[k];sysvec_call_function_single_[k];flush_tlb_func_[k]";
        assert_eq!(c(s), Tlb);
    }

    #[test]
    fn the_workloads_own_work_and_copies_in_user_space() {
        assert_eq!(
            c("main;x;faultline::workload::sum::sum_bytes_[i]"),
            Workload
        );
        assert_eq!(
            c("main;x;<faultline::workload::sum::Sum as faultline::workload::Workload>::consume;core::iter::traits::iterator::Iterator::sum_[i]"),
            Workload
        );
        assert_eq!(c("main;x;sha2::sha256::compress256"), Workload);
        assert_eq!(c("main;x;md5::compress::soft::compress"), Workload);
        assert_eq!(c("main;x;blake3_hash_many_avx2"), Workload);
        // A memcpy called from workload code is a memcpy (it ranks higher).
        assert_eq!(
            c("main;faultline::workload::scale::Scale::consume;__memmove_avx_unaligned_erms"),
            UserMemcpy
        );
        // The workload interrupted by a fault (a mapping summed in place).
        assert_eq!(
            c("main;faultline::workload::sum::sum_bytes;asm_exc_page_fault_[k];exc_page_fault_[k];handle_mm_fault_[k];filemap_map_pages_[k];next_uptodate_folio_[k]"),
            PageFault
        );
    }

    #[test]
    fn interrupts_are_judged_by_their_own_frames() {
        assert_eq!(
            c("main;f;__memmove_avx_unaligned_erms;asm_sysvec_apic_timer_interrupt_[k];sysvec_apic_timer_interrupt_[k];__irq_exit_rcu_[k];handle_softirqs_[k]"),
            OtherKernel
        );
        assert_eq!(
            c("main;faultline::workload::sum::sum_bytes_[i];asm_common_interrupt_[k];common_interrupt_[k];handle_softirqs_[k];blk_done_softirq_[k];blk_mq_end_request_[k]"),
            Readahead
        );
        let s = format!("{READ_ROOT};filemap_read_[k];_copy_to_iter_[k];asm_sysvec_apic_timer_interrupt_[k];sysvec_apic_timer_interrupt_[k];handle_softirqs_[k];sched_balance_find_src_group_[k]");
        assert_eq!(c(&s), OtherKernel);
        // A shootdown IPI during a memcpy is a TLB flush.
        assert_eq!(
            c("main;f;__memmove_avx_unaligned_erms;asm_sysvec_call_function_single_[k];sysvec_call_function_single_[k];flush_tlb_func_[k]"),
            Tlb
        );
    }

    #[test]
    fn the_fallbacks() {
        assert_eq!(c("main;std::rt::lang_start;mystery"), OtherUser);
        assert_eq!(
            c("main;f;entry_SYSCALL_64_[k];do_syscall_64_[k];__x64_sys_getpid_[k];task_tgid_vnr_[k]"),
            OtherKernel
        );
        assert_eq!(c("[unknown]_[k]"), OtherKernel);
        assert_eq!(classify(&[]), OtherUser);
        // A user-side pattern does not match a kernel frame of the same name.
        assert_eq!(c("main;f;memcpy_[k]"), OtherKernel);
    }

    #[test]
    fn folding_round_trips_and_keeps_separators_out_of_names() {
        let frames = vec![
            Frame::kernel("rep_movs_alternative"),
            Frame {
                name: "faultline::x::<[u8; 4]>::f".into(),
                kernel: false,
                inlined: true,
            },
            Frame::user("main"),
        ];
        let folded = fold(&frames);
        assert_eq!(
            folded,
            "main;faultline::x::<[u8, 4]>::f_[i];rep_movs_alternative_[k]"
        );
        let back = unfold(&folded);
        assert_eq!(back[0], frames[0]);
        assert_eq!(back[2], frames[2]);
        assert_eq!(back[1].name, "faultline::x::<[u8, 4]>::f");
    }
}
