//! Damage for the readers' tests: every single damage of a file, exhaustively (a cut at every
//! byte, every bit flipped, a line doubled, neighbouring lines swapped, another file's lines
//! added), and random runs of several damages at once (proptest), so that each reader of a file
//! the tool writes and reads back is shown never to panic nor to return what was not written.
//!
//! The random runs take `KNIGHTS_FUZZ_CASES` cases a format (256 unless set): the suite runs a
//! few seconds of them; `KNIGHTS_FUZZ_CASES=2000000 cargo test --profile test-release --lib --
//! damage` runs each format for many minutes (`results/robustness.md` says how long, and what
//! was found). A failing case is kept by proptest under `proptest-regressions/` and tried first
//! on every later run.

use proptest::prelude::*;

/// Every variant of one damage to `original`, and `original` with each of `foreign` (lines of
/// another file) appended.
pub(crate) fn single(original: &[u8], foreign: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut variants: Vec<Vec<u8>> = (0..original.len())
        .map(|cut| original[..cut].to_vec())
        .collect();
    for at in 0..original.len() {
        for bit in 0..8 {
            let mut v = original.to_vec();
            v[at] ^= 1 << bit;
            variants.push(v);
        }
    }
    let lines = split_lines(original);
    for i in 0..lines.len() {
        let mut doubled = lines.clone();
        doubled.insert(i, lines[i]);
        variants.push(doubled.concat());
        if i + 1 < lines.len() {
            let mut swapped = lines.clone();
            swapped.swap(i, i + 1);
            variants.push(swapped.concat());
        }
    }
    for f in foreign {
        variants.push([original, f].concat());
    }
    variants
}

/// The lines of `bytes`, each with its `\n` (the last without, where the file has none).
fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// One damage of a random run; positions are taken modulo the file's length (or line count).
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// Cut the file at a byte.
    Cut(usize),
    /// Flip a bit.
    Flip(usize, u8),
    /// Set a byte.
    Set(usize, u8),
    /// Insert a byte.
    Insert(usize, u8),
    /// Remove a run of bytes.
    Remove(usize, u8),
    /// Double a line.
    Double(usize),
    /// Swap a line with the next.
    Swap(usize),
    /// Remove a line.
    Drop(usize),
    /// Put a line of the foreign file `.0` (modulo their number) after line `.2`.
    Foreign(usize, usize, usize),
}

/// Random runs of one to six damages.
pub(crate) fn ops() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        any::<usize>().prop_map(Op::Cut),
        (any::<usize>(), 0u8..8).prop_map(|(a, b)| Op::Flip(a, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Op::Set(a, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Op::Insert(a, b)),
        (any::<usize>(), 1u8..64).prop_map(|(a, b)| Op::Remove(a, b)),
        any::<usize>().prop_map(Op::Double),
        any::<usize>().prop_map(Op::Swap),
        any::<usize>().prop_map(Op::Drop),
        (any::<usize>(), any::<usize>(), any::<usize>()).prop_map(|(a, b, c)| Op::Foreign(a, b, c)),
    ];
    proptest::collection::vec(op, 1..7)
}

/// `original` with the damages `ops` done in order.
pub(crate) fn apply(original: &[u8], ops: &[Op], foreign: &[&[u8]]) -> Vec<u8> {
    let mut v = original.to_vec();
    for op in ops {
        let n = v.len().max(1);
        match *op {
            Op::Cut(a) => v.truncate(a % n),
            Op::Flip(a, b) if !v.is_empty() => v[a % n] ^= 1 << b,
            Op::Set(a, b) if !v.is_empty() => v[a % n] = b,
            Op::Insert(a, b) => v.insert(a % (v.len() + 1), b),
            Op::Remove(a, b) if !v.is_empty() => {
                let at = a % n;
                let end = (at + b as usize).min(v.len());
                v.drain(at..end);
            }
            Op::Double(i) | Op::Swap(i) | Op::Drop(i) => {
                let lines: Vec<Vec<u8>> = split_lines(&v).iter().map(|l| l.to_vec()).collect();
                if lines.is_empty() {
                    continue;
                }
                let mut lines = lines;
                let i = i % lines.len();
                match op {
                    Op::Double(_) => lines.insert(i, lines[i].clone()),
                    Op::Swap(_) if i + 1 < lines.len() => lines.swap(i, i + 1),
                    Op::Drop(_) => {
                        lines.remove(i);
                    }
                    _ => {}
                }
                v = lines.concat();
            }
            Op::Foreign(f, j, i) if !foreign.is_empty() => {
                let theirs = split_lines(foreign[f % foreign.len()]);
                if theirs.is_empty() {
                    continue;
                }
                let line = theirs[j % theirs.len()].to_vec();
                let mut lines: Vec<Vec<u8>> = split_lines(&v).iter().map(|l| l.to_vec()).collect();
                let at = i % (lines.len() + 1);
                lines.insert(at, line);
                v = lines.concat();
            }
            _ => {}
        }
    }
    v
}

/// The random runs a format gets: `KNIGHTS_FUZZ_CASES`, 256 unless set.
pub(crate) fn config() -> ProptestConfig {
    let cases = std::env::var("KNIGHTS_FUZZ_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        // the damaged files are written to a temporary folder: no forking, no timeouts
        max_shrink_iters: 256,
        ..ProptestConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_damages_cover_every_byte_and_line() {
        let v = single(b"ab\ncd\n", &[b"x\n"]);
        // 6 cuts, 48 flips, 2 doublings, 1 swap, 1 foreign
        assert_eq!(v.len(), 6 + 48 + 2 + 1 + 1);
        assert!(v.contains(&b"ab\nab\ncd\n".to_vec()));
        assert!(v.contains(&b"cd\nab\n".to_vec()));
        assert!(v.contains(&b"ab\ncd\nx\n".to_vec()));
    }

    #[test]
    fn random_damages_do_what_they_say() {
        let f: &[u8] = b"x\n";
        assert_eq!(apply(b"ab\ncd\n", &[Op::Cut(2)], &[]), b"ab");
        assert_eq!(apply(b"ab\ncd\n", &[Op::Swap(0)], &[]), b"cd\nab\n");
        assert_eq!(apply(b"ab\ncd\n", &[Op::Drop(1)], &[]), b"ab\n");
        assert_eq!(
            apply(b"ab\ncd\n", &[Op::Foreign(0, 0, 1)], &[f]),
            b"ab\nx\ncd\n"
        );
        assert_eq!(apply(b"ab", &[Op::Flip(0, 0)], &[]), b"`b");
        assert_eq!(apply(b"", &[Op::Flip(0, 0), Op::Swap(3)], &[]), b"");
    }
}
