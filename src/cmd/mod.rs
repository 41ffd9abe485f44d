//! One module per subcommand: each turns its arguments into a library call and prints the answer.

pub(crate) mod bench;
pub(crate) mod completions;
pub(crate) mod count;
pub(crate) mod estimate;
pub(crate) mod hunt;
pub(crate) mod list;
pub(crate) mod manpage;
pub(crate) mod merge;
pub(crate) mod sample;
pub(crate) mod status;
pub(crate) mod survey;
pub(crate) mod tally;
pub(crate) mod tour;
pub(crate) mod verify;

use anyhow::{Context, Result};
use knights::{Board, Square};

/// Checks that an optional square lies on the board.
pub(crate) fn on_board(board: Board, sq: Option<Square>, what: &str) -> Result<Option<Square>> {
    sq.map(|s| board.check_square(s).with_context(|| what.to_string()))
        .transpose()
}
