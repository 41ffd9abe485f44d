//! `knights merge`: put the checkpoints of a sharded count together.

use anyhow::Result;
use knights::count::driver::{self, Merged};

use crate::progress::Stderr;
use crate::{EXIT_NOT_FOUND, emit};
use knights::cli::MergeArgs;

pub(crate) fn run(a: &MergeArgs) -> Result<u8> {
    let m = driver::merge(&a.files, &Stderr { quiet: a.json })?;
    if a.json {
        emit(&(m.json().to_string() + "\n"))?;
    } else {
        emit(&m.text(a.files.len()))?;
    }
    Ok(match m {
        Merged::Total { .. } => 0,
        Merged::Partial { .. } => EXIT_NOT_FOUND,
    })
}
