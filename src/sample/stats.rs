//! The statistics that check the samplers: Pearson's chi-square against expected counts, its
//! critical values, a tour statistic for mixing and comparisons, and tours as table keys.

use crate::board::{Board, Square};

/// Pearson's statistic of `observed` counts against `expected` ones (cells with nothing expected
/// are skipped; the caller makes sure nothing was observed there).
#[must_use]
pub fn chi_square(observed: &[u64], expected: &[f64]) -> f64 {
    observed
        .iter()
        .zip(expected)
        .filter(|(_, e)| **e > 0.0)
        .map(|(&o, &e)| (o as f64 - e).powi(2) / e)
        .sum()
}

/// The value a chi-square variable with `df` degrees of freedom exceeds with probability
/// `upper(z)`, the upper tail of the standard normal at `z` (e.g. `z = 4.753` for 1e-6), by
/// Wilson and Hilferty's cube-root approximation (within a few per cent of the tail probability
/// for `df` of 30 and more).
#[must_use]
pub fn chi_square_critical(df: f64, z: f64) -> f64 {
    let a = 2.0 / (9.0 * df);
    df * (1.0 - a + z * a.sqrt()).powi(3)
}

/// The upper tail probability of a chi-square variable with `df` degrees of freedom at `x`, by
/// the same approximation.
#[must_use]
pub fn chi_square_tail(df: f64, x: f64) -> f64 {
    let a = 2.0 / (9.0 * df);
    let z = ((x / df).cbrt() - (1.0 - a)) / a.sqrt();
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' `erfcc`, relative error below 1.2e-7).
#[must_use]
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Places on a path where three consecutive squares lie on a line (the same move twice):
/// a statistic of a tour's shape that the chain's moves change often, for mixing and comparison.
/// Closed tours count the triples around the join too.
#[must_use]
pub fn straight_triples(path: &[Square], closed: bool) -> u32 {
    let n = path.len();
    if n < 3 {
        return 0;
    }
    let d = |a: Square, b: Square| {
        (
            i64::from(b.row) - i64::from(a.row),
            i64::from(b.col) - i64::from(a.col),
        )
    };
    let at = |i: usize| path[i % n];
    let last = if closed { n } else { n - 2 };
    (0..last)
        .filter(|&i| d(at(i), at(i + 1)) == d(at(i + 1), at(i + 2)))
        .count() as u32
}

/// A closed tour as a key that does not depend on where it is read from or in which direction:
/// the square indices from the smallest, towards its smaller neighbour.
#[must_use]
pub fn cycle_key(board: Board, path: &[Square]) -> Vec<u32> {
    let mut v: Vec<u32> = path.iter().map(|&s| board.index(s)).collect();
    let at = v
        .iter()
        .enumerate()
        .min_by_key(|(_, s)| **s)
        .map_or(0, |(i, _)| i);
    v.rotate_left(at);
    if v.len() > 2 && v[v.len() - 1] < v[1] {
        v[1..].reverse();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_and_critical_values_agree() {
        // chi-square with 1727 df: mean 1727, sd about 58.8
        let c = chi_square_critical(1727.0, 4.753);
        assert!((c - 1727.0 - 4.753 * 58.8).abs() < 30.0, "{c}");
        let p = chi_square_tail(1727.0, c);
        assert!((p / 1e-6 - 1.0).abs() < 0.05, "{p}");
        assert!((chi_square_tail(30.0, 30.0) - 0.466).abs() < 0.01);
        assert!((erfc(0.5) - 0.479_500_122).abs() < 1e-6);
    }

    #[test]
    fn cycles_have_one_key() {
        let b = Board { rows: 3, cols: 4 };
        let p: Vec<Square> = [0, 6, 11, 5].iter().map(|&i| b.square(i)).collect();
        let mut q = p.clone();
        q.rotate_left(2);
        q.reverse();
        assert_eq!(cycle_key(b, &p), cycle_key(b, &q));
        assert_eq!(cycle_key(b, &p), vec![0, 5, 11, 6]);
    }
}
