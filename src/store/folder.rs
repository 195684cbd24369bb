//! Result folders, written whole or not at all.
//!
//! A result set (summary, curves, runs, report, charts) must never be half old and half new.
//! [`Destination::open`] takes an advisory lock beside the destination (a second run into the
//! same folder fails at once), decides whether the folder may be replaced (an empty folder or
//! this scenario's own results may; another scenario's results or anything else only with
//! [`Replace::Any`], the command line's `--force`), and creates a private staging folder beside
//! it with an unpredictable name. Every file is written into the staging folder, created
//! exclusively (never through a symlink) and synced. [`Destination::commit`] then swaps the
//! staging folder and the destination in one `renameat2(RENAME_EXCHANGE)` (Linux; `renameatx_np`
//! with `RENAME_SWAP` on macOS) and removes the old set, now under the staging name, only
//! after. A kill at any instant leaves the complete old set or the complete new set, plus at
//! most one staging folder, which the next run into that destination removes.
//!
//! Elsewhere (other systems, or file systems that refuse the exchange) the swap is two renames:
//! the old set to `.<name>.old-XXXXXX`, the new one into place. A kill between them leaves no
//! destination and the old set under that name; the next run into the destination puts it back
//! before anything else (and removes an empty `.<name>.old-XXXXXX`, left by a kill before the
//! first rename).

mod claim;

pub use claim::Previous;

