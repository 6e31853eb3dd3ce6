//! What a DDNet server shows 0.6 clients (and its demo) of a 0.7 client's
//! skin: 0.7 sends six parts, 0.6 knows a skin name and two colours.
//! DDNet's rule (`CTeeInfo::FromSixup`, src/game/server/teeinfo.cpp): the
//! parts of one of its standard skins, exactly, give that skin without
//! colours; anything else gives the standard skin sharing most of the first
//! three part names (the first such), with the body's and feet's colours
//! (white where a part has none) moved to 0.6's lighting range.

use crate::packet::msg::{ClientInfo, SkinParts};
use crate::simulation::Release;

/// One of DDNet's standard 0.7 skins, by its parts.
struct Standard {
    name: &'static str,
    parts: [&'static str; 6],
    /// The parts with a colour of their own, a bit each (bit 0: body).
    custom: u8,
    colors: [i32; 6],
}

const fn skin(
    name: &'static str,
    parts: [&'static str; 6],
    custom: u8,
    colors: [i32; 6],
) -> Standard {
    Standard {
        name,
        parts,
        custom,
        colors,
    }
}

/// The standard skins as DDNet 20.1 lists them (16.4's differ in two:
/// [`KITTIES_16_4`], and it has no greensward).
#[rustfmt::skip]
const STANDARD: [Standard; 17] = [
    skin("default", ["standard", "", "", "standard", "standard", "standard"], 0b011001, [1798004, 0, 0, 1799582, 1869630, 0]),
    skin("bluekitty", ["kitty", "whisker", "", "standard", "standard", "negative"], 0b111011, [8681144, -8229413, 0, 7885547, 8868585, 9043712]),
    skin("bluestripe", ["standard", "stripes", "", "standard", "standard", "standard"], 0b011001, [10187898, 0, 0, 750848, 1944919, 0]),
    skin("brownbear", ["bear", "bear", "hair", "standard", "standard", "standard"], 0b011011, [1082745, -15634776, 0, 1082745, 1147174, 0]),
    skin("cammo", ["standard", "cammo2", "", "standard", "standard", "standard"], 0b011011, [5334342, -11771603, 0, 750848, 1944919, 0]),
    skin("cammostripes", ["standard", "cammostripes", "", "standard", "standard", "standard"], 0b011011, [5334342, -14840320, 0, 750848, 1944919, 0]),
    skin("coala", ["koala", "twinbelly", "", "standard", "standard", "standard"], 0b011011, [184, -15397662, 0, 184, 9765959, 0]),
    skin("limekitty", ["kitty", "whisker", "", "standard", "standard", "negative"], 0b111011, [4612803, -12229920, 0, 3827951, 3827951, 8256000]),
    skin("pinky", ["standard", "whisker", "", "standard", "standard", "standard"], 0b011011, [15911355, -801066, 0, 15043034, 15043034, 0]),
    skin("redbopp", ["standard", "donny", "unibop", "standard", "standard", "standard"], 0b011111, [16177260, -16590390, 16177260, 16177260, 7624169, 0]),
    skin("redstripe", ["standard", "stripe", "", "standard", "standard", "standard"], 0b011001, [16307835, 0, 0, 184, 9765959, 0]),
    skin("saddo", ["standard", "saddo", "", "standard", "standard", "standard"], 0b011011, [7171455, -9685436, 0, 3640746, 5792119, 0]),
    skin("toptri", ["standard", "toptri", "", "standard", "standard", "standard"], 0b011001, [6119331, 0, 0, 3640746, 5792119, 0]),
    skin("twinbop", ["standard", "duodonny", "twinbopp", "standard", "standard", "standard"], 0b011111, [15310519, -1600806, 15310519, 15310519, 37600, 0]),
    skin("twintri", ["standard", "twintri", "", "standard", "standard", "standard"], 0b011011, [3447932, -14098717, 0, 185, 9634888, 0]),
    skin("warpaint", ["standard", "warpaint", "", "standard", "standard", "standard"], 0b011001, [1944919, 0, 0, 750337, 1944919, 0]),
    skin("greensward", ["greensward", "duodonny", "", "standard", "standard", "standard"], 0b000011, [5635840, -11141356, 65408, 65408, 65408, 65408]),
];

/// DDNet 16.4's bluekitty and limekitty (indexes 1 and 7): standard eyes.
#[rustfmt::skip]
const KITTIES_16_4: [(usize, Standard); 2] = [
    (1, skin("bluekitty", ["kitty", "whisker", "", "standard", "standard", "standard"], 0b011011, [8681144, -8229413, 0, 7885547, 7885547, 0])),
    (7, skin("limekitty", ["kitty", "whisker", "", "standard", "standard", "standard"], 0b011011, [4612803, -12229920, 0, 3827951, 3827951, 0])),
];

/// `release`'s standard skins, in its order.
fn standard(release: Release) -> impl Iterator<Item = &'static Standard> {
    let count = match release {
        Release::Ddnet16_4 => 16,
        Release::Ddnet20_1 => STANDARD.len(),
    };
    STANDARD[..count]
        .iter()
        .enumerate()
        .map(move |(i, s)| match release {
            Release::Ddnet16_4 => KITTIES_16_4
                .iter()
                .find(|(k, _)| *k == i)
                .map_or(s, |(_, k)| k),
            Release::Ddnet20_1 => s,
        })
}

impl Standard {
    /// The client's parts are this skin's, colours included where it has
    /// them.
    fn is(&self, parts: &SkinParts) -> bool {
        (0..6).all(|p| {
            let custom = self.custom >> p & 1 != 0;
            parts.names[p] == self.parts[p].as_bytes()
                && (parts.use_custom_colors[p] != 0) == custom
                && (!custom || parts.colors[p] == self.colors[p])
        })
    }

