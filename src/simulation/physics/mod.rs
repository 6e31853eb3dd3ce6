//! DDNet's physics: the float vector it computes with ([`Vec2`]) and
//! its rounding, DDNet's own float functions ([`fmath`]), the world's
//! random generator ([`prng`]), the buckets that tell which characters
//! may be near a place ([`near`]), the collision of a map's game, front,
//! switch, tele, speedup and tune layers ([`collision`]), the switches'
//! state per team ([`switchers`]), the tuning and
//! tune zones ([`tuning`]) and the character core that moves, jumps and
//! hooks by them ([`core`]), each for the [`Release`](super::Release) whose rules apply.
//! Nothing here knows DDRace's rules ([`super::ddrace`]).
//!
//! Every computation is single-precision IEEE arithmetic in the order
//! DDNet's C++ does it (built for generic x86-64: SSE, no fused
//! multiply-add), so a position comes out bit for bit as DDNet's.

pub mod collision;
pub mod core;
pub mod fmath;
pub mod near;
pub mod prng;
pub mod switchers;
pub mod tuning;

use std::ops::{Add, Mul, Sub};

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

/// DDNet's `round_to_int`: half away from zero, then truncated as x86-64
/// does ([`fmath::trunc_to_int`]): NaN and anything past `i32`'s range
/// become `i32::MIN`. A NaN velocity does happen (the old speedup's
/// `atan(0 / 0)` on a tee standing still in a ninja dash), and DDNet's
/// snapshot and `Quantize` then hold `i32::MIN`.
#[inline]
pub fn round_to_int(f: f32) -> i32 {
    // `f > 0 ? f + 0.5 : f - 0.5` without a choice: the two differ only
    // for a zero, which truncates to 0 either way.
    fmath::trunc_to_int(f + 0.5f32.copysign(f))
}
