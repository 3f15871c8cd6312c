//! The files faultline reads and writes, attacked as a hostile user would
//! (issue 23, classes 1–4, 6, 10 and 13), through the real binary: a link
//! where an output goes, an output over any input however spelled, paths
//! that change meaning with the directory, files named by a plan or a
//! journal, inputs that never end, modes and owners, and what a killed run
//! leaves behind. Each test checks the refusal (one line, exit 2) and that
//! the file attacked is as it was.
mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{faultline, one_line, read_json, succeeded, Flags, Scratch};

/// Every faultline run removes the cgroups killed runs left, so the test of
/// that note runs alone: the others hold this lock shared, it holds it alone.
static RUNS: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn beside_others() -> std::sync::RwLockReadGuard<'static, ()> {
    RUNS.read().unwrap_or_else(|e| e.into_inner())
}

/// A small, quick run: one 64 KiB generated file, read and mmap, cache as it is.
fn quick() -> Flags {
    Flags::new()
        .size("64k")
        .method("read,mmap")
        .pattern("seq")
        .block("4k")
        .cache("as-is")
        .runs(2)
}

/// Runs `cmd` with a deadline: a command that waits on its input fails
/// the test instead of hanging it.
fn output_within(cmd: &mut Command, seconds: u64) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("faultline starts");
    let deadline = Instant::now() + Duration::from_secs(seconds);
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{cmd:?} still ran after {seconds} s: it waits on its input");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A JSON export of a quick run, at `scratch/name`.
fn export(scratch: &Scratch, name: &str) -> PathBuf {
    let path = scratch.path(name);
    succeeded(&mut scratch.run(quick().export_json(&path)));
    path
}

/// The bytes, mode and link count of `path`, to see it was not touched.
fn state(path: &Path) -> (Vec<u8>, u32, u64) {
    let meta = std::fs::symlink_metadata(path).unwrap();
    let bytes = if meta.file_type().is_symlink() {
        std::fs::read_link(path)
            .unwrap()
            .into_os_string()
            .into_encoded_bytes()
    } else {
        std::fs::read(path).unwrap()
    };
    (bytes, meta.mode(), meta.ino())
}

