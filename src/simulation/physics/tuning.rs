//! Tuning: the numbers of DDNet's physics (`CTuningParams`,
//! `src/game/tuning.h`), and the tune zones a map can give them.
//!
//! DDNet keeps each parameter as an int in hundredths (`CTuneParam`,
//! `src/game/gamecore.h`). Setting one from a float `v` stores
//! `(int)(v * 100.0f)`: the product in single precision, truncated toward
//! zero. Reading gives `m_Value / 100.0f`. So `tune gravity 0.45` is 45
//! only because `0.45f * 100.0f` rounds up to 45.0 in single precision
//! (the exact product is 44.99999988...), and every value the physics
//! sees is an int divided by 100 in `f32`. [`Tuning`] stores the ints and
//! converts on every read, as DDNet does.
//!
//! The parameters, in network order, are the same in both releases except
//! that 20.1 adds `ground_elasticity_x` and `ground_elasticity_y` at the
//! end (16.4: 45 parameters; 20.1: 47). Defaults are the same.

use crate::simulation::Release;
use crate::simulation::console::{self, NotANumber};
use serde::Serialize;
use serde::ser::SerializeMap;
use std::fmt;

/// How many parameters 20.1 has (16.4 has the first 45 of them).
pub const MAX_PARAMS: usize = 47;

/// How many tune zones a map has (`TuneZone::NUM`, `NUM_TUNEZONES`);
/// zone 0 is the area without a tune tile.
pub const ZONES: usize = 256;

/// Each parameter's name and its `tuning.h` default as the float DDNet
/// computes it (`100.0f / 50` is `100.0f / (float)SERVER_TICK_SPEED` in
/// 20.1, `100.0f / TicksPerSecond` with a `const float` 50 in 16.4: 2.0
/// either way). In network order.
const PARAMS: [(&str, f32); MAX_PARAMS] = [
    ("ground_control_speed", 10.0),
    ("ground_control_accel", 100.0 / 50.0),
    ("ground_friction", 0.5),
    ("ground_jump_impulse", 13.2),
    ("air_jump_impulse", 12.0),
    ("air_control_speed", 250.0 / 50.0),
    ("air_control_accel", 1.5),
    ("air_friction", 0.95),
    ("hook_length", 380.0),
    ("hook_fire_speed", 80.0),
    ("hook_drag_accel", 3.0),
    ("hook_drag_speed", 15.0),
    ("gravity", 0.5),
    ("velramp_start", 550.0),
    ("velramp_range", 2000.0),
    ("velramp_curvature", 1.4),
    ("gun_curvature", 1.25),
    ("gun_speed", 2200.0),
    ("gun_lifetime", 2.0),
    ("shotgun_curvature", 1.25),
    ("shotgun_speed", 2750.0),
    ("shotgun_speeddiff", 0.8),
    ("shotgun_lifetime", 0.20),
    ("grenade_curvature", 7.0),
    ("grenade_speed", 1000.0),
    ("grenade_lifetime", 2.0),
    ("laser_reach", 800.0),
    ("laser_bounce_delay", 150.0),
    ("laser_bounce_num", 1000.0),
    ("laser_bounce_cost", 0.0),
    ("laser_damage", 5.0),
    ("player_collision", 1.0),
    ("player_hooking", 1.0),
    ("jetpack_strength", 400.0),
    ("shotgun_strength", 10.0),
    ("explosion_strength", 6.0),
    ("hammer_strength", 1.0),
    ("hook_duration", 1.25),
    ("hammer_fire_delay", 125.0),
    ("gun_fire_delay", 125.0),
    ("shotgun_fire_delay", 500.0),
    ("grenade_fire_delay", 500.0),
    ("laser_fire_delay", 800.0),
    ("ninja_fire_delay", 800.0),
    ("hammer_hit_fire_delay", 320.0),
    ("ground_elasticity_x", 0.0),
    ("ground_elasticity_y", 0.0),
];

/// What DDNet's ResetTuning (and the reset of every tune zone at map
/// load) sets on top of the defaults, in both releases
/// (16.4 `gamecontext.cpp` 3896–3905 and 3266–3276; 20.1 4991–4999 and
/// 4193–4201).
const DDRACE: [(&str, f32); 5] = [
    ("gun_speed", 1400.0),
    ("gun_curvature", 0.0),
    ("shotgun_speed", 500.0),
    ("shotgun_speeddiff", 0.0),
    ("shotgun_curvature", 0.0),
];

