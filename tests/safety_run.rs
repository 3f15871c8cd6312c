//! A run attacked as a hostile user would (issue 23, classes 5, 7–9, 11,
//! 12 and 14–17), through the real binary: legal flags that ask for more
//! than the machine has, closed output streams, failed trials, control
//! bytes, another run's secrets, journals of another command, file systems
//! that take no files, hang-ups, negative values, and a dry run that must
//! refuse what the run refuses.
mod common;

use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{
    faultline, one_line, read_json, samples, spawn_piped, stderr_lines, succeeded, wait_until,
    Flags, Scratch,
};

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

/// [`quick`] over a file of the user's (no `--size`).
fn quick_file(file: &Path) -> Flags {
    Flags::new()
        .file(file)
        .method("read,mmap")
        .pattern("seq")
        .block("4k")
        .cache("as-is")
        .runs(2)
}

/// Sets a resource limit in `cmd`'s process before it runs faultline.
fn with_limit(
    cmd: &mut Command,
    resource: nix::sys::resource::Resource,
    soft: u64,
    hard: u64,
) -> &mut Command {
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        cmd.pre_exec(move || {
            nix::sys::resource::setrlimit(resource, soft, hard).map_err(std::io::Error::from)
        })
    }
}

/// Every line of `out`'s stdout and stderr, checked for raw control
/// characters (a newline ends a line; nothing else may reach the terminal).
#[track_caller]
fn no_raw_control_bytes(out: &Output) {
    for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        let raw: Vec<char> = text
            .chars()
            .filter(|&c| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c))
            .collect();
        assert!(raw.is_empty(), "{name} holds raw {raw:?}: {text}");
    }
}

#[test]
fn legal_flags_that_ask_for_more_memory_than_the_machine_has_are_refused_up_front() {
    let scratch = Scratch::new();
    for flags in [
        Flags::new()
            .size("64M")
            .method("uring")
            .block("64M")
            .depth("16")
            .threads("1024")
            .thread_mode("replicate")
            .cache("as-is"),
        Flags::new()
            .size("64M")
            .method("read")
            .block("64M")
            .threads("1024")
            .thread_mode("replicate")
            .flag("--procs", "64")
            .cache("as-is"),
    ] {
        let run = scratch.refused(flags.clone(), &["asks for", "per trial, more than the"]);
        let dry = scratch.refused(flags.switch("--dry-run"), &[]);
        // The same refusal; the memory available is the machine's, read
        // again (another process may have taken some meanwhile).
        let asked = |line: &str| line.split(", more than the").next().unwrap().to_string();
        assert_eq!(
            asked(&run),
            asked(&dry),
            "the dry run refuses what the run refuses"
        );
    }
    assert!(!scratch.data_dir().exists(), "nothing generated or made");
    // A per-process limit (ulimit -v) counts too.
    let out = with_limit(
        &mut scratch.run(
            Flags::new()
                .size("64M")
                .method("read")
                .block("64M")
                .threads("16")
                .thread_mode("replicate")
                .cache("as-is")
                .runs(1),
        ),
        nix::sys::resource::Resource::RLIMIT_AS,
        512 << 20,
        512 << 20,
    )
    .output()
    .unwrap();
    one_line(&out, 2, &["ulimit -v"]);
}

#[test]
fn file_descriptors_are_checked_and_a_soft_limit_raised_when_the_hard_one_allows() {
    let scratch = Scratch::new();
    let out = with_limit(
        &mut scratch.run(quick()),
        nix::sys::resource::Resource::RLIMIT_NOFILE,
        12,
        12,
    )
    .output()
    .unwrap();
    one_line(&out, 2, &["may open only 12 (ulimit -n)"]);
    // A low soft limit under a high hard one: raised, and the run runs.
    let json = scratch.path("out.json");
    succeeded(with_limit(
        &mut scratch.run(quick().export_json(&json)),
        nix::sys::resource::Resource::RLIMIT_NOFILE,
        12,
        4096,
    ));
    assert_eq!(samples(&read_json(&json)).len(), 4);
}

