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
/// where C leaves it undefined.
pub fn trunc_to_int(x: f32) -> i32 {
    if !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
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
    }
}
