//! What `diff` compares: each format's defaults (what changes on every
//! run of the same scenario, left out unless kept), the user's `--ignore`
//! and `--only`, and how an event is stripped of what is left out before
//! it is compared.

use super::Event;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// What a format leaves out by default: what changes on every run of the
/// same scenario on the same build (wall-clock times, random UUIDs and
/// tokens) and network timing. Each name is one `--keep` takes.
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    /// Header fields (top-level names).
    pub header: &'static [&'static str],
    /// Event categories and `CATEGORY.FIELD`s, and the special names
    /// [`RCON_TIME`] and [`TOKENS`].
    pub events: &'static [&'static str],
}

/// The time prefix of a remote-console line (`2026-11-22 02:32:38 I
/// server: ...`, `[2024-01-01 12:00:00][server]: ...`): compared without
/// it, and with the UUIDs in it masked (a teehistorian file's name).
pub const RCON_TIME: &str = "RCON_LINE.time";
/// Connection tokens in control messages (0.7 TOKEN, CONNECT and ACCEPT,
/// 0.6 DDNet's CONNECT/CONNECTACCEPT security token): random per
/// connection.
pub const TOKENS: &str = "control.token";
/// Teeworlds 0.7's server never sets De_ClientLeave's client id (its
/// `OnClientDrop` fills only the name and reason), so a demo holds
/// whatever was on the stack: compared as `<unset>` when out of range
/// (-1..=63); an id in range is compared as usual.
pub const UNSET_CLIENT_ID: &str = "De_ClientLeave.client_id";
/// What DDNet's database thread decides the tick of: its console lines
/// (`sql: ...`, queued until the main thread's next log line,
/// `server_logger.cpp`) and the record messages a query's result sends a
/// player (Sv_RecordLegacy, record@netmsg.ddnet.tw: sent on the first
/// tick after the query ends). A query begun before a map change can end
/// after it, and a line flushed while the operator is between maps never
/// reaches it, so these are compared as a set of distinct lines and
/// messages over the whole file, without their tick, map and count.
pub const SQL_TICK: &str = "database_thread";
/// A recorded snapshot message's delta (SNAP, SNAPSINGLE, SNAPEMPTY:
/// `delta_tick`, `part_size`, `data`, and a SNAP's `num_parts` and
/// `part`): the server deltas against whichever snapshot the client had
/// acknowledged when it built it, which is network timing (Teeworlds
/// 0.7's server demos record these messages). Their tick and CRC (of the
/// whole snapshot) are compared.
pub const SNAP_DELTA: &str = "SNAP.delta";

/// What a DDNet server decides from inputs as they arrive
/// (`CPlayer::OnDirectInput`), not as a tick applies them: the away flag
/// (`AfkTimer`: when the input that ends a new player's away state
/// arrived) and the idle blink (`m_LastActionTick`, the tick a changed
/// input arrived; `DetermineEyeEmote` blinks every 5 s after it), with
/// the eyes of an away player (`DetermineEyeEmote` gives them before
/// any other). Arrival is network timing: two runs of a scenario differ
/// in it, and a teehistorian file records an input only at the tick that
/// applies it (`OnClientPredictedEarlyInput`), so a demo written from one
/// cannot know it. Compared without it: `DDNetPlayer`'s `flags` without
/// EXPLAYERFLAG_AFK (1), a `Character`'s `emote` normal (0) or blink (5)
/// as `<normal or blink>`, and at a snapshot where one side's player is
/// away and the other's is not, that player's `Character` `emote` as
/// `<away on one side>` ([`away_on_one_side`]).
pub const RECEIVED_INPUT: &str = "received_input";

/// Which snapshot id a server gives a new entity (a projectile, a laser,
/// a pickup, a flag): DDNet's id pool (`CSnapIdPool`) gives a freed id
/// back five seconds after `FreeId` by `time_get()`, read once a turn of
/// the server's main loop, so which of the ids freed about then a take
/// gets is how late the loop woke for each tick: the machine's
/// scheduling. Two runs of a scenario differ in it, and a teehistorian
/// file cannot know it. Compared without it: at each snapshot, an item of
/// those types that one side has under one id and the other under
/// another, every field equal, is the same item. So is an item of an
/// extended type its snapshot does not register (`unknown:N`, N from
/// `OFFSET_UUID_TYPE` up): DDNet 16.4 registers a new type at the next
/// snapshot (`CSnapshotBuilder::Init`), so the first snapshot with one
/// has its item unnamed, and a reader that cannot name an item skips it,
/// whatever its id.
pub const SNAPSHOT_IDS: &str = "snapshot_ids";