use crate::store::names::{self, ResultKind};
use crate::util::cancel::{Cancel, Cancelled};
use claim::Marker;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a result folder could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The path exists and is a file (or something else), not a folder.
    #[error("{} exists and is not a folder", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// The folder (or its parent) could not be created.
    #[error("cannot create output folder {}: {error}", path.display())]
    Create {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// No staging folder can be created beside the destination.
    #[error("output folder {} is not writable (a staging folder cannot be created in {}): {error}", path.display(), parent.display())]
    NotWritable {
        /// The destination.
        path: PathBuf,
        /// Its parent, where the staging folder goes.
        parent: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// Another process is writing into the same destination.
    #[error("{} is being written by another specprobe (it holds the lock {}); wait for it to finish or choose another --out", path.display(), lock.display())]
    Locked {
        /// The destination.
        path: PathBuf,
        /// The lock file.
        lock: PathBuf,
    },
    /// The lock file cannot be opened or locked.
    #[error("cannot lock {}: {error}", lock.display())]
    Lock {
        /// The lock file.
        lock: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The destination holds something that replacing would lose.
    #[error("{} holds {what}; replacing it would delete that: pass --force to replace it, or choose another --out", path.display())]
    Occupied {
        /// The destination.
        path: PathBuf,
        /// What it holds.
        what: String,
    },
    /// Writing a result file failed.
    #[error("cannot write {}: {error}", path.display())]
    Write {
        /// The file (as it would be named in the destination).
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// An input file of a saved result could not be read.
    #[error("cannot read {}: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: crate::util::input::ReadError,
    },
    /// The destination contains the working directory or an input of the command.
    #[error("{} cannot be the output folder: it contains {what}, which replacing it would remove; choose another --out", path.display())]
    Encloses {
        /// The destination.
        path: PathBuf,
        /// What it contains.
        what: String,
    },
    /// The lock file was deleted or replaced during the run.
    #[error("the lock {} was deleted or replaced while this run was writing {}, so another writer may have been let in; these results were not swapped in (run again)", lock.display(), path.display())]
    LockLost {
        /// The destination.
        path: PathBuf,
        /// The lock file.
        lock: PathBuf,
    },
    /// The swap itself failed (the old set is still in place).
    #[error("cannot move the new results into {}: {error}", path.display())]
    Swap {
        /// The destination.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The run was stopped before its results were swapped in.
    #[error("{0}; the results in the output folder were left as they were")]
    Cancelled(#[from] Cancelled),
}

/// Whether a destination holding other results may be replaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Replace {
    /// Only an empty folder or this scenario's own earlier results.
    #[default]
    SameScenario,
    /// Anything (the command line's `--force`): what the folder held is deleted.
    Any,
}

/// A folder being written: files go to `dir` (the private staging folder) and are reported at
/// `shown` (where they will be once the set is swapped in).
#[derive(Clone, Debug)]
pub(crate) struct OutputDir {
    dir: PathBuf,
    shown: PathBuf,
}

impl OutputDir {
    /// A folder of saved results, for reading.
    pub(crate) fn existing(path: &Path) -> OutputDir {
        OutputDir {
            dir: path.to_path_buf(),
            shown: path.to_path_buf(),
        }
    }

    /// Where the files are being written now.
    #[cfg(test)]
    fn staging_path(&self) -> &Path {
        &self.dir
    }

    /// Creates `name` exclusively (never through an existing entry, symlink or not), writes
    /// `bytes`, syncs it, and returns the path it will have in the destination.
    pub(crate) fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, OutputError> {
        let shown = self.shown.join(name);
        let err = |error| OutputError::Write {
            path: shown.clone(),
            error,
        };
        fault::before_file(&shown).map_err(err)?;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.dir.join(name))
            .map_err(err)?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(err)?;
        fault::after_file(&shown);
        Ok(shown)
    }

    /// Creates `name` exclusively, to be written while the run goes on (`runs.csv` and the
    /// per-policy files it is assembled from). The fault hooks count it when
    /// [`OutputDir::adopt`] takes it into the set, in the order the other files are written.
    pub(crate) fn create(&self, name: &str) -> Result<std::fs::File, OutputError> {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(self.dir.join(name))
            .map_err(|error| OutputError::Write {
                path: self.shown.join(name),
                error,
            })
    }

    /// Opens `name`, made with [`OutputDir::create`] or [`OutputDir::append`], for appending
    /// (created when missing).
    pub(crate) fn append(&self, name: &str) -> Result<std::fs::File, OutputError> {
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(self.dir.join(name))
            .map_err(|error| self.write_error(name, error))
    }

    /// Opens a file of the staging folder for reading it back.
    pub(crate) fn open(&self, name: &str) -> Result<std::fs::File, OutputError> {
        std::fs::File::open(self.dir.join(name)).map_err(|error| self.write_error(name, error))
    }

    /// A write error on `name`, named by the path it will have in the destination.
    pub(crate) fn write_error(&self, name: &str, error: std::io::Error) -> OutputError {
        OutputError::Write {
            path: self.shown.join(name),
            error,
        }
    }

    /// Removes a file made with [`OutputDir::create`] that is not part of the set.
    pub(crate) fn remove(&self, name: &str) -> Result<(), OutputError> {
        std::fs::remove_file(self.dir.join(name)).map_err(|error| OutputError::Write {
            path: self.shown.join(name),
            error,
        })
    }

    /// Takes `name`, written with [`OutputDir::create`], into the set: syncs it and returns the
    /// path it will have in the destination.
    pub(crate) fn adopt(&self, name: &str) -> Result<PathBuf, OutputError> {
        let shown = self.shown.join(name);
        let err = |error| OutputError::Write {
            path: shown.clone(),
            error,
        };
        fault::before_file(&shown).map_err(err)?;
        std::fs::File::open(self.dir.join(name))
            .and_then(|f| f.sync_all())
            .map_err(err)?;
        fault::after_file(&shown);
        Ok(shown)
    }

    /// A new subfolder (for `compare`, which keeps each scenario's results inside its own).
    pub(crate) fn subfolder(&self, name: &str) -> Result<OutputDir, OutputError> {
        let dir = self.dir.join(name);
        // The staging folder is private, so a folder already there is one this set made
        // (the data files of a cell `plot` copied before its charts): it is reused, never a
        // link or a file.
        let reuse = |e: &std::io::Error| {
            e.kind() == std::io::ErrorKind::AlreadyExists
                && std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir())
        };
        match std::fs::create_dir(&dir) {
            Err(e) if !reuse(&e) => {
                return Err(OutputError::Create {
                    path: self.shown.join(name),
                    error: e,
                });
            }
            _ => {}
        }
        Ok(OutputDir {
            dir,
            shown: self.shown.join(name),
        })
    }

    /// Reads a file of the folder (a regular file of bounded size; a PNG chart is binary, every
    /// other file specprobe writes is text).
    pub(crate) fn read(&self, name: &str) -> Result<Vec<u8>, OutputError> {
        let path = self.dir.join(name);
        let read = if name.ends_with(".png") {
            crate::util::input::read_bounded_binary
        } else {
            crate::util::input::read_bounded
        };
        read(&path, crate::util::input::MAX_RESULT_BYTES).map_err(|error| OutputError::Read {
            path: self.shown.join(name),
            error,
        })
    }

    /// Copies the regular files of `from` (not its charts, report or marker) into this
    /// folder, for `plot`, which re-renders around them.
    pub(crate) fn copy_data_from(
        &self,
        from: &Path,
        keep: impl Fn(&str) -> bool,
    ) -> Result<(), OutputError> {
        let entries = std::fs::read_dir(from).map_err(|error| OutputError::Read {
            path: from.to_path_buf(),
            error: error.into(),
        })?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            // A data file the user linked in is read through the link (reading is harmless)
            // and stored as a file; folders and anything else stay behind.
            let is_file = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file());
            if is_file && keep(name) {
                let bytes = OutputDir::existing(from).read(name)?;
                self.write(name, &bytes)?;
            }
        }
        Ok(())
    }
}

