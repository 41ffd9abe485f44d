//! Pieces of a count that meets in the middle: the crossing's states after its first column,
//! grouped by the pattern that column's squares take from the left, and the patterns dealt out
//! to pieces.
//!
//! After the crossing's first column each of its squares has taken all the edges it will ever
//! take from the left: none, one or two, a digit of a pattern in base 3. No later step changes
//! those digits, so states of different patterns never meet again, and a piece (a set of
//! patterns) can walk the rest of the crossing and join on its own: its count is the number of
//! tours whose crossing has one of its patterns. The mirror merge at column ends reverses the
//! column, so a pattern and its reverse are one: a state's *pattern* is the smaller of the two.
//!
//! Patterns are dealt to pieces largest first, each to the piece with the fewest states so far
//! (ties to the lowest-numbered piece, patterns of equal size in increasing order): a rule of
//! the split layer alone, so every shard of a run, making the split itself, deals alike.

use rustc_hash::FxHashMap;

use super::join::need;
use super::state::{Key, byte_table};
use super::table::Layer;

/// The dealing rule's name: part of a cut's fingerprint (a new rule makes new pieces).
pub(crate) const RULE: &str = "pieces-1: first crossing column, canonical patterns, largest first";

/// The most states a piece starts from when the memory bound does not ask for more pieces: a
/// piece of seconds on two cores, so that an interrupted count loses little and the progress
/// moves, and small enough that the pieces' tables stay below the shared part's (7x7 open in 6
/// pieces: 1.8 GiB resident against 3.3 in one; 8x8 closed in 39).
pub(crate) const PIECE_STATES: u64 = 1 << 21;

/// How much larger a piece's largest layer grows than the states it starts from (measured 2.7
/// on 8x8 closed, 4.1 on 7x7 open: `results/eight.md`), taken high.
const GROWTH: f64 = 5.0;

/// A piece's layers over its steps, on average, against the states it starts from (measured
/// 1.9 on 8x8 closed, 2.5 on 7x7 open).
const MEAN_GROWTH: f64 = 2.5;

/// Bytes a piece that starts from `states` states held in `bytes` is projected to need at its
/// largest step: two layers (the one read and the one made) [`GROWTH`] times its start, and the
/// join's sort keys.
pub(crate) fn projected_bytes(states: u64, bytes: u64, _steps: usize) -> u64 {
    (bytes as f64 * GROWTH * 2.0) as u64 + states * 8
}

/// States all pieces of a split layer of `states` expand over `steps` steps, projected.
pub(crate) fn projected_work(states: u64, steps: usize) -> u64 {
    (states as f64 * MEAN_GROWTH * steps as f64) as u64
}

/// The patterns of a split layer and how many states each has.
pub(crate) struct Assignment {
    /// For byte `b` of a key and its value: the two digits it adds to the pattern, read
    /// forwards and backwards.
    forward: Vec<u32>,
    backward: Vec<u32>,
    bytes: usize,
    /// States by pattern, in increasing pattern order.
    sizes: Vec<(u32, u64)>,
}

/// Patterns dealt out to pieces.
pub(crate) struct Deal {
    /// The piece of each pattern.
    piece: FxHashMap<u32, u32>,
    /// States each piece starts from.
    pub(crate) states: Vec<u64>,
}

impl Deal {
    /// The piece a pattern is dealt to.
    #[inline]
    pub(crate) fn piece_of(&self, pattern: u32) -> usize {
        self.piece.get(&pattern).map_or(usize::MAX, |&p| p as usize)
    }
}

