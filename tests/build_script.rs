//! The build script (build.rs) records the commit without making cargo
//! rebuild faultline when nothing changed: it never writes to the
//! repository (a plain `git status` rewrites a stat-dirty index, which a
//! fresh clone has), and every path it asks cargo to watch exists (cargo
//! reruns a build script on every build while one is missing) and is not
//! the index (which git rewrites without any source change). It is run here,
//! as cargo built it, in small repositories of its own: a clone-like one and
//! a worktree (whose `.git` is a file).
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The build script cargo compiled for this build (the newest, should
/// older ones linger).
fn build_script() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/build_script-HASH -> target/<profile>/build
    let build = exe.parent().unwrap().parent().unwrap().join("build");
    fs::read_dir(&build)
        .unwrap()
        .filter_map(|e| {
            let path = e.ok()?.path().join("build-script-build");
            let name = path.parent()?.file_name()?.to_str()?.to_string();
            let modified = path.metadata().ok()?.modified().ok()?;
            name.starts_with("faultline-").then_some((modified, path))
        })
        .max()
        .map(|(_, path)| path)
        .expect("cargo built faultline's build script")
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// What the build script printed, run in `dir`.
fn run_build_script(dir: &Path) -> Vec<String> {
    let out = Command::new(build_script())
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// The paths it asks cargo to watch, made absolute from `dir`.
fn watched(dir: &Path, lines: &[String]) -> Vec<PathBuf> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("cargo:rerun-if-changed="))
        .map(|p| dir.join(p))
        .collect()
}

fn commit(lines: &[String]) -> String {
    lines
        .iter()
        .find_map(|l| l.strip_prefix("cargo:rustc-env=FAULTLINE_GIT_COMMIT="))
        .expect("the commit is recorded")
        .to_string()
}

/// A repository laid out like faultline's, one commit.
fn repo(dir: &Path) {
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(dir.join("src/lib.rs"), "// a\n").unwrap();
    fs::write(dir.join("Cargo.toml"), "[package]\n").unwrap();
    fs::write(dir.join("README.md"), "a\n").unwrap();
    git(dir, &["init", "-q"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "one"]);
}

fn check_watched(dir: &Path, lines: &[String]) {
    let paths = watched(dir, lines);
    assert!(!paths.is_empty(), "{lines:?}");
    for path in &paths {
        assert!(path.exists(), "watches a missing path: {}", path.display());
        assert_ne!(path.file_name().unwrap(), "index", "watches the index");
    }
    // The commit changes when HEAD or the branch it names does.
    assert!(
        paths.iter().any(|p| p.ends_with("HEAD")),
        "HEAD is watched: {paths:?}"
    );
    assert!(
        paths.iter().any(|p| p.ends_with("refs/heads/main")),
        "the branch is watched: {paths:?}"
    );
}

#[test]
fn the_build_script_leaves_the_index_alone_and_watches_only_what_exists() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("clone");
    repo(&dir);
    let head = git(&dir, &["rev-parse", "--short=12", "HEAD"]);
    // A file whose stat changed but not its content: `git status` would
    // refresh the index and write it.
    let index = dir.join(".git/index");
    let before = (
        fs::read(&index).unwrap(),
        index.metadata().unwrap().modified().unwrap(),
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(dir.join("src/lib.rs"), "// a\n").unwrap();
    let lines = run_build_script(&dir);
    let after = (
        fs::read(&index).unwrap(),
        index.metadata().unwrap().modified().unwrap(),
    );
    assert!(before == after, "the build script rewrote the index");
    assert_eq!(commit(&lines), head.trim(), "clean: {lines:?}");
    check_watched(&dir, &lines);

    // A change to a source makes the build dirty; one to a file the binary
    // is not built from (the README) does not.
    fs::write(dir.join("README.md"), "b\n").unwrap();
    assert_eq!(commit(&run_build_script(&dir)), head.trim());
    fs::write(dir.join("src/lib.rs"), "// b\n").unwrap();
    assert_eq!(
        commit(&run_build_script(&dir)),
        format!("{}-dirty", head.trim())
    );

    // In a worktree `.git` is a file: HEAD and the branch are elsewhere.
    git(&dir, &["checkout", "-q", "--", "src/lib.rs"]);
    let other = tmp.path().join("worktree");
    git(&dir, &["branch", "-q", "side"]);
    git(
        &dir,
        &["worktree", "add", "-q", other.to_str().unwrap(), "side"],
    );
    assert!(other.join(".git").is_file());
    let lines = run_build_script(&other);
    assert_eq!(commit(&lines), head.trim());
    let paths = watched(&other, &lines);
    for path in &paths {
        assert!(path.exists(), "watches a missing path: {}", path.display());
    }
    assert!(
        paths.iter().any(|p| p.ends_with("refs/heads/side")),
        "the worktree's branch is watched: {paths:?}"
    );
}

