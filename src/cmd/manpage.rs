//! `knights manpage`: the manual page in roff, from the same clap definition the program parses,
//! with the exit codes and the environment added.

use anyhow::{Context, Result};
use clap::CommandFactory;
use knights::cli::{Cli, ManpageArgs, definition};

/// The sections clap does not know: exit codes (`main`'s table) and the environment.
const EXTRA: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Success: a tour printed, a valid tour, a count (a count of 0 included), a bench whose answers all passed their checks.
.TP
\fB1\fR
Nothing found: no tour exists or none was found, \fBverify\fR found the tour invalid, \fBmerge\fR cannot claim a total, a \fBhunt\fR target cannot be reached, or a \fBbench\fR answer failed its check.
.TP
\fB2\fR
Usage or input error, with one line on standard error naming the bad value and what is allowed.
.TP
\fB130\fR
Interrupted by Ctrl\-C or SIGTERM: a count prints its partial total and the command that resumes it.
.SH ENVIRONMENT
.TP
\fBNO_COLOR\fR
Set to a non\-empty value, \fB\-\-color auto\fR (the default) does not colour the grid.
.TP
\fBTERM\fR
\fBdumb\fR: \fB\-\-color auto\fR does not colour the grid.
"#;

pub(crate) fn run(a: &ManpageArgs) -> Result<u8> {
    if let Some(dir) = &a.dir {
        // knights.1 and knights-tour.1, knights-count.1, ...: one page a subcommand. Without
        // clap's `help` subcommand, which clap_mangen cannot leave out of a command already
        // built: it made a page `knights-help-*.1` for every subcommand, each saying only that
        // it prints the help of another
        let cmd = Cli::command().disable_help_subcommand(true);
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder '{}'", dir.display()))?;
        clap_mangen::generate_to(cmd, dir)
            .with_context(|| format!("cannot write the manual pages into '{}'", dir.display()))?;
        return Ok(0);
    }
    let man = clap_mangen::Man::new(definition());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    man.render_subcommands_section(&mut page)?;
    page.extend_from_slice(EXTRA.as_bytes());
    man.render_version_section(&mut page)?;
    crate::emit(&String::from_utf8(page)?)?;
    Ok(0)
}
