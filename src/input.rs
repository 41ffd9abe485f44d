//! Files the user names: only regular files are opened (a device or a pipe could be read
//! forever), and tour texts are read up to a cap.

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use thiserror::Error;

/// The most a tour's text may take, in bytes: 2 GiB. The largest board, 10000×10000, prints as
/// about 1.2 GB of compact JSON (`[9999,9999],` a square) and 1.0 GB of grid or moves.
pub const MAX_TOUR_TEXT: u64 = 2 << 30;

/// Why a named file or an input cannot be read.
#[derive(Debug, Error)]
pub enum InputError {
    #[error("'{}' is {kind}, not a regular file", .path.display())]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("cannot read {what}: {source}")]
    Io { what: String, source: io::Error },
    #[error(
        "{what} is larger than {} (at least {got} bytes): more than a tour of the largest board (10000x10000) takes in any form knights prints",
        crate::human::human_bytes(*limit)
    )]
    TooLarge { what: String, got: u64, limit: u64 },
    #[error(
        "{what} is not a tour's text: it holds the byte {byte:#04x} at offset {offset} (a tour is a grid, moves or JSON)"
    )]
    NotText { what: String, byte: u8, offset: u64 },
}

/// What a file is, in words, when it is not a regular file.
fn kind(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_fifo() {
            return Some("a pipe");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// Checks that `path`, if it exists, is a regular file (links followed); `Ok(false)` when there
/// is nothing there.
pub fn check_regular(path: &Path) -> Result<bool, InputError> {
    match fs::metadata(path) {
        Ok(meta) => match kind(&meta) {
            None => Ok(true),
            Some(kind) => Err(InputError::NotAFile {
                path: path.into(),
                kind,
            }),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(InputError::Io {
            what: format!("'{}'", path.display()),
            source,
        }),
    }
}

/// Opens a regular file for reading. Anything else is refused before it is opened (opening a
/// pipe waits for a writer) and checked again once open (the path may have changed between).
pub fn open_regular(path: &Path) -> Result<File, InputError> {
    let io = |source| InputError::Io {
        what: format!("'{}'", path.display()),
        source,
    };
    if !check_regular(path)? {
        return Err(io(io::Error::from(io::ErrorKind::NotFound)));
    }
    let file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if let Some(kind) = kind(&meta) {
        return Err(InputError::NotAFile {
            path: path.into(),
            kind,
        });
    }
    Ok(file)
}

/// Reads the text of a tour from `reader` (`what` names it in errors): at most `limit` bytes,
/// and only text: a NUL or another control byte (tabs, line breaks and the escape of colour codes aside) stops the reading
/// at once, so `/dev/zero` or a binary file is refused in a moment. A leading UTF-8 byte-order
/// mark is dropped.
pub fn read_text(mut reader: impl Read, what: &str, limit: u64) -> Result<String, InputError> {
    let mut bytes = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(source) => {
                return Err(InputError::Io {
                    what: what.into(),
                    source,
                });
            }
        };
        let chunk = &buf[..n];
        if let Some(i) = chunk
            .iter()
            .position(|&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x1b)) || b == 0x7f)
        {
            return Err(InputError::NotText {
                what: what.into(),
                byte: chunk[i],
                offset: (bytes.len() + i) as u64,
            });
        }
        if (bytes.len() + n) as u64 > limit {
            return Err(InputError::TooLarge {
                what: what.into(),
                got: (bytes.len() + n) as u64,
                limit,
            });
        }
        bytes.extend_from_slice(chunk);
    }
    let mut text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        InputError::NotText {
            what: what.into(),
            byte: e.as_bytes()[offset],
            offset: offset as u64,
        }
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// Reads the tour text of a regular file at `path`, refusing one over `limit` bytes before
/// reading it.
pub fn read_file_text(path: &Path, limit: u64) -> Result<String, InputError> {
    let file = open_regular(path)?;
    let what = format!("'{}'", path.display());
    let len = file
        .metadata()
        .map_err(|source| InputError::Io {
            what: what.clone(),
            source,
        })?
        .len();
    if len > limit {
        return Err(InputError::TooLarge {
            what,
            got: len,
            limit,
        });
    }
    read_text(file, &what, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            open_regular(dir.path()),
            Err(InputError::NotAFile {
                kind: "a directory",
                ..
            })
        ));
        #[cfg(unix)]
        {
            let e = open_regular(Path::new("/dev/zero")).unwrap_err();
            assert!(
                e.to_string()
                    .contains("'/dev/zero' is a character device, not a regular file"),
                "{e}"
            );
            assert!(matches!(
                check_regular(Path::new("/dev/null")),
                Err(InputError::NotAFile { .. })
            ));
        }
        let f = dir.path().join("t.txt");
        assert!(!check_regular(&f).unwrap());
        fs::write(&f, "\u{feff}a1 b3\n").unwrap();
        assert_eq!(read_file_text(&f, 100).unwrap(), "a1 b3\n");
        assert!(matches!(
            read_file_text(&f, 4),
            Err(InputError::TooLarge { got: 9, .. })
        ));
    }

    #[test]
    fn reading_stops_at_the_cap_and_at_binary_bytes() {
        let e = read_text(io::repeat(b'a'), "standard input", 1 << 20).unwrap_err();
        assert!(matches!(e, InputError::TooLarge { .. }), "{e}");
        let e = read_text(io::repeat(0), "standard input", u64::MAX).unwrap_err();
        assert!(
            matches!(
                e,
                InputError::NotText {
                    byte: 0,
                    offset: 0,
                    ..
                }
            ),
            "{e}"
        );
        let e = read_text(&b"a1 b3 \xff"[..], "x", 100).unwrap_err();
        assert!(matches!(e, InputError::NotText { offset: 6, .. }), "{e}");
        assert_eq!(read_text(&b"1\t2\r\n"[..], "x", 5).unwrap(), "1\t2\r\n");
    }
}
