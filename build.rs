//! Records the git commit faultline was built from, for the environment record.
//!
//! The build script must not make cargo rebuild faultline when nothing it
//! records has changed, so:
//! - it never writes to the repository: `git status` runs with
//!   `GIT_OPTIONAL_LOCKS=0`, which keeps it from refreshing and rewriting the
//!   index (a plain `git status` rewrites it in a fresh clone);
//! - it watches only what it reads: the files the binary is built from (for
//!   "-dirty"), and HEAD and the ref HEAD names (for the commit), found with
//!   `git rev-parse`, so a worktree (where `.git` is a file) works too; not
//!   the index, nor packed-refs while the branch has a loose ref (git
//!   rewrites both with no change to what is recorded);
//! - it watches only paths that exist: cargo reruns a build script on every
//!   build while a watched path is missing.
use std::path::{Path, PathBuf};
use std::process::Command;

/// The package's files the binary is built from: a change to any of them
/// makes the build "-dirty" and reruns this script; others (docs, tests) do
/// neither.
const SOURCES: &[&str] = &["src", "assets", "build.rs", "Cargo.toml", "Cargo.lock"];

/// `git ARGS` with no optional locks, its trimmed stdout when it succeeds.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Asks cargo to rerun this script when `path` changes, if it exists.
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    for source in SOURCES {
        watch(Path::new(source));
    }
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]).filter(|c| !c.is_empty()) else {
        return;
    };
    // HEAD (in this worktree's git dir) and the branch it names (in the
    // common dir, loose or packed) tell a new commit or a checkout.
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        watch(&PathBuf::from(&git_dir).join("HEAD"));
        let common = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"])
            .map_or_else(|| PathBuf::from(&git_dir), PathBuf::from);
        // A detached HEAD holds the commit itself. A branch's loose ref
        // wins over packed-refs, which git rewrites for other refs (fetch,
        // gc), so it is watched only for a packed branch, together with the
        // directory where a commit would write the branch's loose ref.
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            let loose = common.join(branch);
            if loose.is_file() {
                watch(&loose);
            } else {
                watch(&common.join("packed-refs"));
                if let Some(dir) = loose.ancestors().skip(1).find(|d| d.is_dir()) {
                    watch(dir);
                }
            }
        }
    }
    let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--"];
    status.extend(SOURCES);
    let dirty = git(&status).is_some_and(|s| !s.is_empty());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=FAULTLINE_GIT_COMMIT={commit}{suffix}");
}
