//! The pieces of a tree cut (see `meet.rs`): how they are numbered for shards, their classes
//! (how many of their digits are 1, which sets their time), the pieces drawn first to project
//! the rest, and the projection of the pieces left from the records of those counted, one
//! helper for a run's own lines and for `knights status`.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::Made;

/// The flag of a tree cut's param in the checkpoint log; the depth of its pieces below it.
pub(crate) const TREE_PARAM: usize = 1 << 25;

/// The depth of the pieces a recorded param names, if it names a tree cut.
pub(crate) fn depth_of_param(param: usize) -> Option<u32> {
    (param & TREE_PARAM != 0).then_some((param & 0xff) as u32)
}

/// The class of each piece of a tree cut recorded as `param`, in `pieces` pieces numbered for
/// `shards` shards: how many of its digits are 1, the boundary squares where the path crosses
/// from one side to the other. A piece's cost follows its class far more than its number: the
/// 8x8 open pieces of class 0 took 15 s of CPU on average, those of class 4 1,288 s
/// (`results/eight.md`), so a projection of the pieces left takes each at its class's mean.
/// `None` where `param` names no tree cut of that many pieces.
#[must_use]
pub fn piece_classes(param: usize, pieces: usize, shards: u32) -> Option<Vec<u8>> {
    let depth = depth_of_param(param)?;
    if 3usize.checked_pow(depth) != Some(pieces) {
        return None;
    }
    Some(
        order(pieces, shards as usize)
            .into_iter()
            .map(|mut p| {
                let mut ones = 0;
                for _ in 0..depth {
                    ones += u8::from(p % 3 == 1);
                    p /= 3;
                }
                ones
            })
            .collect(),
    )
}

/// A run of at least this many pieces counts one piece of each class first (see
/// [`sample_first`]).
const SAMPLE_PIECES: usize = 27;

/// Moves one piece of each class among `todo` (drawn at random, `seed` fixing the draw) to its
/// front, where it holds at least [`SAMPLE_PIECES`] pieces of more than one class; how many it
/// moved. The tree's order puts like pieces together (8x8 open's first 40 pieces hold none of
/// its heaviest classes), so a projection from the first pieces counted errs by the classes it
/// has not seen; a piece of each class, the heaviest included, projects the rest by class (see
/// `examples/ledger_projection.rs`: on the 8x8 open ledger, one piece of each class drawn at
/// random projected the whole within 0.7 to 1.4 times its CPU time in 9 draws of 10, twelve
/// pieces drawn from all within 0.3 to 2.5).
///
/// The pieces are drawn under one node of the first depth where it can be done (`order` gives
/// each piece's tree position, under a tree of depth `depth`): the subtree of the first digit
/// that holds the most classes (a first digit 1 holds every class but 0), its draws in the
/// tree's order and then the rest of that subtree, so that its node is made once for all of
/// them; a class it lacks is drawn from the others and counted first. Drawn from anywhere,
/// each piece made its whole path from the roots again: 8x10 closed's six drawn pieces took
/// 23.5 minutes so and 21.8 this way (the heaviest piece's own work is 18 of them).
pub(crate) fn sample_first(
    todo: &mut Vec<usize>,
    classes: &[u8],
    order: &[u64],
    depth: usize,
    seed: u64,
) -> usize {
    if todo.len() < SAMPLE_PIECES || depth == 0 {
        return 0;
    }
    let all: std::collections::BTreeSet<u8> = todo
        .iter()
        .filter_map(|&i| classes.get(i).copied())
        .collect();
    if all.len() < 2 {
        return 0;
    }
    let top = 3u64.pow(depth as u32 - 1);
    let first = |i: usize| order.get(i).map_or(3, |&p| p / top);
    // the first digit whose subtree holds the most classes (1 where it ties)
    let home = [1, 0, 2]
        .into_iter()
        .max_by_key(|&d| {
            let held: std::collections::BTreeSet<u8> = (todo.iter())
                .filter(|&&i| first(i) == d)
                .filter_map(|&i| classes.get(i).copied())
                .collect();
            // ties go to 1, then 0
            (held.len(), u8::from(d == 1) * 2 + u8::from(d == 0))
        })
        .expect("three digits");
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut draw = |pool: &[usize]| -> BTreeMap<u8, usize> {
        let mut by: BTreeMap<u8, Vec<usize>> = BTreeMap::new();
        for &i in pool {
            if let Some(&c) = classes.get(i) {
                by.entry(c).or_default().push(i);
            }
        }
        by.into_iter()
            .map(|(c, v)| (c, v[rng.usize(..v.len())]))
            .collect()
    };
    let (inside, outside): (Vec<usize>, Vec<usize>) = todo.iter().partition(|&&i| first(i) == home);
    let drawn = draw(&inside);
    let elsewhere: Vec<usize> = outside
        .iter()
        .copied()
        .filter(|i| classes.get(*i).is_some_and(|c| !drawn.contains_key(c)))
        .collect();
    let away = draw(&elsewhere);
    let by_position = |v: &mut Vec<usize>| v.sort_by_key(|&i| order.get(i).copied());
    let mut front: Vec<usize> = away.values().copied().collect();
    by_position(&mut front);
    let mut home_drawn: Vec<usize> = drawn.values().copied().collect();
    by_position(&mut home_drawn);
    let moved = front.len() + home_drawn.len();
    front.extend(home_drawn);
    let taken: std::collections::BTreeSet<usize> = front.iter().copied().collect();
    let mut rest_home: Vec<usize> = inside.into_iter().filter(|i| !taken.contains(i)).collect();
    by_position(&mut rest_home);
    let rest = outside.into_iter().filter(|i| !taken.contains(i));
    *todo = front.into_iter().chain(rest_home).chain(rest).collect();
    moved
}

