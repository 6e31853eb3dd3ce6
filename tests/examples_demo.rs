//! The `demo_chat` example, run as a user would, on demos with chat: the
//! synthetic 0.6 and 0.7 ones of `corpus/demo/synthetic/`, a real DDNet
//! server demo (players only: a server demo does not record chat), and
//! a real DDNet client demo of the shared upstream corpus when present.

#[allow(dead_code)] // its `main`
#[path = "../examples/demo_chat.rs"]
mod demo_chat;

use std::path::Path;

fn run(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let mut out = Vec::new();
    demo_chat::run(&path, &mut out).unwrap_or_else(|e| panic!("{rel}: {e}"));
    String::from_utf8(out).unwrap()
}

#[test]
fn chat_and_players_of_a_06_demo() {
    assert_eq!(
        run("corpus/demo/synthetic/chat.demo"),
        "   100 players: alice\n\
         \x20  100 ***: 'alice' entered and joined the game\n\
         \x20  150 players: alice, bob\n\
         \x20  150 ***: 'bob' entered and joined the game\n\
         \x20  151 alice: hello bob\n\
         \x20  151 bob: hi alice, gg\n\
         \x20  200 players: bob\n\
         \x20  200 ***: 'alice' has left the game\n"
    );
}

#[test]
fn chat_and_players_of_a_07_demo() {
    assert_eq!(
        run("corpus/demo/synthetic/chat_07.demo"),
        "    10 players: alice, bob\n    10 bob: gl hf\n    10 alice: you too\n"
    );
}

#[test]
fn players_of_a_real_server_demo() {
    let out = run("corpus/demo/ddnet-20.1/A_join_move_leave.demo");
    assert!(out.starts_with("    81 players: alice\n"), "{out}");
}

#[test]
fn chat_of_a_real_client_demo() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../shared/corpus/upstream/teeworlds-traffic-dumps/\
         064_ddnet_join_chat_walk_disconnect/client.demo",
    );
    if !path.exists() {
        eprintln!("no shared upstream corpus: skipped");
        return;
    }
    let mut out = Vec::new();
    demo_chat::run(&path, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("  1528 nameless tee: hello\n"), "{out}");
}