/// A destination folder, locked, with its staging folder beside it.
#[derive(Debug)]
pub struct Destination {
    path: PathBuf,
    staging: tempfile::TempDir,
    previous: Previous,
    marker: Marker,
    mode: Option<u32>,
    /// Held until the destination is dropped: the advisory lock, and where it lives (checked
    /// to be the same file before the swap: a lock file deleted during the run no longer
    /// excludes a second writer).
    lock: File,
    lock_path: PathBuf,
    /// A lock on the staging folder itself, held while this run lives: another writer's
    /// clean-up never removes a live run's staging folder, whatever became of the lock file.
    _live: File,
}

/// The name of `path`'s lock file, staging folders and fallback old-set folders.
fn sibling(parent: &Path, name: &str, what: &str) -> PathBuf {
    parent.join(format!(".{name}.{what}"))
}

impl Destination {
    /// Locks `path` for writing `scenario`'s results (of `kind`: regret, identification, sweep,
    /// partial or comparison), checks that it may be replaced, cleans up what an earlier killed
    /// run left, and creates the staging folder. Nothing in `path` changes yet.
    pub(crate) fn open(
        path: &Path,
        scenario: &str,
        kind: ResultKind,
        replace: Replace,
    ) -> Result<Destination, OutputError> {
        Destination::open_reading(path, scenario, kind, replace, &[])
    }

