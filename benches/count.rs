//! Exact counts: the bitboard DFS against plain backtracking, on one thread and on two. Each
//! iteration asserts the known count, so a fast wrong answer cannot pass.
//!
//! The naive engine runs only where an iteration takes a few seconds at most (measured on 2
//! cores): 5x5 open (~0.5 s) and 5x6 closed (~1.4 s). Naive 5x6 open takes ~35 s, 6x6 closed
//! more than 100 s and 6x6 open hours, so those are left out.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use knights::count::{self, CountSpec, Engine};
use knights::{Board, Piece};

struct Case {
    rows: u32,
    cols: u32,
    closed: bool,
    /// Directed open tours, or undirected closed tours.
    expect: u64,
    naive: bool,
}

const CASES: [Case; 5] = [
    Case {
        rows: 5,
        cols: 5,
        closed: false,
        expect: 1728,
        naive: true,
    },
    Case {
        rows: 6,
        cols: 6,
        closed: true,
        expect: 9862,
        naive: false,
    },
    Case {
        rows: 6,
        cols: 6,
        closed: false,
        expect: 6_637_920,
        naive: false,
    },
    Case {
        rows: 5,
        cols: 6,
        closed: false,
        expect: 37_568,
        naive: false,
    },
    Case {
        rows: 5,
        cols: 6,
        closed: true,
        expect: 8,
        naive: true,
    },
];

fn bench_counts(c: &mut Criterion) {
    let k = Piece::knight();
    let mut group = c.benchmark_group("count");
    group.sample_size(10);
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for case in &CASES {
            let b = Board::new(case.rows, case.cols).unwrap();
            let spec = CountSpec {
                closed: case.closed,
                symmetry: true,
                ..CountSpec::default()
            };
            let engines: &[(Engine, &str)] = if case.naive {
                &[(Engine::Dfs, "dfs"), (Engine::Naive, "naive")]
            } else {
                &[(Engine::Dfs, "dfs")]
            };
            for &(engine, name) in engines {
                // the naive engine is single-threaded: bench it once
                if engine == Engine::Naive && threads > 1 {
                    continue;
                }
                let id = format!(
                    "{b} {} {name} {threads}t",
                    if case.closed { "closed" } else { "open" }
                );
                group.bench_function(id, |bench| {
                    bench.iter(|| {
                        let got = pool
                            .install(|| count::count(black_box(b), &k, &spec, engine))
                            .unwrap();
                        let figure = if case.closed {
                            got.undirected
                        } else {
                            got.directed
                        };
                        assert_eq!(figure, case.expect.into(), "{b} {name}");
                        figure
                    });
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, bench_counts);
criterion_main!(benches);
