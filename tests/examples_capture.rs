//! `examples/capture_sessions.rs` run on the bundled captures.

#[path = "../examples/capture_sessions.rs"]
mod capture_sessions;

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
