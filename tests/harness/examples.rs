//! The examples on the shared corpus (the bundled corpus's runs are in
//! `tests/it/examples.rs`).

use crate::common::{self, Test};

#[allow(dead_code)]
#[path = "../../examples/demo_chat.rs"]
mod demo_chat;

pub const TESTS: &[Test] = tests![chat_of_a_real_client_demo needs SharedCorpus];

/// `demo_chat` on a real DDNet client demo.
fn chat_of_a_real_client_demo() {
    let path = common::upstream_corpus()
        .expect("needs SharedCorpus")
        .join("teeworlds-traffic-dumps/064_ddnet_join_chat_walk_disconnect/client.demo");
    let mut out = Vec::new();
    demo_chat::run(&path, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("  1528 nameless tee: hello\n"), "{out}");
}
