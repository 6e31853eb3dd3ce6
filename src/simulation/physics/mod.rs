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

    /// How `self.length() * k` (each step rounded as `f32`) compares
    /// with `limit`, as `partial_cmp` would, mostly without the square
    /// root: its latency held up every tick of every core. The squares
    /// decide where they are apart by more than 2^-18 of the square, far
    /// past what the root's and the product's roundings (2^-24 of the
    /// length each) can bridge; nearer, and for a `k` below 1 or a
    /// `limit` that is not a positive normal float, the root decides.
    #[inline]
    pub fn compare_length(self, k: f32, limit: f32) -> Option<std::cmp::Ordering> {
        use std::cmp::Ordering;
        const MARGIN: f64 = 1.0 / (1u32 << 18) as f64;
        // Exact in `f64`: a float's square, and the dot's 24 bits times
        // `k`'s 48 rounded once, by 2^-53.
        let (k2, l2) = (f64::from(k) * f64::from(k), f64::from(limit) * f64::from(limit));
        let d = f64::from(self.dot(self)) * k2;
        if k >= 1.0 && k.is_finite() && limit >= f32::MIN_POSITIVE && limit.is_finite() {
            if d < l2 * (1.0 - MARGIN) {
                return Some(Ordering::Less);
            }
            if d > l2 * (1.0 + MARGIN) {
                return Some(Ordering::Greater);
            }
        }
        (self.length() * k).partial_cmp(&limit)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Vec2::compare_length`] is the comparison of the rounded root
    /// and product: for any bits (NaN, infinite, subnormal, zero), and
    /// for limits a few steps either side of the exact value, where the
    /// roundings decide.
    #[test]
    fn comparing_lengths_is_comparing_the_roots() {
        fn exact(v: Vec2, k: f32, limit: f32) -> Option<std::cmp::Ordering> {
            (v.length() * k).partial_cmp(&limit)
        }
        fn property(x: u32, y: u32, k: u32, limit: u32, small: (i16, i16), step: i8) -> bool {
            let ks = [f32::from_bits(k), 1.0, 50.0, f32::from(small.0.unsigned_abs()) / 8.0];
            let v = Vec2::new(f32::from_bits(x), f32::from_bits(y));
            let near = Vec2::new(f32::from(small.0) / 64.0, f32::from(small.1) / 64.0);
            ks.into_iter().all(|k| {
                [v, near].into_iter().all(|v| {
                    // The value itself, stepped by whole floats.
                    let mut at = v.length() * k;
                    for _ in 0..step.unsigned_abs() % 8 {
                        at = if step < 0 { at.next_down() } else { at.next_up() };
                    }
                    [f32::from_bits(limit), at, 6000.0, 1.0, 0.00001, 550.0]
                        .into_iter()
                        .all(|l| v.compare_length(k, l) == exact(v, k, l))
                })
            })
        }
        crate::testing::qc()
            .tests(20_000)
            .quickcheck(property as fn(u32, u32, u32, u32, (i16, i16), i8) -> bool);
        // Every float's square about the limits the physics asks about.
        for limit in [6000.0f32, 1.0, 0.00001, 46.0, 550.0 / 50.0] {
            let mut d = (limit * limit) * (1.0 - 1.0 / 4096.0);
            while d < (limit * limit) * (1.0 + 1.0 / 4096.0) {
                let v = Vec2::new(d.sqrt(), 0.0);
                let w = Vec2::new(d.sqrt().next_up(), 0.0);
                for v in [v, w] {
                    assert_eq!(v.compare_length(1.0, limit), exact(v, 1.0, limit), "{v:?} {limit}");
                }
                d = d.next_up();
            }
        }
    }
}