#[test]
#[ignore = "needs root"]
fn a_trial_the_oom_killer_ends_is_reported_as_out_of_memory() {
    common::require_root("a memory cgroup for the trial");
    let scratch = Scratch::new();
    let json = scratch.path("out.json");
    // Two 48 MiB buffers charged to a 32 MiB memory cgroup.
    let out = scratch
        .run(
            Flags::new()
                .size("96M")
                .method("read")
                .block("48M")
                .threads("2")
                .thread_mode("replicate")
                .cache("as-is")
                .runs(1)
                .flag("--memory-budget", "32M")
                .export_json(&json),
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("ran out of memory"), "{stderr}");
    let failures = common::failures(&read_json(&json)).clone();
    assert!(
        failures.iter().all(|f| f["reason"]
            .as_str()
            .unwrap()
            .starts_with("ran out of memory")),
        "{failures:?}"
    );
}

#[test]
fn a_closed_stdout_or_stderr_ends_the_output_quietly_and_keeps_the_exports() {
    let scratch = Scratch::new();
    let base = scratch.path("base.json");
    succeeded(&mut scratch.run(quick().export_json(&base)));
    // Readers that go away after their first byte: `| head -c1`.
    let commands: Vec<Command> = vec![
        scratch.run(quick().switch("--dry-run")),
        scratch.run(Flags::new().switch("--print-plan")),
        {
            let mut c = faultline();
            c.arg("compare").arg(&base).arg(&base);
            c
        },
        {
            let mut c = faultline();
            c.args(["run", "--help"]);
            c
        },
        {
            let mut c = faultline();
            c.args(["clean", "--data-dir"]).arg(scratch.data_dir());
            c
        },
    ];
    for mut cmd in commands {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // closed before a byte is read
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 2)),
            "{cmd:?}: {:?} {stderr}",
            out.status
        );
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{stderr}"
        );
    }
    // A run whose stderr is a closed pipe (its warnings and progress go
    // nowhere) still measures and writes its exports.
    let json = scratch.path("out.json");
    let mut child = scratch
        .run(quick().export_json(&json).switch("--verbose"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(read_json(&json)["complete"], true);
}

#[test]
fn failed_trials_make_the_exit_status_non_zero_and_say_how_many_and_why() {
    let scratch = Scratch::new();
    let json = scratch.path("out.json");
    // Some trials measured, one killed: exit 1 and the count.
    let run = spawn_piped(
        &mut scratch.run(
            Flags::new()
                .size("4M")
                .method("read")
                .block("1")
                .cache("as-is")
                .runs(2)
                .export_json(&json),
        ),
    );
    let mut victim = None;
    wait_until("no trial child appeared", || {
        victim = common::trial_children(run.id()).first().copied();
        victim.is_some()
    });
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(victim.unwrap()),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let out = run.wait_with_output().unwrap();
    let last = stderr_lines(&out).last().cloned().unwrap_or_default();
    assert_eq!(out.status.code(), Some(1), "{last}");
    assert!(
        last.starts_with("error: 1 trial(s) failed and 1 were measured: 1× killed by SIGKILL"),
        "{last}"
    );
    assert_eq!(
        samples(&read_json(&json)).len(),
        1,
        "the measured one is kept"
    );
    // Nothing measured (every trial of a million 1-byte reads outlives a
    // 1 ms limit): exit 1, and that nothing was.
    let out = scratch
        .run(
            Flags::new()
                .size("1M")
                .method("read")
                .block("1")
                .cache("as-is")
                .runs(2)
                .flag("--trial-timeout", "0.001"),
        )
        .output()
        .unwrap();
    let last = stderr_lines(&out).last().cloned().unwrap_or_default();
    assert_eq!(out.status.code(), Some(1), "{last}");
    assert!(
        last.starts_with(
            "error: nothing was measured: all 2 trial(s) failed: 2× timed out after 0.001 s"
        ),
        "{last}"
    );
}

#[test]
fn control_bytes_in_names_values_and_inputs_never_reach_the_terminal() {
    let scratch = Scratch::new();
    // A file name that would clear the screen, set the title and hide text.
    let name = scratch.path("x\u{1b}[2J\u{1b}]0;owned\u{7}\r\u{202e}txt.bin");
    let out = scratch.run(quick_file(&name)).output().unwrap();
    one_line(&out, 2, &["\\x1b[2J", "\\x07", "\\r", "\\u{202e}"]);
    no_raw_control_bytes(&out);
    // A plan value, and a trace line.
    let plan = scratch.path("plan.toml");
    std::fs::write(&plan, "method = [\"read\\u001b[8m\"]\n").unwrap();
    let out = scratch
        .run(Flags::new().flag("--plan", &plan))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    no_raw_control_bytes(&out);
    let trace = scratch.path("t.csv");
    std::fs::write(&trace, "0,4096\n\u{1b}[31mred,\u{8}\u{8}\n").unwrap();
    let out = scratch
        .run(Flags::new().size("64k").runs(2).flag("--trace", &trace))
        .output()
        .unwrap();
    one_line(&out, 2, &["line 2", "\\x1b[31m"]);
    no_raw_control_bytes(&out);
    // Fields of an input JSON (a host name, a warning), on stdout and in
    // the report's messages, with colour forced on.
    let json = scratch.path("out.json");
    succeeded(&mut scratch.run(quick().export_json(&json)));
    let mut results = read_json(&json);
    results["environment"]["hostname"] = "evil\u{1b}[8mhost\r".into();
    results["warnings"] = serde_json::json!(["w\u{1b}]0;x\u{7}arn"]);
    let evil = scratch.path("evil.json");
    std::fs::write(&evil, serde_json::to_vec(&results).unwrap()).unwrap();
    let out = faultline()
        .args(["compare", "--color", "always"])
        .arg(&json)
        .arg(&evil)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("\u{1b}[8m") && !stdout.contains('\r'),
        "{stdout}"
    );
    // Only faultline's own colour codes (SGR 0, 1, 31-33, 35) are left.
    let stripped = stdout
        .replace("\u{1b}[0m", "")
        .replace("\u{1b}[1m", "")
        .replace("\u{1b}[31m", "")
        .replace("\u{1b}[32m", "")
        .replace("\u{1b}[33m", "")
        .replace("\u{1b}[35m", "");
    assert!(!stripped.contains('\u{1b}'), "{stdout}");
}

