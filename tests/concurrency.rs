//! Locks, not luck, with real processes: a journal is written by one run at
//! a time, `clean` waits for no run and refuses while one works, two runs
//! in one data directory each say the other was there, and a run that is
//! killed leaves no trial running and nothing that the next run keeps.
mod common;

use std::path::Path;
use std::process::{Child, Command};

use common::{
    entries, faultline, one_line, read_json, spawn_piped, succeeded, trial_children, wait_until,
    Flags, Scratch,
};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// A run of slow trials (1-byte reads of 2 MiB) journalled at `journal`.
fn slow(scratch: &Scratch, journal: &Path) -> Child {
    spawn_piped(
        &mut scratch.run(
            Flags::new()
                .size("2M")
                .method("read,pread")
                .block("1")
                .cache("as-is")
                .runs(3)
                .journal(journal),
        ),
    )
}

fn journal_lines(journal: &Path) -> usize {
    std::fs::read_to_string(journal)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn resume(scratch: &Scratch, journal: &Path) -> std::process::Command {
    let mut cmd = faultline();
    cmd.arg("run")
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .arg("--resume")
        .arg(journal);
    cmd
}

/// The journal of a [`slow`] run stopped by Ctrl-C after its first trial.
fn interrupted(scratch: &Scratch) -> std::path::PathBuf {
    let journal = scratch.path("run.journal");
    let first = slow(scratch, &journal);
    wait_until("the journal did not grow", || journal_lines(&journal) > 1);
    kill(Pid::from_raw(first.id() as i32), Signal::SIGINT).unwrap();
    assert_eq!(first.wait_with_output().unwrap().status.code(), Some(130));
    journal
}

#[test]
fn a_second_resume_of_a_journal_in_use_is_refused() {
    let scratch = Scratch::new();
    let journal = interrupted(&scratch);
    let json = scratch.path("out.json");
    let resumed = spawn_piped(
        resume(&scratch, &journal)
            .arg("--export-json")
            .arg(&json)
            .arg("--keep-journal"),
    );
    wait_until("the resume did not start a trial", || {
        !trial_children(resumed.id()).is_empty()
    });
    let out = resume(&scratch, &journal).output().unwrap();
    one_line(
        &out,
        2,
        &["run.journal: is in use by another faultline run (it holds the journal's lock)"],
    );
    let done = resumed.wait_with_output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let results = read_json(&json);
    assert_eq!(
        common::samples(&results).len(),
        6,
        "2 methods × 3 runs, none twice"
    );
    assert_eq!(journal_lines(&journal), 1 + 6);
}

/// A run killed while it starts a trial leaves its journal locked, for a
/// moment, by the copy of the descriptor its dying child holds between
/// `fork` and `exec` (CI saw a resume refused right after a second
/// Ctrl-C): a resume waits for such a lock instead of refusing.
#[test]
fn a_resume_waits_for_a_journal_lock_that_is_being_let_go() {
    use std::os::unix::io::AsRawFd;
    let scratch = Scratch::new();
    let journal = interrupted(&scratch);
    // flock(1) takes the lock and runs `sleep` with the descriptor; with
    // flock killed, the lock's taker is gone and `sleep` keeps it held.
    let mut taker = Command::new("flock")
        .arg("-x")
        .arg(&journal)
        .args(["sleep", "0.5"])
        .spawn()
        .expect("flock(1), from util-linux, runs");
    wait_until("flock(1) took no lock", || {
        let probe = std::fs::File::open(&journal).unwrap();
        // SAFETY: flock on a descriptor this test owns (closed at once).
        unsafe { libc::flock(probe.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) != 0 }
    });
    taker.kill().unwrap();
    taker.wait().unwrap();
    let json = scratch.path("out.json");
    succeeded(resume(&scratch, &journal).arg("--export-json").arg(&json));
    assert_eq!(common::samples(&read_json(&json)).len(), 6);
}

#[test]
fn clean_refuses_while_a_run_is_in_progress_and_cleans_after() {
    let scratch = Scratch::new();
    let journal = scratch.path("run.journal");
    let run = slow(&scratch, &journal);
    wait_until("no trial started", || !trial_children(run.id()).is_empty());
    let out = faultline()
        .arg("clean")
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &["is in use by a faultline run in progress; clean refuses to remove files under it"],
    );
    let dataset = common::file_ending(&scratch.data_dir(), ".data").expect("the dataset");
    assert!(dataset.exists(), "clean removed nothing under the run");
    kill(Pid::from_raw(run.id() as i32), Signal::SIGINT).unwrap();
    run.wait_with_output().unwrap();
    let out = succeeded(
        faultline()
            .arg("clean")
            .arg("--data-dir")
            .arg(scratch.data_dir()),
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("removed"));
    assert!(!dataset.exists());
}

