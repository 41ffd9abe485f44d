//! Puts the git commit into the version that `knights --version` prints, where the sources are a
//! git checkout and git is installed; otherwise the version alone. (The only build script: the
//! commit cannot be known any other way at compile time.)

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(commit) => {
            println!("cargo:rustc-env=KNIGHTS_VERSION={version} (commit {commit})");
            println!("cargo:rustc-env=KNIGHTS_COMMIT={commit}");
            // run again when HEAD moves: a checkout (HEAD) or a commit on the branch (its ref)
            for path in [
                Some("HEAD".to_string()),
                git(&["symbolic-ref", "-q", "HEAD"]),
            ]
            .into_iter()
            .flatten()
            {
                if let Some(p) = git(&["rev-parse", "--git-path", &path]) {
                    if std::path::Path::new(&p).exists() {
                        println!("cargo:rerun-if-changed={p}");
                    }
                }
            }
            if let Some(p) = git(&["rev-parse", "--git-path", "packed-refs"]) {
                if std::path::Path::new(&p).exists() {
                    println!("cargo:rerun-if-changed={p}");
                }
            }
        }
        None => {
            println!("cargo:rustc-env=KNIGHTS_VERSION={version}");
            println!("cargo:rustc-env=KNIGHTS_COMMIT=unknown");
            println!("cargo:rerun-if-changed=build.rs");
        }
    }
}
