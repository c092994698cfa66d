//! [`Workers`]: a small pool of host threads that run the per-frame host work of
//! the Vulkan engine (the raster-order fp64 sum of a frame's per-pixel terms,
//! docs/exactness.md §5) off the submitting thread, so several frames are summed at
//! once while the GPU and the readers keep going.
//!
//! The sum itself stays sequential within a frame (it must equal libvmaf's
//! raster-order fp64 sum bit for bit); the parallelism is across frames.
//!
//! The threads take jobs from one crossbeam channel (a queue several
//! receivers share, no lock of ours). Not rayon: a job reads the mapped
//! memory of a frame slot, and dropping the pool must wait for every queued
//! job to end before the scorer frees that memory, which a rayon pool's drop
//! does not.

use std::thread::JoinHandle;

use crossbeam_channel::{unbounded, Receiver, Sender};

use crate::{Error, Result};

/// A job for the pool.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// A fixed pool of threads taking boxed jobs from one queue.
pub struct Workers {
    tx: Option<Sender<Job>>,
    threads: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Starts `n` threads (at least one) named `vkssim-<name>-<k>`.
    pub fn new(n: usize, name: &str) -> Result<Self> {
        let (tx, rx) = unbounded::<Job>();
        let mut threads = Vec::new();
        for k in 0..n.max(1) {
            let rx = rx.clone();
            let handle = std::thread::Builder::new()
                .name(format!("vkssim-{name}-{k}"))
                .spawn(move || worker_loop(&rx))
                .map_err(|e| Error::Internal(format!("starting a {name} thread: {e}")))?;
            threads.push(handle);
        }
        Ok(Self {
            tx: Some(tx),
            threads,
        })
    }

    /// Threads in the pool.
    pub fn len(&self) -> usize {
        self.threads.len()
    }

    /// Queues `job`; it runs on the first free thread.
    pub fn run(&self, job: impl FnOnce() + Send + 'static) -> Result<()> {
        self.tx
            .as_ref()
            .and_then(|tx| tx.send(Box::new(job)).ok())
            .ok_or_else(|| Error::Internal("the worker threads stopped".into()))
    }
}

/// A thread's body: run jobs until the pool is dropped.
fn worker_loop(rx: &Receiver<Job>) {
    while let Ok(job) = rx.recv() {
        job();
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Closing the queue ends every thread once the queued jobs are done.
        self.tx.take();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_every_job() {
        let pool = Workers::new(3, "test").unwrap();
        assert_eq!(pool.len(), 3);
        let (tx, rx) = std::sync::mpsc::channel();
        for i in 0..100u64 {
            let tx = tx.clone();
            pool.run(move || tx.send(i * i).unwrap()).unwrap();
        }
        drop(tx);
        let mut got: Vec<u64> = rx.iter().collect();
        got.sort_unstable();
        assert_eq!(got, (0..100u64).map(|i| i * i).collect::<Vec<_>>());
    }
}
