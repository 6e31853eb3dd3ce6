//! Numbers in console arguments, read as DDNet's console reads them.
//!
//! A teehistorian CONSOLE_COMMAND record holds the arguments as the
//! console split them, before any number was read. The command then read
//! them through `str_tofloat`/`str_toint` (`src/base`), which are C's
//! `strtod` and `strtol` in the "C" locale:
//!
//! - **16.4** (`src/base/system.cpp` 3396–3399): `atoi`/`atof`, so the
//!   longest prefix that is a number counts and the rest is ignored
//!   (`"0.5abc"` is 0.5, `"abc"` is 0). The console checks nothing
//!   (`console.cpp:ParseArgs` 241–244 only skips to the next space).
//! - **20.1** (`src/base/str.cpp` 854–895): the whole argument must be
//!   the number, and `ParseArgs` (`console.cpp` 273–299) refuses the
//!   command when it is not, or when an `i` argument is `INT_MAX` or
//!   `INT_MIN`, or an `f` argument is `FLT_MAX` or `FLT_MIN`. A refused
//!   command is never executed, so it is never recorded either; meeting
//!   one in a file is an error here.
//!
//! Both convert `strtod`'s double to float (round to nearest) and keep
//! the low 32 bits of `strtol`'s 64-bit long (which saturates).

use super::Release;
use std::fmt;

/// A console argument DDNet would not have accepted as a number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotANumber {
    /// The argument, lossily as UTF-8.
    pub text: String,
    /// What was expected: `"an integer"` or `"a decimal number"`.
    pub expected: &'static str,
}

impl fmt::Display for NotANumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not {} DDNet's console accepts",
            self.text, self.expected
        )
    }
}

impl std::error::Error for NotANumber {}

/// An `f` argument (`GetFloat`) as `release` reads it.
pub fn float_arg(release: Release, text: &[u8]) -> Result<f32, NotANumber> {
    let (value, used) = strtod(text);
    let value = value as f32;
    match release {
        Release::Ddnet16_4 => Ok(value),
        Release::Ddnet20_1 => {
            if used != text.len() || value == f32::MAX || value == f32::MIN_POSITIVE {
                Err(NotANumber {
                    text: String::from_utf8_lossy(text).into_owned(),
                    expected: "a decimal number",
                })
            } else {
                Ok(value)
            }
        }
    }
}

/// An `i` argument (`GetInteger`) as `release` reads it.
pub fn int_arg(release: Release, text: &[u8]) -> Result<i32, NotANumber> {
    let (value, used) = strtol(text);
    // The low 32 bits, as GCC converts a long to an int.
    let value = value as i32;
    match release {
        Release::Ddnet16_4 => Ok(value),
        Release::Ddnet20_1 => {
            if used != text.len() || value == i32::MAX || value == i32::MIN {
                Err(NotANumber {
                    text: String::from_utf8_lossy(text).into_owned(),
                    expected: "an integer",
                })
            } else {
                Ok(value)
            }
        }
    }
}

/// C's `isspace` in the "C" locale.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The number of bytes from `at` that satisfy `pred`.
fn run(s: &[u8], at: usize, pred: impl Fn(u8) -> bool) -> usize {
    s.get(at..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| pred(b)).count())
}

/// Whether `s[at..]` starts with `word`, ignoring ASCII case.
fn starts_nocase(s: &[u8], at: usize, word: &[u8]) -> bool {
    s.get(at..at + word.len())
        .is_some_and(|w| w.eq_ignore_ascii_case(word))
}