    /// [`Destination::open`] for a command that reads `inputs` (scenario files, shard or
    /// result folders): a destination that contains one of them, or the working directory, is
    /// refused, and one that is an input is replaced only with [`Replace::Any`].
    pub(crate) fn open_reading(
        path: &Path,
        scenario: &str,
        kind: ResultKind,
        replace: Replace,
        inputs: &[&Path],
    ) -> Result<Destination, OutputError> {
        let path = resolve(path)?;
        encloses(&path, inputs, replace)?;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| OutputError::NotAFolder { path: path.clone() })?
            .to_string();
        let parent = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        std::fs::create_dir_all(&parent).map_err(|error| OutputError::Create {
            path: path.clone(),
            error,
        })?;
        let lock_path = sibling(&parent, &name, "lock");
        let lock = open_lock(&lock_path).map_err(|error| {
            if error.kind() == std::io::ErrorKind::PermissionDenied {
                OutputError::NotWritable {
                    path: path.clone(),
                    parent: parent.clone(),
                    error,
                }
            } else {
                OutputError::Lock {
                    lock: lock_path.clone(),
                    error,
                }
            }
        })?;
        match try_lock_patiently(&lock) {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(OutputError::Locked {
                    path,
                    lock: lock_path,
                });
            }
            Err(std::fs::TryLockError::Error(error)) => {
                return Err(OutputError::Lock {
                    lock: lock_path,
                    error,
                });
            }
        }
        recover(&parent, &name, &path);
        let previous = claim::previous(&path, scenario, kind, replace)?;
        let mode = existing_mode(&path);
        let not_writable = |error| OutputError::NotWritable {
            path: path.clone(),
            parent: parent.clone(),
            error,
        };
        let staging = tempfile::Builder::new()
            .prefix(&format!(".{name}.staging-"))
            .tempdir_in(&parent)
            .map_err(not_writable)?;
        // Ours, recognisably (a folder of the user's that happens to have such a name is never
        // removed), and alive while this run is.
        std::fs::write(staging.path().join(STAGING_TAG), b"").map_err(not_writable)?;
        let live = File::open(staging.path()).map_err(not_writable)?;
        live.try_lock().map_err(|e| OutputError::Lock {
            lock: staging.path().to_path_buf(),
            error: std::io::Error::other(e.to_string()),
        })?;
        Ok(Destination {
            path,
            staging,
            previous,
            marker: Marker::new(scenario, kind),
            mode,
            lock,
            lock_path,
            _live: live,
        })
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the destination held.
    pub fn previous(&self) -> &Previous {
        &self.previous
    }

    /// The staging folder, where every file of the new set is written.
    pub(crate) fn staging(&self) -> OutputDir {
        OutputDir {
            dir: self.staging.path().to_path_buf(),
            shown: self.path.clone(),
        }
    }

    /// Swaps the staged set in whole and removes the old one; refuses when `cancel` is set.
    pub(crate) fn commit(self, cancel: &Cancel) -> Result<Previous, OutputError> {
        cancel.check()?;
        let staging = self.staging();
        let dir = self.staging.path();
        let swap_error = |error| OutputError::Swap {
            path: self.path.clone(),
            error,
        };
        std::fs::remove_file(dir.join(STAGING_TAG)).map_err(swap_error)?;
        let mut marker = self.marker.clone();
        marker.files = claim::listing(dir).map_err(swap_error)?;
        let marker = serde_json::to_vec_pretty(&marker).expect("the marker serialises");
        staging.write(names::MARKER, &marker)?;
        set_mode(dir, self.mode.unwrap_or(0o755));
        File::open(dir)
            .and_then(|f| f.sync_all())
            .map_err(|error| OutputError::Swap {
                path: self.path.clone(),
                error,
            })?;
        fault::before_swap(&self.path);
        cancel.check()?;
        still_locked(&self.lock, &self.lock_path).map_err(|()| OutputError::LockLost {
            path: self.path.clone(),
            lock: self.lock_path.clone(),
        })?;
        if std::fs::symlink_metadata(&self.path).is_ok() {
            if !exchange(dir, &self.path).map_err(swap_error)? {
                swap_by_renames(dir, &self.path).map_err(swap_error)?;
            }
            // `dir` now holds the old set.
            fault::after_swap(&self.path);
            remove_old_set(&self.staging.keep());
        } else {
            std::fs::rename(dir, &self.path).map_err(swap_error)?;
            let _ = self.staging.keep();
        }
        if let Some(parent) = self.path.parent() {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            let _ = File::open(parent).and_then(|f| f.sync_all());
        }
        Ok(self.previous)
    }
}

/// `path` made absolute and, when it is a symlink to a folder, the folder it names (a link the
/// user made is the user's intent; the swap replaces the folder, not the link).
fn resolve(path: &Path) -> Result<PathBuf, OutputError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() || meta.is_dir() => {
            let real = std::fs::canonicalize(path).map_err(|error| OutputError::Create {
                path: path.to_path_buf(),
                error,
            })?;
            if !real.is_dir() {
                return Err(OutputError::NotAFolder {
                    path: path.to_path_buf(),
                });
            }
            Ok(real)
        }
        Ok(_) => Err(OutputError::NotAFolder {
            path: path.to_path_buf(),
        }),
        Err(_) => std::path::absolute(path).map_err(|error| OutputError::Create {
            path: path.to_path_buf(),
            error,
        }),
    }
}

/// Takes the advisory lock, retrying for a moment before reporting it held. The lock belongs
/// to the open file description, which a `fork` in another thread of this process (any
/// `Command::spawn`, until its `exec` closes the descriptor) shares for a few microseconds; a
/// writer that really holds it holds it for its whole run, so a short wait only removes that
/// false "locked" (seen in CI: a test spawning `mkfifo` beside one reopening a folder).
fn try_lock_patiently(lock: &File) -> Result<(), std::fs::TryLockError> {
    const TRIES: u32 = 25;
    for _ in 1..TRIES {
        match lock.try_lock() {
            Err(std::fs::TryLockError::WouldBlock) => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            other => return other,
        }
    }
    lock.try_lock()
}

/// Opens (creating) the lock file without following a symlink planted at its name.
fn open_lock(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .mode(0o644);
    }
    options.open(path)
}

