//! Checks made before anything runs or is generated, so that a plan this
//! machine cannot run fails with one line that says what to do, instead of
//! failing every trial.
//!
//! - O_DIRECT methods: the block size must be a multiple of the device's
//!   logical block size ([`crate::method::aligned::Alignment`]); checked on
//!   the user's file, or on the data directory before the test files exist.
//!   A trace replayed with O_DIRECT must have every offset and length
//!   aligned; the first that is not is refused by its line.
//! - O_DIRECT methods: the file system must accept O_DIRECT; checked on the
//!   files once they exist, by opening each read-only with O_DIRECT.
//! - O_DIRECT write methods: the block size and the file size must be
//!   multiples of the logical block size of the device under the directory
//!   they write in ([`check_write_dir`]).
//! - io_uring methods: the kernel must let this process set up a ring
//!   (ENOSYS without io_uring; EPERM under kernel.io_uring_disabled or a
//!   seccomp policy); checked by setting one up.
//!
//! The trial child checks the same things again, so a plan resumed from a
//! journal on another machine still fails clearly, one trial at a time.
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::error::{Error, Result};
use crate::method::aligned::Alignment;
use crate::method::direct::misaligned;
use crate::plan::Plan;

/// Checks what can be checked before the files exist. `target` is the
/// user's file, or the data directory the test files will be written to.
pub fn check_plan(plan: &Plan, target: &Path) -> Result<()> {
    if plan.cases.iter().any(|c| c.method.uses_uring()) {
        io_uring::IoUring::new(1)
            .map_err(|e| Error::Plan(crate::method::uring::unavailable(&e)))?;
    }
    let mut alignment = None;
    for case in &plan.cases {
        if case.method.direct_io() {
            let alignment = alignment.get_or_insert_with(|| Alignment::of_path(target));
            let why = match &case.trace {
                Some(t) => misaligned_trace(t, case, alignment)?,
                None => misaligned(case.block_size, alignment),
            };
            if let Some(why) = why {
                return Err(Error::Plan(format!("--method {}: {why}", case.method)));
            }
        }
    }
    Ok(())
}

/// Why the trace `t` of `case` cannot be replayed with O_DIRECT under
/// `alignment`, if it cannot (the trace is read again from its file).
fn misaligned_trace(
    t: &crate::pattern::trace::TraceRef,
    case: &crate::plan::Case,
    alignment: &Alignment,
) -> Result<Option<String>> {
    let trace = t.load(Some(case.file_size))?;
    Ok(crate::method::direct::misaligned_trace(
        &trace,
        case.trace_ops(),
        alignment,
    ))
}

/// Checks the O_DIRECT write cases against the directory they will write
/// in (`--dir`, or the default scratch directory, which may not exist yet):
/// their block size and file size must be multiples of its device's
/// logical block size. (Whether its file system accepts O_DIRECT is checked
/// by the scratch directory's probe, [`crate::files::scratch::probe`].)
pub fn check_write_dir(plan: &Plan, dir: &Path) -> Result<()> {
    let mut alignment = None;
    for case in plan.cases.iter().filter(|c| c.method.direct_write()) {
        let alignment = alignment.get_or_insert_with(|| Alignment::of_path(dir));
        let why = match &case.trace {
            Some(t) => misaligned_trace(t, case, alignment)?,
            None => {
                crate::method::direct::misaligned_write(case.block_size, case.file_size, alignment)
            }
        };
        if let Some(why) = why {
            return Err(Error::Plan(format!("--method {}: {why}", case.method)));
        }
    }
    Ok(())
}

/// Checks the files themselves: that a file system under an O_DIRECT
/// method accepts O_DIRECT.
pub fn check_files(plan: &Plan, files: &BTreeMap<u64, &Path>) -> Result<()> {
    for case in &plan.cases {
        if !case.method.direct_io() {
            continue;
        }
        let Some(path) = files.get(&case.file_size) else {
            continue;
        };
        direct_open(path, &case.method.to_string())?;
    }
    Ok(())
}

/// Opens `path` read-only with O_DIRECT, as the methods will.
fn direct_open(path: &Path, method: &str) -> Result<()> {
    match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            let fs = crate::measure::environment::filesystem_of(path)
                .map(|fs| format!("the {fs} file system"))
                .unwrap_or_else(|| "its file system".to_string());
            Err(Error::BadFile {
                path: path.to_path_buf(),
                why: format!(
                    "{fs} refuses O_DIRECT (open with O_DIRECT failed: {e}), which --method {method} needs; \
                     use --method pread or uring, or put the file on a disk file system"
                ),
            })
        }
        Err(e) => Err(Error::io("open with O_DIRECT", path, e)),
    }
}
