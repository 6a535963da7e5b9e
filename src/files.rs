//! Files that hold user data: created owner-only (0600) whatever the umask, written to a
//! temporary name beside the target and renamed into place once complete and synced, so a
//! crash or a full disk never leaves a half-written file under the real name.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub struct PrivateFile {
    file: File,
    temp: PathBuf,
    target: PathBuf,
}

impl PrivateFile {
    /// Starts writing `target` (replacing it when committed).
    pub fn create(target: &Path) -> io::Result<PrivateFile> {
        let name = target.file_name().and_then(|n| n.to_str()).unwrap_or("pillbox");
        let temp = target.with_file_name(format!(".{name}.partial"));
        let _ = fs::remove_file(&temp);
        let file = create_new_private(&temp)?;
        Ok(PrivateFile {
            file,
            temp,
            target: target.to_owned(),
        })
    }

    /// The temporary path being written (for tools that write by path, such as SQLite).
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// Syncs and renames into place; returns the file's size.
    pub fn commit(self) -> io::Result<u64> {
        self.file.sync_all()?;
        let size = fs::metadata(&self.temp)?.len();
        fs::set_permissions(&self.temp, fs::Permissions::from_mode(0o600))?;
        fs::rename(&self.temp, &self.target)?;
        if let Some(dir) = self.target.parent() {
            File::open(dir)?.sync_all()?;
        }
        Ok(size)
    }
}

impl Write for PrivateFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for PrivateFile {
    fn drop(&mut self) {
        // Not committed (an error on the way): leave no partial file behind. After a
        // commit the temporary name no longer exists and this does nothing.
        let _ = fs::remove_file(&self.temp);
    }
}

/// Creates `path`, owner-only, failing when something is there already.
pub fn create_new_private(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    // The mode above is filtered by the umask; set it outright.
    file.set_permissions(fs::Permissions::from_mode(0o600))?;
    Ok(file)
}

/// Writes `contents` to `target` as a private file.
pub fn write_private(target: &Path, contents: &[u8]) -> io::Result<u64> {
    let mut file = PrivateFile::create(target)?;
    file.write_all(contents)?;
    file.commit()
}

/// Makes an existing file owner-only (a database an older version left readable by others);
/// a missing one is fine.
pub fn make_private(path: &Path) -> io::Result<()> {
    match fs::metadata(path) {
        Ok(meta) if meta.permissions().mode() & 0o077 != 0 => {
            fs::set_permissions(path, fs::Permissions::from_mode(0o600))
        }
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates a directory (and its parents) readable by the owner only.
pub fn private_dir(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().recursive(true).mode(0o700).create(path)
}

/// Bytes the server may still write on the file system that holds `path` (what `df`
/// shows as available: the blocks reserved for root are not counted).
pub fn free_bytes(path: &Path) -> io::Result<u64> {
    let stat = rustix::fs::statvfs(path)?;
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_files_are_0600_and_appear_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("export.json");
        let mut file = PrivateFile::create(&target).unwrap();
        file.write_all(b"{}").unwrap();
        assert!(!target.exists(), "not visible before the commit");
        assert_eq!(file.commit().unwrap(), 2);
        let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);

        let abandoned = PrivateFile::create(&dir.path().join("other.json")).unwrap();
        drop(abandoned);
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no partial file left"
        );
    }
}