/// How many parameters `release` has.
pub fn param_count(release: Release) -> usize {
    match release {
        Release::Ddnet16_4 => 45,
        Release::Ddnet20_1 => MAX_PARAMS,
    }
}

/// The parameters' names for `release`, in network order.
pub fn param_names(release: Release) -> impl ExactSizeIterator<Item = &'static str> {
    PARAMS[..param_count(release)].iter().map(|&(name, _)| name)
}

/// `CTuneParam`'s assignment from a float: `v * 100.0f` in single
/// precision, truncated toward zero. 20.1 stores `INT_MIN` when the
/// product is NaN or outside `[INT_MIN, INT_MAX)` (`gamecore.h` 29–37);
/// 16.4 converts with a plain `(int)` (`gamecore.h` 31–39), undefined in
/// C++ there, which x86-64's `cvttss2si` also answers with `INT_MIN`.
/// Rust's `as` would saturate instead, hence the explicit range.
pub fn fixed(v: f32) -> i32 {
    let product = v * 100.0f32;
    if (-2_147_483_648.0f32..2_147_483_648.0f32).contains(&product) {
        product as i32
    } else {
        i32::MIN
    }
}

/// `CTuneParam`'s read: `m_Value / 100.0f` (the int rounded to a float
/// first).
pub fn unfixed(value: i32) -> f32 {
    value as f32 / 100.0f32
}

/// Why tuning could not be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TuningError {
    /// No parameter of this name in this release. DDNet itself prints
    /// "No such tuning parameter" and changes nothing, but a file from a
    /// newer server build may name a parameter that build has and this
    /// crate does not know: the simulator must say so.
    UnknownParam {
        /// The name as written.
        name: String,
        /// The release whose list it is not in.
        release: Release,
    },
    /// A header value that is not an int (DDNet writes `%d`).
    BadHeaderValue {
        /// The parameter.
        name: String,
        /// The value as written.
        value: String,
    },
    /// A console argument the release's console would not have read as a
    /// number (so DDNet would not have run the command).
    BadNumber(NotANumber),
    /// A console command with fewer arguments than its parameters need
    /// (DDNet's console refuses to run it).
    MissingArgument {
        /// The command.
        command: String,
    },
}

impl fmt::Display for TuningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuningError::UnknownParam { name, release } => {
                write!(f, "no tuning parameter {name:?} in {release:?}")
            }
            TuningError::BadHeaderValue { name, value } => {
                write!(f, "tuning {name:?} has value {value:?}, not an int")
            }
            TuningError::BadNumber(e) => e.fmt(f),
            TuningError::MissingArgument { command } => {
                write!(f, "{command:?} lacks an argument DDNet requires")
            }
        }
    }
}

impl std::error::Error for TuningError {}

impl From<NotANumber> for TuningError {
    fn from(e: NotANumber) -> Self {
        TuningError::BadNumber(e)
    }
}

/// One set of tuning parameters (`CTuningParams`) of one release: the ints
/// in hundredths, read through one method per parameter.
#[derive(Clone, Copy)]
pub struct Tuning {
    release: Release,
    /// In network order; past [`param_count`] always 0.
    values: [i32; MAX_PARAMS],
    /// Each int as its read gives it ([`unfixed`]), kept with it (only
    /// [`Tuning::put`] writes either): a conversion and a division on
    /// every read held up the cores' ticks.
    floats: [f32; MAX_PARAMS],
}

/// Two tunings are equal when their release and ints are (the floats
/// follow from the ints).
impl PartialEq for Tuning {
    fn eq(&self, other: &Tuning) -> bool {
        (self.release, self.values) == (other.release, other.values)
    }
}

impl Eq for Tuning {}

impl fmt::Debug for Tuning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (name, value) in self.params() {
            map.entry(&name, &value);
        }
        map.finish()
    }
}

/// A map of name to int, in network order.
impl Serialize for Tuning {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(param_count(self.release)))?;
        for (name, value) in self.params() {
            map.serialize_entry(name, &value)?;
        }
        map.end()
    }
}

macro_rules! getters {
    ($($(#[$doc:meta])* $name:ident = $index:expr;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(&self) -> f32 {
                self.floats[$index]
            }
        )*
    };
}

