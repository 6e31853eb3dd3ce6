//! Links the `teeoracle` executable and the examples at a fixed address on
//! Linux (not position-independent); with glibc, `.cargo/static-cc` then
//! links them statically.
//!
//! A position-independent executable of this size carries about 47,000
//! relocations, which the dynamic loader applies at every start by
//! writing, and so copying, some 140 pages of address tables: a third of
//! a short command's CPU time (`teeoracle --version`, one core: 1.45 ->
//! 0.97 ms, 270 -> 137 page faults; docs/benchmarks.md). The cost is
//! address-space randomisation of the executable's own code and data (the
//! heap, the stack and any shared library still move); the crate has no
//! `unsafe`. The examples include the peers `benches/peers/run` times,
//! which are linked as `teeoracle` is.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        println!("cargo::rustc-link-arg-bins=-no-pie");
        println!("cargo::rustc-link-arg-examples=-no-pie");
    }
}
