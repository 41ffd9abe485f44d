//! `knights completions SHELL`: the shell's completion script, from the same clap definition the
//! program parses.

use anyhow::Result;
use knights::cli::{CompletionsArgs, definition};

pub(crate) fn run(a: &CompletionsArgs) -> Result<u8> {
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut definition(), "knights", &mut script);
    crate::emit(&String::from_utf8(script)?)?;
    Ok(0)
}
