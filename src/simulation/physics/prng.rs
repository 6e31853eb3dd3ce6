//! The world's random generator (`CPrng`, `src/game/prng.cpp`, the same in
//! 16.4 and 20.1): PCG-XSH-RR with 64 bits of state and 32-bit outputs.
//!
//! The server seeds it once per map from the system's random source, and
//! the teehistorian header's `prng_description` records the seed:
//! `pcg-xsh-rr:` and the two 64-bit seed words, each printed as two
//! `%08x` halves (`prng.cpp` 32–42). The world draws from it only to pick
//! one of several teleporter outputs (`RandomOr0`).

use serde::Serialize;
use std::fmt;

/// PCG's multiplier (`prng.cpp` 51).
const MULTIPLIER: u64 = 6_364_136_223_846_793_005;

/// The generator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Prng {
    state: u64,
    increment: u64,
}

/// A `prng_description` that is not one DDNet writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadDescription {
    /// The description as found.
    pub text: String,
}

impl fmt::Display for BadDescription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "prng_description {:?} is neither pcg-xsh-rr:<16 hex>:<16 hex> nor pcg-xsh-rr:unseeded",
            self.text
        )
    }
}

impl std::error::Error for BadDescription {}

impl Prng {
    /// `CPrng::Seed`: the increment is `(seed[1] << 1) | 1`, the state
    /// `seed[0]` plus the increment, and one output is drawn and dropped.
    /// (That is PCG's reference `pcg32_srandom_r(seed[0], seed[1])`.)
    pub fn seeded(seed: [u64; 2]) -> Prng {
        let increment = (seed[1] << 1) | 1;
        let mut prng = Prng {
            state: seed[0].wrapping_add(increment),
            increment,
        };
        prng.random_bits();
        prng
    }

    /// The generator a header's `prng_description` names, as it was right
    /// after seeding. `pcg-xsh-rr:unseeded` (what `Description()` gives
    /// before `Seed`) is `Ok(None)`: DDNet's server always seeds before it
    /// writes the header, and an unseeded generator that is asked for
    /// bits stops the server at an assertion (`prng.cpp` 46), so a world
    /// without one cannot follow a draw. Hex digits of either case are
    /// read; anything else is an error.
    pub fn from_description(text: &str) -> Result<Option<Prng>, BadDescription> {
        let bad = || BadDescription {
            text: text.to_string(),
        };
        let rest = text.strip_prefix("pcg-xsh-rr:").ok_or_else(bad)?;
        if rest == "unseeded" {
            return Ok(None);
        }
        let (a, b) = rest.split_once(':').ok_or_else(bad)?;
        let word = |w: &str| {
            if w.len() == 16 && w.bytes().all(|c| c.is_ascii_hexdigit()) {
                u64::from_str_radix(w, 16).ok()
            } else {
                None
            }
        };
        let seed = [word(a).ok_or_else(bad)?, word(b).ok_or_else(bad)?];
        Ok(Some(Prng::seeded(seed)))
    }

    /// The description DDNet writes for the seed `seed`.
    pub fn description(seed: [u64; 2]) -> String {
        format!("pcg-xsh-rr:{:016x}:{:016x}", seed[0], seed[1])
    }

    /// `CPrng::RandomBits`: the next 32 bits.
    pub fn random_bits(&mut self) -> u32 {
        let x = self.state;
        self.state = x.wrapping_mul(MULTIPLIER).wrapping_add(self.increment);
        let rotation = (x >> 59) as u32;
        let mixed = (((x >> 18) ^ x) >> 27) as u32;
        mixed.rotate_right(rotation)
    }