#[test]
fn another_run_s_command_line_stays_out_of_this_run_s_warnings_and_exports() {
    let scratch = Scratch::new();
    // Another run, live (this test holds its registration locked), whose
    // command line carries a secret.
    let dir = scratch.path("runtime").join("faultline").join("active");
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .unwrap();
    let other = std::fs::File::create(dir.join("4242-1.lock")).unwrap();
    other.lock().unwrap();
    use std::io::Write;
    writeln!(
        &other,
        "pid=4242 started=1700000000 cmd=faultline run --export-json /home/alice/SECRET-TOKEN.json"
    )
    .unwrap();
    let json = scratch.path("out.json");
    let md = scratch.path("out.md");
    let out = succeeded(
        scratch
            .run(quick().export_json(&json).flag("--export-markdown", &md))
            .env("XDG_RUNTIME_DIR", scratch.path("runtime")),
    );
    let exported = std::fs::read_to_string(&json).unwrap();
    assert!(
        exported.contains("pid 4242, started at 1700000000 (Unix time)"),
        "the other run is still named"
    );
    for text in [
        exported,
        std::fs::read_to_string(&md).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ] {
        assert!(!text.contains("SECRET-TOKEN"), "{text}");
        assert!(!text.contains("/home/alice"), "{text}");
    }
}

/// A journal of `faultline run` with a torn last line, and its bytes.
fn run_journal(scratch: &Scratch) -> (std::path::PathBuf, Vec<u8>) {
    let journal = scratch.path("run.journal");
    succeeded(&mut scratch.run(quick().journal(&journal)));
    let mut bytes = std::fs::read(&journal).unwrap();
    bytes.extend_from_slice(b"{\"sample\":{\"ca");
    std::fs::write(&journal, &bytes).unwrap();
    (journal, bytes)
}

