//! Finding one tour: the construction against Warnsdorff with rotations on small and large
//! boards, open and closed, and the construction alone on large ones. Each iteration checks the
//! tour it found.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use knights::find::{FindOptions, Strategy, find_compact};
use knights::{Board, Piece};

fn bench(c: &mut Criterion, group: &str, sides: &[u32], strategies: &[Strategy]) {
    let k = Piece::knight();
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    for &side in sides {
        for &strategy in strategies {
            for closed in [false, true] {
                let b = Board::new(side, side).unwrap();
                let opts = FindOptions::new(closed, None, 0).with_strategy(strategy);
                let name = format!("{b} {} {strategy}", if closed { "closed" } else { "open" });
                g.bench_function(name, |bench| {
                    bench.iter(|| {
                        let found = find_compact(black_box(b), &k, &opts).expect("a tour exists");
                        assert_eq!(found.tour.len() as u64, b.squares());
                        assert!(found.tour.closed() || !closed);
                        found.tour.len()
                    });
                });
            }
        }
    }
    g.finish();
}

fn bench_tours(c: &mut Criterion) {
    bench(
        c,
        "tour",
        &[8, 50, 100],
        &[Strategy::Construct, Strategy::Warnsdorff],
    );
    bench(c, "construct", &[1000, 2000], &[Strategy::Construct]);
}

criterion_group!(benches, bench_tours);
criterion_main!(benches);
