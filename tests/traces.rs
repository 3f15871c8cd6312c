//! `--trace`: replaying what real programs did. fio writes an iolog at test
//! time, strace records fio and dd at test time (without them those tests
//! skip with a notice; `.ci/run` installs them and sets
//! FAULTLINE_REQUIRE_TOOLS=1 so that CI fails instead), and every method replays the same reads: the
//! right number of bytes and one checksum, equal to the one computed here
//! from the file. Malformed traces give one line naming the line.
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{assert_no_failures, cases, one_line, samples, Flags, Scratch};
use faultline::workload::sum_bytes;

/// Every read method that replays a trace on any file system.
const METHODS: &str = "read,pread,mmap,mmap-copy,stdio,preadv,uring";

/// Whether the tools a test records traces with are installed. Without
/// them the test is skipped with a visible notice (a fresh machine need not
/// have fio), unless FAULTLINE_REQUIRE_TOOLS=1, which `.ci/run` sets: then
/// a missing tool fails the test.
fn have_tools(test: &str, programs: &[&str]) -> bool {
    let missing: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|p| {
            Command::new(p)
                .arg("--version")
                .output()
                .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    let message = format!(
        "{test} SKIPPED: {} not found. Install it (apt-get install {}; .ci/run does this). \
         FAULTLINE_REQUIRE_TOOLS=1 makes this a failure.",
        missing.join(" and "),
        missing.join(" ")
    );
    assert!(
        std::env::var_os("FAULTLINE_REQUIRE_TOOLS").is_none_or(|v| v != "1"),
        "{message}"
    );
    common::skip(
        test,
        message
            .split_once("SKIPPED: ")
            .map_or(&message[..], |m| m.1),
    );
    false
}

/// Runs a tool the test needs, failing with what to install when it is missing.
#[track_caller]
fn tool(dir: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("this test runs {program} ({e}): install it (apt-get install {program})")
        });
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `(offset, length)` reads of a fio iolog (version 3), parsed here,
/// independently of faultline.
fn iolog_reads(path: &Path) -> Vec<(u64, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 5 && f[2] == "read").then(|| (f[3].parse().unwrap(), f[4].parse().unwrap()))
        })
        .collect()
}

/// The sum checksum of `reads` over `file`.
fn sum_of(file: &[u8], reads: &[(u64, u64)]) -> u64 {
    reads.iter().fold(0u64, |sum, &(o, l)| {
        sum.wrapping_add(sum_bytes(&file[o as usize..(o + l) as usize]))
    })
}

