//! Terminal colour for the printed grid: whether to colour at all, and the escape codes that mark
//! a tour's start and end squares.

use std::ffi::OsStr;

/// When to colour (`--color`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When standard output is a terminal, NO_COLOR is not set and TERM is not `dumb`.
    #[default]
    Auto,
    /// Always, even in a pipe or with NO_COLOR set.
    Always,
    /// Never.
    Never,
}

/// The start square: bold green, as the SVG's start disc.
pub const START: &str = "\x1b[1;32m";
/// The end square: bold red, as the SVG's end ring.
pub const END: &str = "\x1b[1;31m";
/// Back to the terminal's own colours.
pub const RESET: &str = "\x1b[0m";

/// Whether to colour output going to a terminal (`terminal`) under the environment's `NO_COLOR`
/// and `TERM`: `always` and `never` decide alone; `auto` colours only a terminal, and not when
/// NO_COLOR is set to anything but the empty string (no-color.org) or the terminal is `dumb`.
#[must_use]
pub fn enabled(
    choice: ColorChoice,
    terminal: bool,
    no_color: Option<&OsStr>,
    term: Option<&OsStr>,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            terminal && no_color.is_none_or(OsStr::is_empty) && term.is_none_or(|t| t != "dumb")
        }
    }
}

/// The text without ANSI escape sequences (`ESC [ ... letter`), so that coloured output reads
/// back like plain output.
#[must_use]
pub fn strip(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\x1b') {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        if chars.clone().next() == Some('[') {
            chars.next();
            // parameters and intermediates up to the final byte, a letter or @..~
            for d in chars.by_ref() {
                if ('@'..='~').contains(&d) {
                    break;
                }
            }
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_colours_only_a_terminal_without_no_color() {
        let os = |s: &'static str| Some(OsStr::new(s));
        assert!(enabled(ColorChoice::Auto, true, None, os("xterm")));
        assert!(!enabled(ColorChoice::Auto, false, None, os("xterm")));
        assert!(!enabled(ColorChoice::Auto, true, os("1"), os("xterm")));
        // an empty NO_COLOR does not count (no-color.org)
        assert!(enabled(ColorChoice::Auto, true, os(""), None));
        assert!(!enabled(ColorChoice::Auto, true, None, os("dumb")));
        assert!(enabled(ColorChoice::Always, false, os("1"), os("dumb")));
        assert!(!enabled(ColorChoice::Never, true, None, None));
    }

    #[test]
    fn escapes_are_stripped() {
        assert_eq!(strip("a \x1b[1;32m 1\x1b[0m b"), "a  1 b");
        assert_eq!(strip("plain"), "plain");
    }
}
