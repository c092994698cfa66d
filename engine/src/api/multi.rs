//! [`MultiScorer`]: one stream of frame pairs spread over several engines
//! (several GPUs), one [`Scorer`] per engine, pairs dealt round robin and
//! results given back in submission order, each bit-identical to what one
//! engine gives (every engine runs the same exact passes).

use std::collections::VecDeque;

use super::engine::Engine;
use super::plane::HostPlane;
use super::scorer::{Scorer, ScorerDesc};
use crate::{Error, FrameScore, Result};

/// Scores pairs of one geometry on several engines at once. Pair `k` goes to
/// engine `k % n`; results come back in the order the pairs were submitted,
/// through [`MultiScorer::poll`] and [`MultiScorer::wait`]. An error from one
/// engine (a lost device, say) is given back in that pair's place, naming the
/// engine's device ([`Error::OnDevice`]); the results before it are not lost.
///
/// ```no_run
/// use vkssim::api::{Engine, HostPlane, MultiScorer, ScorerDesc};
/// use vkssim::vk::VkOptions;
/// let engines = (0..2)
///     .map(|i| Engine::new(&VkOptions { device_index: Some(i), ..VkOptions::default() }))
///     .collect::<Result<Vec<_>, _>>()?;
/// let mut scorer = MultiScorer::new(&engines, &ScorerDesc::new(64, 64, 8))?;
/// let (r, d) = (vec![16u8; 64 * 64], vec![17u8; 64 * 64]);
/// scorer.submit_host(HostPlane::u8(&r, 64), HostPlane::u8(&d, 64))?;
/// while let Some(score) = scorer.wait() {
///     println!("{}", score?.float_ssim());
/// }
/// # Ok::<(), vkssim::Error>(())
/// ```
pub struct MultiScorer {
    scorers: Vec<Scorer>,
    devices: Vec<String>,
    /// The engine of each pair submitted and not yet given back, oldest first.
    order: VecDeque<usize>,
    submitted: u64,
}

impl MultiScorer {
    /// One scorer per engine, all for `desc`. Refuses an empty list
    /// ([`Error::InvalidOption`]); a scorer that cannot be created is an error
    /// naming its device.
    pub fn new(engines: &[Engine], desc: &ScorerDesc) -> Result<Self> {
        if engines.is_empty() {
            return Err(Error::InvalidOption(
                "a multi-engine scorer needs at least one engine".into(),
            ));
        }
        let devices: Vec<String> = engines
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{i} ({})", e.device_name()))
            .collect();
        let scorers = engines
            .iter()
            .zip(&devices)
            .map(|(e, name)| e.scorer(desc).map_err(|e| on_device(name, e)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            scorers,
            devices,
            order: VecDeque::new(),
            submitted: 0,
        })
    }

    /// The engines' devices as `position (name)`, in dealing order.
    pub fn devices(&self) -> &[String] {
        &self.devices
    }

    /// The engine the next pair goes to.
    pub fn next_engine(&self) -> usize {
        (self.submitted % self.scorers.len() as u64) as usize
    }

    /// Queues a pair from host memory on the next engine (see
    /// [`Scorer::submit_host`]); blocks while that engine's queue is full.
    pub fn submit_host(
        &mut self,
        reference: HostPlane<'_>,
        distorted: HostPlane<'_>,
    ) -> Result<()> {
        let k = self.next_engine();
        self.scorers[k]
            .submit_host(reference, distorted)
            .map_err(|e| on_device(&self.devices[k], e))?;
        self.order.push_back(k);
        self.submitted += 1;
        Ok(())
    }

    /// The oldest result if it is ready, without blocking.
    pub fn poll(&mut self) -> Option<Result<FrameScore>> {
        let &k = self.order.front()?;
        let result = self.scorers[k].poll()?;
        self.order.pop_front();
        Some(result.map_err(|e| on_device(&self.devices[k], e)))
    }

    /// The oldest result, waiting for it; `None` when nothing is queued.
    pub fn wait(&mut self) -> Option<Result<FrameScore>> {
        let k = self.order.pop_front()?;
        let result = match self.scorers[k].wait() {
            Some(r) => r,
            None => Err(Error::Internal(format!(
                "engine {} had no result queued for a submitted pair",
                self.devices[k]
            ))),
        };
        Some(result.map_err(|e| on_device(&self.devices[k], e)))
    }

    /// Pairs submitted whose result has not been taken yet.
    pub fn in_flight(&self) -> usize {
        self.order.len()
    }

    /// Pairs all engines work on at once.
    pub fn queue_depth(&self) -> usize {
        self.scorers.iter().map(Scorer::queue_depth).sum()
    }
}

impl std::fmt::Debug for MultiScorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiScorer")
            .field("devices", &self.devices)
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

/// The devices "all" means, in `vkssim devices` order: every device that can
/// score (has shaderInt64 and a compute queue), leaving out CPU
/// implementations (lavapipe) when a GPU is present.
///
/// Errors: [`Error::NoVulkan`], [`Error::NoDevice`] when no device can score.
pub fn usable_devices(validation: bool) -> Result<Vec<usize>> {
    let devices = crate::vk::list_devices(validation)?;
    let usable: Vec<_> = devices
        .iter()
        .filter(|d| !d.path.starts_with("unusable"))
        .collect();
    let gpus: Vec<usize> = usable
        .iter()
        .filter(|d| !d.is_cpu())
        .map(|d| d.index)
        .collect();
    let all = if gpus.is_empty() {
        usable.iter().map(|d| d.index).collect()
    } else {
        gpus
    };
    if all.is_empty() {
        return Err(Error::NoDevice(format!(
            "none of the {} Vulkan devices can score",
            devices.len()
        )));
    }
    Ok(all)
}

/// `error` as having happened on engine `device`.
fn on_device(device: &str, error: Error) -> Error {
    Error::OnDevice {
        device: device.to_string(),
        source: Box::new(error),
    }
}
