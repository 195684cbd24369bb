//! Reading files specprobe did not write (scenarios, the scenarios and traces they refer to,
//! saved results): regular files of bounded size only.
//!
//! A path may name a FIFO (which would block forever), a device (`/dev/zero` never ends) or a
//! file far larger than any scenario. The file is opened without blocking, its type and size
//! are checked on the open handle (so it cannot be swapped between the check and the read),
//! and at most `limit` bytes are ever read.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Largest scenario file read (a scenario with a thousand-configuration grid is about 100 KB).
pub(crate) const MAX_SCENARIO_BYTES: u64 = 16 << 20;

/// Largest saved result file read (`summary.json`, `curves.csv`, `partial.json`).
pub(crate) const MAX_RESULT_BYTES: u64 = 4 << 30;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Opening or reading failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// It is not a regular file.
    #[error("is {0}, not a regular file")]
    NotAFile(&'static str),
    /// It is larger than accepted.
    #[error("is {len} bytes, more than the {limit} accepted")]
    TooLarge {
        /// Its size.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// It is not UTF-8 text.
    #[error("is not UTF-8 text ({0})")]
    NotText(std::str::Utf8Error),
    /// It holds a NUL byte, which no text file specprobe reads does: a binary file, or a
    /// sparse one whose holes read as zeros.
    #[error(
        "holds a NUL byte at offset {0}: not a text file (a binary file, or a sparse one whose holes read as zeros)"
    )]
    Nul(u64),
}

/// Bytes read at a time, each checked before the next is read.
const CHUNK: usize = 1 << 20;

fn open(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO for reading would wait for a writer; without blocking it opens at once
        // and the type check below refuses it. No effect on regular files.
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    options.open(path)
}

fn kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// The bytes of the regular file `path`, at most `limit` of them.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_checked(path, limit, Content::Text)
}

/// [`read_bounded`] for a binary file (a PNG chart): NUL bytes are allowed, but a whole piece
/// of zeros is not (no chart has a megabyte of them; a sparse file's hole does).
pub(crate) fn read_bounded_binary(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_checked(path, limit, Content::Binary)
}

/// What a file read holds.
#[derive(Clone, Copy, PartialEq)]
enum Content {
    Text,
    Binary,
}

fn read_checked(path: &Path, limit: u64, content: Content) -> Result<Vec<u8>, ReadError> {
    let file = open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile(kind(&meta)));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            len: meta.len(),
            limit,
        });
    }
    // A text file has no NUL byte, so one ends the read at once: a file a few KB on disk but
    // sparse to gigabytes (its holes read as zeros) costs one chunk, not its length. Nothing is
    // reserved from the claimed length for the same reason.
    let mut bytes = Vec::new();
    // The file may grow while it is read: never read past the limit.
    let mut file = file.take(limit + 1);
    loop {
        let start = bytes.len();
        let n = (&mut file).take(CHUNK as u64).read_to_end(&mut bytes)?;
        let piece = &bytes[start..];
        match content {
            Content::Text => {
                if let Some(at) = piece.iter().position(|&b| b == 0) {
                    return Err(ReadError::Nul((start + at) as u64));
                }
            }
            Content::Binary => {
                if piece.len() == CHUNK && piece.iter().all(|&b| b == 0) {
                    return Err(ReadError::Nul(start as u64));
                }
            }
        }
        if bytes.len() as u64 > limit {
            return Err(ReadError::TooLarge {
                len: bytes.len() as u64,
                limit,
            });
        }
        if n == 0 {
            return Ok(bytes);
        }
    }
}

/// The UTF-8 text of the regular file `path`, at most `limit` bytes.
pub(crate) fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    let bytes = read_bounded(path, limit)?;
    String::from_utf8(bytes).map_err(|e| ReadError::NotText(e.utf8_error()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_within_the_limit_only() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "hello").unwrap();
        assert_eq!(read_text(&f, 5).unwrap(), "hello");
        assert!(matches!(
            read_text(&f, 4),
            Err(ReadError::TooLarge { len: 5, limit: 4 })
        ));
        assert!(matches!(
            read_text(dir.path(), 100),
            Err(ReadError::NotAFile(_)) | Err(ReadError::Io(_))
        ));
        std::fs::write(&f, [0xff, 0xfe]).unwrap();
        assert!(matches!(read_text(&f, 100), Err(ReadError::NotText(_))));
        std::fs::write(&f, b"{\"a\":\0}").unwrap();
        assert!(matches!(read_text(&f, 100), Err(ReadError::Nul(5))));
    }

    #[test]
    fn a_sparse_file_is_refused_at_its_first_hole_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("partial.json");
        let file = std::fs::File::create(&f).unwrap();
        let stored = b"{\"format\": \"x\"";
        std::io::Write::write_all(&mut &file, stored).unwrap();
        // 3 GiB long, a few bytes stored: reading it whole would take 3 GB.
        file.set_len(3 << 30).unwrap();
        let err = read_bounded(&f, 4 << 30).unwrap_err();
        assert!(
            matches!(err, ReadError::Nul(n) if n == stored.len() as u64),
            "{err}"
        );
        assert!(err.to_string().contains("sparse"), "{err}");
        // A binary file (a PNG) may hold NUL bytes, but not a hole's megabyte of zeros.
        let png = dir.path().join("regret.png");
        std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
        assert_eq!(read_bounded_binary(&png, 1 << 20).unwrap().len(), 16);
        let file = std::fs::OpenOptions::new().append(true).open(&png).unwrap();
        file.set_len(3 << 30).unwrap();
        let err = read_bounded_binary(&png, 4 << 30).unwrap_err();
        assert!(
            matches!(err, ReadError::Nul(n) if n == CHUNK as u64),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_refused_at_once() {
        let err = read_bounded(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(err.to_string().contains("a device"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            let err = read_bounded(&fifo, 1 << 20).unwrap_err();
            assert!(err.to_string().contains("FIFO"), "{err}");
        }
    }
}
