//! Run-time choice of vector width for the hot loops. Each hot kernel is written
//! once as portable Rust; on x86-64 CPUs with AVX2 the same code is also
//! compiled with AVX2 enabled and picked at run time. The values are identical
//! either way: IEEE add, multiply, divide, sqrt and conversions round the same
//! at any vector width, and Rust never contracts `a * b + c` into an FMA (FMA is
//! not enabled here anyway).

#[cfg(test)]
thread_local! {
    /// Tests set this to run the portable kernels on this thread even where the
    /// CPU has AVX2, to check that both give the same values.
    pub(crate) static FORCE_PORTABLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the AVX2 versions of the hot kernels may run on this CPU.
#[inline]
pub(crate) fn has_avx2() -> bool {
    #[cfg(test)]
    if FORCE_PORTABLE.with(|f| f.get()) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Defines `$name` (dispatching) and an AVX2 twin of the `#[inline(always)]`
/// portable kernel `$portable`, both with the same signature.
macro_rules! dispatch_avx2 {
    ($(#[$doc:meta])* $vis:vis fn $name:ident / $avx2:ident => $portable:ident ($($arg:ident : $ty:ty),* $(,)?)) => {
        $(#[$doc])*
        #[inline]
        $vis fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            if $crate::cpu::simd::has_avx2() {
                // SAFETY: the AVX2 twin only requires the CPU to support AVX2,
                // which was checked at run time just above.
                unsafe { $avx2($($arg),*) };
                return;
            }
            $portable($($arg),*)
        }

        /// The AVX2 build of the portable kernel (identical results).
        ///
        /// # Safety
        /// The CPU must support AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn $avx2($($arg: $ty),*) {
            $portable($($arg),*)
        }
    };
}

pub(crate) use dispatch_avx2;
