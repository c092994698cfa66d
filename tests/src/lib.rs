//! Helpers shared by the cross-crate tests: the test-clip corpus and the libvmaf
//! oracle.
