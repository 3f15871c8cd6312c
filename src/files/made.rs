//! Whether a file is one faultline made: an export, a report, a plot, a
//! flame graph or a kept scaled image, recognised by its first bytes.
//!
//! faultline never replaces a file it did not create: an output the user
//! names may exist only when it is one of these (a run rewrites its own
//! exports after every group, and a second run may replace the first one's),
//! so that `--export-json notes.txt`, or a plan that names `~/.bashrc` as
//! its Markdown export, is refused instead of clobbering the file. Each
//! writer leaves its mark; the marks that are not already part of a format
//! (a JSON export's `faultline_version`, a CSV's header, the HTML
//! generator tag) are defined here and written by the writers: a comment
//! in SVG and PPM files, a `tEXt` chunk in PNG files.
use std::io::Read;
use std::path::Path;

/// The comment every SVG faultline writes carries, just inside its root element.
pub const SVG_MARK: &str = "<!-- made by faultline -->";
/// The comment line a PPM faultline keeps (`--keep-output`) carries after its magic.
pub const PPM_MARK: &[u8] = b"# made by faultline\n";
/// The keyword and text of the `tEXt` chunk every PNG faultline writes carries.
pub const PNG_TEXT: (&str, &str) = ("Software", "faultline");

/// How many bytes of a file are read to recognise it.
const HEAD: u64 = 8192;

/// Whether the regular file at `path` starts as a file faultline writes
/// (see the module docs); `false` when it cannot be read.
pub fn by_faultline(path: &Path) -> bool {
    let Ok(file) = crate::input::open(path, "file") else {
        return false;
    };
    let mut head = Vec::new();
    if file.take(HEAD).read_to_end(&mut head).is_err() {
        return false;
    }
    is_marked(&head)
}

/// Whether `head`, the first bytes of a file, carry one of faultline's marks.
pub fn is_marked(head: &[u8]) -> bool {
    let contains = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    // A run's export, or `map`'s or `advise`'s, calibrate's noise record, or
    // the trial times runs record (their format key first).
    let json = head.first() == Some(&b'{')
        && (contains(b"\"faultline_version\":")
            || contains(b"\"faultline_map\":")
            || contains(b"\"faultline_advise\":")
            || contains(b"\"faultline_noise\":")
            || contains(b"\"faultline_trial_times\":"));
    // The samples CSV, the timeline CSV beside it, and the claims CSV.
    let csv = head.starts_with(b"case_id,method_label,")
        || head.starts_with(b"case,method,run,")
        || head.starts_with(b"study,id,claim,kind,");
    let markdown = head.starts_with(b"# faultline ");
    let html = contains(b"<meta name=\"generator\" content=\"faultline ");
    let svg = contains(SVG_MARK.as_bytes());
    let png = head.starts_with(b"\x89PNG\r\n\x1a\n") && contains(&png_text_data());
    let ppm = head.starts_with(b"P6\n") && head[3..].starts_with(PPM_MARK);
    json || csv || markdown || html || svg || png || ppm
}

/// The data of the `tEXt` chunk: keyword, NUL, text.
fn png_text_data() -> Vec<u8> {
    let mut data = Vec::from(PNG_TEXT.0.as_bytes());
    data.push(0);
    data.extend_from_slice(PNG_TEXT.1.as_bytes());
    data
}

/// `svg` with [`SVG_MARK`] just inside its root element (after the `<svg …>`
/// tag); unchanged when it has none.
pub fn mark_svg(svg: &str) -> String {
    let Some(start) = svg.find("<svg") else {
        return svg.to_string();
    };
    let Some(end) = svg[start..].find('>').map(|i| start + i + 1) else {
        return svg.to_string();
    };
    format!("{}{SVG_MARK}{}", &svg[..end], &svg[end..])
}