#[test]
fn outside_a_repository_it_records_no_commit_and_watches_its_sources() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("src")).unwrap();
    // GIT_CEILING_DIRECTORIES keeps git from finding a repository above.
    let out = Command::new(build_script())
        .current_dir(tmp.path())
        .env("GIT_CEILING_DIRECTORIES", tmp.path().parent().unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert!(
        !lines.iter().any(|l| l.contains("FAULTLINE_GIT_COMMIT")),
        "{lines:?}"
    );
    let paths = watched(tmp.path(), &lines);
    assert!(
        !paths.is_empty(),
        "without any path cargo reruns it on every change"
    );
    for path in &paths {
        assert!(path.exists(), "{}", path.display());
    }
}

/// The newest modification time under `paths` (a directory's files
/// counted, recursively, as cargo does for a watched directory).
fn newest(paths: &[PathBuf]) -> std::time::SystemTime {
    fn walk(path: &Path, newest: &mut std::time::SystemTime) {
        let meta = fs::metadata(path).unwrap();
        *newest = (*newest).max(meta.modified().unwrap());
        if meta.is_dir() {
            for entry in fs::read_dir(path).unwrap() {
                walk(&entry.unwrap().path(), newest);
            }
        }
    }
    let mut t = std::time::SystemTime::UNIX_EPOCH;
    for path in paths {
        walk(path, &mut t);
    }
    t
}

#[test]
fn git_rewriting_refs_and_the_index_touches_nothing_watched_and_a_commit_does() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("clone");
    repo(&dir);
    let pause = || std::thread::sleep(std::time::Duration::from_millis(20));

    // A packed branch: a commit writes its loose ref, which must be seen.
    git(&dir, &["tag", "v0"]);
    git(&dir, &["pack-refs", "--all"]);
    assert!(!dir.join(".git/refs/heads/main").exists());
    let lines = run_build_script(&dir);
    let paths = watched(&dir, &lines);
    assert!(
        paths.iter().any(|p| p.ends_with("packed-refs")),
        "{paths:?}"
    );
    let before = newest(&paths);
    pause();
    fs::write(dir.join("README.md"), "c\n").unwrap();
    git(&dir, &["commit", "-q", "-am", "two"]);
    assert!(
        newest(&paths) > before,
        "a commit on a packed branch is seen"
    );
    let head = git(&dir, &["rev-parse", "--short=12", "HEAD"]);

    // A loose branch beside packed-refs: what git rewrites without a new
    // commit (packed-refs, the index, other refs) is not watched.
    let lines = run_build_script(&dir);
    assert_eq!(commit(&lines), head.trim());
    check_watched(&dir, &lines);
    let paths = watched(&dir, &lines);
    assert!(
        !paths.iter().any(|p| p.ends_with("packed-refs")),
        "{paths:?}"
    );
    let before = newest(&paths);
    pause();
    fs::write(dir.join("src/lib.rs"), "// a\n").unwrap(); // stat-dirty, same content
    let touched = newest(&paths);
    pause();
    git(&dir, &["status", "--porcelain"]); // rewrites the index
    git(&dir, &["tag", "-d", "v0"]); // rewrites packed-refs
    git(&dir, &["tag", "v1"]);
    git(&dir, &["branch", "other"]);
    assert!(touched > before, "the source's own touch is seen");
    assert_eq!(
        newest(&paths),
        touched,
        "git rewrote a watched path with no new commit"
    );
    for path in &paths {
        assert!(path.exists(), "{}", path.display());
    }
    assert_eq!(commit(&run_build_script(&dir)), head.trim());
}