impl Tuning {
    /// `tuning.h`'s defaults (`CTuningParams`' constructor).
    pub fn defaults(release: Release) -> Tuning {
        let mut t = Tuning {
            release,
            values: [0; MAX_PARAMS],
            floats: [0.0; MAX_PARAMS],
        };
        for (i, &(_, v)) in PARAMS[..param_count(release)].iter().enumerate() {
            t.put(i, fixed(v));
        }
        t
    }

    /// What `ResetTuning` sets: the defaults with DDRace's five changes
    /// (gun_speed 1400, gun_curvature 0, shotgun_speed 500,
    /// shotgun_speeddiff 0, shotgun_curvature 0). The same in 16.4 and
    /// 20.1; every tune zone starts so too.
    pub fn ddrace(release: Release) -> Tuning {
        let mut t = Tuning::defaults(release);
        for &(name, v) in &DDRACE {
            if let Some(i) = t.index_of(name.as_bytes()) {
                t.put(i, fixed(v));
            }
        }
        t
    }

    /// The global tuning a teehistorian header records. DDNet's writer
    /// lists each parameter whose int differs from its `tuning.h`
    /// default, as that int (`"gun_speed":"140000"`; 16.4
    /// `teehistorian.cpp:WriteHeader` 169–181, 20.1 202–214, comparing
    /// with `(int)((Value) * 100)`, the same ints as
    /// [`Tuning::defaults`]). So: the defaults, with the listed ints set.
    /// A name this release does not have, or a value that is not an int,
    /// is an error.
    pub fn from_header(
        release: Release,
        pairs: &[(String, String)],
    ) -> Result<Tuning, TuningError> {
        let mut t = Tuning::defaults(release);
        for (name, value) in pairs {
            let i = t
                .index_of(name.as_bytes())
                .ok_or_else(|| TuningError::UnknownParam {
                    name: name.clone(),
                    release,
                })?;
            let value = value.parse().map_err(|_| TuningError::BadHeaderValue {
                name: name.clone(),
                value: value.clone(),
            })?;
            t.put(i, value);
        }
        Ok(t)
    }

    /// Sets parameter `i` to `value` (hundredths), with its float.
    fn put(&mut self, i: usize, value: i32) {
        self.values[i] = value;
        self.floats[i] = unfixed(value);
    }

    /// The release whose parameter list this is.
    pub fn release(&self) -> Release {
        self.release
    }

