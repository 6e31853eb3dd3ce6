//! The integration tests with a harness of their own (libtest-mimic), as
//! one binary: the tests whose cases are found at run time (a case per
//! corpus file, per example of the docs), the tests that call this binary
//! back (as a conformance adapter, or to measure one test's memory in a
//! process of its own), and the tests that need what a bare clone may
//! lack (the shared corpus, python3, Debian's maps): where that is
//! missing they are reported ignored, saying why, never passed
//! (`common::Need`). The other tests are in `tests/it/`; the real
//! servers' runs in `tests/record.rs`.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod conform;
mod demo_recorder;
mod demos;
mod differential_demo;
mod differential_net;
mod docs;
mod examples;
mod game_messages;
mod generators;
mod golden;
mod hostile;
mod map;
mod packet_encode;

use libtest_mimic::Arguments;

fn main() {
    if hostile::run_one_if_called_back() || conform::adapt_if_called_back() {
        return;
    }
    let args = Arguments::from_args();
    // The corpus files' cases are named by their paths below the root.
    std::env::set_current_dir(common::root()).expect("the crate root");
    // The longest first, so that the cores end together.
    let mut trials = hostile::trials();
    for (module, tests) in [
        ("conform::mutants", conform::mutants::TESTS),
        (
            "differential_net::compression",
            differential_net::compression::TESTS,
        ),
        (
            "differential_net::datagrams",
            differential_net::datagrams::TESTS,
        ),
        ("differential_demo", differential_demo::TESTS),
        ("game_messages", game_messages::TESTS),
        ("map", map::TESTS),
        ("demos", demos::TESTS),
        ("demo_recorder", demo_recorder::TESTS),
        ("packet_encode", packet_encode::TESTS),
        ("conform", conform::TESTS),
        ("conform::run", conform::run::TESTS),
        ("generators", generators::TESTS),
        ("examples", examples::TESTS),
    ] {
        trials.extend(common::trials(module, tests));
    }
    trials.extend(golden::trials());
    trials.extend(docs::trials());
    let conclusion = libtest_mimic::run(&args, trials);
    docs::clean_up();
    conclusion.exit();
}