/// glibc's `strtol(s, &end, 10)`: the value (saturated to the 64-bit
/// long's range) and how many bytes were used (0 when no digits).
pub fn strtol(s: &[u8]) -> (i64, usize) {
    let mut i = run(s, 0, is_space);
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = run(s, i, |b| b.is_ascii_digit());
    if digits == 0 {
        return (0, 0);
    }
    // Accumulated negatively, so that i64::MIN fits.
    let mut value: i64 = 0;
    let mut overflow = false;
    for &d in &s[i..i + digits] {
        match value
            .checked_mul(10)
            .and_then(|v| v.checked_sub(i64::from(d - b'0')))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    let value = match (negative, overflow) {
        (true, true) => i64::MIN,
        (false, true) => i64::MAX,
        (true, false) => value,
        (false, false) => value.checked_neg().unwrap_or(i64::MAX),
    };
    (value, i + digits)
}

/// glibc's `strtod(s, &end)` in the "C" locale: the value and how many
/// bytes were used (0 when there is no number; the leading spaces then
/// count as unused). Decimal, hexadecimal (`0x1.8p3`), `inf`,
/// `infinity` and `nan`/`nan(...)`, each correctly rounded to a double.
pub fn strtod(s: &[u8]) -> (f64, usize) {
    let start = run(s, 0, is_space);
    let mut i = start;
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let sign = |v: f64| if negative { -v } else { v };
    if starts_nocase(s, i, b"infinity") {
        return (sign(f64::INFINITY), i + 8);
    }
    if starts_nocase(s, i, b"inf") {
        return (sign(f64::INFINITY), i + 3);
    }
    if starts_nocase(s, i, b"nan") {
        let mut end = i + 3;
        if s.get(end) == Some(&b'(') {
            let inner = run(s, end + 1, |b| b.is_ascii_alphanumeric() || b == b'_');
            if s.get(end + 1 + inner) == Some(&b')') {
                end += inner + 2;
            }
        }
        return (sign(f64::NAN), end);
    }
    if s.get(i) == Some(&b'0') && matches!(s.get(i + 1), Some(b'x' | b'X')) {
        if let Some((value, end)) = hex_float(s, i + 2) {
            return (sign(value), end);
        }
        // "0x" with no hex digits after it: only the "0" is a number.
        return (sign(0.0), i + 1);
    }
    let int_digits = run(s, i, |b| b.is_ascii_digit());
    let mut end = i + int_digits;
    let mut frac_digits = 0;
    if s.get(end) == Some(&b'.') {
        frac_digits = run(s, end + 1, |b| b.is_ascii_digit());
        if int_digits + frac_digits > 0 {
            end += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return (0.0, 0);
    }
    if matches!(s.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(s.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        let exp_digits = run(s, e, |b| b.is_ascii_digit());
        if exp_digits > 0 {
            end = e + exp_digits;
        }
    }
    // ASCII digits, '.', 'e' and signs: valid UTF-8, and a float Rust
    // reads (correctly rounded, like glibc; huge exponents saturate).
    let text = std::str::from_utf8(&s[i..end]).unwrap_or("0");
    let text = text.strip_suffix('.').unwrap_or(text);
    let value: f64 = text.parse().unwrap_or(0.0);
    (sign(value), end)
}

/// A hexadecimal float's digits from `at` (after "0x"): the value
/// (correctly rounded to a double) and the end, or `None` without a hex
/// digit.
fn hex_float(s: &[u8], at: usize) -> Option<(f64, usize)> {
    let int_digits = run(s, at, |b| b.is_ascii_hexdigit());
    let mut end = at + int_digits;
    let mut frac_digits = 0;
    if s.get(end) == Some(&b'.') {
        frac_digits = run(s, end + 1, |b| b.is_ascii_hexdigit());
        if int_digits + frac_digits > 0 {
            end += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    // The first 30 hex digits (120 bits) exactly; later ones only as a
    // sticky bit, far below a double's 53.
    let mut mantissa: u128 = 0;
    let mut kept = 0i64;
    let mut exponent: i64 = 0;
    let mut sticky = false;
    let digits = s[at..at + int_digits]
        .iter()
        .map(|&b| (b, true))
        .chain(s[at + int_digits..end].iter().skip(1).map(|&b| (b, false)));
    for (b, integral) in digits {
        let d = (b as char).to_digit(16).unwrap_or(0);
        if mantissa == 0 && d == 0 {
            // Leading zeros: only the exponent moves.
            if !integral {
                exponent -= 4;
            }
            continue;
        }
        if kept < 30 {
            mantissa = (mantissa << 4) | u128::from(d);
            kept += 1;
            if !integral {
                exponent -= 4;
            }
        } else {
            sticky |= d != 0;
            if integral {
                exponent += 4;
            }
        }
    }
    if matches!(s.get(end), Some(b'p' | b'P')) {
        let mut e = end + 1;
        let negative = match s.get(e) {
            Some(b'-') => {
                e += 1;
                true
            }
            Some(b'+') => {
                e += 1;
                false
            }
            _ => false,
        };
        let exp_digits = run(s, e, |b| b.is_ascii_digit());
        if exp_digits > 0 {
            let mut p: i64 = 0;
            for &b in &s[e..e + exp_digits] {
                p = (p * 10 + i64::from(b - b'0')).min(1 << 40);
            }
            exponent += if negative { -p } else { p };
            end = e + exp_digits;
        }
    }
    if mantissa == 0 {
        return Some((0.0, end));
    }
    if sticky {
        mantissa = (mantissa << 1) | 1;
        exponent -= 1;
    }
    // Exact up to here; one rounding to 53 bits when the value is a
    // normal double (u128 to f64 rounds to nearest, ties to even), then
    // exact scaling by powers of two. Results outside the normal range
    // scale with a second rounding; they become 0 or infinity as floats
    // either way.
    let mut value = mantissa as f64;
    let mut exponent = exponent.clamp(-4000, 4000);
    while exponent > 0 {
        let step = exponent.min(1000);
        value *= f64::powi(2.0, step as i32);
        exponent -= step;
    }
    while exponent < 0 {
        let step = (-exponent).min(1000);
        value /= f64::powi(2.0, step as i32);
        exponent += step;
    }
    Some((value, end))
}

/// DDNet's `str_skip_whitespaces` set: space, tab, newline, return.
fn is_console_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// A console line as `ExecuteLine` splits it: commands at each `;` and
/// up to a `#` outside quotes, each its name then its arguments, split
/// at whitespace, a quoted argument to its closing quote (with `\"` and
/// `\\` escapes). What a map's settings run at load; an argument the
/// command reads as the rest of the line (`r`) comes out in pieces.
pub fn split_line(line: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let mut commands = Vec::new();
    let mut rest = line;
    while !rest.is_empty() {
        let (mut end, mut next, mut quoted, mut escaping) = (0, None, false, false);
        while end < rest.len() {
            let b = rest[end];
            if escaping {
                escaping = false;
            } else if b == b'"' {
                quoted = !quoted;
            } else if quoted && b == b'\\' {
                escaping = true;
            }
            if !quoted && b == b';' {
                next = Some(end + 1);
                break;
            }
            if !quoted && b == b'#' {
                break;
            }
            end += 1;
        }
        let words = split_words(&rest[..end]);
        if !words.is_empty() {
            commands.push(words);
        }
        rest = next.map_or(&[][..], |n| &rest[n..]);
    }
    commands
}

/// One command's words (`ParseStart`, `ParseArgs`).
fn split_words(part: &[u8]) -> Vec<Vec<u8>> {
    let mut words = Vec::new();
    let mut i = 0;
    loop {
        i += run(part, i, is_console_space);
        if i >= part.len() {
            return words;
        }
        let mut word = Vec::new();
        if part[i] == b'"' && !words.is_empty() {
            i += 1;
            while i < part.len() && part[i] != b'"' {
                if part[i] == b'\\' && matches!(part.get(i + 1), Some(b'\\' | b'"')) {
                    i += 1;
                }
                word.push(part[i]);
                i += 1;
            }
            i += 1;
        } else {
            let n = run(part, i, |b| !is_console_space(b));
            word.extend_from_slice(&part[i..i + n]);
            i += n;
        }
        words.push(word);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtod_takes_the_longest_number_at_the_start() {
        assert_eq!(strtod(b"0.45"), (0.45, 4));
        assert_eq!(strtod(b"  -1.5e2x"), (-150.0, 8));
        assert_eq!(strtod(b"1e"), (1.0, 1));
        assert_eq!(strtod(b"1e+"), (1.0, 1));
        assert_eq!(strtod(b".5"), (0.5, 2));
        assert_eq!(strtod(b"5."), (5.0, 2));
        assert_eq!(strtod(b"1.e2"), (100.0, 4));
        assert_eq!(strtod(b"."), (0.0, 0));
        assert_eq!(strtod(b"  abc"), (0.0, 0));
        assert_eq!(strtod(b""), (0.0, 0));
        assert_eq!(strtod(b"inf"), (f64::INFINITY, 3));
        assert_eq!(strtod(b"-Infinity!"), (f64::NEG_INFINITY, 9));
        assert_eq!(strtod(b"infin"), (f64::INFINITY, 3));
        let (nan, used) = strtod(b"nan(abc)x");
        assert!(nan.is_nan() && used == 8);
        assert_eq!(strtod(b"nan(abc").1, 3);
        assert_eq!(strtod(b"1e999"), (f64::INFINITY, 5));
        assert_eq!(strtod(b"1e-999"), (0.0, 6));
        assert_eq!(strtod(b"1e99999999999999999999999"), (f64::INFINITY, 25));
    }

    #[test]
    fn strtod_reads_hexadecimal_floats() {
        assert_eq!(strtod(b"0x1.8p3"), (12.0, 7));
        assert_eq!(strtod(b"0X10"), (16.0, 4));
        assert_eq!(strtod(b"0x.8"), (0.5, 4));
        assert_eq!(strtod(b"0x1p-2"), (0.25, 6));
        assert_eq!(strtod(b"0x1p"), (1.0, 3));
        assert_eq!(strtod(b"0x"), (0.0, 1));
        assert_eq!(strtod(b"-0xg"), (-0.0, 2));
        assert_eq!(strtod(b"0x0.0000001p28"), (1.0, 14));
        // 2^53 + 1 rounds to even; one more set bit far below tips it up.
        assert_eq!(strtod(b"0x20000000000001").0, 9007199254740992.0);
        assert_eq!(
            strtod(b"0x20000000000001.000000000000000000000001").0,
            9007199254740994.0
        );
    }

    #[test]
    fn a_console_line_splits_at_semicolons_and_whitespace_outside_quotes() {
        let words = |c: &[&str]| c.iter().map(|w| w.as_bytes().to_vec()).collect::<Vec<_>>();
        assert_eq!(
            split_line(b"tune_zone 1 gravity 2"),
            vec![words(&["tune_zone", "1", "gravity", "2"])]
        );
        assert_eq!(
            split_line(b" switch_open 8; tune_zone_enter 1 \"a;b \\\"c\" # not this"),
            vec![
                words(&["switch_open", "8"]),
                words(&["tune_zone_enter", "1", "a;b \"c"])
            ]
        );
        assert!(split_line(b"  ;# nothing").is_empty());
    }

    #[test]
    fn strtol_saturates_to_a_long() {
        assert_eq!(strtol(b" -42x"), (-42, 4));
        assert_eq!(strtol(b"+7"), (7, 2));
        assert_eq!(strtol(b"x"), (0, 0));
        assert_eq!(strtol(b"-"), (0, 0));
        assert_eq!(strtol(b"9223372036854775807"), (i64::MAX, 19));
        assert_eq!(strtol(b"9223372036854775808"), (i64::MAX, 19));
        assert_eq!(strtol(b"-9223372036854775808"), (i64::MIN, 20));
        assert_eq!(strtol(b"-99999999999999999999"), (i64::MIN, 21));
    }

    #[test]
    fn versions_differ_on_what_is_a_number() {
        use Release::*;
        assert_eq!(float_arg(Ddnet16_4, b"0.5abc"), Ok(0.5));
        assert_eq!(float_arg(Ddnet16_4, b"abc"), Ok(0.0));
        assert!(float_arg(Ddnet20_1, b"0.5abc").is_err());
        assert!(float_arg(Ddnet20_1, b"abc").is_err());
        assert_eq!(float_arg(Ddnet20_1, b"0.45"), Ok(0.45f32));
        assert_eq!(float_arg(Ddnet20_1, b"1e400"), Ok(f32::INFINITY));
        // The two values 20.1's parser refuses.
        assert!(float_arg(Ddnet20_1, b"3.4028234663852886e38").is_err());
        assert!(float_arg(Ddnet20_1, b"1.1754943508222875e-38").is_err());
        assert_eq!(int_arg(Ddnet16_4, b"12abc"), Ok(12));
        assert!(int_arg(Ddnet20_1, b"12abc").is_err());
        assert_eq!(int_arg(Ddnet20_1, b"-3"), Ok(-3));
        // The low 32 bits of the long.
        assert_eq!(int_arg(Ddnet20_1, b"4294967297"), Ok(1));
        assert_eq!(int_arg(Ddnet16_4, b"99999999999999999999"), Ok(-1));
        assert!(int_arg(Ddnet20_1, b"2147483647").is_err());
        assert!(int_arg(Ddnet20_1, b"-2147483648").is_err());
    }
}