    /// The parameters and their ints, in network order.
    pub fn params(&self) -> impl ExactSizeIterator<Item = (&'static str, i32)> + '_ {
        param_names(self.release).zip(self.values)
    }

    /// The ints in network order, as `NETMSGTYPE_SV_TUNEPARAMS` and the
    /// demo's tune message carry them.
    pub fn ints(&self) -> &[i32] {
        &self.values[..param_count(self.release)]
    }

    /// The index of a parameter, matched without regard to ASCII case as
    /// `CTuningParams::Set`/`Get` match it (`str_comp_nocase`).
    fn index_of(&self, name: &[u8]) -> Option<usize> {
        param_names(self.release).position(|n| n.as_bytes().eq_ignore_ascii_case(name))
    }

    /// The int of a parameter by name (ASCII case ignored).
    pub fn get_int(&self, name: &str) -> Option<i32> {
        self.index_of(name.as_bytes()).map(|i| self.values[i])
    }

    /// The float of a parameter by name, as `CTuningParams::Get` gives it.
    pub fn get_by_name(&self, name: &str) -> Option<f32> {
        self.get_int(name).map(unfixed)
    }

    /// `CTuningParams::Set(name, value)`: the float stored as
    /// [`fixed`]. An unknown name changes nothing and is an error.
    pub fn set_float(&mut self, name: &[u8], value: f32) -> Result<(), TuningError> {
        let i = self.index_of(name).ok_or_else(|| self.unknown(name))?;
        self.put(i, fixed(value));
        Ok(())
    }

    /// `tune NAME VALUE` (`ConTuneParam`): the value text read as this
    /// release's console reads an argument ([`console::float_arg`]), then
    /// [`Tuning::set_float`].
    pub fn set(&mut self, name: &str, value_text: &str) -> Result<(), TuningError> {
        self.set_text(name.as_bytes(), value_text.as_bytes())
    }

    fn set_text(&mut self, name: &[u8], value_text: &[u8]) -> Result<(), TuningError> {
        let value = console::float_arg(self.release, value_text)?;
        self.set_float(name, value)
    }

    fn unknown(&self, name: &[u8]) -> TuningError {
        TuningError::UnknownParam {
            name: String::from_utf8_lossy(name).into_owned(),
            release: self.release,
        }
    }

    /// The reload after a shot of weapon 0 (hammer) to 5 (ninja), in
    /// ticks, as the server sets it at the end of `FireWeapon` (`None` for
    /// another weapon): `hammer_fire_delay` to `ninja_fire_delay` in
    /// milliseconds. 16.4 reads tuning parameter 38 + weapon and takes
    /// `delay * 50 / 1000`; 20.1 takes `GetWeaponFireDelay(weapon) * 50`,
    /// the same parameter in seconds. (16.4's `GetWeaponFireDelay`, which
    /// gives the hammer `hammer_hit_fire_delay`, is the client's
    /// prediction: its server does not call it.)
    pub fn reload_ticks(&self, weapon: i32) -> Option<i32> {
        let delay = match weapon {
            0 => self.hammer_fire_delay(),
            1 => self.gun_fire_delay(),
            2 => self.shotgun_fire_delay(),
            3 => self.grenade_fire_delay(),
            4 => self.laser_fire_delay(),
            5 => self.ninja_fire_delay(),
            _ => return None,
        };
        let ticks = match self.release {
            Release::Ddnet16_4 => delay * 50.0 / 1000.0,
            Release::Ddnet20_1 => delay / 1000.0 * 50.0,
        };
        Some(ticks as i32)
    }

    getters! {
        /// Top speed on the ground (px/tick).
        ground_control_speed = 0;
        /// Acceleration on the ground.
        ground_control_accel = 1;
        /// Friction on the ground (velocity factor per tick).
        ground_friction = 2;
        /// The ground jump's upward velocity.
        ground_jump_impulse = 3;
        /// The air jump's upward velocity.
        air_jump_impulse = 4;
        /// Top speed in the air.
        air_control_speed = 5;
        /// Acceleration in the air.
        air_control_accel = 6;
        /// Friction in the air.
        air_friction = 7;
        /// How far the hook reaches.
        hook_length = 8;
        /// How fast the hook flies.
        hook_fire_speed = 9;
        /// Acceleration of a hooked drag.
        hook_drag_accel = 10;
        /// Top speed of a hooked drag.
        hook_drag_speed = 11;
        /// Gravity per tick.
        gravity = 12;
        /// Speed (px/s) where the velocity ramp starts.
        velramp_start = 13;
        /// The velocity ramp's range.
        velramp_range = 14;
        /// The velocity ramp's curvature (a `powf` base).
        velramp_curvature = 15;
        /// Gun bullets' curvature.
        gun_curvature = 16;
        /// Gun bullets' speed.
        gun_speed = 17;
        /// Gun bullets' lifetime (s).
        gun_lifetime = 18;
        /// Shotgun pellets' curvature.
        shotgun_curvature = 19;
        /// Shotgun pellets' speed.
        shotgun_speed = 20;
        /// Speed difference between pellets (unused by DDNet).
        shotgun_speeddiff = 21;
        /// Shotgun pellets' lifetime (unused by DDNet).
        shotgun_lifetime = 22;
        /// Grenades' curvature.
        grenade_curvature = 23;
        /// Grenades' speed.
        grenade_speed = 24;
        /// Grenades' lifetime (s).
        grenade_lifetime = 25;
        /// How far a laser reaches.
        laser_reach = 26;
        /// A laser's pause at a bounce (ms).
        laser_bounce_delay = 27;
        /// How often a laser bounces.
        laser_bounce_num = 28;
        /// Reach a bounce costs.
        laser_bounce_cost = 29;
        /// Laser damage (unused by DDNet).
        laser_damage = 30;
        /// Whether players collide (non-zero: yes).
        player_collision = 31;
        /// Whether players hook players (non-zero: yes).
        player_hooking = 32;
        /// The jetpack gun's strength.
        jetpack_strength = 33;
        /// The shotgun's pull.
        shotgun_strength = 34;
        /// Explosions' strength.
        explosion_strength = 35;
        /// The hammer's strength.
        hammer_strength = 36;
        /// How long a hook on a player holds (s).
        hook_duration = 37;
        /// Hammer delay when hitting nobody (ms).
        hammer_fire_delay = 38;
        /// Gun delay (ms).
        gun_fire_delay = 39;
        /// Shotgun delay (ms).
        shotgun_fire_delay = 40;
        /// Grenade delay (ms).
        grenade_fire_delay = 41;
        /// Laser delay (ms).
        laser_fire_delay = 42;
        /// Ninja delay (ms).
        ninja_fire_delay = 43;
        /// Hammer delay after hitting a tee (ms).
        hammer_hit_fire_delay = 44;
        /// Horizontal bounce off walls (20.1; always 0 in 16.4, which has
        /// no such parameter).
        ground_elasticity_x = 45;
        /// Vertical bounce off ground and ceiling (20.1; always 0 in
        /// 16.4).
        ground_elasticity_y = 46;
    }
}

/// What a console command did to the tuning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Applied {
    /// It set tuning values (possibly to what they were).
    Changed,
    /// A tuning command that changes no value: `tune NAME` (prints),
    /// `tunes`, `tune_zone_dump`, `tune_zone_enter`/`_leave` (messages), a
    /// zone outside 0–255.
    NoEffect,
    /// Not a tuning command.
    NotTuning,
}

