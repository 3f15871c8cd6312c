//! What a newcomer trips on (issue 27): output wider than the terminal,
//! warnings said once per case instead of once per kind, `--quiet` that is
//! not quiet, a dry run that promises what the run refuses, raw errors from
//! `report`, and `compare` of a fleet.
mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};

use common::{faultline, Flags, Scratch};

/// Two processes that keep the CPUs busy while they live: a synthetic busy
/// machine, so that the run has interference to warn about. Nothing
/// asserted depends on how busy it gets.
struct Hogs(Vec<Child>);

impl Hogs {
    fn start() -> Hogs {
        Hogs(
            (0..2)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .stdout(Stdio::null())
                        .spawn()
                        .expect("sh runs")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Every line of `text` at most `max` characters wide (colour codes aside).
#[track_caller]
fn fits(text: &str, max: usize, what: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= max,
            "{what}: a line of {} > {max} columns:\n{line}\n\n{text}",
            line.chars().count()
        );
    }
}

/// A small run of 4 cases: seq and random, warm and cold, 2 runs.
fn small() -> Flags {
    Flags::new()
        .size("2M")
        .method("read,mmap")
        .pattern("seq,random")
        .cache("warm,cold")
        .runs(2)
}

#[test]
fn a_busy_run_fits_the_width_and_says_each_warning_once() {
    let scratch = Scratch::new();
    let _hogs = Hogs::start();
    for (columns, expect) in [(None, 100), (Some("80"), 80), (Some("60"), 60)] {
        let mut cmd = scratch.run(small());
        if let Some(c) = columns {
            // COLUMNS is honoured into a pipe too.
            cmd.env("COLUMNS", c);
        }
        let out = cmd.output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{stderr}");
        fits(&stdout, expect, "stdout");
        fits(&stderr, expect, "stderr");
        // Each kind of warning once, whatever the number of cases it concerns.
        for kind in ["warning: trials interfered", "warning: trials under"] {
            assert!(stderr.matches(kind).count() <= 1, "{kind}:\n{stderr}");
        }
        // No verdict lost its words to the width: nothing is cut.
        assert!(!stdout.contains('…'), "{stdout}");
    }
}

#[test]
fn quiet_prints_the_verdicts_and_no_warning() {
    let scratch = Scratch::new();
    // One run of two methods always warns that it gives no verdict.
    let base = Flags::new()
        .size("1M")
        .method("read,mmap")
        .pattern("seq")
        .cache("warm");
    let flags = base.clone().runs(1);
    let loud = scratch.run(flags.clone()).output().unwrap();
    assert!(String::from_utf8_lossy(&loud.stderr).contains("warning: --runs 1: no verdicts"));
    let quiet = scratch.run(flags.switch("--quiet")).output().unwrap();
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    assert!(quiet.status.success(), "{stderr}");
    assert!(!stderr.contains("warning:"), "{stderr}");
    assert!(!stderr.contains("note:"), "{stderr}");
    // Results only: the verdict, not the table or the statistics lines.
    let quiet = scratch
        .run(base.runs(2).switch("--quiet"))
        .output()
        .unwrap();
    assert!(quiet.status.success());
    let stdout = String::from_utf8_lossy(&quiet.stdout);
    assert!(stdout.contains("seq 16 KiB sum, warm: mmap"), "{stdout}");
    assert!(!stdout.contains("GiB/s"), "{stdout}");
    assert!(!stdout.contains("rules:"), "{stdout}");
    // Errors always.
    let out = scratch
        .run(["--quiet", "--file", "/nonexistent/x"])
        .output()
        .unwrap();
    common::one_line(&out, 2, &["error: "]);
}

/// The number of DAMON kdamonds running, as the kernel says, or none
/// where DAMON's sysfs interface is missing.
fn kdamonds_running() -> Option<usize> {
    let root = Path::new("/sys/kernel/mm/damon/admin/kdamonds");
    let count: usize = std::fs::read_to_string(root.join("nr_kdamonds"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(
        (0..count)
            .filter(|i| {
                std::fs::read_to_string(root.join(i.to_string()).join("state"))
                    .is_ok_and(|s| s.trim() == "on")
            })
            .count(),
    )
}

/// A running kdamond is warned of with what a user can do about it (and
/// recorded in the export); without one, nothing is said.
#[test]
fn a_running_kdamond_is_warned_of_with_what_to_do_about_it() {
    let scratch = Scratch::new();
    let json = scratch.path("out.json");
    let flags = Flags::new()
        .size("1M")
        .method("read,mmap")
        .pattern("seq")
        .cache("warm")
        .runs(2)
        .export_json(&json);
    let out = scratch.run(flags).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let flat = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    let results = common::read_json(&json);
    let recorded = results["warnings"].to_string();
    match kdamonds_running() {
        Some(n @ 1..) => {
            assert!(
                flat.contains(&format!("warning: {n} DAMON kdamond(s) running")),
                "{stderr}"
            );
            for advice in [
                "stop them for the run as root",
                "kdamonds/N/state",
                "damo stop",
                "damon_reclaim/parameters/enabled",
            ] {
                assert!(flat.contains(advice), "{advice}: {stderr}");
                assert!(recorded.contains(advice), "{advice}: {recorded}");
            }
        }
        _ => {
            eprintln!("NOTICE: no DAMON kdamond runs here: only that none is warned of is checked");
            assert!(!flat.contains("DAMON"), "{stderr}");
        }
    }
}

#[test]
fn the_dry_run_refuses_what_the_run_refuses_and_estimates_a_trace_by_its_reads() {
    let scratch = Scratch::new();
    let missing = scratch.path("no/such/dir/out.json");
    let flags = small().switch("--dry-run");
    let out = scratch
        .run(flags.clone().flag("--export-json", &missing))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("does not exist"), "{stderr}");
    assert!(!missing.parent().unwrap().exists());

    // Two reads of 4 KiB from a 64 MiB file, 4 cases x 5 runs: 160 KiB, not
    // 20 passes over the file.
    let trace = scratch.path("t.csv");
    std::fs::write(&trace, "0,4096\n8192,4096\n").unwrap();
    let out = scratch
        .run(
            Flags::new()
                .size("64M")
                .flag("--trace", &trace)
                .runs(5)
                .switch("--dry-run"),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("file bytes the trials pass over: 160 KiB in all"),
        "{stdout}"
    );
    fits(&stdout, 100, "dry run");
}

#[test]
fn reproduce_all_dry_run_ends_with_its_total_and_calibrate_has_a_dry_run() {
    let scratch = Scratch::new();
    let out = scratch
        .reproduce("all", ["--full", "--dry-run"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("total: 5 plans, ") && last.contains(" trials, estimated time about "),
        "{stdout}"
    );
    fits(&stdout, 100, "reproduce --dry-run");

    let out = faultline()
        .args(["calibrate", "--size", "4M", "--dry-run", "--data-dir"])
        .arg(scratch.data_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.starts_with("calibrate: 2 cases x "), "{stdout}");
    assert!(!scratch.data_dir().exists(), "a dry run touches nothing");
    // Its --method offers only the read methods it accepts.
    let help = faultline().args(["calibrate", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("mmap-copy"), "{help}");
    assert!(
        !help.contains("mmap-write") && !help.contains("uring-write"),
        "{help}"
    );
}

#[test]
fn report_refuses_an_unreadable_export_as_bad_input() {
    let scratch = Scratch::new();
    let out = faultline()
        .arg("report")
        .arg(scratch.path("nosuch.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("nosuch.json: cannot be read"), "{stderr}");
}

#[test]
fn help_leaks_no_rustdoc_link_and_completions_offer_the_presets() {
    for sub in [
        "run",
        "reproduce",
        "compare",
        "report",
        "calibrate",
        "clean",
        "env",
    ] {
        let out = faultline().args([sub, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(!help.contains("[`"), "{sub} --help: {help}");
    }
    let out = faultline().args(["completions", "bash"]).output().unwrap();
    let script = String::from_utf8_lossy(&out.stdout);
    for preset in ["sun2002", "dillon2004", "crotty2022", "all"] {
        assert!(script.contains(preset), "{preset}");
    }
}

#[test]
fn clean_says_how_much_it_freed() {
    let scratch = Scratch::new();
    common::succeeded(
        &mut scratch.run(
            Flags::new()
                .size("1M")
                .method("read")
                .pattern("seq")
                .cache("warm")
                .runs(1),
        ),
    );
    let times = scratch.data_dir().join("trial-times.json");
    let recorded = common::trial_times_recorded(&scratch.data_dir()) == 1;
    let out = faultline()
        .arg("clean")
        .arg("--data-dir")
        .arg(scratch.data_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    // The test file, and the trial times the run recorded for dry runs
    // unless its trial was interfered with (the load decides that).
    let (files, freed) = if recorded {
        ("2 file(s) removed from", ", 1.00 MiB freed")
    } else {
        ("1 file(s) removed from", ", 1 MiB freed")
    };
    assert!(stdout.contains(files), "{stdout}");
    assert!(stdout.trim_end().ends_with(freed), "{stdout}");
    assert!(!times.exists(), "the trial times are removed too");
}

/// `n` exports made from one real run's: the kernel, file system and
/// verdict changed in some, as a fleet's would differ.
fn fleet_of(dir: &Path, n: usize, one: &serde_json::Value) -> Vec<std::path::PathBuf> {
    (0..n)
        .map(|i| {
            let mut e = one.clone();
            e["environment"]["hostname"] = format!("db{i:02}").into();
            if i % 5 == 0 {
                e["environment"]["kernel"] = "6.1.0-28-amd64 #1 SMP".into();
                e["environment"]["filesystem"] = "xfs".into();
            }
            let majority = e["comparisons"][0]["verdict"].as_str().unwrap().to_string();
            if i == 3 || i == 7 {
                let other = if majority == "faster" {
                    "slower"
                } else {
                    "faster"
                };
                e["comparisons"][0]["verdict"] = other.into();
            }
            let path = dir.join(format!("db{i:02}.json"));
            std::fs::write(&path, serde_json::to_vec(&e).unwrap()).unwrap();
            path
        })
        .collect()
}

#[test]
fn compare_of_a_fleet_shows_who_differs_from_the_majority_and_what_they_share() {
    let scratch = Scratch::new();
    let one = scratch.run_json(
        Flags::new()
            .size("1M")
            .method("read,mmap")
            .pattern("seq")
            .cache("warm")
            .runs(2),
    );
    let exports = fleet_of(scratch.dir.path(), 22, &one);
    for columns in ["80", "100"] {
        let out = faultline()
            .arg("compare")
            .args(&exports)
            .env("COLUMNS", columns)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        fits(&stdout, columns.parse().unwrap(), "compare");
        assert!(stdout.contains("Verdicts by host (22 hosts"), "{stdout}");
        assert!(
            stdout.contains("Off the majority: 2 of 22 hosts: D db03, H db07."),
            "{stdout}"
        );
        let row = |host: &str| {
            stdout
                .lines()
                .find(|l| l.split_whitespace().nth(1) == Some(host))
                .unwrap_or_else(|| panic!("{host}'s row in\n{stdout}"))
                .to_string()
        };
        assert!(row("db03").contains('*') && row("db03").ends_with("off 1"));
        assert!(!row("db04").contains('*'));
        assert!(
            stdout.contains("kernel 6.1.0-28-amd64 (5): A F K P U"),
            "{stdout}"
        );
        assert!(
            stdout.contains("file system xfs (5): A F K P U"),
            "{stdout}"
        );
        assert!(stdout.contains(" D* "), "{stdout}");
    }
    // Under 20 exports: no matrix.
    let out = faultline()
        .arg("compare")
        .args(&exports[..3])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Verdicts by host"));
}

/// Every line of stdout and stderr of `cmd` within `max` columns, `cmd`
/// run into a pipe with `COLUMNS` set to `max` (or unset for 100).
#[track_caller]
fn fits_when_run(mut cmd: Command, max: usize, what: &str) -> std::process::Output {
    if max != 100 {
        cmd.env("COLUMNS", max.to_string());
    }
    let out = cmd.output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{what}: {stderr}");
    fits(&stdout, max, &format!("{what}: stdout"));
    fits(&stderr, max, &format!("{what}: stderr"));
    out
}

/// The outputs the issue found too wide (per-second timelines, a trace,
/// threads, `--profile -v`), `reproduce` and `compare` of busy runs: on a
/// machine kept busy, no line is wider than the terminal, 100 columns into
/// a pipe or what `COLUMNS` says.
#[test]
fn busy_reproduce_compare_and_every_run_output_fit_the_width() {
    let scratch = Scratch::new();
    let _hogs = Hogs::start();
    let trace = scratch.path("a-trace-with-a-long-name-of-its-own-for-the-labels.csv");
    std::fs::write(&trace, "0,4096\n8192,4096\n65536,16384\n").unwrap();
    let runs = [
        (
            "--duration",
            Flags::new()
                .size("1M")
                .method("read,mmap")
                .pattern("random")
                .cache("warm")
                .workload("touch")
                .flag("--duration", "1")
                .runs(2),
        ),
        (
            "--trace",
            Flags::new()
                .size("1M")
                .method("read,mmap")
                .cache("warm")
                .flag("--trace", &trace)
                .runs(2),
        ),
        (
            "--threads",
            Flags::new()
                .size("2M")
                .method("read,mmap")
                .pattern("seq")
                .cache("warm")
                .flag("--threads", "2")
                .flag("--thread-mode", "split,replicate")
                .runs(2),
        ),
        (
            "--profile -v",
            Flags::new()
                .size("2M")
                .method("read,mmap")
                .pattern("seq")
                .cache("warm")
                .switch("--profile")
                .flag("--profile-control", "0")
                .switch("-v")
                .runs(2),
        ),
    ];
    for (what, flags) in runs {
        for max in [100, 80] {
            fits_when_run(scratch.run(flags.clone()), max, what);
        }
    }
    // Two busy runs' exports, compared.
    let exports: Vec<_> = (0..2)
        .map(|i| {
            let json = scratch.path(&format!("busy{i}.json"));
            fits_when_run(scratch.run(small().export_json(&json)), 100, "run");
            json
        })
        .collect();
    for max in [100, 80] {
        let mut compare = faultline();
        compare.arg("compare").args(&exports);
        fits_when_run(compare, max, "compare");
    }
    for max in [100, 80] {
        let reproduce = scratch.reproduce("write2020", ["--scale-down", "256"]);
        fits_when_run(reproduce, max, "reproduce");
    }
}

/// The help of every subcommand and every manual page: no rustdoc link
/// (`[`x`]`) and no placeholder of one (`pattern_word`) leaks into them.
#[test]
fn no_doc_link_placeholder_leaks_into_any_help_or_man_page() {
    let out = faultline().arg("--help").output().unwrap();
    let top = String::from_utf8_lossy(&out.stdout).into_owned();
    let subcommands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A description's continuation lines are indented further.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|s| s != "help")
        .collect();
    assert!(
        subcommands.len() >= 10 && subcommands.iter().any(|s| s == "map"),
        "{top}"
    );
    let mut pages = vec![("faultline --help".to_string(), top)];
    for sub in &subcommands {
        for args in [vec![sub.as_str(), "--help"], vec!["man", sub.as_str()]] {
            let out = faultline().args(&args).output().unwrap();
            assert!(out.status.success(), "{args:?}");
            pages.push((
                args.join(" "),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            ));
        }
    }
    for (what, text) in &pages {
        for leak in ["[`", "[\\`", "pattern_word", "](", "crate::"] {
            assert!(!text.contains(leak), "{what} holds {leak:?}:\n{text}");
        }
    }
}

/// Runs `cmd` with its standard error on a pseudo-terminal `columns` wide
/// (standard output on a pipe), as a user's terminal would be: returns
/// what was drawn on the terminal, escape sequences removed and split into
/// the lines and redraws (`\r`) a user saw, and the process's output.
fn on_a_terminal(mut cmd: Command, columns: u16) -> (Vec<String>, std::process::Output) {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    // SAFETY: plain libc calls on descriptors this test opens and owns.
    let (master, slave) = unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(master >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(master, name.as_mut_ptr(), name.len()), 0);
        let size = libc::winsize {
            ws_row: 40,
            ws_col: columns,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        assert_eq!(libc::ioctl(master, libc::TIOCSWINSZ, &size), 0);
        let slave = libc::open(name.as_ptr(), libc::O_RDWR | libc::O_NOCTTY);
        assert!(slave >= 0, "open the terminal's other end");
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    };
    let child = cmd
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(slave))
        .spawn()
        .expect("faultline runs");
    // The command holds this process's copy of the terminal's other end:
    // dropped, only faultline's stay open, and the reader ends with them.
    drop(cmd);
    // The terminal is read until its other end is closed (EIO).
    let reader = std::thread::spawn(move || {
        let mut master = master;
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(n) = master.read(&mut chunk) {
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&chunk[..n]);
        }
        bytes
    });
    let output = child.wait_with_output().unwrap();
    let drawn = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    // Escape sequences (CSI: ESC [ parameters, a final letter) removed.
    let mut text = String::new();
    let mut chars = drawn.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            text.push(c);
        }
    }
    let lines = text
        .split(['\r', '\n'])
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    (lines, output)
}

#[test]
fn the_progress_line_shows_the_running_trial_s_measured_rate_within_the_width() {
    let scratch = Scratch::new();
    // Trials of 3 s: read's rate is measured while it runs; mmap's cannot be
    // (its loads make no system call), so it shows none.
    let flags = Flags::new()
        .size("8M")
        .method("read,mmap")
        .pattern("random")
        .cache("warm")
        .flag("--duration", "3")
        .runs(1);
    let (lines, out) = on_a_terminal(scratch.run(flags.clone()), 100);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = lines.join("\n");
    for line in &lines {
        assert!(
            line.chars().count() <= 100,
            "a line of {} > 100 columns:\n{line}\n\n{all}",
            line.chars().count()
        );
    }
    let progress: Vec<&String> = lines.iter().filter(|l| l.contains(" trials, ")).collect();
    assert!(!progress.is_empty(), "no progress line drawn:\n{all}");
    let live: Vec<&&String> = progress
        .iter()
        .filter(|l| l.contains("B/s now (rchar)"))
        .collect();
    assert!(
        live.iter().any(|l| l.contains(" read · ")),
        "read's trial shows its rate:\n{all}"
    );
    for l in &progress {
        if l.contains(" mmap · ") {
            assert!(!l.contains(" now ("), "mmap has no live rate: {l}");
        }
    }
    // The rate is a number with a unit: `1.23 GiB/s now (rchar)`.
    let rate = live[0].split(" · ").nth(1).unwrap_or_default();
    let number = rate.split(' ').next().unwrap_or_default();
    assert!(number.parse::<f64>().is_ok(), "{rate}");
    // --quiet draws no progress line, on a terminal too.
    let (lines, out) = on_a_terminal(
        scratch.run(
            Flags::new()
                .size("1M")
                .method("read")
                .cache("warm")
                .runs(1)
                .switch("--quiet"),
        ),
        100,
    );
    assert!(out.status.success());
    assert!(!lines.iter().any(|l| l.contains(" trials, ")), "{lines:?}");
}
