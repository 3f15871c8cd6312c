//! No output clobbers anything: an output that is the same file as an input
//! or another output (by any spelling), one of faultline's own files, or an
//! existing file that is not a regular file is refused in one line naming
//! both flags, before anything runs, and the file is left as it was.
mod common;

use std::path::Path;

use common::{faultline, one_line, succeeded, user_file, Flags, Scratch};

/// One quick case over `file`.
fn quick(file: &Path) -> Flags {
    Flags::new()
        .file(file)
        .method("read")
        .block("4k")
        .cache("as-is")
        .runs(1)
}

#[test]
fn an_export_over_the_input_file_is_refused_and_the_file_untouched() {
    let scratch = Scratch::new();
    let input = scratch.path("in.bin");
    let bytes = user_file(&input, 64 << 10);
    for flag in ["--export-json", "--export-csv", "--export-markdown"] {
        let line = scratch.refused(
            quick(&input).flag(flag, scratch.dir.path().join(".").join("in.bin")),
            &[flag, "is the same file as --file", "choose another output"],
        );
        assert!(line.starts_with("error: "), "{line}");
    }
    assert_eq!(
        std::fs::read(&input).unwrap(),
        bytes,
        "the input is untouched"
    );
    assert!(
        !scratch.data_dir().join("runs").exists(),
        "refused before anything ran"
    );
}

#[test]
fn every_spelling_of_the_input_is_the_same_file() {
    let scratch = Scratch::new();
    let input = scratch.path("in.bin");
    let bytes = user_file(&input, 64 << 10);
    let hard = scratch.path("hard.bin");
    std::fs::hard_link(&input, &hard).unwrap();
    let sym = scratch.path("sym.bin");
    std::os::unix::fs::symlink(&input, &sym).unwrap();
    let through = scratch.path("through");
    std::os::unix::fs::symlink(scratch.dir.path(), &through).unwrap();
    for spelling in [hard, sym, through.join("in.bin")] {
        scratch.refused(
            quick(&input).flag("--export-json", &spelling),
            &["is the same file as --file"],
        );
    }
    // Relative to the current directory, too.
    let out = faultline()
        .current_dir(scratch.dir.path())
        .args([
            "run",
            "--data-dir",
            "data",
            "--file",
            "in.bin",
            "--block",
            "4k",
        ])
        .args([
            "--runs",
            "1",
            "--cache",
            "as-is",
            "--export-csv",
            "./in.bin",
        ])
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &[&format!(
            "--export-csv {}/./in.bin is the same file as --file {}/in.bin",
            scratch.dir.path().display(),
            scratch.dir.path().display()
        )],
    );
    assert_eq!(std::fs::read(&input).unwrap(), bytes);
}

#[test]
fn a_journal_and_an_export_on_one_file_are_refused() {
    let scratch = Scratch::new();
    let j = scratch.path("j.x");
    scratch.refused(
        Flags::new()
            .size("64k")
            .runs(1)
            .journal(&j)
            .export_json(&scratch.path("./j.x")),
        &["--export-json", "is the same file as --journal"],
    );
    assert!(!j.exists(), "no journal was created");
}

#[test]
fn two_exports_on_one_file_are_refused() {
    let scratch = Scratch::new();
    let s = scratch.path("s");
    scratch.refused(
        Flags::new()
            .size("64k")
            .runs(1)
            .export_json(&s)
            .flag("--export-csv", &s),
        &["--export-csv", "is the same file as --export-json"],
    );
    // Two new files of one name through different directories.
    let link = scratch.path("link");
    std::os::unix::fs::symlink(scratch.dir.path(), &link).unwrap();
    scratch.refused(
        Flags::new()
            .size("64k")
            .runs(1)
            .export_json(&s)
            .flag("--export-markdown", link.join("s")),
        &["--export-markdown", "is the same file as --export-json"],
    );
    assert!(!s.exists());
}

