//! What the program says when something is wrong or left undone: the damaged file and the piece
//! named, the kind of file named as it is, what differs between two runs said in words, and
//! advice that works (issue 52).

use std::fs;

use super::cli::knights;

/// `manpage --dir` writes a page for each subcommand, and none for clap's `help` subcommand
/// (it wrote one `knights-help-*.1` for every subcommand, each only pointing at another page).
#[test]
fn manpage_dir_writes_no_help_pages() {
    let dir = tempfile::tempdir().unwrap();
    knights()
        .args(["manpage", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for page in ["knights.1", "knights-count.1", "knights-status.1"] {
        assert!(names.iter().any(|n| n == page), "no {page}: {names:?}");
    }
    assert!(
        !names.iter().any(|n| n.contains("help")),
        "help pages written: {names:?}"
    );
    // and the main page lists no help page among the subcommands
    let main = fs::read_to_string(dir.path().join("knights.1")).unwrap();
    assert!(!main.contains("knights\\-help"), "{main}");
}