/// The journal's header with `kind` set to `kind`.
fn rekind(bytes: &[u8], kind: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let (first, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(first).unwrap();
    header["kind"] = kind.into();
    let mut out = serde_json::to_vec(&header).unwrap();
    out.push(b'\n');
    out.extend_from_slice(rest.as_bytes());
    out
}

#[test]
fn a_journal_is_resumed_only_by_the_command_that_wrote_it_and_left_as_it_was() {
    let scratch = Scratch::new();
    let (journal, bytes) = run_journal(&scratch);
    let out = faultline()
        .args(["reproduce", "dillon2004", "--resume"])
        .arg(&journal)
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &["is a journal of `faultline run`", "faultline run --resume"],
    );
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        bytes,
        "not cut, not appended"
    );
    for (kind, words) in [
        ("reproduce", "faultline reproduce"),
        ("calibrate", "a calibration is not continued"),
    ] {
        let other = scratch.path(&format!("{kind}.journal"));
        let rekinded = rekind(&bytes, kind);
        std::fs::write(&other, &rekinded).unwrap();
        let out = faultline()
            .args(["run", "--resume"])
            .arg(&other)
            .arg("--data-dir")
            .arg(scratch.data_dir())
            .output()
            .unwrap();
        one_line(
            &out,
            2,
            &[&format!("is a journal of `faultline {kind}`"), words],
        );
        assert_eq!(std::fs::read(&other).unwrap(), rekinded);
    }
}

#[test]
fn a_file_system_that_takes_no_files_is_named_for_what_it_is() {
    let scratch = Scratch::new();
    let out = faultline()
        .arg("run")
        .args([
            "--size",
            "64k",
            "--runs",
            "2",
            "--data-dir",
            "/proc/faultline-data",
        ])
        .output()
        .unwrap();
    one_line(&out, 2, &["procfs, a pseudo file system"]);
    // Too little room: the advice names --size as the default it was, or
    // as the value given.
    let out = scratch
        .run(Flags::new().runs(2).cache("as-is"))
        .env("FAULTLINE_TEST_FREE_BYTES", "1000")
        .output()
        .unwrap();
    one_line(
        &out,
        1,
        &["not enough disk space", "a --size smaller than the default"],
    );
    let out = scratch
        .run(quick())
        .env("FAULTLINE_TEST_FREE_BYTES", "1000")
        .output()
        .unwrap();
    one_line(&out, 1, &["not enough disk space", "give a smaller --size"]);
}

#[test]
#[ignore = "needs root"]
fn a_read_only_file_system_is_not_called_full() {
    let mount = common::Mount::new("tmpfs", "size=8m,ro");
    let out = faultline()
        .args(["run", "--runs", "2", "--cache", "as-is", "--data-dir"])
        .arg(mount.path().join("data"))
        .output()
        .unwrap();
    let line = one_line(&out, 2, &["read-only file system"]);
    assert!(!line.contains("disk space"), "{line}");
}

/// A run slow enough (1-byte reads) for a signal to land mid-sweep.
fn slow_run(scratch: &Scratch, journal: &Path) -> std::process::Child {
    spawn_piped(
        scratch
            .run(
                Flags::new()
                    .size("2M")
                    .method("read,pread")
                    .block("1")
                    .cache("as-is")
                    .runs(3)
                    .journal(journal),
            )
            .current_dir(scratch.dir.path()),
    )
}

#[test]
fn a_hang_up_a_quit_or_any_signal_that_would_end_it_stops_the_run_as_sigterm_does() {
    use nix::sys::signal::Signal;
    // SIGHUP and SIGQUIT (issue 23), and every other signal whose default
    // action ends the process (own attack: SIGUSR1 or SIGALRM ended the run
    // without its resume command, SIGXCPU with a core file).
    for signal in [
        Signal::SIGHUP,
        Signal::SIGQUIT,
        Signal::SIGUSR1,
        Signal::SIGUSR2,
        Signal::SIGALRM,
        Signal::SIGVTALRM,
        Signal::SIGPROF,
        Signal::SIGXCPU,
        Signal::SIGPWR,
    ] {
        let scratch = Scratch::new();
        let journal = scratch.path("run.journal");
        let run = slow_run(&scratch, &journal);
        wait_until("the journal did not grow", || {
            std::fs::read_to_string(&journal).is_ok_and(|t| t.lines().count() > 1)
        });
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(run.id() as i32), signal).unwrap();
        let out = run.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{signal}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "resume with: faultline run --resume {}",
                journal.display()
            )),
            "{signal}: {stderr}"
        );
        assert!(journal.exists(), "{signal}: the journal is kept");
        let cores: Vec<_> = std::fs::read_dir(scratch.dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("core"))
            .collect();
        assert!(
            cores.is_empty(),
            "{signal}: a core file was left: {cores:?}"
        );
    }
}