#[test]
fn no_output_is_ever_a_symbolic_link_wherever_it_points() {
    let _runs = beside_others();
    let scratch = Scratch::new();
    let mine = scratch.path("mine.txt");
    std::fs::write(&mine, "the user's own notes").unwrap();
    let old = export(&scratch, "old.json");
    let dangling = scratch.path("dangling.json");
    std::os::unix::fs::symlink(scratch.path("nowhere.json"), &dangling).unwrap();
    let to_mine = scratch.path("to-mine.md");
    std::os::unix::fs::symlink(&mine, &to_mine).unwrap();
    let to_export = scratch.path("to-export.json");
    std::os::unix::fs::symlink(&old, &to_export).unwrap();
    for (flag, link) in [
        ("--export-json", &dangling),
        ("--export-markdown", &to_mine),
        ("--export-json", &to_export),
    ] {
        let before = state(link);
        scratch.refused(quick().flag(flag, link), &[flag, "is a symbolic link"]);
        assert_eq!(state(link), before, "{link:?} was replaced");
    }
    // /dev/stderr: a link to what standard error is (here a pipe).
    let before = state(Path::new("/dev/stderr"));
    scratch.refused(
        quick().flag("--export-csv", "/dev/stderr"),
        &["--export-csv"],
    );
    assert_eq!(state(Path::new("/dev/stderr")), before);
    assert!(!scratch.path("nowhere.json").exists());
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "the user's own notes"
    );
    // The report, its plots directory, the kept image and the journal too.
    let report = |extra: &[&std::ffi::OsStr]| {
        let mut cmd = faultline();
        cmd.arg("report").arg(&old).args(extra);
        cmd.output().unwrap()
    };
    one_line(
        &report(&["-o".as_ref(), to_mine.as_os_str()]),
        2,
        &["--output", "is a symbolic link"],
    );
    let elsewhere = scratch.path("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let plots = scratch.path("plots");
    std::os::unix::fs::symlink(&elsewhere, &plots).unwrap();
    one_line(
        &report(&[
            "-o".as_ref(),
            scratch.path("r.html").as_os_str(),
            "--plots".as_ref(),
            plots.as_os_str(),
        ]),
        2,
        &["--plots", "is a symbolic link"],
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(!scratch.path("r.html").exists(), "nothing written");
    scratch.refused(
        Flags::new()
            .workload("scale")
            .flag("--image", "64x64")
            .runs(1)
            .flag("--keep-output", &to_mine),
        &["--keep-output", "is a symbolic link"],
    );
    scratch.refused(quick().journal(&dangling), &["--journal", "already exists"]);
    // The directory write trials make their scratch directory in.
    scratch.refused(
        Flags::new()
            .size("64k")
            .method("write")
            .block("4k")
            .runs(2)
            .dir(&plots),
        &["is a symbolic link", "scratch directory"],
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "the user's own notes"
    );
}

#[test]
fn no_output_is_any_input_however_it_is_spelled() {
    let _runs = beside_others();
    let scratch = Scratch::new();
    let baseline = export(&scratch, "base.json");
    let trace = scratch.path("reads.csv");
    std::fs::write(&trace, "0,4096\n4096,4096\n").unwrap();
    let plan = scratch.path("plan.toml");
    std::fs::write(&plan, "runs = 2\ncache = [\"as-is\"]\nsize = [\"64k\"]\n").unwrap();
    let hard_trace = scratch.path("hard-link-to-the-trace");
    std::fs::hard_link(&trace, &hard_trace).unwrap();
    let dotted_plan = scratch.dir.path().join(".").join("plan.toml");
    let via_parent = scratch.path("sub/../base.json");
    std::fs::create_dir(scratch.path("sub")).unwrap();
    let cases: Vec<(Flags, &str)> = vec![
        (
            quick()
                .flag("--baseline", &baseline)
                .flag("--export-markdown", &via_parent),
            "--baseline",
        ),
        (
            Flags::new()
                .flag("--plan", &plan)
                .flag("--export-csv", &dotted_plan),
            "--plan",
        ),
        (
            Flags::new()
                .size("64k")
                .cache("as-is")
                .runs(2)
                .flag("--trace", &trace)
                .flag("--export-json", &hard_trace),
            "--trace",
        ),
    ];
    let before: Vec<_> = [&baseline, &plan, &trace]
        .iter()
        .map(|p| state(p))
        .collect();
    for (flags, input) in cases {
        scratch.refused(flags, &["is the same file as", input]);
    }
    let after: Vec<_> = [&baseline, &plan, &trace]
        .iter()
        .map(|p| state(p))
        .collect();
    assert_eq!(before, after, "an input was touched");
    // A resumed run's trace is an input too.
    let journal = scratch.path("t.journal");
    succeeded(
        &mut scratch.run(
            Flags::new()
                .size("64k")
                .cache("as-is")
                .runs(2)
                .flag("--trace", &trace)
                .journal(&journal),
        ),
    );
    let out = faultline()
        .args(["run", "--resume"])
        .arg(&journal)
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .arg("--export-csv")
        .arg(&hard_trace)
        .output()
        .unwrap();
    one_line(&out, 2, &["is the same file as --trace"]);
    assert_eq!(std::fs::read(&trace).unwrap(), b"0,4096\n4096,4096\n");
}

#[test]
fn a_relative_path_means_the_directory_it_was_typed_in() {
    let _runs = beside_others();
    let scratch = Scratch::new();
    let first = scratch.path("first");
    let second = scratch.path("second");
    std::fs::create_dir(&first).unwrap();
    std::fs::create_dir(&second).unwrap();
    succeeded(
        scratch
            .run(quick())
            .args(["--export-json", "out.json", "--journal", "run.journal"])
            .current_dir(&first),
    );
    let journal = std::fs::read_to_string(first.join("run.journal")).unwrap();
    let header: serde_json::Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    let stored = header["export_json"].as_str().unwrap();
    assert_eq!(Path::new(stored), first.join("out.json"), "stored absolute");
    std::fs::remove_file(first.join("out.json")).unwrap();
    // Resumed from elsewhere, the export goes where it was meant to.
    succeeded(
        faultline()
            .args(["run", "--resume", "../first/run.journal", "--data-dir"])
            .arg(scratch.data_dir())
            .current_dir(&second),
    );
    assert!(first.join("out.json").exists());
    assert!(std::fs::read_dir(&second).unwrap().next().is_none());
    // A journal that holds a relative path (written before paths were
    // stored absolute, or edited): relative to the journal, which a run
    // with relative paths kept beside its export.
    succeeded(
        scratch
            .run(quick())
            .args(["--journal", "old.journal", "--keep-journal"])
            .current_dir(&first),
    );
    let text = std::fs::read_to_string(first.join("old.journal")).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(head).unwrap();
    header["export_json"] = "legacy.json".into();
    header.as_object_mut().unwrap().remove("kind");
    std::fs::write(first.join("old.journal"), format!("{header}\n{rest}")).unwrap();
    succeeded(
        faultline()
            .args(["run", "--resume", "../first/old.journal", "--data-dir"])
            .arg(scratch.data_dir())
            .current_dir(&second),
    );
    assert!(first.join("legacy.json").exists());
    assert!(std::fs::read_dir(&second).unwrap().next().is_none());
}

#[test]
fn a_path_that_is_not_utf8_survives_a_plan_or_is_refused() {
    let _runs = beside_others();
    use std::os::unix::ffi::OsStringExt;
    let scratch = Scratch::new();
    let odd = scratch
        .dir
        .path()
        .join(std::ffi::OsString::from_vec(b"in-\xff.bin".to_vec()));
    common::user_file(&odd, 65536);
    // Lossily it would be this other file, which must not be measured.
    let lossy = scratch.path("in-\u{fffd}.bin");
    std::fs::write(&lossy, vec![1u8; 4096]).unwrap();
    let plan = scratch.path("plan.toml");
    std::fs::write(&plan, "runs = 2\ncache = [\"as-is\"]\nblock = [\"4k\"]\n").unwrap();
    let json = scratch.path("out.json");
    succeeded(
        scratch
            .run(Flags::new().flag("--plan", &plan).file(&odd))
            .arg("--export-json")
            .arg(&json),
    );
    let results = read_json(&json);
    assert_eq!(results["cases"][0]["file_size"], 65536, "the file given");
    let out = scratch
        .run(Flags::new().file(&odd).switch("--print-plan"))
        .output()
        .unwrap();
    one_line(&out, 2, &["--print-plan", "--file", "is not UTF-8"]);
}

#[test]
fn files_a_plan_or_a_journal_names_are_listed_and_never_replace_a_strangers() {
    let _runs = beside_others();
    let scratch = Scratch::new();
    let victim = scratch.path("thesis.tex");
    std::fs::write(&victim, "\\documentclass{article}").unwrap();
    let plan = scratch.path("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "runs = 2\ncache = [\"as-is\"]\nsize = [\"64k\"]\nexport-markdown = {:?}\n",
            victim.to_str().unwrap()
        ),
    )
    .unwrap();
    scratch.refused(
        Flags::new().flag("--plan", &plan),
        &["--export-markdown", "not a file faultline wrote"],
    );
    scratch.refused(
        Flags::new().flag("--plan", &plan).switch("--dry-run"),
        &["--export-markdown", "not a file faultline wrote"],
    );
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "\\documentclass{article}"
    );
    // The dry run lists every file the run writes.
    let out = succeeded(
        scratch
            .run(
                quick()
                    .export_json(&scratch.path("r.json"))
                    .switch("--dry-run"),
            )
            .arg("--export-csv")
            .arg(scratch.path("r.csv")),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    for needle in [
        format!("writes --export-json {}", scratch.path("r.json").display()),
        format!("writes --export-csv {}", scratch.path("r.csv").display()),
        "writes the journal in".to_string(),
    ] {
        assert!(stdout.contains(&needle), "{needle}: {stdout}");
    }
    // A journal names its exports: a resume lists them, and refuses one a
    // stranger's file now stands at.
    let journal = scratch.path("run.journal");
    let md = scratch.path("r.md");
    succeeded(&mut scratch.run(quick().journal(&journal).flag("--export-markdown", &md)));
    let resume = || {
        let mut cmd = faultline();
        cmd.args(["run", "--keep-journal", "--resume"])
            .arg(&journal)
            .arg("--data-dir")
            .arg(scratch.data_dir());
        cmd.output().unwrap()
    };
    let out = resume();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains(&format!("resume writes --export-markdown {}", md.display())));
    std::fs::remove_file(&md).unwrap();
    std::fs::write(&md, "someone else's notes").unwrap();
    one_line(
        &resume(),
        2,
        &["--export-markdown", "not a file faultline wrote"],
    );
    assert_eq!(
        std::fs::read_to_string(&md).unwrap(),
        "someone else's notes"
    );
}

