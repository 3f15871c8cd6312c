//! Parsing and printing byte sizes: `512`, `4k`, `4KiB`, `4KB` (1000-based),
//! `16M`, `1G`, `1GiB`, `1.5M`; and the one checked parser of every flag
//! given in seconds ([`parse_seconds`]).
use crate::error::{Error, Result};

/// Parses a size. Single letters and `*iB` suffixes are powers of 1024;
/// `KB`, `MB`, `GB`, `TB` are powers of 1000. A decimal point is allowed if the
/// result is a whole number of bytes.
pub fn parse_size(input: &str) -> Result<u64> {
    let err = |why| Error::Size {
        input: input.to_string(),
        why,
    };
    let s = input.trim();
    if s.is_empty() {
        return Err(err("empty"));
    }
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, suffix) = s.split_at(split);
    if number.is_empty() {
        return Err(err("it must start with a number"));
    }
    if number.matches('.').count() > 1 {
        return Err(err("more than one decimal point"));
    }
    let multiplier: u64 = match suffix.trim_start() {
        "" | "b" | "B" => 1,
        "k" | "K" | "KiB" | "kiB" | "Ki" => 1 << 10,
        "m" | "M" | "MiB" | "Mi" => 1 << 20,
        "g" | "G" | "GiB" | "Gi" => 1 << 30,
        "t" | "T" | "TiB" | "Ti" => 1 << 40,
        "KB" | "kB" | "kb" => 1_000,
        "MB" | "mb" => 1_000_000,
        "GB" | "gb" => 1_000_000_000,
        "TB" | "tb" => 1_000_000_000_000,
        _ => return Err(err("unknown suffix")),
    };
    if let Some((whole, frac)) = number.split_once('.') {
        if frac.is_empty() || whole.is_empty() {
            return Err(err("a decimal point needs digits on both sides"));
        }
        let whole: u64 = whole.parse().map_err(|_| err("number too large"))?;
        let scale = 10u64
            .checked_pow(frac.len() as u32)
            .ok_or(err("too many decimals"))?;
        let frac: u64 = frac.parse().map_err(|_| err("too many decimals"))?;
        let frac_bytes = (frac as u128) * (multiplier as u128);
        if !frac_bytes.is_multiple_of(scale as u128) {
            return Err(err("not a whole number of bytes"));
        }
        let total = (whole as u128) * (multiplier as u128) + frac_bytes / scale as u128;
        u64::try_from(total).map_err(|_| err("number too large"))
    } else {
        let n: u64 = number.parse().map_err(|_| err("number too large"))?;
        n.checked_mul(multiplier).ok_or(err("number too large"))
    }
}

/// Prints a size the short way a person reads it: `16 KiB`, `256 MiB`, `1.5 GiB`, `1000 B`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut unit = 0;
    let mut value = bytes as f64;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{} {}", value as u64, UNITS[unit])
    } else {
        format!("{:.2} {}", value, UNITS[unit])
    }
}

/// Parser for clap: a size as `u64`.
pub fn clap_size(s: &str) -> std::result::Result<u64, String> {
    parse_size(s).map_err(|e| e.to_string())
}

/// The shortest duration a flag in seconds accepts (1 ms).
pub const MIN_SECONDS: f64 = 0.001;
/// The longest duration a flag in seconds accepts (one year).
pub const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// Parses a duration in seconds (`0.3`, `10`, `1e2`): a finite number from
/// [`MIN_SECONDS`] to [`MAX_SECONDS`]. NaN, infinities, numbers too large
/// for a float (`1e400`), negative numbers and 0 are refused with the reason.
pub fn parse_seconds(input: &str) -> std::result::Result<std::time::Duration, String> {
    let s = input.trim();
    let value: f64 = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number of seconds (e.g. 0.5, 10, 1e2)"))?;
    if value.is_nan() {
        return Err(format!("'{s}' is not a number of seconds"));
    }
    if value.is_sign_negative() && value != 0.0 {
        return Err(format!("{s} seconds is negative; give a positive duration"));
    }
    if value == 0.0 {
        return Err("0 seconds would end every trial at once; give a positive duration".into());
    }
    if value.is_infinite() || value > MAX_SECONDS {
        return Err(format!(
            "{s} seconds is more than the {MAX_SECONDS} (a year) this flag accepts"
        ));
    }
    if value < MIN_SECONDS {
        return Err(format!(
            "{s} seconds is less than the {MIN_SECONDS} (1 ms) this flag accepts"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_finite_positive_and_bounded() {
        assert_eq!(parse_seconds("0.3").unwrap().as_millis(), 300);
        assert_eq!(parse_seconds("1e2").unwrap().as_secs(), 100);
        for (bad, why) in [
            ("NaN", "not a number"),
            ("nan", "not a number"),
            ("inf", "more than"),
            ("-inf", "negative"),
            ("infinity", "more than"),
            ("1e400", "more than"),
            ("-1", "negative"),
            ("-0", "0 seconds"),
            ("0", "0 seconds"),
            ("0.0", "0 seconds"),
            ("1e-9", "less than"),
            ("", "not a number"),
            ("ten", "not a number"),
            ("31536001", "more than"),
        ] {
            let e = parse_seconds(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    proptest::proptest! {
        #[test]
        fn no_text_panics_and_every_accepted_duration_is_in_range(s in "\\PC{0,12}", x in proptest::num::f64::ANY) {
            let _ = parse_seconds(&s);
            if let Ok(d) = parse_seconds(&x.to_string()) {
                proptest::prop_assert!(d.as_secs_f64() >= MIN_SECONDS * 0.999 && d.as_secs_f64() <= MAX_SECONDS);
            }
        }
    }

    #[test]
    fn accepts_the_usual_suffixes() {
        assert_eq!(parse_size("512").unwrap(), 512);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_size("4KB").unwrap(), 4000);
        assert_eq!(parse_size("16M").unwrap(), 16 << 20);
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_size("1000MB").unwrap(), 1_000_000_000);
        assert_eq!(parse_size("1.5M").unwrap(), 3 << 19);
        assert_eq!(parse_size(" 64 KiB ").unwrap(), 65536);
    }

    #[test]
    fn refuses_malformed_sizes() {
        for bad in [
            "4kk",
            "-1",
            "1.5.2M",
            "",
            "k",
            "1.5",
            "1.",
            ".5M",
            "99999999999999999999",
            "16E",
            "20000000T",
        ] {
            assert!(parse_size(bad).is_err(), "{bad:?} should be refused");
        }
        let msg = parse_size("4kk").unwrap_err().to_string();
        assert!(msg.contains("'4kk'"), "{msg}");
    }

    #[test]
    fn formats_sizes() {
        assert_eq!(format_size(16384), "16 KiB");
        assert_eq!(format_size(256 << 20), "256 MiB");
        assert_eq!(format_size(1000), "1000 B");
        assert_eq!(format_size(3 << 29), "1.50 GiB");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,12}") {
            let _ = parse_size(&s);
        }

        #[test]
        fn round_trips_plain_numbers(n in 0u64..u64::MAX / 2) {
            proptest::prop_assert_eq!(parse_size(&n.to_string()).unwrap(), n);
        }
    }
}
