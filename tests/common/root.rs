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

/// A command that runs a copy of faultline as nobody (uid and gid 65534,
/// through util-linux's `setpriv`), and that copy's home: a directory of
/// nobody's inside `scratch`, which is opened to others. Needs root.
pub fn faultline_as_nobody(scratch: &super::Scratch) -> (Command, std::path::PathBuf) {
    use std::os::unix::fs::{chown, PermissionsExt};
    std::fs::set_permissions(scratch.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let home = scratch.path("nobody");
    std::fs::create_dir(&home).unwrap();
    chown(&home, Some(65534), Some(65534)).unwrap();
    // A copy nobody can reach, wherever the checkout is.
    let bin = home.join("faultline");
    std::fs::copy(assert_cmd::cargo::cargo_bin!("faultline"), &bin).unwrap();
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(bin);
    (cmd, home)
}