/// A file in every staging folder from its creation until the commit: what tells a staging
/// folder of specprobe's from a folder of the user's with a similar name.
const STAGING_TAG: &str = ".specprobe-staging";

/// Cleans up after a run that was killed: puts back an old set the two-rename fallback had
/// moved aside (when the destination is missing), then removes staging folders and old sets.
/// Only folders specprobe made are touched: real folders (never a link, never followed)
/// holding a staging tag or a marker of ours, and of those only the ones no live run holds
/// (each run locks its own staging folder, so a lock file deleted under a running writer does
/// not let this clean-up remove that writer's files).
fn recover(parent: &Path, name: &str, path: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let staging = format!(".{name}.staging-");
    let old = format!(".{name}.old-");
    let mut leftovers = Vec::new();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(n) = file_name.to_str() else {
            continue;
        };
        if !(n.starts_with(&staging) || n.starts_with(&old)) {
            continue;
        }
        let dir = entry.path();
        // The fallback's aside folder, made empty, then killed before the old set moved in:
        // nothing of anyone's is in it (remove_dir refuses a folder that holds anything, and
        // never follows a link).
        if n.starts_with(&old)
            && std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir())
            && std::fs::remove_dir(&dir).is_ok()
        {
            continue;
        }
        let ours = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir())
            && (std::fs::symlink_metadata(dir.join(STAGING_TAG)).is_ok_and(|m| m.is_file())
                || claim::Marker::read(&dir).is_some());
        if !ours || held_by_a_live_run(&dir) {
            continue;
        }
        if n.starts_with(&old)
            && std::fs::symlink_metadata(path).is_err()
            && std::fs::rename(&dir, path).is_ok()
        {
            tracing::warn!(
                "{}: restored the earlier results an interrupted run had moved aside",
                path.display()
            );
            continue;
        }
        leftovers.push(dir);
    }
    for p in leftovers {
        // remove_dir_all removes a link itself, never what it names.
        let _ = std::fs::remove_dir_all(&p);
    }
}

/// Removes the old set that the swap left in the staging folder `dir`, tagged as a staging
/// folder first and the tag removed last: a kill at any instant of the removal leaves a folder
/// [`recover`] knows as ours and removes on the next run into the destination. (Removing in
/// directory order, a kill after the marker had gone left a folder nothing claimed: the old
/// set orphaned beside the results.)
fn remove_old_set(dir: &Path) {
    if std::fs::write(dir.join(STAGING_TAG), b"").is_err() {
        let _ = std::fs::remove_dir_all(dir);
        return;
    }
    remove_all_but_the_tag(dir);
    let _ = std::fs::remove_file(dir.join(STAGING_TAG));
    let _ = std::fs::remove_dir(dir);
}

/// Everything in `dir` but its staging tag (links removed, never followed).
fn remove_all_but_the_tag(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name() == STAGING_TAG {
            continue;
        }
        let path = entry.path();
        let _ = match entry.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
    }
}

/// Whether a live run holds `dir` (its staging folder) locked.
fn held_by_a_live_run(dir: &Path) -> bool {
    match File::open(dir) {
        Ok(f) => matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock)),
        Err(_) => true,
    }
}

/// Whether `path` is still the file `lock` locked: `Err` when it was deleted or replaced
/// (then another writer may be in). A deleted lock file nobody replaced is created again
/// exclusively and locked, which restores the exclusion.
fn still_locked(lock: &File, path: &Path) -> Result<(), ()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ours = lock.metadata().map_err(|_| ())?;
        match std::fs::symlink_metadata(path) {
            Ok(now) if now.dev() == ours.dev() && now.ino() == ours.ino() => Ok(()),
            Ok(_) => Err(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut options = std::fs::OpenOptions::new();
                options.read(true).write(true).create_new(true);
                let again = options.open(path).map_err(|_| ())?;
                again.try_lock().map_err(|_| ())?;
                // Held until the process ends: the destination's own lock is on the unlinked
                // file.
                std::mem::forget(again);
                Ok(())
            }
            Err(_) => Err(()),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (lock, path);
        Ok(())
    }
}

