//! Records the git commit faultline was built from, for the environment record.
use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(commit) = commit.filter(|c| !c.is_empty()) {
        let dirty = Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=no"])
            .output()
            .map(|o| !o.stdout.is_empty())
            .unwrap_or(false);
        let suffix = if dirty { "-dirty" } else { "" };
        println!("cargo:rustc-env=FAULTLINE_GIT_COMMIT={commit}{suffix}");
    }
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/index");
}
