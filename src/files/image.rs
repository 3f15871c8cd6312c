//! The PPM images of the `scale` workload: the generated test image, the
//! check of a user's image before anything runs, and `--keep-output`.
use std::fs;
use std::path::Path;

use crate::error::{Error, Result};
use crate::files::dataset::{self, Dataset};
use crate::workload::ppm::{generate, parse_image, write_ppm};

/// The default size of the generated image: the 2002 study's 1280 × 1024.
pub const DEFAULT_IMAGE: (u32, u32) = (1280, 1024);

/// The largest image a scale trial reads (it is one block; as `--block`'s maximum).
pub const MAX_IMAGE_BYTES: u64 = 64 << 20;

/// The name of the generated `width × height` image from `seed`.
pub fn image_name(width: u32, height: u32, seed: u64) -> String {
    format!("{}image-{width}x{height}-{seed:016x}.ppm", dataset::PREFIX)
}

/// The length in bytes of the generated `width × height` image (header included).
pub fn image_len(width: u32, height: u32) -> u64 {
    format!("P6\n{width} {height}\n255\n").len() as u64 + u64::from(width) * u64::from(height) * 3
}

/// Whether `path` (named `name`) is an image [`ensure_image`] generated:
/// faultline's image name, and exactly the bytes that name promises (the
/// marker `clean` needs before it removes a file).
pub fn is_generated_image(path: &Path, name: &str) -> bool {
    let Some(middle) = name
        .strip_prefix(dataset::PREFIX)
        .and_then(|n| n.strip_prefix("image-"))
        .and_then(|n| n.strip_suffix(".ppm"))
    else {
        return false;
    };
    let Some((size, seed)) = middle.split_once('-') else {
        return false;
    };
    let (Ok((w, h)), Ok(seed)) = (parse_image_size(size), u64::from_str_radix(seed, 16)) else {
        return false;
    };
    let len = image_len(w, h);
    len <= MAX_IMAGE_BYTES + 64
        && fs::metadata(path).is_ok_and(|m| m.len() == len)
        && fs::read(path).is_ok_and(|have| have == generate(w, h, seed))
}

/// Parses `WxH` (e.g. `1280x1024`), both sides at least 1.
pub fn parse_image_size(s: &str) -> std::result::Result<(u32, u32), String> {
    let bad = || format!("invalid image size {s:?}: use WIDTHxHEIGHT, e.g. 1280x1024");
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.parse().map_err(|_| bad())?;
    let h: u32 = h.parse().map_err(|_| bad())?;
    if w == 0 || h == 0 {
        return Err(format!(
            "image size {s:?} has no pixels: both sides must be at least 1"
        ));
    }
    Ok((w, h))
}

/// Returns the generated `width × height` image from `seed` in `dir`
/// (a P6 PPM made by [`generate`]), writing it atomically if it is missing or
/// does not hold exactly the bytes its name promises. A user's file like
/// any other from then on (`seed` is `None`): a resumed run checks its size.
pub fn ensure_image(
    dir: &Path,
    width: u32,
    height: u32,
    seed: u64,
    on_generate: impl FnOnce(&Path),
) -> Result<Dataset> {
    let limit = MAX_IMAGE_BYTES;
    if u64::from(width) * u64::from(height) * 3 > limit {
        return Err(Error::Plan(format!(
            "--image {width}x{height} is larger than the {} a scale trial reads as one block",
            crate::size::format_size(limit)
        )));
    }
    dataset::ensure_private_dir(dir)?;
    let name = image_name(width, height, seed);
    let path = dir.join(&name);
    let content = generate(width, height, seed);
    let size = content.len() as u64;
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() => {
            if fs::read(&path).is_ok_and(|have| have == content) {
                return Ok(Dataset {
                    path,
                    size,
                    seed: None,
                });
            }
            fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
        }
        Ok(_) => {
            return Err(Error::BadFile {
                path,
                why: "exists but is not a regular file; remove it".into(),
            })
        }
        Err(_) => {}
    }
    on_generate(&path);
    let path = dataset::write_own_file(dir, &name, |f| f.write_all(&content))?;
    Ok(Dataset {
        path,
        size,
        seed: None,
    })
}