#[test]
fn inputs_that_never_end_or_wait_are_refused_at_once() {
    let _runs = beside_others();
    let scratch = Scratch::new();
    let fifo = scratch.path("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let base = export(&scratch, "base.json");
    let cases: Vec<(Command, &str)> = vec![
        (scratch.run(Flags::new().flag("--plan", &fifo)), "FIFO"),
        (
            scratch.run(Flags::new().flag("--plan", "/dev/zero")),
            "character device",
        ),
        (
            scratch.run(quick().flag("--baseline", "/dev/urandom")),
            "character device",
        ),
        (
            scratch.run(Flags::new().size("64k").runs(2).flag("--trace", &fifo)),
            "FIFO",
        ),
        (
            {
                let mut c = faultline();
                c.arg("compare").arg(&base).arg(&fifo);
                c
            },
            "FIFO",
        ),
        (
            {
                let mut c = faultline();
                c.arg("report")
                    .arg("/dev/zero")
                    .arg("-o")
                    .arg(scratch.path("z.html"));
                c
            },
            "character device",
        ),
        (
            {
                let mut c = faultline();
                c.args(["run", "--resume"]).arg(&fifo);
                c
            },
            "FIFO",
        ),
    ];
    for (mut cmd, kind) in cases {
        let out = output_within(&mut cmd, 30);
        one_line(&out, 2, &[kind]);
    }
}

#[test]
fn every_bounded_input_names_its_limit() {
    let _runs = beside_others();
    let scratch = Scratch::new();
    // A trace of one 2 MiB line: refused by its line, not read whole.
    let trace = scratch.path("long.csv");
    std::fs::write(&trace, vec![b'7'; 2 << 20]).unwrap();
    scratch.refused(
        Flags::new().size("64k").runs(2).flag("--trace", &trace),
        &["long.csv", "line 1", "longer than the 1 MiB"],
    );
    // A plan past 1 MiB (a comment, so it would parse).
    let plan = scratch.path("big.toml");
    let mut text = String::from("runs = 2\n#");
    text.push_str(&"x".repeat(1 << 20));
    std::fs::write(&plan, text).unwrap();
    scratch.refused(
        Flags::new().flag("--plan", &plan),
        &[
            "--plan",
            "larger than the 1 MiB (1048576 bytes) a plan may be",
        ],
    );
    // A journal whose second line never ends (a sparse 65 MiB of zeros).
    let journal = scratch.path("run.journal");
    succeeded(&mut scratch.run(quick().journal(&journal)));
    let header = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    std::fs::write(&journal, format!("{header}\n")).unwrap();
    let f = std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap();
    f.set_len(header.len() as u64 + 1 + (65 << 20)).unwrap();
    drop(f);
    let before = std::fs::metadata(&journal).unwrap().len();
    let out = faultline()
        .args(["run", "--resume"])
        .arg(&journal)
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .output()
        .unwrap();
    one_line(&out, 2, &["line 2", "longer than the 64 MiB"]);
    assert_eq!(
        std::fs::metadata(&journal).unwrap().len(),
        before,
        "not cut"
    );
}

#[test]
fn a_replaced_export_keeps_its_mode_and_the_journal_is_private() {
    let _runs = beside_others();
    let scratch = Scratch::new();
    let json = scratch.path("out.json");
    let journal = scratch.path("run.journal");
    // umask 0: still a private journal.
    let mut cmd = scratch.run(quick().export_json(&json).journal(&journal));
    // SAFETY: umask is async-signal-safe and touches only the child.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            libc::umask(0);
            Ok(())
        });
    }
    succeeded(&mut cmd);
    assert_eq!(std::fs::metadata(&journal).unwrap().mode() & 0o777, 0o600);
    let lock = scratch.data_dir().join(".faultline-lock");
    assert_eq!(std::fs::metadata(&lock).unwrap().mode() & 0o077, 0, "lock");
    for mode in [0o600, 0o640, 0o444] {
        std::fs::set_permissions(&json, std::fs::Permissions::from_mode(mode)).unwrap();
        succeeded(&mut scratch.run(quick().export_json(&json)));
        assert_eq!(
            std::fs::metadata(&json).unwrap().mode() & 0o777,
            mode,
            "the export's mode {mode:o} was not kept"
        );
    }
}

