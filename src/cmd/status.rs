//! `knights status`: what a checkpoint holds.

use anyhow::Result;
use knights::cli::StatusArgs;
use knights::count::status;

use crate::emit;

pub(crate) fn run(a: &StatusArgs) -> Result<u8> {
    if a.file.is_dir() {
        let s = knights::count::folder::status(&a.file)?;
        if a.json {
            emit(&(s.json().to_string() + "\n"))?;
        } else {
            emit(&s.text())?;
        }
        // a damaged record is said above, and never passes as exit 0
        return Ok(if s.damaged.is_empty() {
            0
        } else {
            crate::EXIT_USAGE
        });
    }
    let s = status::status(&a.file)?;
    if a.json {
        emit(&(s.json().to_string() + "\n"))?;
    } else {
        emit(&s.text())?;
    }
    // damage is said above (and what resume will do with it), and never passes as exit 0
    Ok(if s.log.as_ref().is_some_and(|l| l.damaged > 0) {
        crate::EXIT_USAGE
    } else {
        0
    })
}
