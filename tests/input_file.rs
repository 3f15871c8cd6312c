//! The input file is what it was: a change between groups stops the run,
//! a resume against a changed file is refused, and odd files (pseudo files
//! with a made-up size, caches that cannot be set, tmpfs, sparse files,
//! unreadable files) get messages that name the real cause.
mod common;

use std::path::Path;

use common::{
    faultline, one_line, read_json, spawn_piped, succeeded, user_file, wait_until, Flags, Scratch,
};

/// Two groups (1-byte blocks, slow; then 64 KiB blocks) over `file`.
fn two_groups(file: &Path, journal: &Path) -> Flags {
    Flags::new()
        .file(file)
        .method("read,pread")
        .pattern("seq")
        .block("1,64k")
        .cache("as-is")
        .runs(1)
        .journal(journal)
}

fn wait_for_entries(journal: &Path, n: usize) {
    wait_until("the journal did not grow", || {
        std::fs::read_to_string(journal)
            .map(|t| t.lines().count())
            .unwrap_or(0)
            > n
    });
}

#[test]
fn a_same_size_change_between_groups_stops_the_run_and_a_resume_refuses_it() {
    use std::os::unix::fs::FileExt;
    let scratch = Scratch::new();
    let file = scratch.path("in.bin");
    user_file(&file, 2 << 20);
    let journal = scratch.path("run.journal");
    let run = spawn_piped(&mut scratch.run(two_groups(&file, &journal)));
    wait_for_entries(&journal, 1);
    let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    f.write_all_at(b"changed", 0).unwrap();
    drop(f);
    let out = run.wait_with_output().unwrap();
    let line = common::one_line_besides_damon(
        &out,
        1,
        &[
            "error: the file changed during the run:",
            "content differ from when the run started",
            "the journal",
            "resume with: faultline run --resume",
        ],
    );
    assert!(line.contains("modification time"), "{line}");
    let out = faultline()
        .args(["run", "--data-dir"])
        .arg(scratch.data_dir())
        .arg("--resume")
        .arg(&journal)
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &[
            "in.bin: changed since the journal's run started",
            "restore it, or start a new run",
        ],
    );
}

#[test]
fn a_file_that_vanishes_mid_run_stops_it_with_the_resume_command() {
    let scratch = Scratch::new();
    let file = scratch.path("in.bin");
    user_file(&file, 2 << 20);
    let journal = scratch.path("run.journal");
    let run = spawn_piped(&mut scratch.run(two_groups(&file, &journal)));
    wait_for_entries(&journal, 1);
    std::fs::remove_file(&file).unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let last = stderr.lines().last().unwrap();
    assert!(
        last.starts_with("error: ")
            && last.contains("in.bin")
            && last.contains("resume with: faultline run --resume"),
        "{stderr}"
    );
}

#[test]
fn pseudo_files_whose_size_is_made_up_are_refused_with_the_cause() {
    let scratch = Scratch::new();
    scratch.refused(
        Flags::new().file("/proc/self/status").block("1").runs(1),
        &[
            "/proc/self/status: is a procfs file that reports 0 bytes but holds more",
            "copy it to a regular file first",
        ],
    );
    scratch.refused(
        Flags::new()
            .file("/sys/kernel/mm/transparent_hugepage/enabled")
            .block("1")
            .runs(1),
        &["is a sysfs file that reports 4096 bytes but holds"],
    );
}

#[test]
fn a_pseudo_file_cannot_be_made_cold_or_warm() {
    let file = ["/proc/config.gz", "/sys/kernel/btf/vmlinux"]
        .into_iter()
        .find(|f| Path::new(f).exists())
        .expect("a procfs or sysfs file of a real size");
    for cache in ["cold", "warm"] {
        Scratch::new().refused(
            Flags::new().file(file).block("4k").cache(cache).runs(1),
            &[
                "the kernel makes its bytes as they are read and keeps none in the page cache",
                &format!("--cache {cache} cannot be reached; use --cache as-is"),
            ],
        );
    }
}

