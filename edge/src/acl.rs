//! The data dir's access list on Windows, the equivalent of the 0700 directory of Unix: a
//! protected list (nothing inherited from `C:\ProgramData`, which lets every user read) granting
//! full control to the local system, the Administrators and the one account Arka runs as, passed
//! on to everything created inside. Files get no list of their own: they inherit the folder's, so
//! a file written by an administrator's `arka backup` stays open to the service and the reverse.
//!
//! The strings are built by pure functions (tested on every platform); only applying them calls
//! Windows.

/// The SID of a service's virtual account `NT SERVICE\<name>`: `S-1-5-80-` and the SHA-1 of the
/// upper-cased name in UTF-16LE, read as five little-endian 32-bit numbers. Windows derives it the
/// same way, so the installer can grant the account access before the service first runs.
pub fn service_sid(service_name: &str) -> String {
    let utf16: Vec<u8> = service_name.to_uppercase().encode_utf16().flat_map(u16::to_le_bytes).collect();
    let digest = openssl::sha::sha1(&utf16);
    let parts: Vec<String> =
        digest.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]).to_string()).collect();
    format!("S-1-5-80-{}", parts.join("-"))
}

/// The protected list of a private folder in SDDL: full control (`FA`) for the local system
/// (`SY`), the Administrators (`BA`) and `account` (a SID in its `S-1-…` form), inherited by the
/// files (`OI`) and folders (`CI`) inside it.
pub fn private_dir_sddl(account: &str) -> String {
    ["SY", "BA", account]
        .iter()
        .map(|who| format!("(A;OICI;FA;;;{who})"))
        .fold("D:P".to_string(), |s, ace| s + &ace)
}

/// A file's list when it only inherits its folder's: empty of its own, not protected.
pub const INHERIT_ONLY_SDDL: &str = "D:";

#[cfg(windows)]
pub use apply::{current_user_sid, inherit_only, restrict_dir};

#[cfg(windows)]
mod apply {
    use std::io;
    use std::os::windows::ffi::OsStrExt;
    use std::path::Path;

    use windows_sys::Win32::Foundation::{CloseHandle, ERROR_SUCCESS, HANDLE, LocalFree};
    use windows_sys::Win32::Security::Authorization::{
        ConvertSidToStringSidW, ConvertStringSecurityDescriptorToSecurityDescriptorW, SDDL_REVISION_1,
        SE_FILE_OBJECT, SetNamedSecurityInfoW,
    };
    use windows_sys::Win32::Security::{
        ACL, DACL_SECURITY_INFORMATION, GetSecurityDescriptorDacl, GetTokenInformation,
        PROTECTED_DACL_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, TOKEN_QUERY, TOKEN_USER, TokenUser,
        UNPROTECTED_DACL_SECURITY_INFORMATION,
    };
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

    fn wide(text: &std::ffi::OsStr) -> Vec<u16> {
        text.encode_wide().chain(std::iter::once(0)).collect()
    }

    /// Frees what Windows allocated with LocalAlloc when it goes out of scope.
    struct Local(*mut core::ffi::c_void);

    impl Drop for Local {
        fn drop(&mut self) {
            // SAFETY: the pointer came from a Windows call that hands its result to LocalFree.
            unsafe { LocalFree(self.0) };
        }
    }

    struct Token(HANDLE);

    impl Drop for Token {
        fn drop(&mut self) {
            // SAFETY: a handle OpenProcessToken opened, closed once.
            unsafe { CloseHandle(self.0) };
        }
    }

    /// The SID (`S-1-…`) of the account this process runs as: the person at the console, or
    /// the service's virtual account.
    pub fn current_user_sid() -> io::Result<String> {
        let mut token: HANDLE = std::ptr::null_mut();
        // SAFETY: the current process's pseudo handle and an out pointer to a handle.
        if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let token = Token(token);
        let mut buffer = vec![0u64; 64];
        let mut needed = 0u32;
        let size = u32::try_from(buffer.len() * 8).unwrap_or(u32::MAX);
        // SAFETY: a u64-aligned buffer of `size` bytes that TOKEN_USER fits in (a SID is at most
        // 68 bytes).
        let ok =
            unsafe { GetTokenInformation(token.0, TokenUser, buffer.as_mut_ptr().cast(), size, &mut needed) };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: GetTokenInformation wrote a TOKEN_USER at the start of the buffer.
        let sid = unsafe { (*buffer.as_ptr().cast::<TOKEN_USER>()).User.Sid };
        let mut text: *mut u16 = std::ptr::null_mut();
        // SAFETY: a valid SID inside `buffer`, which lives until the end of this function.
        if unsafe { ConvertSidToStringSidW(sid, &mut text) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let _free = Local(text.cast());
        // SAFETY: a NUL-terminated string Windows allocated.
        let len = (0..).take_while(|&i| unsafe { *text.add(i) } != 0).count();
        // SAFETY: `len` u16s before the NUL.
        Ok(String::from_utf16_lossy(unsafe { std::slice::from_raw_parts(text, len) }))
    }

    fn set_dacl(path: &Path, sddl: &str, protection: u32) -> io::Result<()> {
        let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        let sddl = wide(std::ffi::OsStr::new(sddl));
        // SAFETY: a NUL-terminated SDDL string and an out pointer Windows fills with LocalAlloc.
        let ok = unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                sddl.as_ptr(),
                SDDL_REVISION_1,
                &mut descriptor,
                std::ptr::null_mut(),
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        let _free = Local(descriptor);
        let (mut present, mut defaulted) = (0, 0);
        let mut dacl: *mut ACL = std::ptr::null_mut();
        // SAFETY: the descriptor just made; the DACL pointer points inside it.
        if unsafe { GetSecurityDescriptorDacl(descriptor, &mut present, &mut dacl, &mut defaulted) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let name = wide(path.as_os_str());
        // SAFETY: a NUL-terminated path; the DACL lives as long as `descriptor`.
        let status = unsafe {
            SetNamedSecurityInfoW(
                name.as_ptr(),
                SE_FILE_OBJECT,
                DACL_SECURITY_INFORMATION | protection,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                dacl,
                std::ptr::null(),
            )
        };
        if status != ERROR_SUCCESS {
            return Err(io::Error::from_raw_os_error(i32::try_from(status).unwrap_or(i32::MAX)));
        }
        Ok(())
    }

    /// Gives the folder the private list of [`super::private_dir_sddl`] for `account`.
    pub fn restrict_dir(dir: &Path, account: &str) -> io::Result<()> {
        set_dacl(dir, &crate::acl::private_dir_sddl(account), PROTECTED_DACL_SECURITY_INFORMATION)
    }

    /// Drops a file's own entries: it keeps only what its (private) folder passes on.
    pub fn inherit_only(file: &Path) -> io::Result<()> {
        set_dacl(file, crate::acl::INHERIT_ONLY_SDDL, UNPROTECTED_DACL_SECURITY_INFORMATION)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_account_sid_is_the_one_windows_derives_from_the_name() {
        // Windows' own, as `sc showsid` prints them.
        assert_eq!(
            service_sid("TrustedInstaller"),
            "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
        );
        assert_eq!(
            service_sid("trustedinstaller"),
            service_sid("TrustedInstaller"),
            "the name is upper-cased"
        );
    }

    #[test]
    fn the_private_folder_list_is_protected_and_names_system_administrators_and_the_account_alone() {
        let sid = service_sid("Arka");
        assert_eq!(
            private_dir_sddl(&sid),
            format!("D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FA;;;{sid})"),
            "no Users, no Everyone, nothing inherited from C:\\ProgramData"
        );
    }
}