/// The tuning of every zone of a world: the global tuning (zone 0) and
/// DDNet's list of 256 zone tunings.
///
/// In 20.1 the global tuning *is* the list's entry 0 (`GlobalTuning()`
/// is `&m_aTuningList[0]`, `gamecontext.h` 209), so `tune_zone 0` and
/// `tune` change the same thing. In 16.4 the global tuning is a separate
/// `m_Tuning` (`gamecontext.h` 74, 138) and the list's entry 0 is never
/// read by the physics: a character in zone 0 gets `Tuning()`
/// (`character.cpp` 1936–1941). [`Tunings::zone`] gives what a character
/// in a zone uses, for both.
#[derive(Clone, Serialize)]
pub struct Tunings {
    #[serde(rename = "version")]
    release: Release,
    global: Tuning,
    /// 256 entries; in 20.1 entry 0 is unused (the global stands for it).
    list: Vec<Tuning>,
    /// A number no other change of any `Tunings` took, new with each
    /// change (see [`Tunings::version`]).
    #[serde(skip)]
    version: u64,
}

/// A version no `Tunings` had.
fn fresh_version() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl PartialEq for Tunings {
    fn eq(&self, other: &Tunings) -> bool {
        (self.release, &self.global, &self.list) == (other.release, &other.global, &other.list)
    }
}

impl Eq for Tunings {}

impl fmt::Debug for Tunings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tunings")
            .field("release", &self.release)
            .field("global", &self.global)
            .field("list", &self.list)
            .finish()
    }
}

/// The tuning each client id's core ticks and moves with: its zone's,
/// copied at each of its ticks (the global one when its character
/// comes), so a tune command after that tick does not reach it. Each
/// distinct copy is kept once, as most cores share their zone's: 64
/// copies of 192 bytes read every tick would crowd the data cache.
#[derive(Clone, Debug)]
pub struct CoreTunings {
    /// Each copy, what it is a copy of, and how many client ids hold it
    /// (one with none is taken again for the next copy: at most one a
    /// client id).
    copies: Vec<(Tuning, Of, u8)>,
    /// The copy each client id holds.
    held: Vec<u8>,
}

/// What a copy is of: a zone's tuning or the global one, of a
/// [`Tunings::version`] (two `Tunings` of one version are equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Of {
    Zone(u8, u64),
    Global(u64),
}

impl CoreTunings {
    /// `clients` client ids, each holding the global tuning of `tunings`.
    pub fn new(tunings: &Tunings, clients: usize) -> CoreTunings {
        let of = Of::Global(tunings.version);
        let clients = clients.min(usize::from(u8::MAX));
        CoreTunings {
            copies: vec![(tunings.global, of, clients as u8)],
            held: vec![0; clients],
        }
    }

    /// `cid` holds `tunings.zone(zone)` as it is now. Inline the test
    /// alone: most ticks the copy held is of that zone and version.
    #[inline]
    pub fn take(&mut self, cid: usize, tunings: &Tunings, zone: u8) {
        let of = Of::Zone(zone, tunings.version);
        if self.copies[usize::from(self.held[cid])].1 != of {
            self.hold(cid, of, tunings.zone(zone));
        }
    }

