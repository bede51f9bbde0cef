//! The data dir and what Arka keeps in it are for Arka's own user alone: the directory 0700 and
//! the files 0600, whatever the umask (an owner starting Arka by hand often has 022). SQLite
//! gives `-wal` and `-shm` the database file's own mode, so a private database keeps them
//! private too.

use std::io;
use std::path::Path;

/// Creates `dir` (and its missing parents) readable by its owner only. A directory that exists
/// already is left as it is: it may be a shared place the owner chose (and a 0700 `/tmp` would
/// lock everyone else out).
pub fn private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)?;
    restrict(dir, 0o700)
}

/// Makes `file` readable and writable by its owner only, creating it empty when missing.
pub fn private_file(file: &Path) -> io::Result<()> {
    if !file.exists() {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        options.open(file)?;
    }
    restrict(file, 0o600)
}

/// Tightens `path` if it already exists (a file an older Arka left world-readable).
pub fn private_if_present(path: &Path) -> io::Result<()> {
    if path.exists() { restrict(path, 0o600) } else { Ok(()) }
}

#[cfg(unix)]
fn restrict(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn restrict(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn new_dirs_and_files_are_the_owners_alone_and_old_files_are_tightened() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("shop").join("data");
        private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);

        let db = dir.join("arka.db");
        private_file(&db).unwrap();
        assert_eq!(mode(&db), 0o600);

        let old = dir.join("arka.db-wal");
        std::fs::write(&old, b"left by an older Arka").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
        private_if_present(&old).unwrap();
        assert_eq!(mode(&old), 0o600);
        assert_eq!(std::fs::read(&old).unwrap(), b"left by an older Arka");
        private_if_present(&dir.join("arka.db-shm")).unwrap();
        assert!(!dir.join("arka.db-shm").exists());

        // A directory that exists is not Arka's to change.
        let shared = root.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&shared).unwrap();
        assert_eq!(mode(&shared), 0o755);
    }
}