/// Checks, before anything runs, that a user's file is a whole P6 image the
/// `scale` workload can use; the error names the file and says why in one line.
pub fn check_user_image(path: &Path) -> Result<()> {
    // Sized first: the whole file is read into memory to be parsed.
    let len = fs::metadata(path)
        .map_err(|e| Error::io("stat", path, e))?
        .len();
    if len > MAX_IMAGE_BYTES {
        return Err(Error::BadFile {
            path: path.to_path_buf(),
            why: format!(
                "is {}, larger than the {} a scale trial reads as one block",
                crate::size::format_size(len),
                crate::size::format_size(MAX_IMAGE_BYTES)
            ),
        });
    }
    let bytes = crate::input::read_limited(path, "PPM image", MAX_IMAGE_BYTES)?;
    parse_image(&bytes).map(|_| ()).map_err(|e| Error::BadFile {
        path: path.to_path_buf(),
        why: format!("is not an image --workload scale can use: {e}"),
    })
}

/// Writes a P6 image to `path` atomically (a temporary beside it, renamed).
pub fn write_ppm_atomically(path: &Path, width: u32, height: u32, pixels: &[u8]) -> Result<()> {
    let mut out = Vec::with_capacity(pixels.len() + 32);
    write_ppm(&mut out, width, height, pixels).map_err(|e| Error::io("write", path, e))?;
    let out = super::made::mark_ppm(&out);
    super::atomic::write_atomically(path, super::atomic::SHARED_MODE, |f| f.write_all(&out))?;
    Ok(())
}

/// The generated image whose file is `size` bytes: of the width × height
/// pairs with that length, the one nearest to 5:4 (the 2002 study's
/// 1280 × 1024).
pub fn image_dims(size: u64) -> Option<(u32, u32)> {
    let mut best: Option<(u32, u32)> = None;
    let off = |(w, h): (u32, u32)| (f64::from(w) / f64::from(h) / 1.25).ln().abs();
    for h in 1..=65_535u32 {
        if 3 * u64::from(h) > size {
            break;
        }
        for digits in 1..=10u32 {
            let header = image_len(1, h) - 3 * u64::from(h) - 1 + u64::from(digits);
            let Some(pixels) = size.checked_sub(header) else {
                continue;
            };
            if pixels == 0 || pixels % (3 * u64::from(h)) != 0 {
                continue;
            }
            let Ok(w) = u32::try_from(pixels / (3 * u64::from(h))) else {
                continue;
            };
            if w.to_string().len() as u32 == digits
                && image_len(w, h) == size
                && best.is_none_or(|b| off((w, h)) < off(b))
            {
                best = Some((w, h));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_sizes_parse() {
        assert_eq!(parse_image_size("1280x1024"), Ok((1280, 1024)));
        assert_eq!(parse_image_size("3X2"), Ok((3, 2)));
        assert!(parse_image_size("0x5").is_err());
        assert!(parse_image_size("12").is_err());
        assert!(parse_image_size("ax5").is_err());
    }

    #[test]
    fn the_image_is_generated_once_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let mut generated = 0;
        let a = ensure_image(dir.path(), 37, 23, 5, |_| generated += 1).unwrap();
        let b = ensure_image(dir.path(), 37, 23, 5, |_| generated += 1).unwrap();
        assert_eq!(generated, 1);
        assert_eq!(a, b);
        let bytes = fs::read(&a.path).unwrap();
        assert_eq!(bytes, generate(37, 23, 5));
        assert_eq!(a.size, bytes.len() as u64);
        assert_eq!(image_len(37, 23), a.size);
        let name = a.path.file_name().unwrap().to_str().unwrap().to_string();
        assert!(is_generated_image(&a.path, &name));
        let removed = super::super::clean::clean(dir.path(), &|_| false).unwrap();
        assert_eq!(removed.files, vec![a.path.clone()], "clean removes it");
        ensure_image(dir.path(), 37, 23, 5, |_| generated += 1).unwrap();
        assert_eq!(generated, 2);
        fs::write(&a.path, b"P6 1 1 255\n...").unwrap();
        assert!(
            !is_generated_image(&a.path, &name),
            "not what its name promises"
        );
        ensure_image(dir.path(), 37, 23, 5, |_| generated += 1).unwrap();
        assert_eq!(generated, 3, "a modified image is regenerated");
    }
}
