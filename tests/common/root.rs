//! What only root may do. The tests that need it are
//! `#[ignore = "needs root"]` and fail, rather than pass, when run without
//! it: `cargo test --release -- --ignored` as root runs them (`.ci/run`
//! does).
use std::path::Path;
use std::process::Command;

/// Fails the test unless it runs as root, saying what needs root.
#[track_caller]
pub fn require_root(what: &str) {
    assert_eq!(
        faultline::system::current_uid(),
        0,
        "this test needs root ({what}): run it as root with `cargo test --release -- --ignored`"
    );
}

/// A file system mounted for one test, unmounted (and its mount point
/// removed) when dropped.
pub struct Mount {
    point: tempfile::TempDir,
}

impl Mount {
    /// `mount -t fstype -o options none <tempdir>`; a mount that fails is
    /// the test's failure, with mount's message.
    #[track_caller]
    pub fn new(fstype: &str, options: &str) -> Mount {
        require_root(&format!("mounting a {fstype}"));
        let point = tempfile::tempdir().expect("a mount point");
        let out = Command::new("mount")
            .args(["-t", fstype, "-o", options, "none"])
            .arg(point.path())
            .output()
            .expect("mount runs");
        assert!(
            out.status.success(),
            "as root, `mount -t {fstype} -o {options}` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        Mount { point }
    }

    pub fn path(&self) -> &Path {
        self.point.path()
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.point.path()).status();
    }
}