#[test]
fn a_negative_value_gets_the_range_message_of_every_bad_value() {
    let scratch = Scratch::new();
    let run_flags = [
        "--runs",
        "--warmup",
        "--trial-timeout",
        "--duration",
        "--precision",
        "--min-effect",
        "--max-time",
        "--max-runs",
        "--min-trial-time",
        "--interference-threshold",
        "--retry-interfered",
        "--memory-budget",
        "--procs",
        "--threads",
        "--iov",
        "--depth",
        "--stdio-buffer",
        "--seed",
        "--block",
        "--size",
    ];
    for flag in run_flags {
        for value in ["-1", "-5%", "-0.5s"] {
            let out = scratch
                .run(Flags::new().flag(flag, value).flag("--precision", "5%"))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
            assert!(
                !stderr.contains("unexpected argument"),
                "{flag} {value}: {stderr}"
            );
            assert!(
                stderr.contains(&format!("'{value}'")),
                "{flag} {value}: {stderr}"
            );
        }
    }
    for (sub, flag) in [
        ("calibrate", "--runs"),
        ("calibrate", "--min-trial-time"),
        ("calibrate", "--families"),
        ("reproduce", "--max-time"),
        ("reproduce", "--precision"),
        ("reproduce", "--duration"),
    ] {
        let mut cmd = faultline();
        cmd.arg(sub);
        if sub == "reproduce" {
            cmd.arg("crotty2022");
        }
        let out = cmd.args([flag, "-3"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{sub} {flag}: {stderr}");
        assert!(
            !stderr.contains("unexpected argument"),
            "{sub} {flag}: {stderr}"
        );
    }
}

#[test]
fn the_dry_run_refuses_what_the_run_refuses_and_says_what_it_makes() {
    let scratch = Scratch::new();
    let input = scratch.path("in.bin");
    common::user_file(&input, 65536);
    let stranger = scratch.path("stranger.csv");
    std::fs::write(&stranger, "a,b\n").unwrap();
    let refusals = [
        quick_file(&input).flag("--export-csv", &input),
        quick().flag("--export-csv", &stranger),
        quick().method("direct").block("1000"),
        quick().flag("--export-json", scratch.path("missing/out.json")),
    ];
    for flags in refusals {
        let run = scratch.run(flags.clone()).output().unwrap();
        let dry = scratch.run(flags.switch("--dry-run")).output().unwrap();
        assert_eq!(run.status.code(), Some(2));
        assert_eq!(run.status.code(), dry.status.code());
        assert_eq!(stderr_lines(&run), stderr_lines(&dry));
    }
    let out = scratch
        .run(quick().switch("--dry-run"))
        .env("FAULTLINE_TEST_FREE_BYTES", "1000")
        .output()
        .unwrap();
    one_line(&out, 1, &["not enough disk space"]);
    // The image a scale run generates, as the run makes it.
    let out = succeeded(
        &mut scratch.run(
            Flags::new()
                .workload("scale")
                .flag("--image", "100x200")
                .runs(2)
                .switch("--dry-run"),
        ),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("(100x200 PPM image, "), "{stdout}");
    // Totals past 16 EiB are said as they are, never wrapped or saturated:
    // 1 PiB, read by 1024 threads each, 10000 times, is 1.153e22 bytes.
    let out = succeeded(
        scratch
            .run(
                Flags::new()
                    .size("1024T")
                    .method("read")
                    .block("4k")
                    .threads("1024")
                    .thread_mode("replicate")
                    .cache("as-is")
                    .runs(10000)
                    .switch("--dry-run"),
            )
            .env("FAULTLINE_TEST_FREE_BYTES", u64::MAX.to_string()),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("file bytes the trials pass over: 1.153e22 bytes in all"),
        "{stdout}"
    );
    assert!(!scratch.data_dir().exists(), "the dry runs touched nothing");
}
