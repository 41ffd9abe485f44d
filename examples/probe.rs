use knights::count::{count, CountSpec, Engine};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let board = a[1].parse().unwrap();
    let closed = a.get(2).map(|s| s == "closed").unwrap_or(false);
    let spec = CountSpec { closed, symmetry: true, ..Default::default() };
    let c = count(board, &knights::Piece::knight(), &spec, Engine::Dfs).unwrap();
    println!("{} {} {} {:.4}s {}", board, c.directed, c.undirected, c.seconds, c.how);
}
