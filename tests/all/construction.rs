//! The construction against the searches' ground truth: every board from 5×5 to 60×60, random
//! large shapes, narrow strips from every square, and the narrow closed tours of issue 12. Each
//! tour is verified by the library, then walked again here by an independent check.

use knights::find::{FindError, FindOptions, Method, Strategy, find_compact};
use knights::theory;
use knights::tour::CompactTour;
use knights::{Board, Piece, Square};

/// An independent check of a tour: it starts on `from`, every step is a knight's move, it visits
/// every square once, and it is closed when asked (and says so only when it is).
fn walk(t: &CompactTour, from: Square, closed: bool) {
    let b = t.board();
    let n = b.squares() as usize;
    let mut seen = vec![false; n];
    let mut prev: Option<Square> = None;
    let mut count = 0;
    for i in t.squares() {
        let sq = b.square(i);
        assert!(!seen[i as usize], "{b}: {} twice", b.name(sq));
        seen[i as usize] = true;
        if let Some(p) = prev {
            let (dr, dc) = (p.row.abs_diff(sq.row), p.col.abs_diff(sq.col));
            assert!(dr * dc == 2, "{b}: {} to {}", b.name(p), b.name(sq));
        } else {
            assert_eq!(sq, from, "{b}: the tour starts elsewhere");
        }
        prev = Some(sq);
        count += 1;
    }
    assert_eq!(count, n, "{b}");
    let (f, l) = (t.first(), t.last());
    let closes = f.row.abs_diff(l.row) * f.col.abs_diff(l.col) == 2;
    assert_eq!(t.closed(), closes, "{b}");
    assert!(closes || !closed, "{b}: asked for a closed tour");
}

/// Makes a tour with `strategy` and checks it: how it was made, or why there is none.
fn try_tour(b: Board, closed: bool, from: Square, strategy: Strategy) -> Result<Method, FindError> {
    let opts = FindOptions::new(closed, Some(from), 1).with_strategy(strategy);
    let found = find_compact(b, &Piece::knight(), &opts)?;
    walk(&found.tour, from, closed);
    Ok(found.method)
}

/// [`try_tour`], which must succeed.
fn tour(b: Board, closed: bool, from: Square, strategy: Strategy) -> Method {
    try_tour(b, closed, from, strategy).unwrap_or_else(|e| {
        panic!(
            "{b} {} from {}: {e}",
            if closed { "closed" } else { "open" },
            b.name(from)
        )
    })
}

/// The construction on boards with both sides 12 or more; smaller ones may need the searches.
fn strategy_for(b: Board) -> Strategy {
    if b.rows.min(b.cols) >= 12 {
        Strategy::Construct
    } else {
        Strategy::Auto
    }
}

/// A square a tour may start from (a1's colour on odd boards), at random.
fn allowed(b: Board, rng: &mut fastrand::Rng) -> Square {
    loop {
        let sq = Square::new(rng.u32(..b.rows), rng.u32(..b.cols));
        if b.squares().is_multiple_of(2) || Board::colour(sq) == 0 {
            return sq;
        }
    }
}

/// Every board from 5×5 to 60×60, open and (where one exists) closed, from a1 and from a random
/// allowed square. Boards with both sides 12 or more are all made by the construction; smaller
/// odd×odd boards may need the search for some start squares (a piece missing).
#[test]
fn every_board_from_5_to_60() {
    let mut rng = fastrand::Rng::with_seed(9);
    let mut constructed = 0;
    for rows in 5..=60 {
        for cols in 5..=60 {
            let b = Board { rows, cols };
            for closed in [false, true] {
                if closed && b.squares() % 2 == 1 {
                    continue;
                }
                for from in [Square::new(0, 0), allowed(b, &mut rng)] {
                    if tour(b, closed, from, strategy_for(b)) == Method::Construction {
                        constructed += 1;
                    }
                }
            }
        }
    }
    // all but a few small odd boards from a few squares
    assert!(constructed > 9_400, "{constructed}");
}

/// Three hundred random shapes with sides from 5 to 3000 (log-uniform, so that most are long
/// and thin or moderate and the test stays fast), open from a random square and closed.
#[test]
fn random_large_shapes() {
    let mut rng = fastrand::Rng::with_seed(12);
    let side = |rng: &mut fastrand::Rng| (5.0f64 * 600f64.powf(rng.f64())) as u32;
    for _ in 0..300 {
        let b = Board {
            rows: side(&mut rng),
            cols: side(&mut rng),
        };
        let from = allowed(b, &mut rng);
        tour(b, false, from, strategy_for(b));
        if b.squares().is_multiple_of(2) {
            let from = allowed(b, &mut rng);
            tour(b, true, from, strategy_for(b));
        }
    }
}

/// Strips 3 and 4 wide, 5 to 120 long, both ways round: an open tour from every square a theorem
/// allows (on short strips the exact search may prove there is none), and closed tours of 3×n.
/// From 31 long the construction makes every one of them.
#[test]
fn narrow_strips_from_every_square() {
    let k = Piece::knight();
    for h in [3, 4] {
        for len in 5..=120 {
            for b in [Board { rows: h, cols: len }, Board { rows: len, cols: h }] {
                let strategy = if len > 30 {
                    Strategy::Construct
                } else {
                    Strategy::Auto
                };
                for i in 0..b.squares() as u32 {
                    let from = b.square(i);
                    if theory::open_obstruction(b, &k, Some(from)).is_some() {
                        continue;
                    }
                    match try_tour(b, false, from, strategy) {
                        Ok(_) => {}
                        Err(FindError::ProvedNone { .. }) if b.squares() <= 64 => {}
                        Err(e) => panic!("{b} open from {}: {e}", b.name(from)),
                    }
                }
                if theory::closed_obstruction(b, &k).is_none() {
                    tour(b, true, Square::new(0, 0), strategy);
                }
            }
        }
    }
}

/// Issue 12: closed tours of every 5×2k, 6×n, 7×2k and 8×n up to n = 400, from a corner.
#[test]
fn narrow_closed_tours_up_to_400() {
    for (h, step) in [(5, 2), (6, 1), (7, 2), (8, 1)] {
        for n in (5..=400).filter(|n| n % step == 0) {
            let b = Board { rows: h, cols: n };
            if b.squares() % 2 == 1 {
                continue;
            }
            assert_eq!(
                tour(b, true, Square::new(0, 0), Strategy::Construct),
                Method::Construction,
                "{b}"
            );
        }
    }
}

/// What the construction cannot do is said, not searched for.
#[test]
fn construct_only_refuses_what_it_does_not_cover() {
    let camel: Piece = "camel".parse().unwrap();
    let opts = FindOptions::new(false, None, 0).with_strategy(Strategy::Construct);
    assert!(matches!(
        find_compact(Board { rows: 8, cols: 8 }, &camel, &opts),
        Err(FindError::Unsupported { .. })
    ));
    // a theorem still answers first
    assert!(matches!(
        find_compact(
            Board { rows: 5, cols: 5 },
            &Piece::knight(),
            &FindOptions::new(true, None, 0).with_strategy(Strategy::Construct)
        ),
        Err(FindError::Impossible { .. })
    ));
}