    /// `RandomOr0(n)` (`gamecore.h`, 16.4 201–211, 20.1 160–170): 0
    /// without drawing when `n <= 1`, else the next bits modulo `n`.
    pub fn random_or_0(&mut self, n: i32) -> i32 {
        match u32::try_from(n) {
            Ok(below) if below > 1 => {
                // Less than n, so it fits.
                (self.random_bits() % below) as i32
            }
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outputs of PCG's published definition (pcg32_srandom_r and
    /// pcg32_random_r of O'Neill's pcg-c-basic), from a 20-line Python
    /// implementation written from that definition and run once (the
    /// first line reproduces the reference demo's well-known first output
    /// for seed 42, sequence 54: 0xa15c02b7).
    const REFERENCE: [([u64; 2], [u32; 6]); 4] = [
        (
            [42, 54],
            [
                2707161783, 2068313097, 3122475824, 2211639955, 3215226955, 3421331566,
            ],
        ),
        (
            [0x72a5e48a5d62b6a7, 0x2c8a3b08ae6cce36],
            [
                891865756, 1014774750, 740269792, 640819246, 98271398, 4187800752,
            ],
        ),
        (
            [0, 0],
            [
                3837872008, 932996374, 1548399547, 1612522464, 473443212, 3522865942,
            ],
        ),
        (
            [u64::MAX, u64::MAX],
            [
                645251143, 2004461623, 2705697299, 1600907046, 1379681477, 1973683926,
            ],
        ),
    ];

    #[test]
    fn outputs_match_pcgs_reference() {
        assert_eq!(REFERENCE[0].1[0], 0xa15c02b7);
        for (seed, outputs) in REFERENCE {
            let mut prng = Prng::seeded(seed);
            let got: Vec<u32> = (0..6).map(|_| prng.random_bits()).collect();
            assert_eq!(got, outputs, "seed {seed:x?}");
        }
    }

    #[test]
    fn descriptions_of_the_corpus_headers() {
        // Every DDNet 16.4 and 20.1 header in corpus/teehistorian/.
        let corpus = [
            "pcg-xsh-rr:72a5e48a5d62b6a7:2c8a3b08ae6cce36",
            "pcg-xsh-rr:d64b7eac3ed1e52e:122e83c915e2d549",
            "pcg-xsh-rr:7d8e0fb1ce3b9f05:ae03999689395e6f",
            "pcg-xsh-rr:cd8a4cc91c9ca7d0:ef4a8f01b556297e",
            "pcg-xsh-rr:61627e2d3c5942df:a070d1dc52687359",
            "pcg-xsh-rr:c7bebe99445f6cac:85dabf5e31f90156",
            "pcg-xsh-rr:b01f380fdf357183:ccdf9a8bf48fe22f",
            "pcg-xsh-rr:c820ee5dcb8664b2:c3ab3a43c7020f2c",
        ];
        for text in corpus {
            let prng = Prng::from_description(text).expect("DDNet's form");
            assert!(prng.is_some(), "{text}");
        }
        // join_move_leave's generator gives the reference outputs.
        let mut prng = Prng::from_description(corpus[0])
            .expect("DDNet's form")
            .expect("seeded");
        assert_eq!(prng.random_bits(), REFERENCE[1].1[0]);
        assert_eq!(
            Prng::description([0x72a5e48a5d62b6a7, 0x2c8a3b08ae6cce36]),
            corpus[0]
        );
    }

    #[test]
    fn unseeded_and_malformed_descriptions() {
        assert_eq!(Prng::from_description("pcg-xsh-rr:unseeded"), Ok(None));
        for bad in [
            "test-prng:02468ace",
            "pcg-xsh-rr:",
            "pcg-xsh-rr:72a5e48a5d62b6a7",
            "pcg-xsh-rr:72a5e48a5d62b6a:2c8a3b08ae6cce36",
            "pcg-xsh-rr:+2a5e48a5d62b6a7:2c8a3b08ae6cce36",
            "pcg-xsh-rr:72a5e48a5d62b6a7:2c8a3b08ae6cce36:",
            "PCG-XSH-RR:72a5e48a5d62b6a7:2c8a3b08ae6cce36",
        ] {
            assert!(Prng::from_description(bad).is_err(), "{bad}");
        }
        assert!(
            Prng::from_description("pcg-xsh-rr:72A5E48A5D62B6A7:2C8A3B08AE6CCE36")
                .expect("hex")
                .is_some()
        );
    }

    #[test]
    fn random_or_0_draws_only_above_one() {
        let mut prng = Prng::seeded([42, 54]);
        assert_eq!(prng.random_or_0(1), 0);
        assert_eq!(prng.random_or_0(0), 0);
        assert_eq!(prng.random_or_0(-5), 0);
        // Nothing was drawn: the next draw is the first output.
        assert_eq!(prng.random_or_0(7), (2707161783u32 % 7) as i32);
        assert_eq!(prng.random_or_0(1000), 97); // 2068313097 % 1000
    }
}