    /// `cid` holds the global tuning of `tunings` as it is now.
    pub fn take_global(&mut self, cid: usize, tunings: &Tunings) {
        self.hold(cid, Of::Global(tunings.version), &tunings.global);
    }

    /// `cid` holds the copy of `of` (`tuning`): one kept already, or a
    /// new one in place of a copy nobody holds.
    #[inline(never)]
    fn hold(&mut self, cid: usize, of: Of, tuning: &Tuning) {
        let was = usize::from(self.held[cid]);
        self.copies[was].2 -= 1;
        let i = match self.copies.iter().position(|c| c.1 == of) {
            Some(i) => i,
            None => {
                let copy = (*tuning, of, 0);
                match self.copies.iter().position(|c| c.2 == 0) {
                    Some(free) => {
                        self.copies[free] = copy;
                        free
                    }
                    None => {
                        self.copies.push(copy);
                        self.copies.len() - 1
                    }
                }
            }
        };
        self.copies[i].2 += 1;
        self.held[cid] = i as u8;
    }

    /// The tuning `cid` holds.
    #[inline]
    pub fn get(&self, cid: usize) -> &Tuning {
        &self.copies[usize::from(self.held[cid])].0
    }
}

impl Tunings {
    /// The tunings at map load from a header: the global one from the
    /// header's `tuning` ([`Tuning::from_header`]); zones 1–255 (and
    /// 16.4's separate list entry 0) as the map load leaves them, which
    /// no header records: DDRace's ([`Tuning::ddrace`]), with
    /// `player_collision` and `player_hooking` 0 in every zone when
    /// `solo` (the server's `sv_solo_server`) is set (16.4 `gamecontext.cpp` 3266–3331, 20.1
    /// 4193–4261). `tune_zone` commands of the server's reset file or
    /// the map's settings ran before the header and are not in it; they
    /// cannot be known here.
    pub fn from_header(
        release: Release,
        tuning: &[(String, String)],
        solo: bool,
    ) -> Result<Tunings, TuningError> {
        let global = Tuning::from_header(release, tuning)?;
        let mut zone = Tuning::ddrace(release);
        if solo {
            zone.put(31, 0);
            zone.put(32, 0);
        }
        Ok(Tunings {
            release,
            global,
            list: vec![zone; ZONES],
            version: fresh_version(),
        })
    }

    /// Every zone DDRace's and the global one as given.
    pub fn new(release: Release, global: Tuning) -> Tunings {
        Tunings {
            release,
            global,
            list: vec![Tuning::ddrace(release); ZONES],
            version: fresh_version(),
        }
    }

    /// The zones' tunings (not the global one) as `other` has them.
    pub fn take_zones(&mut self, other: &Tunings) {
        self.version = fresh_version();
        self.list.clone_from(&other.list);
    }

    /// The release whose rules the commands follow.
    pub fn release(&self) -> Release {
        self.release
    }

    /// The global tuning (zone 0).
    pub fn global(&self) -> &Tuning {
        &self.global
    }

    /// The global tuning, to change (the map's game-layer tiles do).
    pub fn global_mut(&mut self) -> &mut Tuning {
        self.version = fresh_version();
        &mut self.global
    }

    /// The tuning a character in tune zone `zone` moves with: the global
    /// one in zone 0, the zone's own elsewhere.
    pub fn zone(&self, zone: u8) -> &Tuning {
        match zone {
            0 => &self.global,
            z => &self.list[usize::from(z)],
        }
    }

    /// The list entry `tune_zone`/`tune_zone_reset` act on: in 20.1 entry
    /// 0 is the global tuning; in 16.4 it is the list's own entry 0.
    fn list_entry(&mut self, zone: usize) -> &mut Tuning {
        self.version = fresh_version();
        match (self.release, zone) {
            (Release::Ddnet20_1, 0) => &mut self.global,
            _ => &mut self.list[zone],
        }
    }

