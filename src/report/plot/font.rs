//! The one font the plots use: DejaVu Sans, embedded, for measuring text and
//! for rasterising SVG to PNG.
//!
//! The SVG names only the generic `sans-serif` family, so a browser draws it
//! with whatever sans-serif font it has. For the PNG, each `<text>` element
//! is first turned into a `<path>` of this embedded font's glyph outlines
//! (placed by its advance widths, its `text-anchor` and `dy`), and resvg
//! rasterises the paths: no font is looked up, so the PNG comes out the same
//! on every machine, with or without fontconfig. Labels are laid out with
//! this font's advance widths (at most a few pixels off from another
//! sans-serif). (resvg's own text layout would bring a shaping engine and
//! two font crates, a third of faultline's build time, for labels that need
//! no shaping.)
//!
//! The font file is `assets/fonts/DejaVuSans.ttf`, unmodified from Debian's
//! fonts-dejavu-core; its licence (Bitstream Vera, DejaVu changes in the
//! public domain) permits redistribution and is in
//! `assets/fonts/LICENSE-DejaVu.txt`.
use std::fmt::Write as _;
use std::io;
use std::sync::OnceLock;

use resvg::{tiny_skia, usvg};

/// DejaVu Sans 2.37, as shipped by Debian.
pub(super) static DEJAVU_SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// The embedded font, parsed once.
fn face() -> Option<&'static ttf_parser::Face<'static>> {
    static FACE: OnceLock<Option<ttf_parser::Face<'static>>> = OnceLock::new();
    FACE.get_or_init(|| ttf_parser::Face::parse(DEJAVU_SANS, 0).ok())
        .as_ref()
}

/// The advance of `c` in em (`None` when the font lacks it); the printable
/// ASCII characters are looked up once.
fn advance_em(c: char) -> Option<f64> {
    static ASCII: OnceLock<Vec<Option<f64>>> = OnceLock::new();
    let lookup = |c: char| {
        let face = face()?;
        let glyph = face.glyph_index(c)?;
        let advance = face.glyph_hor_advance(glyph)?;
        Some(f64::from(advance) / f64::from(face.units_per_em()))
    };
    match u32::from(c) {
        n @ 0..=127 => {
            ASCII.get_or_init(|| (0..128u8).map(|b| lookup(char::from(b))).collect())[n as usize]
        }
        _ => lookup(c),
    }
}

/// Width of `text` in pixels at a font size of `px` pixels.
///
/// Characters the font lacks count as 0.6 em, about the width of a digit.
pub(crate) fn text_width(text: &str, px: f64) -> f64 {
    text.chars()
        .map(|c| advance_em(c).unwrap_or(0.6) * px)
        .sum()
}

/// `text`, shortened with an ellipsis so that it is at most `max` pixels
/// wide at `px` pixels.
pub(crate) fn fit(text: &str, px: f64, max: f64) -> String {
    if text_width(text, px) <= max {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let candidate: String = chars.iter().collect::<String>() + "…";
        if text_width(&candidate, px) <= max {
            return candidate;
        }
    }
    "…".to_string()
}

/// Writes the outline of one glyph as SVG path data, scaled from font
/// units (y up) to pixels (y down) and moved to (`x`, `y`).
struct PathWriter<'a> {
    d: &'a mut String,
    x: f64,
    y: f64,
    scale: f64,
}

impl PathWriter<'_> {
    fn point(&mut self, x: f32, y: f32) {
        let _ = write!(
            self.d,
            "{:.2} {:.2} ",
            self.x + f64::from(x) * self.scale,
            self.y - f64::from(y) * self.scale
        );
    }
}

impl ttf_parser::OutlineBuilder for PathWriter<'_> {
    fn move_to(&mut self, x: f32, y: f32) {
        self.d.push('M');
        self.point(x, y);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.d.push('L');
        self.point(x, y);
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        self.d.push('Q');
        self.point(x1, y1);
        self.point(x, y);
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        self.d.push('C');
        self.point(x1, y1);
        self.point(x2, y2);
        self.point(x, y);
    }
    fn close(&mut self) {
        self.d.push('Z');
    }
}

/// A length of `dy` (`0.5ex`, `0.76em`, `3`, `-2px`) in pixels at font size
/// `px`; an ex is half an em, as resvg takes it.
fn length(value: &str, px: f64) -> f64 {
    let value = value.trim();
    let (number, unit) = match value.find(|c: char| c.is_ascii_alphabetic() || c == '%') {
        Some(i) => value.split_at(i),
        None => (value, ""),
    };
    let n: f64 = number.trim().parse().unwrap_or(0.0);
    match unit {
        "em" => n * px,
        "ex" => n * px / 2.0,
        _ => n,
    }
}

/// The SVG path data of `text` set at `px` pixels with its baseline's
/// start at (`x`, `y`).
fn text_path(text: &str, px: f64, x: f64, y: f64) -> String {
    let mut d = String::new();
    let Some(face) = face() else {
        return d;
    };
    let scale = px / f64::from(face.units_per_em());
    let mut pen = x;
    for c in text.chars() {
        let glyph = face.glyph_index(c);
        if let Some(glyph) = glyph {
            let mut writer = PathWriter {
                d: &mut d,
                x: pen,
                y,
                scale,
            };
            face.outline_glyph(glyph, &mut writer);
        }
        pen += advance_em(c).unwrap_or(0.6) * px;
    }
    d
}

