use knights::construct;
use knights::tour::CompactTour;
use knights::{Board, Piece, Square};
use std::time::Instant;
fn main() {
    let a: Vec<u32> = std::env::args()
        .skip(1)
        .map(|x| x.parse().unwrap())
        .collect();
    let b = Board {
        rows: a[0],
        cols: a[1],
    };
    for _ in 0..3 {
        let t = Instant::now();
        let p = construct::plan(b, true, Square::new(0, 0)).unwrap();
        let bt = p.build().unwrap();
        let t1 = t.elapsed().as_secs_f64();
        let tour = CompactTour::verified(b, &Piece::knight(), bt.first, bt.next, false).unwrap();
        let t2 = t.elapsed().as_secs_f64();
        drop(tour);
        println!(
            "{b}: build {t1:.3} verify {:.3} drop {:.3}",
            t2 - t1,
            t.elapsed().as_secs_f64() - t2
        );
    }
}
