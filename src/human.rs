//! Figures as people read them: thousands grouped with commas, sizes in binary units, durations
//! in the largest fitting unit. Used by every layer's messages, so it depends on nothing.

use num_bigint::BigUint;

/// Thousands separated by commas.
#[must_use]
pub fn group(n: &BigUint) -> String {
    group_digits(&n.to_string())
}

/// Thousands separated by commas.
#[must_use]
pub fn group_u64(n: u64) -> String {
    group_digits(&n.to_string())
}

fn group_digits(d: &str) -> String {
    let mut out = String::with_capacity(d.len() + d.len() / 3);
    for (i, ch) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A size in bytes in the largest fitting binary unit, e.g. `1.5 GiB`.
#[must_use]
pub fn human_bytes(bytes: u64) -> String {
    let units = [
        (1u64 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
    ];
    for (size, name) in units {
        if bytes >= size {
            return format!("{:.1} {name}", bytes as f64 / size as f64);
        }
    }
    format!("{bytes} bytes")
}

/// A duration in the largest fitting unit, e.g. `3.2 hours`.
#[must_use]
pub fn human_duration(secs: f64) -> String {
    let units = [
        (365.25 * 86_400.0, "years"),
        (86_400.0, "days"),
        (3_600.0, "hours"),
        (60.0, "minutes"),
    ];
    for (size, name) in units {
        if secs >= size {
            return format!("{:.1} {name}", secs / size);
        }
    }
    format!("{secs:.1} seconds")
}

/// Numbers as a short list: `3, 7, 12`, the first ten and how many more past them.
#[must_use]
pub fn list_short(items: &[usize]) -> String {
    const SHOWN: usize = 10;
    let mut s: Vec<String> = items.iter().take(SHOWN).map(ToString::to_string).collect();
    if items.len() > SHOWN {
        s.push(format!(
            "and {} more",
            group_u64((items.len() - SHOWN) as u64)
        ));
    }
    s.join(", ")
}

/// `s` when `n` is not 1: "1 piece", "2 pieces".
#[must_use]
pub const fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_sizes_and_durations() {
        assert_eq!(group_u64(0), "0");
        assert_eq!(list_short(&[3, 7]), "3, 7");
        assert_eq!(
            list_short(&(0..12).collect::<Vec<_>>()),
            "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, and 2 more"
        );
        assert_eq!(group_u64(1234), "1,234");
        assert_eq!(group_u64(6_637_920), "6,637,920");
        let big: BigUint = "123456789012345678901234567890".parse().unwrap();
        assert_eq!(group(&big), "123,456,789,012,345,678,901,234,567,890");
        assert_eq!(human_bytes(512), "512 bytes");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
        assert_eq!(human_duration(90.0), "1.5 minutes");
        assert_eq!(human_duration(2.0), "2.0 seconds");
        assert_eq!((plural(1), plural(2)), ("", "s"));
    }
}
