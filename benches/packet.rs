//! Placeholder; replaced by the packet/huffman benchmark.
fn main() {}
