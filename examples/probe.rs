use knights::count::{CountSpec, Plan, count_units, weigh};
use std::time::Instant;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let board = a[1].parse().unwrap();
    let closed = a.get(2).map(|s| s == "closed").unwrap_or(false);
    let run = a.get(3).is_some();
    let spec = CountSpec {
        closed,
        symmetry: true,
        ..Default::default()
    };
    let plan = Plan::new(board, &knights::Piece::knight(), &spec);
    let t0 = Instant::now();
    let est = plan.estimate_nodes(2000, 1);
    let est2 = plan.estimate_nodes(2000, 2);
    print!(
        "{} {} est={:.3e} {:.3e} ({:.3}s)",
        board,
        if closed { "closed" } else { "open" },
        est,
        est2,
        t0.elapsed().as_secs_f64()
    );
    if run {
        let t0 = Instant::now();
        let units = plan.units(4096);
        let c = count_units(&plan, &units);
        let s = weigh(&plan, &units, &c);
        print!(" sum={} time={:.3}s", s, t0.elapsed().as_secs_f64());
    }
    println!();
}