    /// How many of the first three part names the client shares.
    fn likeness(&self, parts: &SkinParts) -> usize {
        (0..3)
            .filter(|&p| parts.names[p] == self.parts[p].as_bytes())
            .count()
    }
}

/// `info` of a 0.7 client as `release` shows it to 0.6 clients: its skin
/// name and colours from its parts. Other clients' infos are unchanged.
pub(super) fn as_06(mut info: ClientInfo, release: Release) -> ClientInfo {
    let Some(parts) = &info.skin_parts else {
        return info;
    };
    (info.use_custom_color, info.color_body, info.color_feet) = (0, 0, 0);
    if let Some(s) = standard(release).find(|s| s.is(parts)) {
        info.skin = s.name.as_bytes().to_vec();
        return info;
    }
    // The first skin of the most shared names (`>`: a later tie loses).
    let (mut best, mut most) = (&STANDARD[0], None);
    for s in standard(release) {
        let n = s.likeness(parts);
        if most.is_none_or(|m| n > m) {
            (best, most) = (s, Some(n));
        }
    }
    info.skin = best.name.as_bytes().to_vec();
    let color = |p: usize| match parts.use_custom_colors[p] {
        0 => 255,
        _ => parts.colors[p],
    };
    info.use_custom_color = 1;
    info.color_body = lighting_06(color(0), release);
    info.color_feet = lighting_06(color(4), release);
    info
}

/// A 0.7 HSL colour (lightness from 61/255 up) as a 0.6 one (lightness
/// from 0.5 up), in f32 as DDNet computes it (`ColorHSLA`'s
/// `UnclampLighting` then `Pack`); the alpha byte is dropped. 16.4 packs
/// each component truncated, 20.1 rounded.
fn lighting_06(color: i32, release: Release) -> i32 {
    let c = color as u32;
    let part = |shift: u32| ((c >> shift) & 0xFF) as f32 / 255.0;
    let (h, s, l) = (part(16), part(8), part(0));
    let darkest_07 = 61.0f32 / 255.0;
    let l = darkest_07 + l * (1.0 - darkest_07);
    let darkest_06 = 0.5f32;
    let l = ((l - darkest_06) / (1.0 - darkest_06)).clamp(0.0, 1.0);
    let byte = |x: f32| {
        let x = x * 255.0;
        match release {
            Release::Ddnet16_4 => x as u32,
            // `round_to_int`: half away from zero (x is never negative).
            Release::Ddnet20_1 => (x + 0.5) as u32,
        }
    };
    ((byte(h) << 16) + (byte(s) << 8) + byte(l)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(names: [&str; 6], custom: [i32; 6], colors: [i32; 6]) -> ClientInfo {
        ClientInfo {
            name: b"b3".to_vec(),
            skin: b"default".to_vec(),
            skin_parts: Some(SkinParts {
                names: names.map(|n| n.as_bytes().to_vec()),
                use_custom_colors: custom,
                colors,
            }),
            ..ClientInfo::default()
        }
    }

    #[test]
    fn a_standard_skins_parts_are_that_skin_without_colours() {
        let info = parts(
            [
                "standard", "stripes", "", "standard", "standard", "standard",
            ],
            [1, 0, 0, 1, 1, 0],
            [10187898, 7, 7, 750848, 1944919, 7],
        );
        for release in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let shown = as_06(info.clone(), release);
            assert_eq!(shown.skin, b"bluestripe");
            assert_eq!(
                (shown.use_custom_color, shown.color_body, shown.color_feet),
                (0, 0, 0)
            );
        }
        // 20.1's bluekitty has negative eyes, 16.4's standard ones.
        let kitty = |eyes, custom, color| {
            parts(
                ["kitty", "whisker", "", "standard", "standard", eyes],
                [1, 1, 0, 1, 1, custom],
                [8681144, -8229413, 0, 7885547, 7885547, color],
            )
        };
        assert_eq!(
            as_06(kitty("standard", 0, 0), Release::Ddnet16_4).skin,
            b"bluekitty"
        );
        let other = as_06(kitty("standard", 0, 0), Release::Ddnet20_1);
        assert_eq!(
            (&other.skin[..], other.use_custom_color),
            (&b"bluekitty"[..], 1)
        );
    }

    #[test]
    fn other_parts_take_the_likest_skin_and_the_body_and_feet_colours() {
        // What the campaign's 0.7 bots send: standard parts, no colours.
        // DDNet 16.4's server demo shows them as default, custom, 255 255.
        let bot = parts(
            ["standard", "", "", "standard", "standard", "standard"],
            [0; 6],
            [0; 6],
        );
        for release in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let shown = as_06(bot.clone(), release);
            assert_eq!(shown.skin, b"default");
            assert_eq!(
                (shown.use_custom_color, shown.color_body, shown.color_feet),
                (1, 255, 255)
            );
        }
        // A tie goes to the first: "kitty" alone is bluekitty, not limekitty.
        let kitty = parts(
            ["kitty", "x", "y", "", "", ""],
            [1, 0, 0, 0, 1, 0],
            [0x00AA_3380, 0, 0, 0, 0x0012_3400, 0],
        );
        let shown = as_06(kitty.clone(), Release::Ddnet16_4);
        assert_eq!(shown.skin, b"bluekitty");
        // Lightness 0x80 of 0.7 is 61/255 + 128/255 * 194/255 = 0.6211 of
        // 0.6, which is 0.2422 above 0.5 of 0.5: 61.76 of 255 in f32 (16.4
        // cuts to 61, 20.1 rounds to 62; worked out apart from this code,
        // in f32 step by step); hue and saturation 0xAA and 0x33 stay.
        assert_eq!(shown.color_body, 0xAA_33_3D);
        assert_eq!(as_06(kitty, Release::Ddnet20_1).color_body, 0xAA_33_3E);
        // Lightness 0 is below 0.6's darkest: 0.
        assert_eq!(shown.color_feet, 0x12_34_00);
    }

    #[test]
    fn a_06_clients_info_is_unchanged() {
        let info = ClientInfo {
            skin: b"pinky".to_vec(),
            use_custom_color: 1,
            color_body: 77,
            ..ClientInfo::default()
        };
        let shown = as_06(info, Release::Ddnet20_1);
        assert_eq!(
            (&shown.skin[..], shown.use_custom_color, shown.color_body),
            (&b"pinky"[..], 1, 77)
        );
    }
}