/// The item types whose ids come from the snapshot id pool (0.6 and 0.7
/// names; DDNet's entities snap with their `m_Id`).
const ID_POOL_ITEMS: [&str; 9] = [
    "item:Projectile",
    "item:Laser",
    "item:Pickup",
    "item:Flag",
    "item:DDNetProjectile",
    "item:DDRaceProjectile",
    "item:DDNetLaser",
    "item:DDNetPickup",
    "item:EntityEx",
];

/// Whether items of `category` take their ids from the snapshot id pool,
/// or are of an extended type no reader of their snapshot can name
/// ([`SNAPSHOT_IDS`]).
pub(super) fn from_the_id_pool(category: &str) -> bool {
    let unregistered = category
        .strip_prefix("item:unknown:")
        .and_then(|t| t.parse::<i32>().ok())
        .is_some_and(|t| t >= crate::snapshot::OFFSET_UUID_TYPE);
    unregistered || ID_POOL_ITEMS.contains(&category)
}

/// A teehistorian savegame (TEAM_SAVE_SUCCESS, TEAM_LOAD_SUCCESS): its
/// random id (`save_id`) and, in its text, the game's UUID each member
/// carries; both are compared as `<uuid>`-free.
pub const SAVE_UUIDS: &str = "savegame.uuids";

/// Whether `category` is a savegame record.
fn is_savegame(category: &str) -> bool {
    ["save_success", "load_success"]
        .iter()
        .any(|n| names(n, category))
}

/// DDNet's `EXPLAYERFLAG_AFK`, `EMOTE_NORMAL` and `EMOTE_BLINK`.
const EXPLAYERFLAG_AFK: i64 = 1;
const EMOTE_NORMAL: i64 = 0;
const EMOTE_BLINK: i64 = 5;

/// The keys of the `Character` items (`PREFIX Character:ID`) whose
/// player's `DDNetPlayer` item (`PREFIX DDNetPlayer:ID`) has the away flag
/// on one side and not on the other: their eyes are the away state's
/// ([`RECEIVED_INPUT`]).
pub(super) fn away_on_one_side(
    old: &BTreeMap<String, Event>,
    new: &BTreeMap<String, Event>,
) -> BTreeSet<String> {
    let away = |e: &Event| {
        e.fields
            .get("flags")
            .and_then(Value::as_i64)
            .map(|f| f & EXPLAYERFLAG_AFK != 0)
    };
    old.iter()
        .filter(|(_, e)| e.category == "item:DDNetPlayer")
        .filter_map(|(key, o)| {
            let n = new.get(key)?;
            let differ = matches!((away(o), away(n)), (Some(a), Some(b)) if a != b);
            differ.then(|| key.replacen("DDNetPlayer:", "Character:", 1))
        })
        .collect()
}

/// A `Character` item's eyes left out where [`away_on_one_side`] says.
pub(super) fn mask_away_eyes(e: &mut Event) {
    if let Some(v) = e.fields.get_mut("emote") {
        *v = Value::from("<away on one side>");
    }
}

/// Whether `category` is an item with a field [`RECEIVED_INPUT`] masks.
fn is_timed_by_arrival(category: &str) -> bool {
    category == "item:DDNetPlayer" || category == "item:Character"
}

/// Whether `category` is a snapshot message.
fn is_snapshot_message(category: &str) -> bool {
    ["SNAP", "SNAPSINGLE", "SNAPEMPTY"]
        .iter()
        .any(|n| names(n, category))
}

