//! The one font the plots use: DejaVu Sans, embedded, for measuring text and
//! for rasterising SVG to PNG.
//!
//! The SVG names only the generic `sans-serif` family, so a browser draws it
//! with whatever sans-serif font it has. The PNG is rasterised with resvg
//! from a font database that holds this embedded font and nothing else: no
//! system font is looked up, so the PNG comes out the same on every machine,
//! with or without fontconfig. Labels are laid out with this font's advance
//! widths (at most a few pixels off from another sans-serif).
//!
//! The font file is `assets/fonts/DejaVuSans.ttf`, unmodified from Debian's
//! fonts-dejavu-core; its licence (Bitstream Vera, DejaVu changes in the
//! public domain) permits redistribution and is in
//! `assets/fonts/LICENSE-DejaVu.txt`.
use std::io;
use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};
use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, MetadataProvider};

/// DejaVu Sans 2.37, as shipped by Debian.
pub(super) static DEJAVU_SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// The family name inside [`DEJAVU_SANS`].
const FAMILY: &str = "DejaVu Sans";

/// Width of `text` in pixels at a font size of `px` pixels.
///
/// Characters the font lacks count as 0.6 em, about the width of a digit.
pub(crate) fn text_width(text: &str, px: f64) -> f64 {
    let Ok(font) = FontRef::new(DEJAVU_SANS) else {
        return text.chars().count() as f64 * px * 0.6;
    };
    let charmap = font.charmap();
    let metrics = font.glyph_metrics(Size::new(px as f32), LocationRef::default());
    text.chars()
        .map(|c| {
            charmap
                .map(c)
                .and_then(|g| metrics.advance_width(g))
                .map_or(px * 0.6, f64::from)
        })
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

/// Parser options whose font database holds only the embedded font, which
/// also serves every generic family.
fn options() -> &'static usvg::Options<'static> {
    static OPTIONS: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(DEJAVU_SANS.to_vec());
        db.set_sans_serif_family(FAMILY);
        db.set_serif_family(FAMILY);
        db.set_monospace_family(FAMILY);
        db.set_cursive_family(FAMILY);
        db.set_fantasy_family(FAMILY);
        usvg::Options {
            font_family: FAMILY.to_string(),
            fontdb: Arc::new(db),
            ..usvg::Options::default()
        }
    })
}

/// Rasterises an SVG document at its own size, on white, and encodes it as PNG.
pub(crate) fn svg_to_png(svg: &str) -> io::Result<Vec<u8>> {
    let invalid = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    let tree = usvg::Tree::from_str(svg, options())
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
}
