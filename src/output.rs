//! The output folder: checked before any long work starts, written atomically after.
//!
//! [`OutputDir::prepare`] creates the folder and proves it writable, so that a bad `--out` fails
//! in milliseconds rather than after an hour of simulation. [`OutputDir::write`] writes each file
//! to a temporary name and renames it into place: a failure never leaves a half-written file, and
//! the results of an earlier run stay intact until their replacement is complete.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why the output folder could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The path exists and is a file (or something else), not a folder.
    #[error("{} exists and is not a folder", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// The folder could not be created.
    #[error("cannot create output folder {}: {error}", path.display())]
    Create {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The folder exists but a file cannot be written in it.
    #[error("output folder {} is not writable: {error}", path.display())]
    NotWritable {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// Writing a result file failed.
    #[error("cannot write {}: {error}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// A file's content could not be produced (a chart failed to draw).
    #[error("cannot render {}: {message}", path.display())]
    Render {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// An input file of a saved result could not be read.
    #[error("cannot read {}: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
}

/// A checked, writable output folder.
#[derive(Clone, Debug)]
pub struct OutputDir {
    path: PathBuf,
}

impl OutputDir {
    /// Creates `path` if needed and proves it writable (by writing and removing a probe file).
    pub fn prepare(path: &Path) -> Result<OutputDir, OutputError> {
        if path.exists() && !path.is_dir() {
            return Err(OutputError::NotAFolder {
                path: path.to_path_buf(),
            });
        }
        std::fs::create_dir_all(path).map_err(|source| OutputError::Create {
            path: path.to_path_buf(),
            error: source,
        })?;
        let probe = path.join(format!(".specprobe-write-test-{}", std::process::id()));
        let result = std::fs::File::create(&probe).and_then(|mut f| f.write_all(b"ok"));
        let _ = std::fs::remove_file(&probe);
        result.map_err(|source| OutputError::NotWritable {
            path: path.to_path_buf(),
            error: source,
        })?;
        Ok(OutputDir {
            path: path.to_path_buf(),
        })
    }

    /// A folder of saved results, for reading (not checked for writing).
    pub fn existing(path: &Path) -> OutputDir {
        OutputDir {
            path: path.to_path_buf(),
        }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `name` atomically (temporary file, then rename) and returns its path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, OutputError> {
        let target = self.path.join(name);
        let tmp = self
            .path
            .join(format!(".{name}.tmp-{}", std::process::id()));
        let err = |source| OutputError::Write {
            path: target.clone(),
            error: source,
        };
        let written = std::fs::File::create(&tmp)
            .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
            .and_then(|()| std::fs::rename(&tmp, &target));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(err(e));
        }
        Ok(target)
    }

    /// Lets `produce` write `name` through a temporary path (whose name keeps the extension, for
    /// writers that infer the format from it), then renames it into place.
    pub fn write_with(
        &self,
        name: &str,
        produce: impl FnOnce(&Path) -> Result<(), String>,
    ) -> Result<PathBuf, OutputError> {
        let target = self.path.join(name);
        let tmp = self
            .path
            .join(format!(".tmp-{}-{name}", std::process::id()));
        if let Err(message) = produce(&tmp) {
            let _ = std::fs::remove_file(&tmp);
            return Err(OutputError::Render {
                path: target,
                message,
            });
        }
        if let Err(source) = std::fs::rename(&tmp, &target) {
            let _ = std::fs::remove_file(&tmp);
            return Err(OutputError::Write {
                path: target,
                error: source,
            });
        }
        Ok(target)
    }

    /// Reads a file of the folder.
    pub fn read(&self, name: &str) -> Result<Vec<u8>, OutputError> {
        let path = self.path.join(name);
        std::fs::read(&path).map_err(|source| OutputError::Read {
            path,
            error: source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_atomically_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("specprobe-out-{}", std::process::id()));
        let out = OutputDir::prepare(&dir).unwrap();
        out.write("a.txt", b"one").unwrap();
        out.write("a.txt", b"two").unwrap();
        assert_eq!(out.read("a.txt").unwrap(), b"two");
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
            .collect();
        assert!(leftovers.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_in_the_way_is_a_clear_error() {
        let file = std::env::temp_dir().join(format!("specprobe-file-{}", std::process::id()));
        std::fs::write(&file, b"x").unwrap();
        let err = OutputDir::prepare(&file.join("sub")).unwrap_err();
        assert!(
            err.to_string().contains("cannot create output folder"),
            "{err}"
        );
        std::fs::remove_file(&file).unwrap();
    }
}