/// The seconds of the pieces `left`, each at the mean of the pieces of its class (`classes`,
/// by piece) that `secs` holds, or at the mean of all of them where its class has none; and how
/// many were taken so. `None` where `secs` is empty.
pub fn by_class(
    secs: &BTreeMap<usize, f64>,
    classes: &[u8],
    left: impl IntoIterator<Item = usize>,
) -> Option<(f64, usize)> {
    if secs.is_empty() {
        return None;
    }
    let mut sums: BTreeMap<u8, (f64, usize)> = BTreeMap::new();
    for (&piece, &c) in secs {
        if let Some(&k) = classes.get(piece) {
            let e = sums.entry(k).or_default();
            e.0 += c;
            e.1 += 1;
        }
    }
    let all = secs.values().sum::<f64>() / secs.len() as f64;
    let (mut total, mut unmeasured) = (0.0, 0);
    for piece in left {
        match classes.get(piece).and_then(|k| sums.get(k)) {
            Some(&(sum, n)) => total += sum / n as f64,
            None => {
                total += all;
                unmeasured += 1;
            }
        }
    }
    Some((total, unmeasured))
}

/// The seconds the nodes above the pieces `left` (by tree position, in `order`, under a tree of
/// depth `depth`) will take to make, each at the mean time of the nodes made at its depth (`made`,
/// as `PieceFigures::above` in `meet.rs`): a node is made once for the pieces under it that come
/// one after another in the tree's order, and `kept` (the path of nodes now held, by depth) are
/// made already. A piece drawn at random makes its whole path from the roots, the pieces after it
/// in the tree's order share theirs: their times are projected without their paths, and the paths
/// still to make are added here once (8x8 open's lightest pieces took four times their own work
/// when drawn, reading a third of the roots' 128 million states and on down).
pub(crate) fn above_left(
    order: &[u64],
    depth: usize,
    left: &[usize],
    kept: &[u64],
    made: &[(f64, usize)],
) -> f64 {
    let mut total = 0.0;
    for j in 1..depth {
        let Some(&(secs, n)) = made.get(j - 1).filter(|m| m.1 > 0) else {
            continue;
        };
        let scale = 3u64.pow((depth - j) as u32);
        let mut held = kept.get(j - 1).copied();
        let mut nodes = 0usize;
        for &i in left {
            let q = order[i] / scale;
            if held != Some(q) {
                nodes += 1;
                held = Some(q);
            }
        }
        total += nodes as f64 * secs / n as f64;
    }
    total
}