/// Refuses a destination that contains the working directory or an input (the swap would
/// pull the floor from under them), and one that is an input unless `replace` allows it.
fn encloses(path: &Path, inputs: &[&Path], replace: Replace) -> Result<(), OutputError> {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    if let Some(cwd) = std::env::current_dir().ok().and_then(|d| canonical(&d))
        && cwd.starts_with(path)
    {
        return Err(OutputError::Encloses {
            path: path.to_path_buf(),
            what: format!("the working directory {}", cwd.display()),
        });
    }
    for input in inputs {
        let Some(real) = canonical(input) else {
            continue;
        };
        if real == path {
            if replace == Replace::SameScenario {
                return Err(OutputError::Occupied {
                    path: path.to_path_buf(),
                    what: format!("an input of this command ({})", input.display()),
                });
            }
        } else if real.starts_with(path) {
            return Err(OutputError::Encloses {
                path: path.to_path_buf(),
                what: format!("the input {}", input.display()),
            });
        }
    }
    Ok(())
}

/// The permission bits of an existing destination, kept for the new set.
fn existing_mode(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

fn set_mode(dir: &Path, mode: u32) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    {
        let _ = (dir, mode);
    }
}

/// Exchanges `a` and `b` atomically; `Ok(false)` when this system or file system cannot.
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
            Ok(()) => Ok(true),
            Err(e)
                if e == rustix::io::Errno::INVAL
                    || e == rustix::io::Errno::NOSYS
                    || e == rustix::io::Errno::NOTSUP =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

/// The fallback: the old set aside under `.<name>.old-XXXXXX`, the new one into place; on
/// return `staged` holds the old set (as after an exchange).
fn swap_by_renames(staged: &Path, dest: &Path) -> std::io::Result<()> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    let name = dest.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    // An empty folder with a fresh unpredictable name; rename() replaces an empty folder.
    let aside = tempfile::Builder::new()
        .prefix(&format!(".{name}.old-"))
        .tempdir_in(parent)?
        .keep();
    std::fs::rename(dest, &aside)?;
    if let Err(e) = std::fs::rename(staged, dest) {
        let _ = std::fs::rename(&aside, dest);
        return Err(e);
    }
    std::fs::rename(&aside, staged)
}

/// Test hooks for the kill and disk-full tests (see the guide's contributing page, Development):
/// `SPECPROBE_FAULT=pause-after-file:N` (or `pause-before-swap`, `pause-after-swap`) prints
/// `specprobe-fault: paused ...` on stderr and waits to be killed; `fail-file:N` makes the
/// N-th file write fail as a full disk would. Unset, each hook is one cached check.
mod fault {
    use std::path::Path;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    static FILES: AtomicU64 = AtomicU64::new(0);