impl Assignment {
    /// The patterns of `first`, the crossing's layer after its first column of `w` squares
    /// (square `j` of the column in slot `w - 1 - j`).
    pub(crate) fn new<K: Key>(first: &Layer<K>, w: usize) -> Assignment {
        let bytes = w.div_ceil(2);
        let digit = |s: u32, code: u8, d: &mut u32, backwards: bool| {
            let s = s as usize;
            if s < w {
                let j = w - 1 - s;
                let place = if backwards { w - 1 - j } else { j };
                *d += need(code) as u32 * 3u32.pow(place as u32);
            }
        };
        let forward = byte_table(bytes, |s, c, d: &mut u32| digit(s, c, d, false));
        let backward = byte_table(bytes, |s, c, d: &mut u32| digit(s, c, d, true));
        let mut a = Assignment {
            forward,
            backward,
            bytes,
            sizes: Vec::new(),
        };
        let mut count: FxHashMap<u32, u64> = FxHashMap::default();
        for (k, _) in first.iter() {
            *count.entry(a.pattern(k)).or_default() += 1;
        }
        a.sizes = count.into_iter().collect();
        a.sizes.sort_unstable();
        a
    }

    /// A state's pattern (the smaller of its column's digits and their reverse).
    #[inline]
    pub(crate) fn pattern<K: Key>(&self, k: K) -> u32 {
        let (mut f, mut b) = (0, 0);
        for i in 0..self.bytes {
            let v = k.byte(i);
            f += self.forward[i * 256 + v];
            b += self.backward[i * 256 + v];
        }
        f.min(b)
    }

    /// The patterns dealt to `pieces` pieces, largest first to the lightest piece.
    pub(crate) fn deal(&self, pieces: usize) -> Deal {
        let mut order: Vec<&(u32, u64)> = self.sizes.iter().collect();
        order.sort_by_key(|&&(p, n)| (std::cmp::Reverse(n), p));
        let mut states = vec![0u64; pieces.max(1)];
        // the lightest piece, lowest number first among equals
        let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> = (0..states
            .len())
            .map(|i| std::cmp::Reverse((0, i)))
            .collect();
        let mut piece = FxHashMap::default();
        for &&(p, n) in &order {
            let std::cmp::Reverse((load, i)) = heap.pop().expect("a piece");
            states[i] = load + n;
            piece.insert(p, i as u32);
            heap.push(std::cmp::Reverse((states[i], i)));
        }
        Deal { piece, states }
    }

    /// The number of patterns.
    #[cfg(test)]
    pub(crate) fn patterns(&self) -> usize {
        self.sizes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontier::state::{FREE, LABEL, SAT};

    #[test]
    fn a_pattern_and_its_mirror_are_one() {
        // column of 4: slots 3..0 hold squares 0..3
        let mut t = Layer::<u64>::empty(crate::frontier::table::Shape { key: 8, limbs: 1 });
        let key = |codes: [u8; 4]| {
            codes
                .iter()
                .enumerate()
                .fold(0u64, |k, (j, &c)| k.set((3 - j) as u32, c))
        };
        // square digits (need): FREE 2, label 1, SAT 0
        let a = key([FREE, LABEL, SAT, SAT]);
        let mirrored = key([SAT, SAT, LABEL, FREE]);
        let other = key([SAT, FREE, FREE, SAT]);
        for k in [a, mirrored, other] {
            t.insert(k, &[1]);
        }
        let asg = Assignment::new(&t, 4);
        assert_eq!(asg.pattern(a), asg.pattern(mirrored));
        assert_ne!(asg.pattern(a), asg.pattern(other));
        assert_eq!(asg.patterns(), 2);
        // digits 2,1,0,0 forwards = 2 + 3 = 5; backwards 0,0,1,2 = 9 + 54 = 63
        assert_eq!(asg.pattern(a), 5);
        let deal = asg.deal(2);
        assert_eq!(deal.states, vec![2, 1]);
        assert_ne!(
            deal.piece_of(asg.pattern(a)),
            deal.piece_of(asg.pattern(other))
        );
        // more pieces than patterns: the rest are empty
        assert_eq!(asg.deal(5).states.iter().filter(|&&n| n == 0).count(), 3);
    }
}
