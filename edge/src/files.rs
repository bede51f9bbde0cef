//! The data dir and what Arka keeps in it are for Arka's own user alone: the directory 0700 and
//! the files 0600, whatever the umask (an owner starting Arka by hand often has 022). SQLite
//! gives `-wal` and `-shm` the database file's own mode, so a private database keeps them
//! private too.
//!
//! On Windows the folder is the guard: a new data dir gets a protected access list naming the
//! local system, the Administrators and the account Arka runs as (`acl`), and the
//! files in it drop any list of their own to inherit the folder's.

use std::io::{self, Write};
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

/// Writes a new file that only its owner can read (0600 on Unix); fails if it exists.
#[cfg(unix)]
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

#[cfg(not(unix))]
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

#[cfg(unix)]
fn restrict(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(windows)]
fn restrict(path: &Path, _mode: u32) -> io::Result<()> {
    use crate::acl;
    if path.is_dir() { acl::restrict_dir(path, &acl::current_user_sid()?) } else { acl::inherit_only(path) }
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
