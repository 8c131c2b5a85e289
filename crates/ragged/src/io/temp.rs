//! Temporary files that remove themselves unless renamed into place.
//!
//! Output files are written to `.{name}.ragged-tmp-{pid}-{random}` in the target's
//! directory (so the final rename stays on one file system and is atomic), then
//! synced and renamed over the target. Dropping a [`TempFile`] that was not persisted
//! (an error, a panic) removes it, so a failed write leaves nothing behind.

use std::collections::hash_map::RandomState;
use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::{Path, PathBuf};

/// A file that is removed when dropped, unless [`TempFile::persist`]ed.
#[derive(Debug)]
pub(crate) struct TempFile {
    /// `None` once persisted or removed.
    path: Option<PathBuf>,
}

/// A random 64-bit value (std's hasher keys are randomly seeded per process and
/// per `RandomState`).
fn random_u64() -> u64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.finish()
}

impl TempFile {
    /// Create a new, empty file `.{base}.ragged-tmp-{pid}-{random}` in `dir`, open
    /// for writing and reading.
    ///
    /// # Errors
    /// The operating system's error (a missing directory is `NotFound`).
    pub(crate) fn create_in(dir: &Path, base: &str) -> io::Result<(TempFile, File)> {
        let mut attempt = 0;
        loop {
            let name = format!(
                ".{base}.ragged-tmp-{}-{:016x}",
                std::process::id(),
                random_u64()
            );
            let path = dir.join(name);
            match OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => return Ok((TempFile { path: Some(path) }, file)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 16 => {
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The file's path (empty once persisted or removed).
    pub(crate) fn path(&self) -> &Path {
        self.path.as_deref().unwrap_or(Path::new(""))
    }

    /// Rename the file over `target`; from then on it is no longer removed.
    ///
    /// # Errors
    /// The operating system's error; the file is then still removed on drop.
    pub(crate) fn persist(&mut self, target: &Path) -> io::Result<()> {
        if let Some(path) = &self.path {
            std::fs::rename(path, target)?;
            self.path = None;
        }
        Ok(())
    }

    /// Remove the file now (errors ignored: it is a best-effort cleanup).
    pub(crate) fn remove(&mut self) {
        if let Some(path) = self.path.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        self.remove();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Write;

    #[test]
    fn dropped_temp_files_are_removed_and_persisted_ones_kept() {
        let dir = std::env::temp_dir().join(format!("ragged-temp-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (temp, mut file) = TempFile::create_in(&dir, "a.csv").unwrap();
        file.write_all(b"x").unwrap();
        let path = temp.path().to_path_buf();
        assert!(path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".a.csv.ragged-tmp-"));
        assert!(path.exists());
        drop(temp);
        assert!(!path.exists());

        let (mut temp, _file) = TempFile::create_in(&dir, "b.csv").unwrap();
        let target = dir.join("b.csv");
        temp.persist(&target).unwrap();
        drop(temp);
        assert!(target.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