/// Each recorded piece's own seconds (its record's `secs`, less the nodes above it that it
/// made, by `time`: a piece's own node, of depth `depth`, is its own work) and the seconds and
/// number of the nodes made at each depth (index 0: the roots' children), from records of
/// `(piece, secs, nodes above it made)`; the one place both projections of the pieces left (a
/// run's own as it goes on, `knights status`'s) take a piece's shared work out of its time. A
/// record whose nodes are not known (`None`: written before records said them) holds its
/// path's time as well: it is left out where its class has records that say theirs, so that
/// the paths still to make are not counted twice (once in the class's mean, once apart).
pub(crate) fn own_times<'a>(
    records: impl IntoIterator<Item = (usize, f64, Option<&'a [Made]>)>,
    depth: usize,
    classes: &[u8],
    time: fn(&Made) -> f64,
) -> (BTreeMap<usize, f64>, Vec<(f64, usize)>) {
    let records: Vec<_> = records.into_iter().collect();
    let said: BTreeSet<u8> = (records.iter())
        .filter(|r| r.2.is_some())
        .filter_map(|r| classes.get(r.0).copied())
        .collect();
    let mut made = vec![(0.0, 0usize); depth.saturating_sub(1)];
    let mut own = BTreeMap::new();
    for (piece, secs, above) in records {
        let Some(above) = above else {
            if !classes.get(piece).is_some_and(|k| said.contains(k)) {
                own.insert(piece, secs);
            }
            continue;
        };
        let mut path = 0.0;
        for m in above.iter().filter(|m| (1..depth).contains(&m.depth)) {
            made[m.depth - 1].0 += time(m);
            made[m.depth - 1].1 += 1;
            path += time(m);
        }
        own.insert(piece, (secs - path).max(0.0));
    }
    (own, made)
}

/// The CPU seconds the pieces `left` of a tree cut recorded as `param` (`pieces` pieces numbered
/// for `shards` shards) will take, from the records of the pieces counted: each piece at the mean
/// of its class's own times (`cpu`, less the nodes above it that it made: `above`, as
/// [`crate::engine::Host::above`] gives them), and the nodes above the pieces left at the mean of
/// their depth's, each made once for the pieces under it (a process that resumes keeps none); and
/// how many pieces were taken at the mean of all for want of a record of their class. The count's
/// own projection as it goes (see `above_left`), for `knights status`. `None` where the cut is
/// not a tree or no record has its time.
pub fn project_left(
    param: usize,
    pieces: usize,
    shards: u32,
    cpu: &BTreeMap<usize, f64>,
    above: &BTreeMap<usize, Vec<Made>>,
    left: &[usize],
) -> Option<(f64, usize)> {
    let depth = depth_of_param(param)? as usize;
    let classes = piece_classes(param, pieces, shards)?;
    let records = cpu
        .iter()
        .map(|(&p, &c)| (p, c, above.get(&p).map(Vec::as_slice)));
    let (own, made) = own_times(records, depth, &classes, |m| m.cpu);
    let (secs, unmeasured) = by_class(&own, &classes, left.iter().copied())?;
    let order = order(pieces, shards as usize);
    let mut left = left.to_vec();
    left.retain(|&i| i < pieces);
    left.sort_by_key(|&i| order[i]);
    Some((
        secs + above_left(&order, depth, &left, &[], &made),
        unmeasured,
    ))
}