#[test]
fn a_cold_run_on_tmpfs_says_so_and_shows_no_device_figures() {
    let dir = tempfile::tempdir_in("/dev/shm").expect("/dev/shm is a tmpfs");
    let file = dir.path().join("in.bin");
    user_file(&file, 1 << 20);
    let scratch = Scratch::new();
    let json = scratch.path("out.json");
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .file(&file)
                .method("read,mmap")
                .block("64k")
                .cache("cold")
                .runs(2)
                .export_json(&json),
        ),
    );
    // Warnings wrap at the console's width: read them flattened.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let flat = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("is on tmpfs, which keeps every page in memory: it cannot be evicted"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("device reads"), "{stdout}");
    assert!(!stdout.contains("device requests"), "{stdout}");
    let results = read_json(&json);
    assert!(results["warnings"].to_string().contains("is on tmpfs"));
    for case in results["cases"].as_array().unwrap() {
        assert!(case["summary"]["read_amplification"].is_null(), "{case}");
    }
}

#[test]
fn a_cold_run_on_a_sparse_file_says_so() {
    let scratch = Scratch::new();
    let file = scratch.path("sparse.bin");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(4 << 20)
        .unwrap();
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .file(&file)
                .method("read")
                .block("64k")
                .cache("cold")
                .runs(1),
        ),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sparse.bin is sparse (0 B of its 4 MiB are on the disk)"),
        "{stderr}"
    );
}

#[test]
#[ignore = "needs root"]
fn an_unreadable_file_is_bad_input_like_a_missing_one() {
    use std::os::unix::process::CommandExt;
    common::require_root("running faultline as another user");
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let file = dir.path().join("secret.bin");
    user_file(&file, 64 << 10);
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let data = tempfile::tempdir().unwrap();
    std::os::unix::fs::chown(data.path(), Some(65534), Some(65534)).unwrap();
    let out = faultline()
        .args(["run", "--runs", "1", "--block", "4k", "--file"])
        .arg(&file)
        .arg("--data-dir")
        .arg(data.path().join("d"))
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    one_line(&out, 2, &["secret.bin: permission denied"]);
}

#[test]
fn a_huge_operation_count_is_warned_about_up_front() {
    let scratch = Scratch::new();
    // The trial itself is cut short (and so failed: exit 1).
    let out = scratch
        .run(
            Flags::new()
                .size("64M")
                .method("read")
                .block("1")
                .cache("as-is")
                .runs(1)
                .flag("--trial-timeout", "0.2"),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: read (seq 1 B sum, as-is) makes 67108864 system calls per trial (--block 1 B over 64 MiB)")
            && stderr.contains("per trial and"),
        "{stderr}"
    );
}

#[test]
fn a_file_whose_name_is_not_utf8_is_measured_journalled_and_resumed() {
    use std::os::unix::ffi::OsStrExt;
    let scratch = Scratch::new();
    let name = std::ffi::OsStr::from_bytes(b"in-\xff\xfe.bin");
    let file = scratch.dir.path().join(name);
    user_file(&file, 64 << 10);
    let odd_dir = scratch
        .dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"data-\xff"));
    let json = scratch
        .dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"out-\xfe.json"));
    let journal = scratch.path("run.journal");
    let out = succeeded(
        faultline()
            .args([
                "run",
                "--method",
                "read,mmap",
                "--block",
                "16k",
                "--cache",
                "as-is",
            ])
            .args(["--runs", "2", "--file"])
            .arg(&file)
            .arg("--data-dir")
            .arg(&odd_dir)
            .arg("--export-json")
            .arg(&json)
            .arg("--journal")
            .arg(&journal),
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    let results = read_json(&json);
    assert_eq!(common::samples(&results).len(), 4);
    // The exact bytes of the name survive the journal.
    let replay = faultline::runner::journal::read(&journal).unwrap();
    assert_eq!(replay.header.files[0].path, file);
    succeeded(
        faultline()
            .args(["run", "--data-dir"])
            .arg(&odd_dir)
            .arg("--resume")
            .arg(&journal),
    );
    let out = faultline()
        .args(["run", "--file"])
        .arg(
            scratch
                .dir
                .path()
                .join(std::ffi::OsStr::from_bytes(b"\xff")),
        )
        .output()
        .unwrap();
    one_line(&out, 2, &["no such file"]);
}