/// `png` with a `tEXt` chunk of [`PNG_TEXT`] after its header chunk;
/// unchanged when it does not start as a PNG with an IHDR chunk.
pub fn mark_png(png: &[u8]) -> Vec<u8> {
    const IHDR_END: usize = 8 + 4 + 4 + 13 + 4;
    if png.len() < IHDR_END || !png.starts_with(b"\x89PNG\r\n\x1a\n") || &png[12..16] != b"IHDR" {
        return png.to_vec();
    }
    let data = png_text_data();
    let mut chunk = Vec::with_capacity(12 + data.len());
    chunk.extend_from_slice(&(data.len() as u32).to_be_bytes());
    chunk.extend_from_slice(b"tEXt");
    chunk.extend_from_slice(&data);
    let crc = crc32fast::hash(&chunk[4..]);
    chunk.extend_from_slice(&crc.to_be_bytes());
    let mut out = Vec::with_capacity(png.len() + chunk.len());
    out.extend_from_slice(&png[..IHDR_END]);
    out.extend_from_slice(&chunk);
    out.extend_from_slice(&png[IHDR_END..]);
    out
}

/// A P6 file with [`PPM_MARK`] after its magic; unchanged when it does not
/// start with `P6\n`.
pub fn mark_ppm(ppm: &[u8]) -> Vec<u8> {
    if !ppm.starts_with(b"P6\n") {
        return ppm.to_vec();
    }
    let mut out = Vec::with_capacity(ppm.len() + PPM_MARK.len());
    out.extend_from_slice(&ppm[..3]);
    out.extend_from_slice(PPM_MARK);
    out.extend_from_slice(&ppm[3..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_export_faultline_writes_is_recognised_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        // With a claim, so that the claims CSV beside the CSV is written too.
        let mut results = crate::fixtures::results();
        results.claims = vec![crate::results::claim::ClaimOutcome::default()];
        let exports = crate::report::Exports {
            json: Some(dir.path().join("r.json")),
            csv: Some(dir.path().join("r.csv")),
            markdown: Some(dir.path().join("r.md")),
        };
        exports.write_all(&results).unwrap();
        crate::report::export::html::write_html(&results, &dir.path().join("r.html")).unwrap();
        let plots = crate::report::write_plots(&results, &dir.path().join("plots")).unwrap();
        assert!(!plots.is_empty());
        for path in ["r.json", "r.csv", "r-claims.csv", "r.md", "r.html"]
            .iter()
            .map(|n| dir.path().join(n))
            .chain(plots)
        {
            assert!(by_faultline(&path), "{path:?} is not recognised");
        }
        let ppm = dir.path().join("kept.ppm");
        crate::files::image::write_ppm_atomically(&ppm, 2, 1, &[0; 6]).unwrap();
        assert!(by_faultline(&ppm));
        assert_eq!(
            crate::workload::ppm::parse_image(&std::fs::read(&ppm).unwrap())
                .unwrap()
                .0
                .width,
            2,
            "the mark is a comment the image's readers skip"
        );
        for (name, bytes) in [
            ("notes.txt", &b"my notes"[..]),
            ("data.json", b"{\"a\": 1}"),
            ("empty", b""),
            ("image.ppm", b"P6\n2 1\n255\n\0\0\0\0\0\0"),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            assert!(!by_faultline(&path), "{name}");
        }
        assert!(!by_faultline(Path::new("/dev/zero")));
    }

    #[test]
    fn a_marked_png_still_decodes() {
        let png = crate::report::plots(&crate::fixtures::results())[0]
            .png()
            .unwrap();
        let marked = mark_png(&png);
        assert!(is_marked(&marked[..(HEAD as usize).min(marked.len())]));
        let decoder = png::Decoder::new(std::io::Cursor::new(marked));
        let reader = decoder.read_info().unwrap();
        assert!(reader
            .info()
            .uncompressed_latin1_text
            .iter()
            .any(|t| t.keyword == "Software" && t.text == "faultline"));
    }
}