/// Teehistorian: the game's UUIDs, its start time and PRNG seed, and each
/// DDNet client's random connection UUID.
pub const TEEHISTORIAN: Defaults = Defaults {
    header: &[
        "game_uuid",
        "prev_game_uuid",
        "start_time",
        "prng_description",
    ],
    events: &["ddnetver.connection_id", SAVE_UUIDS],
};
/// Simulated worlds: nothing; what the model of DDNet's physics makes of the inputs
/// is all meaning.
pub const SIMULATED: Defaults = Defaults {
    header: &[],
    events: &[],
};
/// Demos: the recording time, network timing (inputs' arrival among it),
/// and remote-console time prefixes (a server demo records the lines
/// sent to an authed client).
pub const DEMO: Defaults = Defaults {
    header: &["timestamp"],
    events: &[
        "INPUTTIMING",
        "PlayerInfo.latency",
        RCON_TIME,
        UNSET_CLIENT_ID,
        SQL_TICK,
        SNAP_DELTA,
        RECEIVED_INPUT,
        SNAPSHOT_IDS,
    ],
};
/// Captures: network timing (inputs' arrival among it), remote-console
/// time prefixes, connection tokens. (Timestamps, addresses, packet-header tokens, acks and
/// sequence numbers are never compared.)
pub const CAPTURE: Defaults = Defaults {
    header: &[],
    events: &[
        "INPUTTIMING",
        "PlayerInfo.latency",
        RCON_TIME,
        TOKENS,
        SQL_TICK,
        RECEIVED_INPUT,
        SNAPSHOT_IDS,
    ],
};

/// Maps: nothing changes from one write of a map to the next.
pub const MAP: Defaults = Defaults {
    header: &[],
    events: &[],
};

impl Defaults {
    /// Every name, header first.
    pub fn names(&self) -> Vec<String> {
        self.header
            .iter()
            .chain(self.events)
            .map(|s| s.to_string())
            .collect()
    }
}

/// Differences kept in full by default ([`Options::max_differences`]).
pub const MAX_DIFFERENCES: usize = 1000;

/// What to compare.
#[derive(Clone, Debug)]
pub struct Options {
    /// Header fields and event categories left out by the user.
    pub ignore: Vec<String>,
    /// The format's defaults in effect (left out too, and listed in the
    /// report as `ignored`): [`Defaults::names`] but those kept.
    pub defaults: Vec<String>,
    /// Only these categories (and `header` for the header), when given.
    pub only: Vec<String>,
    /// Compare tick numbers as they are, without moving the new file's
    /// to match the old one's first tick.
    pub no_align: bool,
    /// The two files are of one server session (what says so): their
    /// ticks are the session's own and are compared as they are.
    pub same_session: Option<String>,
    /// Snapshot items are compared only at ticks where both files have a
    /// snapshot, not where either has: a server that runs late ticks
    /// several times and snapshots once (`CServer::Run`), which no
    /// teehistorian file records, so a demo written from one cannot
    /// know where.
    pub common_snapshots: bool,
    /// Differences kept in full; the rest are only counted.
    pub max_differences: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ignore: Vec::new(),
            defaults: Vec::new(),
            only: Vec::new(),
            no_align: false,
            same_session: None,
            common_snapshots: false,
            max_differences: MAX_DIFFERENCES,
        }
    }
}

/// Timing a run's network decides, left out of demos and captures by
/// default: INPUTTIMING messages (how early an input arrived) and each
/// player's measured latency.
pub const TIMING_IGNORED: &[&str] = &["INPUTTIMING", "PlayerInfo.latency"];

/// Whether `name` names `category`: the whole category, its kind before
/// `:` (`item`, `message`, `s2c`) or its name after it (`PlayerInfo`,
/// `INPUTTIMING`).
fn names(name: &str, category: &str) -> bool {
    let (kind, rest) = category.split_once(':').unwrap_or((category, ""));
    name == category || name == kind || (!rest.is_empty() && name == rest)
}

impl Options {
    /// The options with `defaults`' names but `keep` (all of them unless
    /// `no_default_ignores`).
    pub fn with_defaults(mut self, defaults: Defaults, keep: &[String], none: bool) -> Self {
        self.defaults = match none {
            true => Vec::new(),
            false => defaults
                .names()
                .into_iter()
                .filter(|n| !keep.iter().any(|k| k == n))
                .collect(),
        };
        self
    }

