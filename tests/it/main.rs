//! The integration tests that need nothing beside the clone, as one
//! binary with the standard harness: one link of the library instead of
//! one per file, and every test shares the cores with every other
//! (docs/testing.md has the numbers). The tests that make their cases at
//! run time, call their own binary back, or need what a bare clone may
//! lack are in `tests/harness/`; the real servers' runs in
//! `tests/record.rs`.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod architecture;
mod archive;
mod campaign;
mod captures;
mod check_demos;
mod cli;
mod cli_contract;
mod compare;
mod corpus;
mod ddnet_writer;
mod demo_tools;
mod demos;
mod diff;
mod differential;
mod examples;
#[cfg(feature = "export")]
mod export;
mod fuzz_regressions;
mod generate;
mod malformed_demos;
mod no_alloc;
mod packets;
mod plot;
mod simulate;
mod simulate_demo;
mod snapshots;
mod teehistorian_build;
mod teehistorian_demo;
