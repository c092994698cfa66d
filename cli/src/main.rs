//! The `vkssim` command line.

fn main() {}
