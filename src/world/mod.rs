//! The game world as DDNet's server steps it, rebuilt from a map and the
//! inputs a teehistorian file records (issue 27). So far: the collision
//! grid of a map's game layer ([`collision`]), the float vector its
//! physics computes with ([`Vec2`]), the tuning and tune zones
//! ([`tuning`]), the server settings the game reads ([`config`]), the
//! console's number parsing ([`console`]) and the world's random
//! generator ([`prng`]), each for the DDNet [`Version`] whose rules apply.
//!
//! Every computation is single-precision IEEE arithmetic in the order
//! DDNet's C++ does it (built for generic x86-64: SSE, no fused
//! multiply-add), so a position comes out bit for bit as DDNet's.

pub mod character;
pub mod collision;
pub mod config;
pub mod console;
pub mod core;
pub mod fmath;
pub mod game;
pub mod prng;
pub mod race;
pub mod save;
mod tiles;
pub mod tuning;
pub mod weapons;

pub use game::World;

use serde::Serialize;
use std::ops::{Add, Mul, Sub};

/// The DDNet release whose rules the world follows. Only these two are
/// checked against DDNet's source; every other release is mapped to the
/// nearer of them ([`Version::of_server`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Version {
    /// DDNet 16.4 (tag `16.4`), the Debian server of the 16.4 corpus.
    Ddnet16_4,
    /// DDNet 20.1 (commit `28baa427`), the server of the 20.1 corpus.
    Ddnet20_1,
}

impl Version {
    /// The rules for a teehistorian header's `server_version`: DDNet
    /// writes `GAME_VERSION`, e.g. `"0.6.4, 16.4"` or
    /// `"0.6, 20.1 (28baa427bad88b7d)"`; the release is the number after
    /// the comma. Releases before 17.2 get [`Version::Ddnet16_4`], 17.2
    /// and later [`Version::Ddnet20_1`]: 17.2 is the first release whose
    /// tuning has `ground_elasticity_x`/`_y` (47 parameters, as 20.1;
    /// every earlier one has 16.4's 45). Other physics changes between
    /// the two releases are not placed by this mapping. `None` when no
    /// release number can be read (DDNet's unit tests write
    /// `"DDNet test"`).
    pub fn of_server(server_version: &str) -> Option<Version> {
        let release = match server_version.rsplit_once(", ") {
            Some((_, release)) => release,
            None => server_version,
        };
        let release = release.split(' ').next().unwrap_or("");
        let mut parts = release.split('.');
        let number = |p: Option<&str>| -> Option<u32> {
            let digits: &str = p?;
            let end = digits
                .bytes()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(digits.len());
            digits[..end].parse().ok()
        };
        let major = number(parts.next())?;
        let minor = number(parts.next()).unwrap_or(0);
        Some(if (major, minor) < (17, 2) {
            Version::Ddnet16_4
        } else {
            Version::Ddnet20_1
        })
    }
}

/// DDNet's `vec2`: two `f32`s.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Vec2 {
    /// Rightwards, in world units (32 to a tile).
    pub x: f32,
    /// Downwards.
    pub y: f32,
}

impl Vec2 {
    /// `(x, y)`.
    pub const fn new(x: f32, y: f32) -> Vec2 {
        Vec2 { x, y }
    }

    /// `x*x + y*y`, in that order.
    pub fn dot(self, other: Vec2) -> f32 {
        self.x * other.x + self.y * other.y
    }

    /// The square root of `dot(self, self)` (`length`).
    pub fn length(self) -> f32 {
        self.dot(self).sqrt()
    }

    /// `length(self - other)` (`distance`).
    pub fn distance(self, other: Vec2) -> f32 {
        (self - other).length()
    }

    /// `self + (to - self) * amount` (`mix`).
    pub fn mix(self, to: Vec2, amount: f32) -> Vec2 {
        self + (to - self) * amount
    }
}

impl Add for Vec2 {
    type Output = Vec2;
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}

impl Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}

impl Mul<f32> for Vec2 {
    type Output = Vec2;
    fn mul(self, s: f32) -> Vec2 {
        Vec2::new(self.x * s, self.y * s)
    }
}

/// DDNet's `round_to_int`: half away from zero, then truncated. (C's
/// conversion of a float past `i32`'s range is undefined; here it
/// saturates. No position on a map of at most 2^15 tiles a side gets
/// there.)
pub fn round_to_int(f: f32) -> i32 {
    if f > 0.0 {
        (f + 0.5) as i32
    } else {
        (f - 0.5) as i32
    }
}
