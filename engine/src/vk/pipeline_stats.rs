//! The driver's statistics of each compiled pipeline
//! (`VK_KHR_pipeline_executable_properties`), for measurements only
//! (`DebugOptions::pipeline_statistics`): where the device offers the
//! extension, a device opened for them enables it (`device.rs`), pipelines
//! are created with `CAPTURE_STATISTICS`, and each new pipeline's statistics
//! (NVIDIA's register count, binary size and local memory size) are logged
//! at info level under the target `vkssim::pipeline_stats`, one line per
//! executable. Scores are the same with or without them.

use ash::vk;

/// One statistic's value as text.
fn value_text(s: &vk::PipelineExecutableStatisticKHR<'_>) -> String {
    // SAFETY: `format` names the union member the driver wrote.
    unsafe {
        match s.format {
            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (s.value.b32 != 0).to_string(),
            vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => s.value.f64.to_string(),
            _ => "?".to_string(),
        }
    }
}

/// Logs the statistics of every executable of `pipeline` (created with
/// `CAPTURE_STATISTICS` on a device with the extension enabled), labelled
/// `label`. A failed query is logged, not returned: the statistics are for
/// measurements, and scoring goes on without them.
pub(crate) fn log(
    ext: &ash::khr::pipeline_executable_properties::Device,
    pipeline: vk::Pipeline,
    label: &str,
) {
    let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
    // SAFETY: the pipeline is of the extension's device and was created with
    // CAPTURE_STATISTICS.
    let executables = match unsafe { ext.get_pipeline_executable_properties(&info) } {
        Ok(e) => e,
        Err(r) => {
            tracing::warn!(target: "vkssim::pipeline_stats", pipeline = label, "no executables: {r}");
            return;
        }
    };
    for index in 0..executables.len() as u32 {
        let exec = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(index);
        // SAFETY: as above; `index` is below the executables' count.
        let stats = match unsafe { ext.get_pipeline_executable_statistics(&exec) } {
            Ok(s) => s,
            Err(r) => {
                tracing::warn!(target: "vkssim::pipeline_stats", pipeline = label, index, "no statistics: {r}");
                continue;
            }
        };
        let text: Vec<String> = stats
            .iter()
            .map(|s| {
                let name = s.name_as_c_str().map(|n| n.to_string_lossy().into_owned());
                format!("{}={}", name.unwrap_or_default(), value_text(s))
            })
            .collect();
        tracing::info!(
            target: "vkssim::pipeline_stats",
            pipeline = label,
            index,
            "{}",
            text.join(", ")
        );
    }
}
