//! One scale's integer intermediates as plain planes, for the pass-by-pass
//! tests of the device passes (`glsl/adm_*.comp`): what the CPU twin's
//! stages give ([`super::ScaleStages`]) in the form the device stores it.

use super::masking::centre_term;
use super::ScaleStages;

/// One scale's integer intermediates (all row-major, `size` samples).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AdmScaleIntermediates {
    /// The bands' width and height.
    pub size: (u32, u32),
    /// The wavelet's bands: the reference's a, h, v and d, then the
    /// distorted picture's.
    pub bands: Vec<Vec<i32>>,
    /// The restored (decoupled) h, v and d bands.
    pub restored: Vec<Vec<i32>>,
    /// Per sample, the flattened weighted impairment summed over h, v and d
    /// (the masking threshold's neighbour terms).
    pub flat_sum: Vec<i32>,
    /// Per sample, the threshold's own terms (`|csf| / 15`) summed over h, v
    /// and d.
    pub centre_sum: Vec<i32>,
    /// Each active-window row's sums of the numerator's h, v, d cubes.
    pub numerator_rows: Vec<[i64; 3]>,
    /// Each active-window row's sums of the denominator's h, v, d cubes.
    pub denominator_rows: Vec<[u64; 3]>,
}

impl ScaleStages<'_> {
    /// The stages as [`AdmScaleIntermediates`] (scale `scale`).
    pub(crate) fn intermediates(&self, scale: usize) -> AdmScaleIntermediates {
        let n = self.size.0 * self.size.1;
        let w = self.weighted;
        let sum3 = |f: &dyn Fn(usize, usize) -> i32| -> Vec<i32> {
            (0..n).map(|p| (0..3).map(|b| f(b, p)).sum()).collect()
        };
        AdmScaleIntermediates {
            size: (self.size.0 as u32, self.size.1 as u32),
            bands: self
                .bands
                .iter()
                .flat_map(|b| [&b.a, &b.hvd[0], &b.hvd[1], &b.hvd[2]])
                .cloned()
                .collect(),
            restored: self.restored.to_vec(),
            flat_sum: sum3(&|b, p| w.flat[b][p]),
            centre_sum: sum3(&|b, p| centre_term(w.csf[b][p], scale == 0) as i32),
            numerator_rows: self.numerator_rows.clone(),
            denominator_rows: self.denominator_rows.clone(),
        }
    }
}
