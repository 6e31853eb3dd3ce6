//! Every libm call the world makes, in one place (design §8).
//!
//! Rust's `f32`/`f64` methods used here call the platform's libm (glibc
//! on linux-gnu), as DDNet's server does. Which overload DDNet's C++
//! reaches decides the precision: a `float` argument to `cos`, `sin`,
//! `atan`, `asin` or `pow` in a file that sees `<cmath>`'s overloads
//! (`std::` calls, or 16.4's global names through libstdc++'s `<math.h>`)
//! runs the float function; `pow(float, int)` promotes to double; an
//! unqualified `log` where only C's `<math.h>` declares it is the double
//! one. glibc may pick an FMA variant of `powf`, `sinf` and `cosf` by
//! CPU, so a last-bit difference between machines is possible there.
//! `sqrt` is exact everywhere and stays where it is used.

/// `cosf`.
pub fn cosf(x: f32) -> f32 {
    x.cos()
}

/// `sinf`.
pub fn sinf(x: f32) -> f32 {
    x.sin()
}

/// `atanf`.
pub fn atanf(x: f32) -> f32 {
    x.atan()
}

/// `asinf`.
pub fn asinf(x: f32) -> f32 {
    x.asin()
}

/// `powf`.
pub fn powf(x: f32, y: f32) -> f32 {
    x.powf(y)
}

/// `atan2` (double).
pub fn atan2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}

/// `log` (double).
pub fn log(x: f64) -> f64 {
    x.ln()
}

/// The float to `int` conversion of x86-64 (`cvttss2si`): truncation
/// toward zero, and `i32::MIN` for NaN and for anything out of range,
/// where C leaves it undefined. On x86-64 the instruction itself
/// (`cvttps2dq`, the same conversion, on the low lane).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
pub fn trunc_to_int(x: f32) -> i32 {
    use safe_arch::{get_i32_from_m128i_s, set_splat_m128, truncate_m128_to_m128i};
    // Every lane the same: no lane to clear first.
    get_i32_from_m128i_s(truncate_m128_to_m128i(set_splat_m128(x)))
}

/// [`trunc_to_int`] elsewhere: modelled.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
pub fn trunc_to_int(x: f32) -> i32 {
    modelled_trunc_to_int(x)
}

/// `cvttss2si` in portable Rust: in range, Rust's cast truncates as it
/// does; out of range and NaN give the instruction's `i32::MIN`, where
/// Rust's cast saturates.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn modelled_trunc_to_int(x: f32) -> i32 {
    if !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
}

/// `(round_to_int(a[i] + b[i]) / 32).clamp(0, last[i])` of four lanes
/// (each `last[i]` at least 0): the tiles of a box's four sides, as
/// `TestBox` rounds them. On x86-64 one 4-lane rounding (`cvttps2dq`
/// takes them all; the lanes' `+ 0.5` with the sign copied is scalar
/// `round_to_int`'s), elsewhere lane by lane.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
pub fn round_tiles(a: [f32; 4], b: [f32; 4], last: [i32; 4]) -> [i32; 4] {
    use safe_arch::{
        add_m128, bitand_m128, bitand_m128i, bitandnot_m128i, bitor_m128, bitor_m128i,
        cmp_gt_mask_i32_m128i, m128, m128i, set_splat_m128, shr_imm_i32_m128i,
        truncate_m128_to_m128i,
    };
    let v = add_m128(m128::from_array(a), m128::from_array(b));
    let half = bitor_m128(bitand_m128(v, set_splat_m128(-0.0)), set_splat_m128(0.5));
    let t = truncate_m128_to_m128i(add_m128(v, half));
    // An arithmetic shift rounds down where `/ 32` rounds towards zero:
    // they differ only below 0, which is clamped to 0 either way.
    let t = shr_imm_i32_m128i::<5>(t);
    let t = bitandnot_m128i(shr_imm_i32_m128i::<31>(t), t);
    let last = m128i::from(last);
    let over = cmp_gt_mask_i32_m128i(t, last);
    bitor_m128i(bitandnot_m128i(over, t), bitand_m128i(over, last)).into()
}

/// [`round_tiles`] elsewhere: lane by lane.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
pub fn round_tiles(a: [f32; 4], b: [f32; 4], last: [i32; 4]) -> [i32; 4] {
    lane_round_tiles(a, b, last)
}