/// Escapes `value` for an attribute in double quotes.
fn attribute(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

/// `svg` with every `<text>` element replaced by a `<path>` of its glyph
/// outlines, with the same fill, opacity and transform. Text the SVG holds
/// in any other form (`<tspan>`, `textPath`) is left to resvg, which draws
/// no text.
fn outline_text(svg: &str) -> Result<String, roxmltree::Error> {
    let doc = roxmltree::Document::parse(svg)?;
    let mut out = String::with_capacity(svg.len());
    let mut at = 0;
    for node in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let range = node.range();
        if range.start < at {
            continue;
        }
        out.push_str(&svg[at..range.start]);
        at = range.end;
        let text: String = node
            .children()
            .filter(|c| c.is_text())
            .filter_map(|c| c.text())
            .collect();
        let number = |name: &str| {
            node.attribute(name)
                .and_then(|v| v.trim().trim_end_matches("px").parse::<f64>().ok())
        };
        let px = number("font-size").unwrap_or(16.0);
        let width = text_width(&text, px);
        let mut x = number("x").unwrap_or(0.0);
        x -= match node.attribute("text-anchor") {
            Some("middle") => width / 2.0,
            Some("end") => width,
            _ => 0.0,
        };
        let y = number("y").unwrap_or(0.0) + node.attribute("dy").map_or(0.0, |v| length(v, px));
        let d = text_path(&text, px, x, y);
        if d.is_empty() {
            continue;
        }
        out.push_str(&format!("<path d=\"{d}\""));
        for name in ["fill", "opacity", "fill-opacity", "transform"] {
            if let Some(value) = node.attribute(name) {
                out.push_str(&format!(" {name}=\"{}\"", attribute(value)));
            }
        }
        out.push_str("/>");
    }
    out.push_str(&svg[at..]);
    Ok(out)
}

/// Rasterises an SVG document at its own size, on white, and encodes it as PNG.
pub(crate) fn svg_to_png(svg: &str) -> io::Result<Vec<u8>> {
    let invalid = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    let svg =
        outline_text(svg).map_err(|e| invalid(format!("the plot's SVG does not parse: {e}")))?;
    let tree = usvg::Tree::from_str(&svg, &usvg::Options::default())
        .map_err(|e| invalid(format!("the plot's SVG does not parse: {e}")))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| invalid(format!("empty plot size {size:?}")))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
        .encode_png()
        .map_err(|e| io::Error::other(format!("PNG encoding failed: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_with_the_embedded_font() {
        // DejaVu Sans digits advance 0.636 em.
        let w = text_width("0000000000", 10.0);
        assert!((w - 63.6).abs() < 0.5, "{w}");
        assert!(text_width("mmap", 13.0) > text_width("read", 13.0) * 0.9);
        assert_eq!(text_width("", 13.0), 0.0);
    }

    #[test]
    fn fits_text_with_an_ellipsis() {
        assert_eq!(fit("read", 13.0, 200.0), "read");
        let long = "mmap(populate=madvise,advice=sequential,share=private)";
        let short = fit(long, 13.0, 120.0);
        assert!(
            short.ends_with('…') && text_width(&short, 13.0) <= 120.0,
            "{short}"
        );
        assert_eq!(fit(long, 13.0, 1.0), "…");
    }

    #[test]
    fn rasterises_text_without_system_fonts() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20" viewBox="0 0 60 20"><text x="2" y="15" font-family="sans-serif" font-size="14">Ag</text></svg>"#;
        let png = svg_to_png(svg).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (60, 20));
        let dark = buf
            .chunks(info.color_type.samples())
            .filter(|p| p[0] < 128)
            .count();
        assert!(dark > 20, "the text was drawn: {dark} dark pixels");
        assert!(svg_to_png("<svg").is_err());
    }

    #[test]
    fn text_becomes_outlines_placed_by_anchor_and_dy() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><text x="100" y="20" dy="0.5ex" text-anchor="end" font-size="10" fill="#222222" opacity="1">a&amp;b</text><rect x="0" y="0" width="1" height="1"/></svg>"##;
        let out = outline_text(svg).unwrap();
        assert!(!out.contains("<text"), "{out}");
        assert!(out.contains("<rect"), "the rest is kept: {out}");
        assert!(out.contains(r##"fill="#222222""##) && out.contains(r#"opacity="1""#));
        // Anchored at its end: every point lies left of x = 100, and the
        // text starts its width (of "a&b", unescaped) before it.
        let d = out.split("d=\"").nth(1).unwrap().split('"').next().unwrap();
        let xs: Vec<f64> = d
            .split(|c: char| c.is_ascii_alphabetic())
            .flat_map(|seg| {
                let nums: Vec<f64> = seg.split_whitespace().map(|n| n.parse().unwrap()).collect();
                nums.chunks(2).map(|p| p[0]).collect::<Vec<_>>()
            })
            .collect();
        let width = text_width("a&b", 10.0);
        assert!(xs.iter().all(|&x| x <= 100.0 + 1e-6), "{xs:?}");
        assert!(xs.iter().any(|&x| x < 100.0 - width + 2.0), "{xs:?}");
        // dy 0.5ex at 10 px moves the baseline 2.5 px down.
        assert_eq!(length("0.5ex", 10.0), 2.5);
        assert_eq!(length("0.76em", 10.0), 7.6);
        assert_eq!(length("-3", 10.0), -3.0);
        // Not SVG: an error, not a panic.
        assert!(outline_text("<svg").is_err());
    }
}
