//! `knights manpage`: the manual page in roff, from the same clap definition the program parses.

use anyhow::{Context, Result};
use clap::CommandFactory;
use knights::cli::{Cli, ManpageArgs};

pub(crate) fn run(a: &ManpageArgs) -> Result<u8> {
    let cmd = Cli::command();
    if let Some(dir) = &a.dir {
        // knights.1 and knights-tour.1, knights-count.1, ...: one page a subcommand
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder '{}'", dir.display()))?;
        clap_mangen::generate_to(cmd, dir)
            .with_context(|| format!("cannot write the manual pages into '{}'", dir.display()))?;
        return Ok(0);
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut page)?;
    crate::emit(&String::from_utf8(page)?)?;
    Ok(0)
}
