use knights::count::{CountSpec, Plan, count_units, weigh};
use std::time::Instant;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let board = a[1].parse().unwrap();
    let closed = a.get(2).map(|s| s == "closed").unwrap_or(false);
    let target: usize = a.get(3).map(|s| s.parse().unwrap()).unwrap_or(4096);
    let spec = CountSpec {
        closed,
        symmetry: true,
        ..Default::default()
    };
    for _ in 0..3 {
        let t0 = Instant::now();
        let plan = Plan::new(board, &knights::Piece::knight(), &spec);
        let units = plan.units(target);
        let t1 = t0.elapsed().as_secs_f64();
        let c = count_units(&plan, &units);
        let s = weigh(&plan, &units, &c);
        println!(
            "{} sum={} units={} plan={:.4}s total={:.4}s",
            board,
            s,
            units.len(),
            t1,
            t0.elapsed().as_secs_f64()
        );
    }
}