/// [`round_tiles`] as its definition says, a lane at a time.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline]
fn lane_round_tiles(a: [f32; 4], b: [f32; 4], last: [i32; 4]) -> [i32; 4] {
    std::array::from_fn(|i| (super::round_to_int(a[i] + b[i]) / 32).clamp(0, last[i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_functions_at_known_points() {
        // The direction of a speedup at 180 degrees.
        let angle = 180.0f32 * (std::f32::consts::PI / 180.0);
        assert_eq!(angle, std::f32::consts::PI);
        assert_eq!(cosf(angle), -1.0);
        assert_eq!(sinf(angle), -8.742278e-8);
        assert_eq!(asinf(1.0), std::f32::consts::FRAC_PI_2);
        assert_eq!(atanf(1.0), std::f32::consts::FRAC_PI_4);
        assert_eq!(log(1.4), 0.3364722366212129);
    }

    #[test]
    fn conversion_out_of_range() {
        assert_eq!(trunc_to_int(-2.9), -2);
        assert_eq!(trunc_to_int(2.9), 2);
        assert_eq!(trunc_to_int(f32::NAN), i32::MIN);
        assert_eq!(trunc_to_int(3e9), i32::MIN);
        assert_eq!(trunc_to_int(-3e9), i32::MIN);
        assert_eq!(trunc_to_int(-2_147_483_648.0), i32::MIN);
        assert_eq!(trunc_to_int(2_147_483_520.0), 2_147_483_520);
        assert_eq!(trunc_to_int(2_147_483_648.0), i32::MIN);
        assert_eq!(trunc_to_int(f32::INFINITY), i32::MIN);
        assert_eq!(trunc_to_int(f32::NEG_INFINITY), i32::MIN);
        assert_eq!(trunc_to_int(-0.9), 0);
    }

    /// The instruction and the model agree on every kind of float: bit
    /// patterns drawn whole (NaNs, infinities, subnormals, far out of
    /// range) and near the ends of `i32`'s range.
    #[test]
    fn the_conversion_is_the_modelled_one() {
        fn property(bits: u32, near_end: i32) -> bool {
            let end = (near_end % 4096) as f32 * 256.0 + 2_147_483_648.0;
            [f32::from_bits(bits), end, -end]
                .into_iter()
                .all(|x| trunc_to_int(x) == modelled_trunc_to_int(x))
        }
        crate::testing::qc()
            .tests(20_000)
            .quickcheck(property as fn(u32, i32) -> bool);
        // And every sign and exponent, with the mantissas at its ends.
        for high in 0..512u32 {
            for low in [0, 1, 2, 0x3f_ffff, 0x40_0000, 0x7f_fffe, 0x7f_ffff] {
                let x = f32::from_bits(high << 23 | low);
                assert_eq!(trunc_to_int(x), modelled_trunc_to_int(x), "{x:e}");
            }
        }
    }

    /// The four lanes' tiles are each lane's own: any bits (NaN,
    /// infinite, past `i32`'s range, below 0, beside the tiles' borders)
    /// and any last tile, from a map one tile wide to one past `i32`'s
    /// tiles.
    #[test]
    fn four_tiles_are_each_lanes_own() {
        fn property(a: [u32; 4], b: [u32; 4], near: [i16; 4], last: [u32; 4]) -> bool {
            let a = a.map(f32::from_bits);
            let b = b.map(f32::from_bits);
            // Near the tiles' borders and their halves, and 0.
            let c = near.map(|n| f32::from(n) * 0.5);
            let last = last.map(|l| {
                let l = (l % (1 << 28)) as i32;
                if l % 3 == 0 { l % 8 } else { l }
            });
            let zero = [0.0; 4];
            [(a, b), (c, zero), (c, b), (a, c)]
                .into_iter()
                .all(|(a, b)| round_tiles(a, b, last) == lane_round_tiles(a, b, last))
        }
        crate::testing::qc()
            .tests(20_000)
            .quickcheck(property as fn([u32; 4], [u32; 4], [i16; 4], [u32; 4]) -> bool);
        // Every sign and exponent, with the mantissas at its ends.
        for high in 0..512u32 {
            for low in [0, 1, 0x3f_ffff, 0x40_0000, 0x7f_ffff] {
                let x = f32::from_bits(high << 23 | low);
                let a = [x, -x, x, x];
                let b = [0.0, 0.5, -0.5, 14.0];
                for last in [[0; 4], [1, 2, 3, 4], [i32::MAX; 4]] {
                    assert_eq!(
                        round_tiles(a, b, last),
                        lane_round_tiles(a, b, last),
                        "{x:e}"
                    );
                }
            }
        }
    }

    /// `round_to_int` is DDNet's: half away from zero by the sign's
    /// choice (`f > 0 ? f + 0.5 : f - 0.5`), then truncated.
    #[test]
    fn rounding_is_ddnets() {
        fn same(f: f32) -> bool {
            let ddnet = modelled_trunc_to_int(if f > 0.0 { f + 0.5 } else { f - 0.5 });
            super::super::round_to_int(f) == ddnet
        }
        for high in 0..512u32 {
            for low in [0, 1, 2, 0x3f_ffff, 0x40_0000, 0x7f_fffe, 0x7f_ffff] {
                let f = f32::from_bits(high << 23 | low);
                assert!(same(f), "{f:e}");
            }
        }
        // Halves and their neighbours, where the direction decides.
        for n in -70_000..70_000 {
            let half = n as f32 + 0.5;
            for f in [half, half.next_up(), half.next_down(), n as f32] {
                assert!(same(f), "{f:e}");
            }
        }
        crate::testing::qc()
            .tests(20_000)
            .quickcheck((|bits: u32| same(f32::from_bits(bits))) as fn(u32) -> bool);
    }
}
