//! The copy's threads run below the server's: on a box whose cores the sales fill, the copy
//! waits for them and catches up once they ease, never the other way round (issue 46: a sale is
//! never held back). A shop's own pace leaves the cores idle most of the time, so the copy keeps
//! its seconds-behind there; what it gives up is a share of the cores while they are full.

/// How far below the server's the copy's threads run on Linux, in nice values (the server's are
/// 0 unless its service says otherwise): a runnable sale's thread weighs about nine times one of
/// the copy's.
#[cfg(target_os = "linux")]
const BELOW: libc::c_int = 10;
/// The lowest priority Linux gives a thread.
#[cfg(target_os = "linux")]
const LOWEST: libc::c_int = 19;

/// Lowers the calling thread's scheduling priority (Linux: its nice value; Windows: below
/// normal). Elsewhere, and where the system refuses, the thread keeps the server's priority.
pub fn below_sales() {
    #[cfg(target_os = "linux")]
    {
        // On Linux the nice value is the thread's own: `who` 0 names the calling thread alone.
        // Its own is read first, so that a server its service already runs lower (`Nice=`) never
        // sees its copy raised above it.
        // SAFETY: getpriority and setpriority take no pointer.
        let own = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        if unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, (own + BELOW).min(LOWEST)) } != 0 {
            tracing::warn!(error = %std::io::Error::last_os_error(), "the copy's thread keeps the server's priority");
        }
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::Threading::{
            GetCurrentThread, SetThreadPriority, THREAD_PRIORITY_BELOW_NORMAL,
        };
        // SAFETY: the pseudo-handle of the calling thread needs no closing.
        if unsafe { SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_BELOW_NORMAL) } == 0 {
            tracing::warn!(error = %std::io::Error::last_os_error(), "the copy's thread keeps the server's priority");
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn nice() -> libc::c_int {
        // SAFETY: getpriority takes no pointer.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    }

    #[test]
    fn the_copy_s_thread_runs_below_the_others_and_the_others_keep_theirs() {
        let before = nice();
        let copy = std::thread::spawn(|| {
            below_sales();
            nice()
        })
        .join()
        .unwrap();
        assert_eq!(copy, (before + BELOW).min(LOWEST), "the copy's thread");
        assert_eq!(nice(), before, "the thread beside it");
    }
}