#[test]
fn clean_refuses_a_symlinked_data_dir() {
    let scratch = Scratch::new();
    succeeded(&mut scratch.run(Flags::new().size("64k").cache("as-is").runs(1)));
    let link = scratch.path("link");
    std::os::unix::fs::symlink(scratch.data_dir(), &link).unwrap();
    let out = faultline()
        .arg("clean")
        .arg("--data-dir")
        .arg(&link)
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &["link: is a symbolic link; faultline only uses a real directory it owns"],
    );
    assert!(common::file_ending(&scratch.data_dir(), ".data").is_some());
}

#[test]
fn two_runs_in_one_data_dir_both_run_and_both_warn() {
    let scratch = Scratch::new();
    // The dataset first, so that neither run generates it under the other.
    succeeded(&mut scratch.run(Flags::new().size("2M").block("1M").cache("as-is").runs(1)));
    let json = |n| scratch.path(&format!("out{n}.json"));
    let start = |n| {
        spawn_piped(
            &mut scratch.run(
                Flags::new()
                    .size("2M")
                    .method("read,pread")
                    .block("1")
                    .cache("as-is")
                    .runs(2)
                    .export_json(&json(n)),
            ),
        )
    };
    let a = start(1);
    wait_until("the first run started no trial", || {
        !trial_children(a.id()).is_empty()
    });
    let b = start(2);
    for (n, run) in [(1, a), (2, b)] {
        let out = run.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        // Warnings are wrapped to the width: read them as one line.
        let flat = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("other faultline run(s) were active in")
                && flat.contains("contaminate each other's numbers"),
            "run {n}: {stderr}"
        );
        let warnings = read_json(&json(n))["warnings"].to_string();
        assert!(
            warnings.contains("other faultline run(s) were active"),
            "{warnings}"
        );
    }
}

#[test]
fn without_home_the_data_dir_is_private_to_the_user() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let tmp = tempfile::tempdir().unwrap();
    succeeded(
        faultline()
            .args(["run", "--size", "64k", "--cache", "as-is", "--runs", "1"])
            .env_remove("HOME")
            .env_remove("XDG_CACHE_HOME")
            .env("TMPDIR", tmp.path()),
    );
    let dir = tmp
        .path()
        .join(format!("faultline-{}", faultline::system::current_uid()));
    let meta = std::fs::symlink_metadata(&dir).expect("a data dir of this user's");
    assert!(meta.is_dir());
    assert_eq!(meta.permissions().mode() & 0o777, 0o700);
    assert_eq!(meta.uid(), faultline::system::current_uid());
    assert!(
        !tmp.path().join("faultline").exists(),
        "no shared directory"
    );
}

#[test]
fn a_sigkilled_run_leaves_no_trial_running() {
    let scratch = Scratch::new();
    let journal = scratch.path("run.journal");
    let run = slow(&scratch, &journal);
    let mut children = Vec::new();
    wait_until("no trial started", || {
        children = trial_children(run.id());
        !children.is_empty()
    });
    kill(Pid::from_raw(run.id() as i32), Signal::SIGKILL).unwrap();
    run.wait_with_output().unwrap();
    for child in children {
        wait_until("a trial outlived its SIGKILLed parent", || {
            // Gone, or a zombie waiting for init to reap it.
            std::fs::read_to_string(format!("/proc/{child}/stat"))
                .map(|s| s.rsplit_once(") ").is_some_and(|(_, r)| r.starts_with('Z')))
                .unwrap_or(true)
        });
    }
}

#[test]
fn leftovers_of_a_sigkilled_run_are_removed_by_the_next_one() {
    let scratch = Scratch::new();
    let data = scratch.data_dir();
    // Generating 512 MiB takes long enough to be killed in the middle.
    let run = spawn_piped(&mut scratch.run(Flags::new().size("512M").runs(1)));
    let tmp = || {
        entries(&data)
            .into_iter()
            .find(|p| p.to_string_lossy().contains(".faultline-tmp-"))
    };
    wait_until("no temporary file appeared", || tmp().is_some());
    kill(Pid::from_raw(run.id() as i32), Signal::SIGKILL).unwrap();
    run.wait_with_output().unwrap();
    let left = tmp().expect("SIGKILL leaves the temporary file");
    let out = succeeded(&mut scratch.run(Flags::new().size("64k").cache("as-is").runs(1)));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("note: removed 1 file(s) left by a faultline that was killed"),
        "{stderr}"
    );
    assert!(!left.exists());
}

