//! Video readers: raw planar YUV and Y4M, from files or standard input. Only luma
//! is read; chroma is skipped without being copied.
