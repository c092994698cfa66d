//! SIGINT, SIGTERM and SIGHUP without leftovers: an output being written is a
//! temporary file (`.vkssim-*.tmp`) beside its final path until it is renamed
//! into place ([`crate::output::target`]); a signal arriving then would leave it
//! behind. [`install`] blocks these signals in every thread (it runs first in
//! `main`, before any thread exists, so every later thread inherits the mask)
//! and waits for them on a thread of its own, which removes every temporary
//! file still registered and then ends the process by the same signal, with
//! its default action (so the shell sees 130 or 143, as before).
//!
//! A writer registers its temporary file while holding the registry's lock
//! ([`create_registered`]) and renames it into place under the lock again
//! ([`Registered::finish`]), so a signal sees every temporary file that exists,
//! and an output is either wholly in place or not at all; the outputs already
//! in place are kept.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The temporary files being written, by the id [`Registered`] holds.
static IN_FLIGHT: Mutex<Vec<(u64, PathBuf)>> = Mutex::new(Vec::new());

/// The next registration's id.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn in_flight() -> MutexGuard<'static, Vec<(u64, PathBuf)>> {
    IN_FLIGHT.lock().unwrap_or_else(|p| p.into_inner())
}

/// A temporary file registered for removal on a signal, until it is renamed
/// into place or dropped.
#[derive(Debug)]
pub struct Registered {
    id: u64,
}

/// Creates a temporary file with `make` and registers its path, both under the
/// registry's lock, so no signal can find it unregistered.
pub fn create_registered(
    make: impl FnOnce() -> io::Result<tempfile::NamedTempFile>,
) -> io::Result<(tempfile::NamedTempFile, Registered)> {
    let mut list = in_flight();
    let file = make()?;
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    list.push((id, file.path().to_path_buf()));
    Ok((file, Registered { id }))
}

impl Registered {
    /// Runs `rename` (which moves the temporary file into place) under the
    /// registry's lock and unregisters the file.
    pub fn finish<R>(self, rename: impl FnOnce() -> R) -> R {
        let mut list = in_flight();
        let out = rename();
        list.retain(|(id, _)| *id != self.id);
        drop(list);
        std::mem::forget(self);
        out
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        in_flight().retain(|(id, _)| *id != self.id);
    }
}

/// Blocks SIGINT, SIGTERM and SIGHUP in this thread (and so in every thread
/// started after) and starts the thread that handles them. Call it before any
/// other thread starts. Failing to install is not fatal: the signals then keep
/// their default action, as without this module.
#[cfg(target_os = "linux")]
pub fn install() {
    // SAFETY: `sigset_t` is plain data; sigemptyset initialises it before use.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid sigset_t; the signal numbers are valid.
    let blocked = unsafe {
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, sig);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) == 0
    };
    if !blocked {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("vkssim-signals".into())
        .spawn(move || loop {
            let mut sig: libc::c_int = 0;
            // SAFETY: `set` is initialised and `sig` is a valid out pointer.
            if unsafe { libc::sigwait(&set, &mut sig) } == 0 {
                remove_and_die(sig);
            }
        });
    if spawned.is_err() {
        // Nobody would handle them: give the signals back their default action.
        // SAFETY: `set` is initialised.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

#[cfg(not(target_os = "linux"))]
pub fn install() {}

/// Removes every registered temporary file and ends the process by `sig`.
#[cfg(target_os = "linux")]
fn remove_and_die(sig: libc::c_int) -> ! {
    // The lock is kept: no writer registers or renames a file after this.
    let list = in_flight();
    for (_, path) in list.iter() {
        let _ = std::fs::remove_file(path);
    }
    // SAFETY: restoring the default action and unblocking `sig` in this thread,
    // then raising it here, ends the process as the signal would have.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        let mut one: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut one);
        libc::sigaddset(&mut one, sig);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
        libc::raise(sig);
    }
    // Not reached: the default action of these signals ends the process.
    std::process::exit(128 + sig)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registration_ends_with_its_rename_or_its_drop() {
        let dir = tempfile::tempdir().unwrap();
        let (file, reg) =
            create_registered(|| tempfile::NamedTempFile::new_in(dir.path())).unwrap();
        assert!(in_flight().iter().any(|(_, p)| p == file.path()));
        let target = dir.path().join("out");
        reg.finish(|| file.persist(&target).unwrap());
        assert!(target.exists());
        let (file, reg) =
            create_registered(|| tempfile::NamedTempFile::new_in(dir.path())).unwrap();
        let path = file.path().to_path_buf();
        drop(reg);
        assert!(!in_flight().iter().any(|(_, p)| *p == path));
    }
}