#[test]
fn sigterm_while_generating_removes_the_temporary_file() {
    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        let scratch = Scratch::new();
        let data = scratch.data_dir();
        let run = spawn_piped(&mut scratch.run(Flags::new().size("512M").runs(1)));
        wait_until("no temporary file appeared", || {
            entries(&data)
                .iter()
                .any(|p| p.to_string_lossy().contains(".faultline-tmp-"))
        });
        kill(Pid::from_raw(run.id() as i32), signal).unwrap();
        let out = run.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{stderr}");
        assert!(
            stderr.contains("interrupted: preparing the test file: interrupted while generating")
                && stderr.contains("its temporary file was removed"),
            "{stderr}"
        );
        let left: Vec<_> = entries(&data).into_iter().filter(|p| p.is_file()).collect();
        assert!(
            left.iter()
                .all(|p| !p.to_string_lossy().contains("faultline-tmp")
                    && !p.to_string_lossy().ends_with(".data")),
            "{left:?}"
        );
    }
}

#[test]
fn the_printed_resume_command_pastes_into_a_shell_and_works() {
    let scratch = Scratch::new();
    let dir = scratch.path("a dir with spaces");
    std::fs::create_dir(&dir).unwrap();
    let journal = dir.join("it's a \"run\".journal");
    let run = slow(&scratch, &journal);
    wait_until("the journal did not grow", || journal_lines(&journal) > 1);
    kill(Pid::from_raw(run.id() as i32), Signal::SIGINT).unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let command = stderr
        .lines()
        .find_map(|l| l.split_once("resume with: ").map(|(_, c)| c.to_string()))
        .unwrap_or_else(|| panic!("no resume command: {stderr}"));
    let exe = assert_cmd::cargo::cargo_bin!("faultline");
    // The command as printed, run by a shell, with this build as `faultline`.
    let script = format!(
        "faultline() {{ '{}' \"$@\"; }}; {command} --data-dir '{}' --keep-journal",
        exe.display(),
        scratch.data_dir().display()
    );
    let resumed = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert_eq!(journal_lines(&journal), 1 + 6);
}

#[test]
fn files_kept_by_a_run_that_ended_are_not_taken_for_a_killed_run_s() {
    let scratch = Scratch::new();
    let write = || {
        Flags::new()
            .method("write")
            .size("64k")
            .block("64k")
            .runs(1)
            .switch("--keep")
    };
    let mut first = scratch.run(write());
    succeeded(&mut first);
    let kept: Vec<_> = entries(&scratch.data_dir().join("scratch"))
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".data"))
        .collect();
    assert!(!kept.is_empty(), "--keep kept the written file");
    let out = succeeded(&mut scratch.run(Flags::new().size("64k").cache("as-is").runs(1)));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("left by a faultline that was killed"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for k in kept {
        assert!(k.exists(), "{k:?} kept");
    }
}

#[test]
fn a_write_run_sigkilled_in_a_given_dir_is_cleaned_up_by_the_next_one() {
    let scratch = Scratch::new();
    let base = scratch.path("base");
    std::fs::create_dir(&base).unwrap();
    std::fs::write(base.join("mine.txt"), b"mine").unwrap();
    // 1-byte writes of 2 MiB: slow enough to be killed in a trial.
    let run = spawn_piped(
        &mut scratch.run(
            Flags::new()
                .method("write")
                .size("2M")
                .block("1")
                .runs(3)
                .dir(&base),
        ),
    );
    wait_until("no write trial started", || {
        !trial_children(run.id()).is_empty()
    });
    let own = base.join(format!("faultline-scratch-{}", run.id()));
    assert!(own.is_dir(), "the run made its directory in --dir");
    kill(Pid::from_raw(run.id() as i32), Signal::SIGKILL).unwrap();
    run.wait_with_output().unwrap();
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .method("write")
                .size("64k")
                .block("64k")
                .runs(1)
                .dir(&base),
        ),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("file(s) left by a faultline that was killed"),
        "{stderr}"
    );
    assert!(!own.exists(), "the killed run's directory is gone");
    assert_eq!(
        entries(&base),
        vec![base.join("mine.txt")],
        "only mine is left"
    );
}