    pub(super) fn left_out(&self) -> impl Iterator<Item = &String> {
        self.ignore.iter().chain(&self.defaults)
    }

    pub(super) fn wants(&self, category: &str) -> bool {
        let ignored = self.left_out().any(|n| names(n, category));
        !ignored && (self.only.is_empty() || self.only.iter().any(|n| names(n, category)))
    }

    /// Whether a field of `category` is left out (so its events need
    /// their fields to be compared).
    pub(super) fn field_ignored(&self, category: &str) -> bool {
        (self.has_default(RCON_TIME) || self.has_default(SQL_TICK)) && names("RCON_LINE", category)
            || self.has_default(SQL_TICK)
                && (names("Sv_RecordLegacy", category) || names("record@netmsg.ddnet.tw", category))
            || self.has_default(UNSET_CLIENT_ID) && names("De_ClientLeave", category)
            || self.has_default(TOKENS) && category.starts_with("control:")
            || self.has_default(SNAP_DELTA) && is_snapshot_message(category)
            || self.has_default(SAVE_UUIDS) && is_savegame(category)
            || self.leaves_out(RECEIVED_INPUT) && is_timed_by_arrival(category)
            || self.left_out().any(|entry| {
                entry
                    .rsplit_once('.')
                    .is_some_and(|(c, _)| names(c, category))
            })
    }

    /// Whether `event` is compared without its tick ([`SQL_TICK`]).
    pub(super) fn untimed(&self, event: &Event) -> bool {
        let category = event.category.as_str();
        self.has_default(SQL_TICK)
            && (names("Sv_RecordLegacy", category)
                || names("record@netmsg.ddnet.tw", category)
                || names("RCON_LINE", category)
                    && event
                        .fields
                        .pointer("/fields/line")
                        .and_then(Value::as_str)
                        .is_some_and(|line| strip_time_prefix(line).starts_with("I sql: ")))
    }

    fn has_default(&self, name: &str) -> bool {
        self.defaults.iter().any(|d| d == name)
    }

    /// `name` is left out, by default or by the user.
    pub(super) fn leaves_out(&self, name: &str) -> bool {
        self.left_out().any(|d| d == name)
    }

    /// `event` without the fields left out (`CATEGORY.FIELD`), a
    /// remote-console line without its time prefix, a control message
    /// without its token.
    pub(super) fn strip(&self, event: &Event) -> Event {
        let mut event = event.clone();
        self.strip_in_place(&mut event);
        event
    }

    pub(super) fn strip_in_place(&self, event: &mut Event) {
        if event.fields.is_null() {
            return;
        }
        for entry in self.left_out() {
            if let Some((category, field)) = entry.rsplit_once('.')
                && names(category, &event.category)
                && let Value::Object(m) = &mut event.fields
            {
                m.shift_remove(field);
            }
        }
        if self.has_default(RCON_TIME)
            && names("RCON_LINE", &event.category)
            && let Some(Value::String(line)) = event.fields.pointer_mut("/fields/line")
        {
            let rest = mask_uuids(strip_time_prefix(line));
            *line = rest;
        }
        if self.has_default(UNSET_CLIENT_ID)
            && names("De_ClientLeave", &event.category)
            && let Some(rejected) = event.fields.get("rejected")
            && rejected.get("field") == Some(&Value::from("client_id"))
            && let Value::Object(m) = &mut event.fields
        {
            m.shift_remove("rejected");
            if let Some(id) = event.fields.pointer_mut("/fields/client_id") {
                *id = Value::from("<unset>");
            }
        }
        if self.has_default(SNAP_DELTA)
            && is_snapshot_message(&event.category)
            && let Some(Value::Object(f)) = event.fields.get_mut("fields")
        {
            for delta in ["delta_tick", "part_size", "data", "num_parts", "part"] {
                f.shift_remove(delta);
            }
        }
        if self.leaves_out(RECEIVED_INPUT)
            && let Value::Object(m) = &mut event.fields
        {
            let (field, masked): (&str, fn(&Value) -> Option<Value>) = match event.category.as_str()
            {
                "item:DDNetPlayer" => ("flags", |v| {
                    v.as_i64().map(|f| Value::from(f & !EXPLAYERFLAG_AFK))
                }),
                "item:Character" => ("emote", |v| {
                    matches!(v.as_i64(), Some(EMOTE_NORMAL | EMOTE_BLINK))
                        .then(|| Value::from("<normal or blink>"))
                }),
                _ => ("", |_| None),
            };
            if let Some(v) = m.get_mut(field)
                && let Some(masked) = masked(v)
            {
                *v = masked;
            }
        }
        if self.has_default(SAVE_UUIDS)
            && is_savegame(&event.category)
            && let Value::Object(m) = &mut event.fields
        {
            m.shift_remove("save_id");
            if let Some(Value::String(text)) = m.get_mut("save") {
                *text = mask_uuids(text);
            }
        }
        if self.has_default(TOKENS)
            && let Some(name) = event.category.strip_prefix("control:")
            // 0.7's ACCEPT carries the token too (0.6's client ACCEPT
            // carries nothing).
            && matches!(name, "TOKEN" | "CONNECT" | "CONNECTACCEPT" | "ACCEPT")
            && let Value::Object(m) = &mut event.fields
        {
            m.shift_remove("data");
        }
    }
}