#[test]
fn an_export_onto_a_device_node_or_other_non_file_is_refused_and_kept() {
    use std::os::unix::fs::FileTypeExt;
    let scratch = Scratch::new();
    let fifo = scratch.path("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let to_null = scratch.path("to-null");
    std::os::unix::fs::symlink("/dev/null", &to_null).unwrap();
    let dir = scratch.path("adir");
    std::fs::create_dir(&dir).unwrap();
    for (path, kind) in [
        (
            Path::new("/dev/null"),
            "is a character device, not a regular file",
        ),
        (fifo.as_path(), "is a FIFO (named pipe), not a regular file"),
        (
            to_null.as_path(),
            "is a character device, not a regular file",
        ),
        (dir.as_path(), "is a directory, not a regular file"),
    ] {
        scratch.refused(
            Flags::new().size("64k").runs(1).export_json(path),
            &[
                "--export-json",
                kind,
                "faultline only replaces regular files",
            ],
        );
    }
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert!(std::fs::symlink_metadata(&to_null)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
#[ignore = "needs root"]
fn a_device_node_made_with_mknod_is_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    common::require_root("making a device node");
    let scratch = Scratch::new();
    let node = scratch.path("dev0");
    nix::sys::stat::mknod(
        &node,
        nix::sys::stat::SFlag::S_IFCHR,
        nix::sys::stat::Mode::from_bits_truncate(0o600),
        nix::sys::stat::makedev(1, 3),
    )
    .unwrap();
    scratch.refused(
        Flags::new().size("64k").runs(1).export_json(&node),
        &["is a character device"],
    );
    assert!(std::fs::symlink_metadata(&node)
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn faultline_s_own_files_are_no_output() {
    let scratch = Scratch::new();
    succeeded(&mut scratch.run(Flags::new().size("64k").cache("as-is").runs(1)));
    let dataset = common::file_ending(&scratch.data_dir(), ".data").unwrap();
    let before = std::fs::read(&dataset).unwrap();
    scratch.refused(
        Flags::new().size("64k").runs(1).export_json(&dataset),
        &["is one of faultline's own files"],
    );
    assert_eq!(std::fs::read(&dataset).unwrap(), before);
}

#[test]
fn a_report_over_its_own_results_is_refused() {
    let scratch = Scratch::new();
    let json = scratch.path("r.json");
    succeeded(
        &mut scratch.run(
            Flags::new()
                .size("64k")
                .cache("as-is")
                .runs(1)
                .export_json(&json),
        ),
    );
    let before = std::fs::read(&json).unwrap();
    let out = faultline()
        .arg("report")
        .arg(&json)
        .arg("-o")
        .arg(scratch.dir.path().join(".").join("r.json"))
        .output()
        .unwrap();
    one_line(&out, 2, &["--output", "is the same file as RESULTS.json"]);
    // A plot file that is the results, through a link.
    let plots = scratch.path("plots");
    std::fs::create_dir(&plots).unwrap();
    std::fs::hard_link(&json, plots.join("throughput.svg")).unwrap();
    let out = faultline()
        .arg("report")
        .arg(&json)
        .arg("-o")
        .arg(scratch.path("r.html"))
        .arg("--plots")
        .arg(&plots)
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &["--plots", "throughput.svg is the same file as RESULTS.json"],
    );
    assert_eq!(std::fs::read(&json).unwrap(), before);
    assert!(
        !scratch.path("r.html").exists(),
        "refused before anything was written"
    );
}

#[test]
fn a_resume_that_would_export_over_its_journal_or_file_is_refused() {
    let scratch = Scratch::new();
    let input = scratch.path("in.bin");
    user_file(&input, 64 << 10);
    let journal = scratch.path("run.journal");
    succeeded(&mut scratch.run(quick(&input).journal(&journal)));
    let before = std::fs::read(&journal).unwrap();
    for (export, needle) in [
        (&journal, "is the same file as --resume"),
        (&input, "is the same file as --file"),
    ] {
        let out = faultline()
            .args(["run", "--data-dir"])
            .arg(scratch.data_dir())
            .arg("--resume")
            .arg(&journal)
            .arg("--export-json")
            .arg(export)
            .output()
            .unwrap();
        one_line(&out, 2, &["--export-json", needle]);
    }
    assert_eq!(std::fs::read(&journal).unwrap(), before);
}

#[test]
fn reproduce_checks_every_preset_s_exports_and_its_report() {
    let scratch = Scratch::new();
    let out = scratch
        .reproduce("all", ["--scale-down", "64"])
        .arg("--export-json")
        .arg(scratch.path("x"))
        .arg("--export-csv")
        .arg(scratch.path("x"))
        .output()
        .unwrap();
    // Per preset: x-sun2002 and so on, the same for both flags.
    one_line(
        &out,
        2,
        &["--export-csv", "is the same file as --export-json"],
    );
    let out = scratch
        .reproduce("liege2018", ["--scale-down", "64"])
        .arg("--report")
        .arg(scratch.path("r"))
        .arg("--export-markdown")
        .arg(scratch.path("r"))
        .output()
        .unwrap();
    one_line(
        &out,
        2,
        &["--export-markdown", "is the same file as --report"],
    );
    assert!(!scratch.data_dir().join("runs").exists(), "nothing ran");
}

#[test]
fn keep_output_over_the_input_image_is_refused() {
    let scratch = Scratch::new();
    let image = scratch.path("in.ppm");
    let mut ppm = b"P6\n4 4\n255\n".to_vec();
    ppm.extend(std::iter::repeat_n(9u8, 48));
    std::fs::write(&image, &ppm).unwrap();
    scratch.refused(
        Flags::new()
            .file(&image)
            .workload("scale")
            .flag("--factor", "2")
            .runs(1)
            .flag("--keep-output", &image),
        &["--keep-output", "is the same file as --file"],
    );
    assert_eq!(std::fs::read(&image).unwrap(), ppm);
}

#[test]
fn faultline_s_lock_marker_and_journals_are_no_output_wherever_they_are() {
    let scratch = Scratch::new();
    let input = scratch.path("in.bin");
    user_file(&input, 64 << 10);
    let journal = scratch.path("first.journal");
    succeeded(&mut scratch.run(quick(&input).journal(&journal)));
    let lock = scratch.data_dir().join(".faultline-lock");
    assert!(lock.is_file(), "the run left its data directory's lock");
    // A journal copied under any name, a file with a journal's name outside
    // the data directory, the data directory's lock and marker names.
    let renamed = scratch.path("notes.txt");
    std::fs::copy(&journal, &renamed).unwrap();
    let named = scratch.path("faultline-run-1-2.journal");
    std::fs::write(&named, b"kept").unwrap();
    let marker = scratch.path(".faultline-active-1");
    std::fs::write(&marker, b"kept").unwrap();
    for (output, why) in [
        (&journal, "a faultline journal"),
        (&renamed, "a faultline journal"),
        (&named, "a name faultline gives its journals"),
        (&lock, "a temporary, lock or marker file"),
        (&marker, "a temporary, lock or marker file"),
    ] {
        let before = std::fs::read(output).unwrap();
        for flag in ["--export-json", "--export-csv", "--export-markdown"] {
            scratch.refused(
                quick(&input).flag(flag, output),
                &[flag, "is one of faultline's own files", why],
            );
        }
        assert_eq!(std::fs::read(output).unwrap(), before, "{output:?} kept");
    }
    // report -o too.
    let results = scratch.path("r.json");
    succeeded(&mut scratch.run(quick(&input).export_json(&results)));
    let out = faultline()
        .arg("report")
        .arg(&results)
        .arg("-o")
        .arg(&renamed)
        .output()
        .unwrap();
    one_line(&out, 2, &["--output", "a faultline journal"]);
}

#[test]
fn an_existing_file_is_never_a_new_journal() {
    let scratch = Scratch::new();
    let input = scratch.path("in.bin");
    user_file(&input, 64 << 10);
    let mine = scratch.path("mine.txt");
    std::fs::write(&mine, b"mine\n").unwrap();
    let dangling = scratch.path("dangling");
    std::os::unix::fs::symlink(scratch.path("nowhere"), &dangling).unwrap();
    for path in [&mine, &dangling] {
        scratch.refused(
            quick(&input).journal(path),
            &["--journal", "already exists", "faultline run --resume"],
        );
    }
    assert_eq!(std::fs::read(&mine).unwrap(), b"mine\n");
    assert!(!scratch.path("nowhere").exists());
}

#[test]
fn an_output_that_names_a_directory_or_cannot_be_created_is_refused_before_anything_runs() {
    let scratch = Scratch::new();
    let input = scratch.path("in.bin");
    user_file(&input, 64 << 10);
    let journal = scratch.path("j.journal");
    for (path, needles) in [
        (
            scratch.path("x/"),
            &["names a directory; give a file name"][..],
        ),
        (
            scratch.path("x/."),
            &["names a directory; give a file name"][..],
        ),
        // procfs makes no files: refused now, not after the trials.
        (
            std::path::PathBuf::from("/proc/self/x.json"),
            &["faultline cannot create a file in /proc/self"][..],
        ),
    ] {
        scratch.refused(quick(&input).journal(&journal).export_json(&path), needles);
        assert!(!journal.exists(), "nothing ran for {path:?}");
    }
    // An output that is the data directory, not made yet.
    let data = scratch.path("fresh-data");
    let out = faultline()
        .arg("run")
        .arg("--data-dir")
        .arg(&data)
        .args(["--size", "64k", "--runs", "1", "--cache", "as-is"])
        .arg("--export-json")
        .arg(&data)
        .output()
        .unwrap();
    one_line(&out, 2, &["is the same file as the data directory"]);
    // No probe file is left behind.
    let left: Vec<_> = common::entries(scratch.dir.path())
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".faultline-tmp-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
