//! Finding one tour: Warnsdorff with rotations on small and large boards, open and closed. Each
//! iteration checks the tour it found.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use knights::find::{FindOptions, find_tour};
use knights::{Board, Piece, tour};

fn bench_tours(c: &mut Criterion) {
    let k = Piece::knight();
    let mut group = c.benchmark_group("tour");
    group.sample_size(10);
    for side in [8u32, 50, 100] {
        for closed in [false, true] {
            let b = Board::new(side, side).unwrap();
            let opts = FindOptions::new(closed, None, 0);
            let name = format!("{b} {}", if closed { "closed" } else { "open" });
            group.bench_function(name, |bench| {
                bench.iter(|| {
                    let found = find_tour(black_box(b), &k, &opts).expect("a tour exists");
                    let is_closed =
                        tour::verify(b, &k, &found.tour.path).expect("the tour verifies");
                    assert!(is_closed || !closed);
                    found.tour.path.len()
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_tours);
criterion_main!(benches);