/// `line` with each UUID (`8-4-4-4-12` hex digits) shown as `<uuid>`:
/// DDNet's console names a teehistorian file by its game's random UUID.
pub fn mask_uuids(line: &str) -> String {
    const SHAPE: [usize; 5] = [8, 4, 4, 4, 12];
    let b = line.as_bytes();
    // The length of a UUID starting at `i`, if one does.
    let uuid_at = |i: usize| {
        let mut at = i;
        for (n, len) in SHAPE.iter().enumerate() {
            let part = b.get(at..at + len)?;
            if !part.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            at += len;
            if n < 4 {
                (b.get(at) == Some(&b'-')).then_some(())?;
                at += 1;
            }
        }
        Some(at - i)
    };
    let (mut out, mut i, mut copied) = (String::new(), 0, 0);
    while i < b.len() {
        let boundary = i == 0 || !b[i - 1].is_ascii_hexdigit();
        match uuid_at(i).filter(|_| boundary) {
            Some(len) => {
                out.push_str(&line[copied..i]);
                out.push_str("<uuid>");
                i += len;
                copied = i;
            }
            None => i += 1,
        }
    }
    out.push_str(&line[copied..]);
    out
}

/// `line` without a leading log time (`YYYY-MM-DD HH:MM:SS ` or
/// `[YYYY-MM-DD HH:MM:SS]` as DDNet writes it, `[HH:MM:SS]` as Teeworlds
/// 0.7 does).
pub fn strip_time_prefix(line: &str) -> &str {
    let b = line.as_bytes();
    let stamp = |s: &[u8]| {
        s.len() >= 19
            && s[..19].iter().enumerate().all(|(i, c)| match i {
                4 | 7 => *c == b'-',
                10 => *c == b' ',
                13 | 16 => *c == b':',
                _ => c.is_ascii_digit(),
            })
    };
    let clock = |s: &[u8]| {
        s.len() >= 8
            && s[..8].iter().enumerate().all(|(i, c)| match i {
                2 | 5 => *c == b':',
                _ => c.is_ascii_digit(),
            })
    };
    if b.first() == Some(&b'[') && stamp(&b[1..]) && b.get(20) == Some(&b']') {
        return &line[21..];
    }
    if b.first() == Some(&b'[') && clock(&b[1..]) && b.get(9) == Some(&b']') {
        return &line[10..];
    }
    if stamp(b) {
        return line[19..].strip_prefix(' ').unwrap_or(&line[19..]);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The id pool's types, and extended types no snapshot registered
    /// (numbers from `OFFSET_UUID_TYPE`, 0x4000, up); not a 0.6 type
    /// unknown to the table, nor an item whose id is its client's.
    #[test]
    fn pooled_ids_are_the_pools_types_and_unregistered_extended_ones() {
        for pooled in [
            "item:DDNetProjectile",
            "item:Laser",
            "item:unknown:32763",
            "item:unknown:16384",
        ] {
            assert!(from_the_id_pool(pooled), "{pooled}");
        }
        for own in [
            "item:Character",
            "item:DDNetCharacter",
            "item:unknown:63",
            "item:unknown:16383",
            "item:unknown:x",
        ] {
            assert!(!from_the_id_pool(own), "{own}");
        }
    }

    /// What a run's wall clock and random tokens put in a demo's and a
    /// capture's events is compared without them by default.
    #[test]
    fn demo_rcon_times_and_07_accept_tokens_are_left_out() {
        let rcon = |line: &str| {
            Event::new(
                "message:RCON_LINE".into(),
                serde_json::json!({"system": true, "id": 11, "name": "RCON_LINE",
                    "fields": {"line": line}}),
            )
        };
        let demo = Options::default().with_defaults(DEMO, &[], false);
        let (a, b) = (
            rcon("[2026-11-22 02:32:38][server]: map dm1"),
            rcon("[2026-11-22 02:40:01][server]: map dm1"),
        );
        assert_eq!(demo.strip(&a), demo.strip(&b), "RCON_LINE in a demo");
        let capture = Options::default().with_defaults(CAPTURE, &[], false);
        let accept = |token: &str| {
            Event::new(
                "control:ACCEPT".into(),
                serde_json::json!({"direction": "s2c", "data": token}),
            )
        };
        let (a, b) = (accept("0011aabb"), accept("99887766"));
        assert_eq!(capture.strip(&a), capture.strip(&b), "0.7 ACCEPT");
        // Kept when asked.
        let kept = Options::default().with_defaults(CAPTURE, &["control.token".into()], false);
        assert_ne!(kept.strip(&a), kept.strip(&b), "--keep control.token");
    }

    /// Teeworlds 0.7.5 leaves De_ClientLeave's client id unset: an
    /// out-of-range id compares as `<unset>`, an id in range as itself.
    #[test]
    fn teeworlds_unset_leave_client_id_is_masked_only_out_of_range() {
        let leave = |id: i64| {
            let rejected = (!(-1..=63).contains(&id)).then(
                || serde_json::json!({"field": "client_id", "value": id, "min": -1, "max": 63}),
            );
            let mut fields = serde_json::json!({"system": false, "id": 23, "name": "De_ClientLeave",
                "fields": {"name": "bob", "client_id": id, "reason": ""}});
            if let Some(r) = rejected {
                fields["rejected"] = r;
            }
            Event::new("message:De_ClientLeave".into(), fields)
        };
        let demo = Options::default().with_defaults(DEMO, &[], false);
        assert_eq!(
            demo.strip(&leave(-1157140736)),
            demo.strip(&leave(1490340864))
        );
        assert_ne!(demo.strip(&leave(1)), demo.strip(&leave(2)), "in range");
        assert_ne!(demo.strip(&leave(1)), demo.strip(&leave(1490340864)));
        let kept = Options::default().with_defaults(DEMO, &[UNSET_CLIENT_ID.into()], false);
        assert_ne!(
            kept.strip(&leave(-1157140736)),
            kept.strip(&leave(1490340864)),
            "--keep {UNSET_CLIENT_ID}"
        );
    }

    /// What a server decides from inputs as they arrive compares without
    /// it: the away bit of DDNetPlayer's flags, and normal against blink
    /// eyes; the paused bit and other eyes still count.
    #[test]
    fn the_away_bit_and_blinking_eyes_are_left_out_as_arrival_timing() {
        let item = |category: &str, fields: serde_json::Value| {
            Event::new(format!("item:{category}"), fields)
        };
        let player = |flags: i64| {
            item(
                "DDNetPlayer",
                serde_json::json!({"flags": flags, "auth_level": 0}),
            )
        };
        let eyes = |emote: i64| item("Character", serde_json::json!({"x": 5, "emote": emote}));
        let demo = Options::default().with_defaults(DEMO, &[], false);
        assert!(demo.field_ignored("item:DDNetPlayer") && demo.field_ignored("item:Character"));
        assert_eq!(demo.strip(&player(1)), demo.strip(&player(0)), "away");
        assert_eq!(
            demo.strip(&player(3)),
            demo.strip(&player(2)),
            "away, paused"
        );
        assert_ne!(demo.strip(&player(2)), demo.strip(&player(0)), "paused");
        assert_eq!(demo.strip(&eyes(5)), demo.strip(&eyes(0)), "blink, normal");
        assert_ne!(demo.strip(&eyes(1)), demo.strip(&eyes(0)), "pain");
        assert_ne!(demo.strip(&eyes(1)), demo.strip(&eyes(5)), "pain, blink");
        // Another item's `flags` is compared as it is.
        let other = |flags: i64| item("DDNetCharacter", serde_json::json!({"flags": flags}));
        assert_ne!(demo.strip(&other(1)), demo.strip(&other(0)));
        let kept = Options::default().with_defaults(DEMO, &[RECEIVED_INPUT.into()], false);
        assert_ne!(kept.strip(&player(1)), kept.strip(&player(0)), "--keep");
        assert_ne!(kept.strip(&eyes(5)), kept.strip(&eyes(0)), "--keep");
        let user = Options {
            ignore: vec![RECEIVED_INPUT.into()],
            ..Options::default()
        };
        assert_eq!(user.strip(&player(1)), user.strip(&player(0)), "--ignore");
    }

    /// A snapshot message recorded in a demo compares by its tick and
    /// CRC, not by the base its delta was made against.
    #[test]
    fn a_recorded_snapshot_message_compares_without_its_delta() {
        let snap = |delta_tick: i64, data: &str| {
            Event::new(
                "message:SNAPSINGLE".into(),
                serde_json::json!({"system": true, "id": 8, "name": "SNAPSINGLE",
                    "fields": {"tick": 317, "delta_tick": delta_tick, "crc": 39445,
                        "part_size": data.len() / 2, "data": data}}),
            )
        };
        let (a, b) = (snap(2, "0001000a0007"), snap(1, "0001000a000105"));
        let demo = Options::default().with_defaults(DEMO, &[], false);
        assert_eq!(
            demo.strip(&a),
            demo.strip(&b),
            "the same snapshot, other bases"
        );
        let mut other_crc = snap(1, "0001000a000105");
        other_crc.fields["fields"]["crc"] = 1.into();
        assert_ne!(demo.strip(&b), demo.strip(&other_crc), "another snapshot");
        let kept = Options::default().with_defaults(DEMO, &[SNAP_DELTA.into()], false);
        assert_ne!(kept.strip(&a), kept.strip(&b), "--keep {SNAP_DELTA}");
    }

    #[test]
    fn uuids_in_console_lines_are_masked() {
        assert_eq!(
            mask_uuids(
                "I teehistorian: recording to \
                 'teehistorian/1aa06bd5-6933-4e3a-9a9b-737018f87dd5.teehistorian'"
            ),
            "I teehistorian: recording to 'teehistorian/<uuid>.teehistorian'"
        );
        // Not a UUID: too short a part, a longer hex run, no dashes.
        for line in [
            "1aa06bd5-6933-4e3a-9a9b-737018f87dd",
            "01aa06bd5-6933-4e3a-9a9b-737018f87dd5x",
            "1aa06bd569334e3a9a9b737018f87dd5",
            "é 1aa06bd5",
        ] {
            assert_eq!(mask_uuids(line), line, "{line}");
        }
    }

    #[test]
    fn time_prefixes_are_stripped() {
        assert_eq!(
            strip_time_prefix("2026-11-22 02:32:38 I server: ClientId=0 authed"),
            "I server: ClientId=0 authed"
        );
        assert_eq!(
            strip_time_prefix("[2024-01-01 12:00:00][server]: hi"),
            "[server]: hi"
        );
        assert_eq!(
            strip_time_prefix("Wrong password 1/30."),
            "Wrong password 1/30."
        );
        assert_eq!(
            strip_time_prefix("[14:02:11][server]: player has entered"),
            "[server]: player has entered"
        );
        assert_eq!(strip_time_prefix("[14:02][x]"), "[14:02][x]");
        assert_eq!(strip_time_prefix("2026-11-22"), "2026-11-22");
        assert_eq!(strip_time_prefix("é"), "é");
    }
}
