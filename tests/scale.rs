//! The `scale` workload through the real binary: the kept output equals a
//! reference implementation, and every bad PPM is refused with one line.
mod common;

use common::{cases, file_ending, samples, Flags, Scratch};

/// Nearest-neighbour scaling written out pixel by pixel, independent of
/// faultline's: reduce keeps pixel (k·x, k·y), enlarge copies (x/k, y/k).
fn reference(w: usize, h: usize, pixels: &[u8], factor: i64) -> (usize, usize, Vec<u8>) {
    let k = factor.unsigned_abs() as usize;
    let enlarge = factor < 0;
    let (ow, oh) = if enlarge {
        (w * k, h * k)
    } else {
        ((w / k).max(1), (h / k).max(1))
    };
    let mut out = Vec::with_capacity(ow * oh * 3);
    for y in 0..oh {
        for x in 0..ow {
            let (sx, sy) = if enlarge {
                (x / k, y / k)
            } else {
                (x * k, y * k)
            };
            let at = (sy * w + sx) * 3;
            out.extend_from_slice(&pixels[at..at + 3]);
        }
    }
    (ow, oh, out)
}

/// Parses the `P6\n# comment\nW H\n255\n` header faultline writes, by hand.
fn parse(bytes: &[u8]) -> (usize, usize, Vec<u8>) {
    let mut fields = Vec::new();
    let mut pos = 0;
    while fields.len() < 4 {
        while bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if bytes[pos] == b'#' {
            // A comment (faultline marks the images it keeps), to its line's end.
            while bytes[pos] != b'\n' {
                pos += 1;
            }
            continue;
        }
        let start = pos;
        while !bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        fields.push(String::from_utf8(bytes[start..pos].to_vec()).unwrap());
    }
    pos += 1; // the single separator after maxval
    assert_eq!(fields[0], "P6");
    assert_eq!(fields[3], "255");
    let (w, h): (usize, usize) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
    assert_eq!(bytes.len() - pos, w * h * 3, "raster length");
    (w, h, bytes[pos..].to_vec())
}

#[test]
fn kept_output_equals_the_reference_for_each_factor_and_method() {
    let s = Scratch::new();
    let image = s.path("in.ppm");
    // An odd size, so that reductions drop a partial edge.
    std::fs::write(&image, faultline::workload::ppm::generate(101, 67, 9)).unwrap();
    let (w, h, pixels) = parse(&std::fs::read(&image).unwrap());
    for factor in ["2", "3", "4", "8", "-2", "-3"] {
        for method in ["read", "mmap"] {
            let out = s.path(&format!("out-{method}{factor}.ppm"));
            let json = s.run_json(
                Flags::new()
                    .file(&image)
                    .workload("scale")
                    .flag("--factor", factor)
                    .method(method)
                    .cache("warm")
                    .runs(1)
                    .flag("--keep-output", &out),
            );
            let (_, sample) = &samples(&json)[0];
            assert!(sample["checksum"].as_u64().unwrap() != 0);
            let got = parse(&std::fs::read(&out).unwrap());
            let want = reference(w, h, &pixels, factor.parse().unwrap());
            assert_eq!((got.0, got.1), (want.0, want.1), "{method} {factor}");
            assert!(got.2 == want.2, "{method} {factor}: pixels differ");
        }
    }
}

#[test]
fn enlarge_flag_and_generated_image() {
    let s = Scratch::new();
    let out = s.path("big.ppm");
    let json = s.run_json(
        Flags::new()
            .workload("scale")
            .flag("--image", "40x30")
            .flag("--factor", "2")
            .switch("--enlarge")
            .method("read,mmap")
            .cache("warm")
            .runs(2)
            .threads("1,2")
            .thread_mode("replicate")
            .flag("--keep-output", &out),
    );
    let cases = cases(&json);
    assert_eq!(cases.len(), 4);
    assert!(cases.iter().all(|c| c["block_size"] == c["file_size"]));
    let generated =
        file_ending(&s.data_dir(), ".ppm").expect("the generated image is in the data dir");
    let (w, h, pixels) = parse(&std::fs::read(generated).unwrap());
    assert_eq!((w, h), (40, 30));
    let got = parse(&std::fs::read(&out).unwrap());
    assert_eq!(got, reference(w, h, &pixels, -2));
    // Every case scaled the same bytes to the same image.
    let sums: Vec<_> = samples(&json)
        .iter()
        .map(|(_, s)| s["checksum"].clone())
        .collect();
    assert!(sums.iter().all(|c| *c == sums[0]), "{sums:?}");
}

/// A scale run of a PPM file holding `content` is refused in one line that
/// names the file and holds `needle`.
#[track_caller]
fn bad_ppm_refused(content: &[u8], needle: &str) {
    let s = Scratch::new();
    let file = s.path("bad.ppm");
    std::fs::write(&file, content).unwrap();
    s.refused(
        Flags::new().file(&file).workload("scale").runs(1),
        &[needle, "bad.ppm"],
    );
}

#[test]
fn a_ppm_with_the_wrong_magic_is_refused() {
    bad_ppm_refused(
        b"P3\n2 2\n255\n1 2 3 4 5 6 7 8 9 10 11 12\n",
        "not a binary PPM (P6)",
    );
}

#[test]
fn a_truncated_ppm_header_is_refused() {
    bad_ppm_refused(b"P6\n12", "truncated PPM header");
}

#[test]
fn a_ppm_larger_than_its_file_is_refused() {
    let mut data = b"P6\n100 100\n255\n".to_vec();
    data.extend_from_slice(&[7u8; 300]);
    bad_ppm_refused(&data, "bad.ppm");
}

#[test]
fn a_file_too_large_for_one_block_is_refused_before_it_is_read() {
    let s = Scratch::new();
    let file = s.path("bad.ppm");
    // Sparse: 65 MiB long without being written.
    let f = std::fs::File::create(&file).unwrap();
    f.set_len(65 << 20).unwrap();
    s.refused(
        Flags::new().file(&file).workload("scale"),
        &["bad.ppm", "is 65 MiB, larger than the 64 MiB"],
    );
}

#[test]
fn a_ppm_whose_size_overflows_is_refused() {
    bad_ppm_refused(b"P6\n4294967295 4294967295\n255\nxyz", "bad.ppm");
}

#[test]
fn a_ppm_with_maxval_over_255_is_refused() {
    let mut data = b"P6\n2 2\n65535\n".to_vec();
    data.extend_from_slice(&[1u8; 24]);
    bad_ppm_refused(&data, "maxval");
    let mut data = b"P6\n2 2\n300\n".to_vec();
    data.extend_from_slice(&[1u8; 24]);
    bad_ppm_refused(&data, "maxval");
}

#[test]
fn scale_flags_that_do_not_fit_are_refused() {
    let s = Scratch::new();
    for (flags, needle) in [
        (&["--workload", "scale", "--block", "4k"][..], "one block"),
        (&["--workload", "scale,sum"][..], "runs alone"),
        (&["--workload", "scale", "--size", "1M"][..], "not --size"),
        (
            &["--workload", "sum", "--factor", "2"][..],
            "--factor is for --workload scale",
        ),
        (&["--workload", "scale", "--factor", "0"][..], "at least 1"),
        (&["--workload", "scale", "--image", "0x4"][..], "no pixels"),
    ] {
        s.refused(flags, &[needle]);
    }
}
