//! Links the `teeoracle` binary as a position-dependent executable on
//! Linux (glibc): a position-independent one has ~47,000 pointers the dynamic
//! loader rewrites at every start, copying ~125 pages, a third of the
//! start-up of `teeoracle --version` (2.4 ms of CPU, 1.8 ms without) and
//! a large share of a short `demo stats`. The library, the tests and the
//! Python module are built as before.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bin=teeoracle=-no-pie");
    }
}