#[test]
#[ignore = "needs root"]
fn a_replaced_export_keeps_its_owner() {
    let _runs = beside_others();
    common::require_root("giving the export to another user");
    let scratch = Scratch::new();
    let json = export(&scratch, "out.json");
    std::os::unix::fs::chown(&json, Some(4242), Some(4343)).unwrap();
    succeeded(&mut scratch.run(quick().export_json(&json)));
    let meta = std::fs::metadata(&json).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (4242, 4343));
}

/// A pid no process has (above Linux's largest pid_max).
const GONE: u32 = (1 << 22) + 11;

#[test]
fn temporaries_a_killed_run_left_beside_its_exports_are_removed() {
    let _runs = beside_others();
    let scratch = Scratch::new();
    let out_dir = scratch.path("exports");
    std::fs::create_dir(&out_dir).unwrap();
    // What a run killed mid-write leaves: its temporary beside the export,
    // and its mark in the data directory listing where it wrote.
    succeeded(&mut scratch.run(quick()));
    let debris = out_dir.join(format!(".faultline-tmp-{GONE}-3-out.json"));
    std::fs::write(&debris, "{ half an exp").unwrap();
    let mark = scratch.data_dir().join(format!(".faultline-active-{GONE}"));
    std::fs::write(&mark, format!("{}\n", out_dir.display())).unwrap();
    // A live process's temporary and a user's look-alike stay.
    let live = out_dir.join(format!(".faultline-tmp-{}-0-x.json", std::process::id()));
    std::fs::write(&live, "being written").unwrap();
    let users = out_dir.join(".faultline-tmp-notes");
    std::fs::write(&users, "mine").unwrap();
    let out = succeeded(
        faultline()
            .arg("clean")
            .arg("--data-dir")
            .arg(scratch.data_dir()),
    );
    assert!(!debris.exists(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!mark.exists());
    assert!(live.exists() && users.exists());
    // The next run that exports into that directory removes them too.
    std::fs::write(&debris, "{ half an exp").unwrap();
    succeeded(&mut scratch.run(quick().export_json(&out_dir.join("r.json"))));
    assert!(!debris.exists());
    assert!(live.exists() && users.exists());
}

#[test]
#[ignore = "needs root"]
fn a_killed_run_s_memory_cgroups_are_removed_by_the_next_run() {
    let _alone = RUNS.write().unwrap_or_else(|e| e.into_inner());
    common::require_root("making a memory cgroup");
    let probe = faultline::plan::memory_budget::probe();
    let parent = probe
        .v2_parent
        .or(probe.v1_parent)
        .expect("a memory cgroup faultline may create children in");
    let stale = parent.join(format!("faultline-{GONE}-0"));
    std::fs::create_dir(&stale).expect("a cgroup under this process's own");
    let scratch = Scratch::new();
    let out = succeeded(&mut scratch.run(quick()));
    assert!(!stale.exists(), "{}", String::from_utf8_lossy(&out.stderr));
    // Warnings wrap at the console's width: read them flattened.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let flat = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("memory cgroup(s) left by a faultline"),
        "{stderr}"
    );
}