/// The tree position of each piece: shard `k` of `shards` counts the pieces `k`, `k + shards`,
/// ..., and they are its run of positions, so that a shard makes the nodes above its pieces
/// once.
#[must_use]
pub fn order(pieces: usize, shards: usize) -> Vec<u64> {
    let shards = shards.clamp(1, pieces.max(1));
    let mut start = vec![0usize; shards + 1];
    for k in 0..shards {
        // pieces i < pieces with i = k mod shards
        start[k + 1] = start[k] + (pieces + shards - 1 - k) / shards;
    }
    (0..pieces)
        .map(|i| (start[i % shards] + i / shards) as u64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_class_counts_the_ones_among_its_digits() {
        // 9 pieces, one shard: piece p is the node p, digits (p / 3, p % 3)
        assert_eq!(
            piece_classes(TREE_PARAM | 2, 9, 1),
            Some(vec![0, 1, 0, 1, 2, 1, 0, 1, 0])
        );
        // two shards: shard 0 counts pieces 0, 2, 4, 6, 8 (nodes 0 to 4), shard 1 the others
        // (nodes 5 to 8)
        let two = piece_classes(TREE_PARAM | 2, 9, 2).unwrap();
        let nodes = order(9, 2);
        let one = piece_classes(TREE_PARAM | 2, 9, 1).unwrap();
        for (i, &p) in nodes.iter().enumerate() {
            assert_eq!(two[i], one[p as usize], "piece {i} is node {p}");
        }
        assert_eq!(nodes, [0, 5, 1, 6, 2, 7, 3, 8, 4]);
        // 243 pieces: the one all of whose digits are 1 is node 121
        let five = piece_classes(TREE_PARAM | 5, 243, 1).unwrap();
        assert_eq!(five.iter().position(|&c| c == 5), Some(121));
        assert_eq!(five.iter().filter(|&&c| c == 0).count(), 32);
        // not a tree cut, or not its number of pieces
        assert_eq!(piece_classes(2, 9, 1), None);
        assert_eq!(piece_classes(TREE_PARAM | 2, 10, 1), None);
    }

    #[test]
    fn the_nodes_above_the_pieces_left_are_projected_once_each() {
        // a tree of depth 3 (27 pieces, one shard: piece i is node i); a node of depth 1 took
        // 6 s to make, one of depth 2 took 1 s; the pieces' own nodes (depth 3) are theirs
        let order = order(27, 1);
        let made = [(12.0, 2), (3.0, 3), (100.0, 1)];
        // every piece left and nothing held: 3 nodes of depth 1 and 9 of depth 2
        let all: Vec<usize> = (0..27).collect();
        assert_eq!(above_left(&order, 3, &all, &[], &made), 3.0 * 6.0 + 9.0);
        // the pieces 4 to 26 with the path to piece 3 held (nodes 0 and 1 of depths 1 and 2,
        // kept for pieces 4 and 5): nodes 1 and 2 of depth 1, and 2 to 8 of depth 2
        let left: Vec<usize> = (4..27).collect();
        assert_eq!(above_left(&order, 3, &left, &[0, 1, 3], &made), 12.0 + 7.0);
        // pieces drawn out of order make their paths again: 26, then 0, then 25
        assert_eq!(
            above_left(&order, 3, &[26, 0, 25], &[], &made),
            3.0 * 6.0 + 3.0
        );
        // a depth with no node made yet is not projected
        assert_eq!(above_left(&order, 3, &all, &[], &made[..1]), 3.0 * 6.0);
    }

    #[test]
    fn a_long_run_counts_one_piece_of_each_class_first() {
        let order = order(27, 1);
        let classes = piece_classes(TREE_PARAM | 3, 27, 1).unwrap();
        let mut todo: Vec<usize> = (0..27).collect();
        assert_eq!(sample_first(&mut todo, &classes, &order, 3, 7), 4);
        // one of each class 0 to 3: class 0 (no digit 1) from outside the subtree of first
        // digit 1 (pieces 9 to 17), first; classes 1 to 3 under it, in the tree's order
        let mut first: Vec<u8> = todo[..4].iter().map(|&i| classes[i]).collect();
        assert_eq!(first[0], 0);
        assert!(todo[0] < 9 || todo[0] >= 18, "{todo:?}");
        assert!(todo[1..4].iter().all(|i| (9..18).contains(i)), "{todo:?}");
        assert!(todo[1..4].is_sorted(), "{todo:?}");
        first.sort_unstable();
        assert_eq!(first, [0, 1, 2, 3]);
        // then the rest of that subtree, then the others, each in the tree's order
        let home: Vec<usize> = (9..18).filter(|i| !todo[..4].contains(i)).collect();
        assert_eq!(todo[4..10], home[..], "{todo:?}");
        let others: Vec<usize> = (0..9).chain(18..27).filter(|&i| i != todo[0]).collect();
        assert_eq!(todo[10..], others[..], "{todo:?}");
        // another seed draws other pieces of the same classes
        let draws: std::collections::BTreeSet<Vec<usize>> = (0..20)
            .map(|seed| {
                let mut t: Vec<usize> = (0..27).collect();
                sample_first(&mut t, &classes, &order, 3, seed);
                t[..4].to_vec()
            })
            .collect();
        assert!(draws.len() > 1, "{draws:?}");
        // short runs, and runs of one class, keep their order
        let mut short: Vec<usize> = (0..26).collect();
        assert_eq!(sample_first(&mut short, &classes, &order, 3, 7), 0);
        assert_eq!(short, (0..26).collect::<Vec<_>>());
        let zeros: Vec<usize> = (0..27).filter(|&i| classes[i] == 0).collect();
        let mut one = zeros.repeat(4);
        assert_eq!(sample_first(&mut one, &classes, &order, 3, 7), 0);
        // a shard holds part of the subtrees: shard 0 of 2 of a tree of depth 4 holds
        // positions 0 to 40 (first digits 0, and 1 down to 1111)
        let two = super::order(81, 2);
        let classes2 = piece_classes(TREE_PARAM | 4, 81, 2).unwrap();
        let mut mine: Vec<usize> = (0..81).step_by(2).collect();
        mine.sort_by_key(|&i| two[i]);
        let n = sample_first(&mut mine, &classes2, &two, 4, 3);
        assert_eq!(n, 5, "{mine:?}");
        let mut seen: Vec<u8> = mine[..n].iter().map(|&i| classes2[i]).collect();
        assert!(two[mine[0]] < 27 && mine[1..n].iter().all(|&i| two[i] >= 27));
        seen.sort_unstable();
        assert_eq!(seen, [0, 1, 2, 3, 4]);
        let mut all = mine.clone();
        all.sort_unstable();
        assert_eq!(
            all,
            (0..81).step_by(2).collect::<Vec<_>>(),
            "every piece once"
        );
    }

    #[test]
    fn status_projects_the_pieces_left_without_the_paths_their_records_made() {
        let param = TREE_PARAM | 2;
        // piece 0 (class 0) made both nodes of its path, piece 1 (class 1) its own node only
        let cpu: BTreeMap<usize, f64> = [(0, 20.0), (1, 15.0)].into();
        let made = |depth, cpu| Made {
            depth,
            wall: cpu / 2.0,
            cpu,
        };
        let above: BTreeMap<usize, Vec<Made>> = [
            (0, vec![made(1, 6.0), made(2, 1.0)]),
            (1, vec![made(2, 1.0)]),
        ]
        .into();
        let left: Vec<usize> = (2..9).collect();
        // their own times, less the nodes above them (depth 1; those of depth 2 are the pieces'
        // own): 14 s and 15 s. Classes of pieces 2 to 8: 0, 1, 2, 1, 0, 1, 0; at 14 s, 15 s
        // and (class 2, none counted) the mean 14.5 s: 101.5 s; then nodes 0, 1 and 2 of
        // depth 1 at 6 s
        assert_eq!(
            project_left(param, 9, 1, &cpu, &above, &left),
            Some((101.5 + 18.0, 1))
        );
        // records of a build that wrote no such note: their whole times, no node apart
        let plain = by_class(&cpu, &piece_classes(param, 9, 1).unwrap(), 2..9);
        assert_eq!(
            project_left(param, 9, 1, &cpu, &BTreeMap::new(), &left),
            plain
        );
        // not a tree's cut, or no record timed
        assert_eq!(project_left(2, 9, 1, &cpu, &above, &left), None);
        assert_eq!(
            project_left(param, 9, 1, &BTreeMap::new(), &above, &left),
            None
        );
    }

    #[test]
    fn a_record_that_does_not_say_its_path_is_left_out_where_its_class_has_one_that_does() {
        let made = |depth, wall, cpu| Made { depth, wall, cpu };
        // classes 0, 1, 0, 1, 2 under a tree of depth 3: pieces 0 and 1 say their paths (0
        // made two nodes above it, 1 none: a sibling made its path), 2 and 4 do not
        let classes = [0, 1, 0, 1, 2];
        let zero = [made(1, 3.0, 5.0), made(2, 1.0, 2.0), made(3, 9.0, 9.0)];
        let records = [
            (0, 20.0, Some(&zero[..])),
            (1, 50.0, Some(&[][..])),
            (2, 40.0, None),
            (4, 30.0, None),
        ];
        let (own, nodes) = own_times(records, 3, &classes, |m| m.wall);
        // piece 0 less its depth 1 and 2 nodes (its own, of depth 3, stays); piece 2's time
        // holds a path no note separates and its class has piece 0: left out; piece 4 is the
        // only one of its class: kept whole
        assert_eq!(own, [(0, 16.0), (1, 50.0), (4, 30.0)].into());
        assert_eq!(nodes, vec![(3.0, 1), (1.0, 1)]);
        let (own, nodes) = own_times(records, 3, &classes, |m| m.cpu);
        assert_eq!(own[&0], 13.0);
        assert_eq!(nodes, vec![(5.0, 1), (2.0, 1)]);
        // a log written before any note: every record whole
        let old = [(0, 20.0, None), (2, 40.0, None)];
        let (own, nodes) = own_times(old, 3, &classes, |m| m.wall);
        assert_eq!(own, [(0, 20.0), (2, 40.0)].into());
        assert_eq!(nodes, vec![(0.0, 0), (0.0, 0)]);
    }

    #[test]
    fn pieces_left_are_projected_at_their_class_mean() {
        // classes 0, 1, 0, 1, 2: pieces 0 and 1 counted (10 s and 100 s)
        let classes = [0, 1, 0, 1, 2];
        let secs: BTreeMap<usize, f64> = [(0, 10.0), (1, 100.0)].into();
        // piece 2 at 10 s, piece 3 at 100 s, piece 4 (class 2, none counted) at the mean, 55 s
        assert_eq!(by_class(&secs, &classes, 2..5), Some((165.0, 1)));
        assert_eq!(by_class(&secs, &classes, [2, 3]), Some((110.0, 0)));
        assert_eq!(by_class(&secs, &classes, []), Some((0.0, 0)));
        assert_eq!(by_class(&BTreeMap::new(), &classes, 2..5), None);
    }
}