    /// A console command as a CONSOLE_COMMAND record holds it (the
    /// command's name and its arguments as the console split them; see
    /// [`crate::teehistorian::ConsoleCommand`]), applied as
    /// `release`'s `gamecontext.cpp` does (16.4 2551–2714, 20.1
    /// 3083–3245):
    ///
    /// - `tune NAME VALUE`: the global tuning. Without a value it only
    ///   prints.
    /// - `toggle_tune NAME A B`: the global tuning to B if it is within
    ///   0.0001 of A, else to A.
    /// - `tune_reset NAME`: one global parameter to its `tuning.h` default
    ///   (through the float, as DDNet does); `tune_reset`: the global
    ///   tuning to DDRace's ([`Tuning::ddrace`]).
    /// - `tune_zone ZONE NAME VALUE`: one zone's parameter (zones 0–255).
    /// - `tune_zone_reset ZONE`: that zone to the plain `tuning.h`
    ///   defaults (not DDRace's); `tune_zone_reset`: every zone so. In
    ///   20.1 both include zone 0, the global tuning; 16.4 leaves its
    ///   global tuning alone.
    /// - `tunes`, `tune_zone_dump`, `tune_zone_enter`, `tune_zone_leave`:
    ///   [`Applied::NoEffect`]. There is no `tune_dump` in either release.
    ///
    /// Everything else is [`Applied::NotTuning`]. Names of commands are
    /// matched ignoring ASCII case, as the console finds them. A
    /// parameter the release lacks, a number the console would not have
    /// read, or missing arguments are errors, and change nothing.
    pub fn apply_console<A: std::ops::Deref<Target = [u8]>>(
        &mut self,
        command: &[u8],
        args: &[A],
    ) -> Result<Applied, TuningError> {
        // Even a command that fails or changes nothing: a copy is only
        // taken again.
        self.version = fresh_version();
        let release = self.release;
        let is = |name: &str| command.eq_ignore_ascii_case(name.as_bytes());
        let arg = |i: usize| -> Result<&[u8], TuningError> {
            args.get(i)
                .map(|a| &**a)
                .ok_or_else(|| TuningError::MissingArgument {
                    command: String::from_utf8_lossy(command).into_owned(),
                })
        };
        if is("tune") {
            let name = arg(0)?;
            if args.len() < 2 {
                return Ok(Applied::NoEffect);
            }
            self.global.set_text(name, arg(1)?)?;
            Ok(Applied::Changed)
        } else if is("toggle_tune") {
            let (name, first, second) = (arg(0)?, arg(1)?, arg(2)?);
            let first = console::float_arg(release, first)?;
            let second = console::float_arg(release, second)?;
            let old = self
                .global
                .index_of(name)
                .map(|i| unfixed(self.global.values[i]))
                .ok_or_else(|| self.global.unknown(name))?;
            let new = if (old - first).abs() < 0.0001f32 {
                second
            } else {
                first
            };
            self.global.set_float(name, new)?;
            Ok(Applied::Changed)
        } else if is("tune_reset") {
            match args.first() {
                Some(name) => {
                    let defaults = Tuning::defaults(release);
                    let i = defaults
                        .index_of(name)
                        .ok_or_else(|| defaults.unknown(name))?;
                    self.global.put(i, fixed(unfixed(defaults.values[i])));
                }
                None => self.global = Tuning::ddrace(release),
            }
            Ok(Applied::Changed)
        } else if is("tune_zone") {
            let (zone, name, value) = (arg(0)?, arg(1)?, arg(2)?);
            let zone = console::int_arg(release, zone)?;
            let value = console::float_arg(release, value)?;
            match usize::try_from(zone) {
                Ok(zone) if zone < ZONES => {
                    self.list_entry(zone).set_float(name, value)?;
                    Ok(Applied::Changed)
                }
                _ => Ok(Applied::NoEffect),
            }
        } else if is("tune_zone_reset") {
            let defaults = Tuning::defaults(release);
            match args.first() {
                Some(zone) => match usize::try_from(console::int_arg(release, zone)?) {
                    Ok(zone) if zone < ZONES => {
                        *self.list_entry(zone) = defaults;
                        Ok(Applied::Changed)
                    }
                    _ => Ok(Applied::NoEffect),
                },
                None => {
                    for zone in 0..ZONES {
                        *self.list_entry(zone) = defaults;
                    }
                    Ok(Applied::Changed)
                }
            }
        } else if is("tunes")
            || is("tune_zone_dump")
            || is("tune_zone_enter")
            || is("tune_zone_leave")
        {
            Ok(Applied::NoEffect)
        } else {
            Ok(Applied::NotTuning)
        }
    }
}

#[cfg(test)]
mod tests;