/// Replays `trace` on `file` with `methods` and returns each case's
/// (checksum, bytes, operations), checking that none failed.
fn replay(
    s: &Scratch,
    file: &Path,
    trace: &Path,
    methods: &str,
    extra: &[(&str, &str)],
) -> Vec<(u64, u64, u64)> {
    let mut flags = Flags::new()
        .file(file)
        .flag("--trace", trace)
        .method(methods)
        .cache("warm")
        .runs(1);
    for (name, value) in extra {
        flags = flags.flag(name, value);
    }
    let json = s.run_json(flags);
    assert_no_failures(&json);
    samples(&json)
        .iter()
        .map(|(_, s)| {
            (
                s["checksum"].as_u64().unwrap(),
                s["bytes"].as_u64().unwrap(),
                s["ops"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A directory with a 1 MiB file fio laid out, and fio's own randread
/// iolog of 100 reads over it.
fn fio_randread(s: &Scratch) -> (PathBuf, PathBuf) {
    let dir = s.path("fio");
    std::fs::create_dir_all(&dir).unwrap();
    tool(
        &dir,
        "fio",
        &[
            "--name=randread",
            "--filename=data.bin",
            "--size=1M",
            "--bs=4k",
            "--rw=randread",
            "--ioengine=psync",
            "--randseed=42",
            "--number_ios=100",
            "--write_iolog=randread.iolog",
        ],
    );
    (dir.join("data.bin"), dir.join("randread.iolog"))
}

#[test]
fn a_real_fio_iolog_and_an_strace_of_real_fio_replay_the_same_reads_on_every_method() {
    if !have_tools(
        "a_real_fio_iolog_and_an_strace_of_real_fio_replay_the_same_reads_on_every_method",
        &["fio", "strace"],
    ) {
        return;
    }
    let s = Scratch::new();
    let (data, iolog) = fio_randread(&s);
    let reads = iolog_reads(&iolog);
    assert_eq!(reads.len(), 100, "fio logged its 100 reads");
    let file = std::fs::read(&data).unwrap();
    let expected = (sum_of(&file, &reads), 100 * 4096, 100);
    let from_iolog = replay(&s, &data, &iolog, &format!("{METHODS},direct"), &[]);
    assert_eq!(from_iolog.len(), 8);
    assert!(
        from_iolog.iter().all(|r| *r == expected),
        "{from_iolog:?} vs {expected:?}"
    );
    // The same job under strace: fio's pread64 calls are the reads.
    let dir = data.parent().unwrap();
    tool(
        dir,
        "strace",
        &[
            "-f",
            "-e",
            "trace=openat,read,pread64,lseek,close",
            "-o",
            "fio.strace",
            "fio",
            "--name=randread",
            "--filename=data.bin",
            "--size=1M",
            "--bs=4k",
            "--rw=randread",
            "--ioengine=psync",
            "--randseed=42",
            "--number_ios=100",
        ],
    );
    let from_strace = replay(&s, &data, &dir.join("fio.strace"), METHODS, &[]);
    assert!(
        from_strace.iter().all(|r| *r == expected),
        "{from_strace:?}"
    );
}

#[test]
fn an_strace_of_dd_follows_its_seek_through_a_duplicated_descriptor() {
    if !have_tools(
        "an_strace_of_dd_follows_its_seek_through_a_duplicated_descriptor",
        &["strace", "dd"],
    ) {
        return;
    }
    let s = Scratch::new();
    let dir = s.path("dd");
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("data.bin");
    let bytes: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&data, &bytes).unwrap();
    // dd opens the file, dup2()s it onto fd 0 and lseek()s 3 blocks in.
    tool(
        &dir,
        "strace",
        &[
            "-e",
            "trace=openat,read,lseek,close,dup2",
            "-o",
            "dd.strace",
            "dd",
            "if=data.bin",
            "of=/dev/null",
            "bs=4096",
            "skip=3",
            "count=4",
        ],
    );
    let got = replay(
        &s,
        &data,
        &dir.join("dd.strace"),
        METHODS,
        &[("--trace-path", "data.bin")],
    );
    let expected = (sum_bytes(&bytes[3 * 4096..7 * 4096]), 4 * 4096, 4);
    assert!(
        got.iter().all(|r| *r == expected),
        "{got:?} vs {expected:?}"
    );
}

#[test]
fn a_traces_writes_are_skipped_by_readers_and_replayed_by_writers() {
    let s = Scratch::new();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio-randrw-bsrange.v3.iolog");
    // Read methods: 27 reads of 512 B to 16 KiB; the 13 writes are reported.
    let out = common::succeeded(
        &mut s.run(
            Flags::new()
                .size("256K")
                .flag("--trace", &fixture)
                .method("pread,mmap,uring")
                .cache("warm")
                .runs(1)
                .export_json(&s.path("r.json")),
        ),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("27 reads"), "{stderr}");
    assert!(
        stderr.contains("has 13 writes") && stderr.contains("read methods skip them"),
        "{stderr}"
    );
    let json = common::read_json(&s.path("r.json"));
    assert!(json["warnings"]
        .to_string()
        .contains("read methods skip them"));
    let reads = samples(&json);
    assert!(reads
        .iter()
        .all(|(_, x)| x["ops"] == 27 && x["checksum"] == reads[0].1["checksum"]));
    let longest = iolog_reads(&fixture).iter().map(|r| r.1).max().unwrap();
    assert_eq!(cases(&json)[0]["block_size"], longest, "the longest read");
    // Write methods replay the writes over an existing file, which is read
    // back: written ranges hold the fill, the rest what was there.
    let json = s.run_json(
        Flags::new()
            .size("256K")
            .flag("--trace", &fixture)
            .method("pwrite,write,mmap-write,uring-write")
            .target("overwrite")
            .cache("warm")
            .runs(1),
    );
    assert_no_failures(&json);
    let writes = samples(&json);
    assert_eq!(writes.len(), 4);
    assert!(writes
        .iter()
        .all(|(_, x)| x["ops"] == 13 && x["checksum"] == writes[0].1["checksum"]));
    s.refused(
        Flags::new()
            .size("256K")
            .flag("--trace", &fixture)
            .method("pwrite"),
        &[
            "a trace's writes are replayed over an existing file",
            "--target overwrite",
        ],
    );
}

/// Writes `text` to a trace file in `s` and returns its path.
fn trace_file(s: &Scratch, name: &str, text: &str) -> PathBuf {
    let path = s.path(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn bad_traces_are_one_line_naming_the_line() {
    let s = Scratch::new();
    let size = Flags::new().size("64K").method("pread");
    let bad = trace_file(
        &s,
        "bad.csv",
        "offset,length\n0,4096\n4096,4096\nbanana,7\n",
    );
    s.refused(size.clone().flag("--trace", &bad), &["bad.csv", "line 4"]);
    let past = trace_file(&s, "past.csv", "0,4096\n65000,4096\n");
    s.refused(
        size.clone().flag("--trace", &past),
        &["line 2: read of 4096 bytes at offset 65000 ends past the end of the file (65536 bytes)"],
    );
    let fio = trace_file(&s, "v1.log", "fio version 1 iolog\n");
    s.refused(size.clone().flag("--trace", &fio), &["v1.log", "line 1"]);
    let strace = trace_file(
        &s,
        "x.strace",
        "123 openat(AT_FDCWD, \"f\", O_RDONLY) = 3\n123 pread64(3, \"\"..., 4096, 0) = 4096\n123 pread64(3, \"\"..., 4096, banana) = 4096\n",
    );
    s.refused(
        size.clone().flag("--trace", &strace),
        &["x.strace: line 3: pread64: offset 'banana' is not a number"],
    );
    let unknown = trace_file(&s, "what.txt", "hello there\n");
    s.refused(
        size.clone().flag("--trace", &unknown),
        &["line 1", "cannot tell the trace format", "--trace-format"],
    );
    let ok = trace_file(&s, "ok.csv", "0,4096\n");
    s.refused(
        size.clone().flag("--trace", &ok).flag("--trace-fd", "3"),
        &["a file descriptor can be followed in strace traces only"],
    );
    s.refused(
        size.clone().flag("--trace", &ok).block("4k"),
        &["--block", "--trace"],
    );
    s.refused(
        size.clone().flag("--trace", s.path("missing.csv")),
        &["missing.csv", "no such trace file"],
    );
    s.refused(
        size.clone().flag("--trace", s.path("")),
        &["is not a regular file"],
    );
    let unaligned = trace_file(&s, "odd.csv", "0,4096\n100,4096\n");
    s.refused(
        Flags::new()
            .size("64K")
            .method("direct")
            .flag("--trace", &unaligned),
        &[
            "--method direct",
            "line 2 of the trace is 4096 bytes at offset 100",
        ],
    );
    let writes_only = trace_file(
        &s,
        "w.log",
        "fio version 2 iolog\nf add\nf open\nf write 0 4096\n",
    );
    s.refused(
        size.clone().flag("--trace", &writes_only),
        &["has no reads to replay (1 writes"],
    );
    s.refused(
        size.flag("--trace", &ok).flag("--trace-format", "xml"),
        &["unknown trace format 'xml'"],
    );
}

#[test]
fn a_trace_that_changed_after_planning_is_refused_by_the_trial() {
    // The hash check is what each trial child does before replaying.
    let s = Scratch::new();
    let path = trace_file(&s, "t.csv", "0,4096\n8192,4096\n");
    let (reference, _) =
        faultline::pattern::trace::TraceRef::open(&path, &Default::default()).unwrap();
    assert_eq!(reference.load(Some(1 << 16)).unwrap().reads.len(), 2);
    std::fs::write(&path, "0,4096\n8192,4097\n").unwrap();
    let err = reference.load(Some(1 << 16)).unwrap_err().to_string();
    assert!(
        err.contains("the trace changed since the run was planned"),
        "{err}"
    );
}

#[test]
fn garbage_traces_never_crash_the_binary() {
    use proptest::prelude::*;
    let s = Scratch::new();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(24));
    let line = prop_oneof![
        Just("fio version 3 iolog".to_string()),
        Just("0,4096".to_string()),
        Just("123 pread64(3, \"\"..., 4096, 8192) = 4096".to_string()),
        Just("f read 4096 4096".to_string()),
        "[0-9a-z ,\\-:()\"=.]{0,40}",
    ];
    runner
        .run(&proptest::collection::vec(line, 0..6), |lines| {
            let path = s.path("fuzz.trace");
            std::fs::write(&path, lines.join("\n")).unwrap();
            let out = s
                .run(
                    Flags::new()
                        .size("64K")
                        .method("pread")
                        .runs(1)
                        .cache("warm")
                        .flag("--trace", &path),
                )
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            prop_assert!(!stderr.contains("panicked"), "{}", stderr);
            let code = out.status.code();
            prop_assert!(code == Some(0) || code == Some(2), "{:?}: {}", code, stderr);
            if code == Some(2) {
                one_line(&out, 2, &[]);
            }
            Ok(())
        })
        .unwrap();
}