    fn spec() -> Option<&'static str> {
        static SPEC: OnceLock<Option<String>> = OnceLock::new();
        SPEC.get_or_init(|| std::env::var("SPECPROBE_FAULT").ok())
            .as_deref()
    }

    fn pause(what: &str) -> ! {
        eprintln!("specprobe-fault: paused {what}");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }

    pub(super) fn before_file(path: &Path) -> std::io::Result<()> {
        let Some(spec) = spec() else { return Ok(()) };
        let n = FILES.load(Ordering::SeqCst) + 1;
        if spec.strip_prefix("fail-file:").and_then(|s| s.parse().ok()) == Some(n) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                format!("No space left on device (injected at {})", path.display()),
            ));
        }
        Ok(())
    }

    pub(super) fn after_file(path: &Path) {
        let Some(spec) = spec() else { return };
        let n = FILES.fetch_add(1, Ordering::SeqCst) + 1;
        if spec
            .strip_prefix("pause-after-file:")
            .and_then(|s| s.parse().ok())
            == Some(n)
        {
            pause(&format!("after file {n} ({})", path.display()));
        }
    }

    pub(super) fn before_swap(path: &Path) {
        if spec() == Some("pause-before-swap") {
            pause(&format!("before swapping {}", path.display()));
        }
    }

    pub(super) fn after_swap(path: &Path) {
        if spec() == Some("pause-after-swap") {
            pause(&format!("after swapping {}", path.display()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn write_set(path: &Path, scenario: &str, content: &str) -> Result<Previous, OutputError> {
        let d = Destination::open(path, scenario, ResultKind::Regret, Replace::SameScenario)?;
        let s = d.staging();
        s.write("a.txt", content.as_bytes())?;
        s.write("b.txt", content.as_bytes())?;
        d.commit(&Cancel::new())
    }

    #[test]
    fn sets_are_swapped_whole_and_nothing_is_left_behind() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        assert_eq!(write_set(&out, "s", "one").unwrap(), Previous::Nothing);
        assert_eq!(write_set(&out, "s", "two").unwrap(), Previous::SameScenario);
        assert_eq!(std::fs::read_to_string(out.join("a.txt")).unwrap(), "two");
        assert_eq!(files(&out), [names::MARKER, "a.txt", "b.txt"]);
        assert_eq!(files(tmp.path()), [".out.lock", "out"]);
    }

    #[test]
    fn a_dropped_or_cancelled_destination_changes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        write_set(&out, "s", "one").unwrap();
        {
            let d =
                Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).unwrap();
            d.staging().write("a.txt", b"half").unwrap();
        }
        let d = Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).unwrap();
        d.staging().write("a.txt", b"cancelled").unwrap();
        let cancel = Cancel::new();
        cancel.cancel();
        assert!(matches!(d.commit(&cancel), Err(OutputError::Cancelled(_))));
        assert_eq!(std::fs::read_to_string(out.join("a.txt")).unwrap(), "one");
        assert_eq!(files(tmp.path()), [".out.lock", "out"]);
    }

    #[test]
    fn a_second_writer_is_refused_while_the_first_holds_the_lock() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        let first =
            Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).unwrap();
        let err =
            Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).unwrap_err();
        assert!(matches!(err, OutputError::Locked { .. }), "{err}");
        assert!(err.to_string().contains("another specprobe"), "{err}");
        first.commit(&Cancel::new()).unwrap();
        Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).unwrap();
    }

    #[test]
    fn foreign_folders_need_force() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("thesis.tex"), "precious").unwrap();
        let err = write_set(&out, "s", "x").unwrap_err();
        assert!(err.to_string().contains("--force"), "{err}");
        assert!(err.to_string().contains("thesis.tex"), "{err}");
        assert!(out.join("thesis.tex").exists());
        write_set(&tmp.path().join("other"), "t", "x").unwrap();
        let err = write_set(&tmp.path().join("other"), "s", "x").unwrap_err();
        assert!(err.to_string().contains("another scenario, \"t\""), "{err}");
        let d = Destination::open(&out, "s", ResultKind::Regret, Replace::Any).unwrap();
        assert!(matches!(d.previous(), Previous::Forced(_)));
        d.commit(&Cancel::new()).unwrap();
        assert!(!out.join("thesis.tex").exists());
    }

    #[test]
    fn an_old_set_killed_mid_removal_is_removed_by_the_next_run() {
        // The old set as the swap leaves it under the staging name, its removal killed after
        // the marker and some files had gone (any order: the tag is written first and
        // removed last, so it is the one file certain to be there).
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        std::fs::create_dir(&out).unwrap();
        let old = tmp.path().join(".out.staging-killed");
        std::fs::create_dir_all(old.join("sub")).unwrap();
        std::fs::write(old.join("sub").join("curves.csv"), "x").unwrap();
        std::fs::write(old.join("runs.csv"), "x").unwrap();
        std::fs::write(old.join(STAGING_TAG), b"").unwrap();
        recover(tmp.path(), "out", &out);
        assert!(!old.exists(), "the half-removed old set is cleaned");
        // The removal itself leaves nothing, subfolders included.
        let set = tmp.path().join(".out.staging-done");
        std::fs::create_dir_all(set.join("a").join("b")).unwrap();
        std::fs::write(set.join("a").join("b").join("f"), "x").unwrap();
        std::fs::write(set.join(names::MARKER), "{}").unwrap();
        remove_old_set(&set);
        assert!(!set.exists());
    }

    #[test]
    fn leftovers_of_a_killed_run_are_cleaned_and_an_old_set_put_back() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        write_set(&out, "s", "one").unwrap();
        // A staging folder left by a kill (tagged as every staging folder is until its
        // commit), and the fallback's old set moved aside with the destination missing.
        let killed = tmp.path().join(".out.staging-abc123");
        std::fs::create_dir(&killed).unwrap();
        std::fs::write(killed.join(STAGING_TAG), "").unwrap();
        std::fs::rename(&out, tmp.path().join(".out.old-xyz789")).unwrap();
        // And an empty aside folder of a fallback killed before its first rename.
        std::fs::create_dir(tmp.path().join(".out.old-empty1")).unwrap();
        let d = Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).unwrap();
        assert_eq!(d.previous(), &Previous::SameScenario);
        assert_eq!(std::fs::read_to_string(out.join("a.txt")).unwrap(), "one");
        drop(d);
        assert_eq!(files(tmp.path()), [".out.lock", "out"]);
    }

    /// Names beside the destination are not trusted by name: a user's folders called like a
    /// staging folder or an old set, and a planted link to an old set, are left alone (not
    /// removed, not restored, their targets untouched).
    #[cfg(unix)]
    #[test]
    fn decoys_beside_the_destination_are_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        let backup = tmp.path().join(".out.old-backup");
        let mine = tmp.path().join(".out.staging-mine");
        for d in [&backup, &mine] {
            std::fs::create_dir(d).unwrap();
            std::fs::write(d.join("keep.txt"), "mine").unwrap();
        }
        // A link to a folder holding a marker of ours, planted where an old set would be.
        let target = tmp.path().join("target");
        write_set(&target, "s", "elsewhere").unwrap();
        std::os::unix::fs::symlink(&target, tmp.path().join(".out.old-link")).unwrap();
        write_set(&out, "s", "new").unwrap();
        for d in [&backup, &mine] {
            assert_eq!(std::fs::read_to_string(d.join("keep.txt")).unwrap(), "mine");
        }
        assert!(
            std::fs::symlink_metadata(tmp.path().join(".out.old-link"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(out.join("a.txt")).unwrap(), "new");
        assert_eq!(
            std::fs::read_to_string(target.join("a.txt")).unwrap(),
            "elsewhere"
        );
    }

    /// Deleting the lock file under a running writer lets a second writer lock a new one, but
    /// not remove the first one's staging folder; the first then finds its lock gone and does
    /// not swap its results in, so exactly one set lands, never a mix or a silent loss.
    #[cfg(unix)]
    #[test]
    fn a_deleted_lock_file_lets_no_second_writer_through_unseen() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        let first =
            Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).unwrap();
        first.staging().write("a.txt", b"first").unwrap();
        std::fs::remove_file(tmp.path().join(".out.lock")).unwrap();
        let second =
            Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).unwrap();
        // The first run's staging folder survived the second's clean-up.
        assert!(first.staging().staging_path().join("a.txt").exists());
        second.staging().write("a.txt", b"second").unwrap();
        second.commit(&Cancel::new()).unwrap();
        let err = first.commit(&Cancel::new()).unwrap_err();
        assert!(matches!(err, OutputError::LockLost { .. }), "{err}");
        assert_eq!(
            std::fs::read_to_string(out.join("a.txt")).unwrap(),
            "second"
        );
        // A lock file deleted with nobody else in: created again, and the run lands.
        let third =
            Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).unwrap();
        std::fs::remove_file(tmp.path().join(".out.lock")).unwrap();
        third.staging().write("a.txt", b"third").unwrap();
        third.commit(&Cancel::new()).unwrap();
        assert_eq!(std::fs::read_to_string(out.join("a.txt")).unwrap(), "third");
    }

    #[test]
    fn the_fallback_swap_gives_the_same_result() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        std::fs::write(a.join("new"), "").unwrap();
        std::fs::write(b.join("old"), "").unwrap();
        swap_by_renames(&a, &b).unwrap();
        assert_eq!(files(&b), ["new"]);
        assert_eq!(files(&a), ["old"]);
    }

    #[cfg(unix)]
    #[test]
    fn planted_symlinks_are_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let out = tmp.path().join("out");
        std::os::unix::fs::symlink(&victim, tmp.path().join(".out.lock")).unwrap();
        assert!(Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).is_err());
        std::fs::remove_file(tmp.path().join(".out.lock")).unwrap();
        let d = Destination::open(&out, "s", ResultKind::Regret, Replace::SameScenario).unwrap();
        let staged = d.staging();
        std::os::unix::fs::symlink(&victim, staged.staging_path().join("a.txt")).unwrap();
        assert!(staged.write("a.txt", b"overwritten").is_err());
        assert!(staged.write("b.png", b"x").is_ok());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }
}
