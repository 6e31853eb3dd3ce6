//! The examples, run as a user would run them, on the corpus: each
//! example is `run(path, out)` plus a `main`, so the tests call `run`.

#[allow(dead_code)]
#[path = "../../examples/capture_sessions.rs"]
mod capture_sessions;
#[allow(dead_code)]
#[path = "../../examples/conform_in_process.rs"]
mod conform_in_process;
#[allow(dead_code)]
#[path = "../../examples/demo_chat.rs"]
mod demo_chat;
#[allow(dead_code)]
#[path = "../../examples/teehistorian_replay.rs"]
mod teehistorian_replay;

/// `examples/capture_sessions.rs` run on the bundled captures.
mod captures {
    use super::capture_sessions;

    use std::path::Path;

    fn report(name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/packet/ddnet-20.1")
            .join(format!("{name}.pcap"));
        let mut out = Vec::new();
        capture_sessions::run(&path, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn one_client_joins_moves_and_leaves() {
        let text = report("A_join_move_leave");
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].ends_with(
                "A_join_move_leave.pcap: pcap with 1158 UDP datagrams (0 other frames skipped)"
            ),
            "{text}"
        );
        assert_eq!(lines[1], "server port 18320");
        assert_eq!(
            lines[2],
            "peer 127.0.0.1:34663: version 0.6 (detected: no 0.7 marker, as DDNet reads an unknown peer), 1158 datagrams, 0 anomalies"
        );
        assert!(
            lines[3].starts_with(
                "  snapshots: 421 received, 421 rebuilt (250 with a matching CRC), the last at tick "
            ),
            "{text}"
        );
        assert_eq!(
            lines[4],
            "1158 datagrams (717 to the server, 441 to clients), 1158 byte-exact, 0 failed"
        );
        assert_eq!(lines[5], "no anomalies");
    }

    #[test]
    fn eight_bots_have_a_connection_each() {
        let text = report("B_eight_bots_dm1");
        let peers = text.lines().filter(|l| l.starts_with("peer ")).count();
        assert_eq!(peers, 10, "{text}");
        // A bot that stops acking gets its chat chunk resent: duplicates.
        assert!(text.contains("anomaly duplicate: 15"), "{text}");
        let rebuilt: usize = text
            .lines()
            .filter_map(|l| l.strip_prefix("  snapshots: "))
            .map(|l| l.split(' ').next().unwrap().parse::<usize>().unwrap())
            .sum();
        assert_eq!(rebuilt, 10019);
    }
}

/// The `demo_chat` example, run as a user would, on demos with chat: the
/// synthetic 0.6 and 0.7 ones of `corpus/demo/synthetic/`, a real DDNet
/// server demo (players only: a server demo does not record chat); a
/// real DDNet client demo of the shared corpus in `tests/harness/examples.rs`.
mod demos {
    use super::demo_chat;

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
}

/// The teehistorian replay example, run on the corpus.
mod teehistorian {
    use super::teehistorian_replay as example;

    use std::path::Path;

    fn run(file: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let mut out = Vec::new();
        example::run(&path, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn prints_joins_leaves_and_the_world_at_the_end() {
        let out = run("corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian");
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[0].ends_with("map dm1, recorded 2026-11-22T02:28:13+0000"),
            "{out}"
        );
        assert!(lines.contains(&"tick     80: cid 0 joined"), "{out}");
        assert!(
            lines.contains(&"tick     80: cid 0 is named \"alice\""),
            "{out}"
        );
        // Past the first line: the file's path may hold "left" too.
        let left = lines[1..].iter().find(|l| l.contains("left")).unwrap();
        assert!(left.contains("\"alice\" (cid 0) left"), "{left}");
        assert!(lines.contains(&"tick    932: the recording ends"), "{out}");
        assert!(!out.contains("inconsistent"), "{out}");
        assert_eq!(lines[lines.len() - 2], "at the end (tick 932):");
        let last = lines.last().unwrap();
        assert!(
            last.contains("cid   0 \"alice\"") && last.contains("gone"),
            "{last}"
        );
    }

    #[test]
    fn a_missing_file_is_an_error() {
        let mut out = Vec::new();
        let result = example::run(Path::new("/no/such.teehistorian"), &mut out);
        assert!(
            result.is_err(),
            "{result:?}: {}",
            String::from_utf8_lossy(&out)
        );
    }
}

/// `examples/conform_in_process.rs`: the huffman unit answered in process
/// by libtw2's coder, every case compared, none a finding.
#[test]
fn libtw2_huffman_passes_the_suite_in_process() {
    let report = conform_in_process::run().expect("the suite runs");
    let mut text = Vec::new();
    report.write_text(&mut text).unwrap();
    let text = String::from_utf8_lossy(&text);
    assert!(!report.failed, "{text}");
    assert!(
        text.contains("huffman: pass=424") && text.contains("every path compared"),
        "{text}"
    );
}
