//! Tests of trace parsing: the real fio and strace fixtures of
//! `tests/fixtures/`, strace's offset tracking on hand-written lines, and a
//! property test that garbage never panics.
use super::*;
use crate::pattern::footprint;
use collect::same_path;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn auto(text: &str) -> Trace {
    parse_str(text, &TraceOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn follow(text: &str, follow: Follow) -> Result<Trace, TraceError> {
    parse_str(
        text,
        &TraceOptions {
            follow,
            ..TraceOptions::default()
        },
    )
}

fn pairs(ops: &[TraceOp]) -> Vec<(u64, u32)> {
    ops.iter().map(|o| (o.offset, o.len)).collect()
}

const FILE_256K: Layout = Layout {
    file_size: 256 << 10,
    block_size: 4096,
};

#[test]
fn fio_v2_v3_and_csv_fixtures_agree() {
    let v3 = auto(&fixture("fio-randread.v3.iolog"));
    let v2 = auto(&fixture("fio-randread.v2.iolog"));
    let csv = auto(&fixture("randread.csv"));
    assert_eq!(
        (v3.format, v2.format, csv.format),
        (TraceFormat::FioV3, TraceFormat::FioV2, TraceFormat::Csv)
    );
    assert_eq!(v3.reads.len(), 64);
    assert_eq!(pairs(&v3.reads), pairs(&v2.reads));
    assert_eq!(pairs(&v3.reads), pairs(&csv.reads));
    assert_eq!(v3.target.as_deref(), Some("data.bin"));
    assert_eq!(
        (v3.reads[0].offset, v3.reads[0].len, v3.reads[0].line),
        (12288, 4096, 4)
    );
    // 4 KiB aligned reads become block indices; fio's random map reads each block once.
    let order = v3.order(FILE_256K).unwrap();
    assert!(matches!(order, BlockOrder::Listed(_)));
    assert_eq!(footprint(&order, FILE_256K, 4096).unwrap().share, 1.0);
    assert_eq!(order.bytes(FILE_256K), 256 << 10);
}

#[test]
fn fio_mixed_sizes_keep_writes_apart_and_become_extents() {
    let t = auto(&fixture("fio-randrw-bsrange.v3.iolog"));
    assert_eq!(t.reads.len() + t.writes.len(), 40);
    assert_eq!(t.writes.len(), 13);
    assert_eq!(t.writes[0].offset, 15360);
    let order = t.order(FILE_256K).unwrap();
    let BlockOrder::Extents(extents) = &order else {
        panic!("mixed sizes are extents")
    };
    assert_eq!(extents.len(), t.reads.len());
    assert_eq!(order.bytes(FILE_256K), t.read_bytes());
    assert!(order.max_len(FILE_256K) <= 16 << 10);
    let mut seen = Vec::new();
    order
        .for_each_read(FILE_256K, |offset, len| {
            seen.push((offset, len as u32));
            Ok::<u64, ()>(0)
        })
        .unwrap();
    assert_eq!(seen, pairs(&t.reads));
}

#[test]
fn fio_two_files() {
    let text = fixture("fio-twofiles.v3.iolog");
    let a = auto(&text);
    assert_eq!(
        (a.target.as_deref(), a.reads.len()),
        (Some("a.bin"), 4),
        "a tie goes to the first seen"
    );
    assert_eq!(a.skipped.other_files, 4);
    let b = follow(&text, Follow::Path("b.bin".into())).unwrap();
    assert_eq!(
        pairs(&b.reads),
        vec![(0, 8192), (8192, 8192), (16384, 8192), (24576, 8192)]
    );
    let e = follow(&text, Follow::Path("c.bin".into()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no reads") && e.contains("a.bin (4 reads)"),
        "{e}"
    );
}

#[test]
fn reads_past_the_end_are_refused_naming_the_line() {
    let t = auto(&fixture("fio-randread.v3.iolog"));
    let small = Layout {
        file_size: 128 << 10,
        block_size: 4096,
    };
    let e = t.order(small).unwrap_err().to_string();
    assert_eq!(
        e,
        "line 5: read of 4096 bytes at offset 192512 ends past the end of the file (131072 bytes)"
    );
}

#[test]
fn strace_of_fio_replaying_v2_reads_what_the_iolog_says() {
    let t = auto(&fixture("fio-replay-v2.strace"));
    assert_eq!(t.format, TraceFormat::Strace);
    assert_eq!(t.target.as_deref(), Some("data.bin"));
    let iolog = auto(&fixture("fio-randread.v2.iolog"));
    assert_eq!(pairs(&t.reads), pairs(&iolog.reads));
}

const PY_READS: [(u64, u32); 10] = [
    (0, 4096),
    (4096, 4096),
    (10000, 100),  // lseek SEEK_SET
    (10600, 1000), // lseek SEEK_CUR +500
    (11700, 300),  // after a 100-byte write at 11600
    (95000, 5000), // lseek SEEK_END -5000, short read
    (50000, 4096), // pread64
    (20000, 4000), // preadv2 at 20000
    (30000, 30),   // readv after lseek
    (30030, 70),   // read continues
];

#[test]
fn strace_of_python_tracks_the_file_offset() {
    for name in ["py-seeks.strace", "py-seeks-y-tt-T.strace"] {
        let t = follow(&fixture(name), Follow::Path("rw.bin".into())).unwrap();
        assert_eq!(pairs(&t.reads), PY_READS, "{name}");
        assert_eq!(pairs(&t.writes), vec![(11600, 100), (60000, 10)], "{name}");
        assert_eq!((t.skipped.empty, t.skipped.failed), (1, 0), "{name}");
        assert!(t.target.as_deref().unwrap().ends_with("rw.bin"), "{name}");
    }
}

#[test]
fn strace_of_dd_follows_a_dup2_to_stdin() {
    let t = auto(&fixture("dd-skip.strace"));
    assert_eq!(t.target.as_deref(), Some("rw.bin"));
    assert_eq!(
        pairs(&t.reads),
        vec![(12288, 4096), (16384, 4096), (20480, 4096), (24576, 4096)]
    );
    let by_fd = follow(&fixture("dd-skip.strace"), Follow::Fd(0)).unwrap();
    assert_eq!(pairs(&by_fd.reads), pairs(&t.reads));
}

#[test]
fn strace_joins_unfinished_calls_per_pid() {
    let text = "\
10 openat(AT_FDCWD, \"f\", O_RDONLY) = 3
10 read(3,  <unfinished ...>
11 read(3,  <unfinished ...>
11 <... read resumed>\"ab\", 2) = 2
10 <... read resumed>\"abc\", 3) = 3
12 <... read resumed>\"x\", 1) = 1
10 pread64(3, \"\", 9, 7 <unfinished ...>
";
    let t = auto(text);
    // Placed where they completed: pid 11's 2 bytes first, then pid 10's 3.
    assert_eq!(pairs(&t.reads), vec![(0, 2), (2, 3)]);
    assert_eq!(t.reads[0].line, 4);
    assert_eq!(
        t.skipped.other, 3,
        "the open, the orphan resume, the unfinished pread"
    );
}

#[test]
fn strace_keeps_each_processs_descriptors_apart() {
    // As fio under `strace -f` on a slow machine: the job (pid 42) reads
    // data.bin on fd 6 while the parent's disk-stats thread (pid 41) opens
    // /sys/block/vda/stat on its own fd 6, again and again.
    let text = "\
42 openat(AT_FDCWD, \"data.bin\", O_RDONLY) = 6
42 pread64(6, \"a\", 4096, 8192) = 4096
41 openat(AT_FDCWD, \"/sys/block/vda/stat\", O_RDONLY) = 6
42 pread64(6, \"b\", 4096, 0) = 4096
41 read(6, \"1 2 3\", 4096) = 5
41 close(6) = 0
42 pread64(6, \"c\", 4096, 4096) = 4096
42 close(6) = 0
";
    let t = auto(text);
    assert_eq!(t.target.as_deref(), Some("data.bin"));
    assert_eq!(pairs(&t.reads), vec![(8192, 4096), (0, 4096), (4096, 4096)]);
    assert_eq!(t.skipped.other_files, 1, "the stats file's read");
    // A thread (pid 43) reading a descriptor its sibling opened: the latest
    // file opened under that number, shared offset and all.
    let text = "\
42 openat(AT_FDCWD, \"f\", O_RDONLY) = 3
43 read(3, \"ab\", 2) = 2
42 read(3, \"c\", 1) = 1
42 close(3) = 0
42 openat(AT_FDCWD, \"g\", O_RDONLY) = 3
43 read(3, \"d\", 1) = 1
";
    let t = follow(text, Follow::Path("f".into())).unwrap();
    assert_eq!(pairs(&t.reads), vec![(0, 2), (2, 1)]);
    let g = follow(text, Follow::Path("g".into())).unwrap();
    assert_eq!(pairs(&g.reads), vec![(0, 1)]);
}

#[test]
fn strace_seeks_without_a_result() {
    let text = "read(3, \"a\", 1) = 1\nlseek(3, -10, SEEK_END) = ?\nread(3, \"a\", 4) = 4\n";
    let e = auto_err(text);
    assert!(
        e.contains("line 2: lseek: SEEK_END without a recorded result needs"),
        "{e}"
    );
    let sized = TraceOptions {
        file_size: Some(100),
        ..TraceOptions::default()
    };
    let t = parse_str(text, &sized).unwrap();
    assert_eq!(pairs(&t.reads), vec![(0, 1), (90, 4)]);
    let text = "lseek(3, 5, SEEK_SET) = ?\nlseek(3, 5, SEEK_CUR) = ?\nlseek(3, 7, SEEK_CUR) = -1 EINVAL (x)\nread(3, \"\", 2) = 2\n";
    assert_eq!(pairs(&auto(text).reads), vec![(10, 2)]);
}

fn auto_err(text: &str) -> String {
    parse_str(text, &TraceOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn strace_fd_reuse_and_failures() {
    let text = "\
[pid 5] openat(AT_FDCWD, \"/a\", O_RDONLY) = 3
[pid 5] read(3, \"x\", 1) = 1
[pid 5] close(3) = 0
[pid 5] openat(AT_FDCWD, \"/b\", O_RDONLY) = 3
[pid 5] read(3, \"xy\", 2) = 2
[pid 5] read(3, 0x1, 2) = -1 EINTR (Interrupted system call)
[pid 5] read(3, \"z\", 1) = 1
[pid 5] read(3, \"\", 1) = 0
[pid 5] preadv2(3, [{iov_base=\"q\", iov_len=1}], 1, -1, 0) = 1
[pid 5] +++ exited with 0 +++
";
    let t = auto(text);
    assert_eq!(t.target.as_deref(), Some("/b"));
    assert_eq!(pairs(&t.reads), vec![(0, 2), (2, 1), (3, 1)]);
    assert_eq!(
        (t.skipped.failed, t.skipped.empty, t.skipped.other_files),
        (1, 1, 1)
    );
    assert_eq!(follow(text, Follow::Fd(3)).unwrap().reads.len(), 4);
    assert_eq!(
        follow(text, Follow::Path("a".into())).unwrap().reads.len(),
        1
    );
}

#[test]
fn strace_malformed_lines() {
    for (text, needle) in [
        (
            "read(3, \"\", 1) = 1\nhello\n",
            "line 2: not strace output: 'hello'",
        ),
        (
            "read(x, \"\", 1) = 1\n",
            "line 1: read: the first argument is not a descriptor",
        ),
        ("read(3, \"abc\", 3)\n", "line 1: read: no '= RESULT'"),
        ("read(3, \"abc\n", "line 1: read: no closing ')'"),
        (
            "read(3) = 1\n",
            "line 1: read: expected at least 3 arguments",
        ),
        (
            "pread64(3, \"\", 1, x) = 1\n",
            "line 1: pread64: offset 'x' is not a number",
        ),
        (
            "lseek(3, 1, SEEK_DATA) = ?\n",
            "line 1: lseek: cannot tell where SEEK_DATA",
        ),
        (
            "read(3, \"\", 1) = 5000000000\n",
            "line 1: an operation of 5000000000 bytes",
        ),
        (
            "lseek(3, 18446744073709551615, SEEK_SET) = 18446744073709551615\n",
            "result '18446744073709551615'",
        ),
    ] {
        let e = auto_err(text);
        assert!(e.contains(needle), "{e}");
    }
    assert!(auto_err("\n\n").contains("empty"));
    assert!(auto_err("exit_group(0) = ?\n").contains("no reads"));
}

#[test]
fn detection_and_forced_formats() {
    assert!(auto_err("hello there\n").contains("line 1: cannot tell the trace format"));
    let forced = TraceOptions {
        format: Some(TraceFormat::Strace),
        ..TraceOptions::default()
    };
    assert!(parse_str("0,10\n", &forced)
        .unwrap_err()
        .to_string()
        .contains("not strace output"));
    assert_eq!("fio".parse::<TraceFormat>().unwrap(), TraceFormat::FioV3);
    assert!("xml".parse::<TraceFormat>().is_err());
    assert_eq!(auto("# comment\n\n0,1\n").reads.len(), 1);
}

#[test]
fn same_path_matches_whole_components() {
    assert!(same_path("/tmp/fx/rw.bin", "rw.bin"));
    assert!(same_path("rw.bin", "/tmp/fx/rw.bin"));
    assert!(same_path("fx/rw.bin", "fx/rw.bin"));
    assert!(!same_path("/tmp/fx/xrw.bin", "rw.bin"));
}

mod garbage {
    use super::*;
    use proptest::prelude::*;

    fn strace_like() -> impl Strategy<Value = String> {
        let name = prop::sample::select(vec![
            "read", "pread64", "preadv2", "readv", "write", "pwrite64", "lseek", "openat", "close",
            "dup2", "dup", "open", "mmap",
        ]);
        let arg = prop::sample::select(vec![
            "3",
            "-1",
            "0",
            "\"a\\\"b,)\"",
            "\"x\"...",
            "[{iov_base=\"q\", iov_len=1}]",
            "SEEK_END",
            "SEEK_CUR",
            "SEEK_SET",
            "18446744073709551615",
            "9223372036854775807",
            "-9223372036854775808",
            "AT_FDCWD",
            "3</x,y>",
            "<",
            "\"\\",
            "",
            "O_RDONLY",
        ]);
        let ret = prop::sample::select(vec![
            " = 1",
            " = 0",
            " = -1 EAGAIN (x)",
            " = ?",
            " = 4096",
            " = 9223372036854775807",
            " = 0x10",
            " = 5</p>",
            " <unfinished ...>",
            "",
            " = ",
            " = -9223372036854775808",
        ]);
        let prefix = prop::sample::select(vec![
            "",
            "7 ",
            "[pid 8] ",
            "03:40:47.908835 ",
            "<... read resumed>",
        ]);
        (prefix, name, prop::collection::vec(arg, 0..6), ret)
            .prop_map(|(p, n, a, r)| format!("{p}{n}({}){r}", a.join(", ")))
    }

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            "\\PC{0,60}",
            strace_like(),
            "[0-9 ,a-z]{0,20}",
            Just("fio version 3 iolog".to_string()),
            Just("fio version 2 iolog".to_string()),
            "[0-9]{1,20} f (read|write|add|trim) [0-9]{1,21} [0-9]{1,11}",
            "f (read|open|close|wait) [0-9]{1,21} [0-9]{1,11}",
            "[0-9]{1,21},[0-9]{1,11}",
            Just("<... read resumed>\"x\", 1) = 1".to_string()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn never_panics(lines in prop::collection::vec(line(), 0..30), size in 0u64..1 << 20, fd in -2i32..5) {
            let text = lines.join("\n");
            let started = std::time::Instant::now();
            let formats = [None, Some(TraceFormat::FioV2), Some(TraceFormat::Strace), Some(TraceFormat::Csv)];
            for format in formats {
                for follow in [Follow::Busiest, Follow::Fd(fd), Follow::Path("f".into())] {
                    let options = TraceOptions { format, follow, file_size: Some(size) };
                    if let Ok(trace) = parse_str(&text, &options) {
                        let layout = Layout { file_size: size.max(1), block_size: 512 };
                        if let Ok(order) = trace.order(layout) {
                            let _ = footprint(&order, layout, 4096);
                        }
                    }
                }
            }
            prop_assert!(started.elapsed() < std::time::Duration::from_secs(2));
        }
    }
}
