//! A larger pipe buffer for standard input: the kernel's default (64 KiB) makes
//! the writer (`cat clip.yuv | vkssim score ...`) and vkssim take turns every
//! 64 KiB, where a 4K frame is 12 MB. On Linux the buffer is raised with
//! `F_SETPIPE_SZ` towards `/proc/sys/fs/pipe-max-size` (1 MiB by default for
//! unprivileged processes); where that is refused (a limit on the user's pipe
//! memory), smaller sizes are tried, and the default stays if none is allowed.
//! Nothing else changes: the data read is the same.

/// Raises standard input's pipe buffer when standard input is a pipe;
/// returns the new size, `None` when it is not a pipe or nothing changed.
#[cfg(target_os = "linux")]
pub fn enlarge_stdin() -> Option<usize> {
    use std::os::fd::AsRawFd;
    let fd = std::io::stdin().as_raw_fd();
    // SAFETY: fcntl on a descriptor this process owns; F_GETPIPE_SZ takes no
    // argument and fails harmlessly (EBADF) on anything but a pipe.
    let current = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
    if current <= 0 {
        return None;
    }
    let max = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .unwrap_or(1 << 20)
        .min(64 << 20);
    let mut size = max;
    while size > current as usize {
        // SAFETY: as above; F_SETPIPE_SZ takes the size as an int.
        let set = unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, size as libc::c_int) };
        if set > 0 {
            return Some(set as usize);
        }
        size /= 2;
    }
    None
}

/// Raises standard input's pipe buffer (Linux only; a no-op elsewhere).
#[cfg(not(target_os = "linux"))]
pub fn enlarge_stdin() -> Option<usize> {
    None
}
