//! The library on its own: find a tour, check it, count 5x5. The user guide shows this file as it
//! is (docs/guide/library.md; a test compares them), so its example compiles and runs with
//! `cargo test`: `cargo run --release --example library`.

use knights::count::{CountSpec, Engine, count};
use knights::find::{FindOptions, find_tour};
use knights::tour::verify;
use knights::{Board, Piece};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let board: Board = "8x8".parse()?;
    let knight = Piece::knight();
    // a verified open tour from d4 (seed 0 for the searches' tie-breaks)
    let found = find_tour(
        board,
        &knight,
        &FindOptions::new(false, Some(board.parse_square("d4")?), 0),
    )?;
    println!("{}", knights::render::grid(&found.tour));
    // check a path of squares: Ok(closed?) or the first bad step
    assert_eq!(verify(board, &knight, &found.tour.path)?, found.tour.closed);
    // count exactly: 1,728 directed open tours of 5x5
    let spec = CountSpec {
        symmetry: true,
        ..CountSpec::default()
    };
    let c = count("5x5".parse()?, &knight, &spec, Engine::Auto)?;
    assert_eq!(c.directed, 1728u32.into());
    Ok(())
}
