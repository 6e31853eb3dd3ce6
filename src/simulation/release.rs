//! Which DDNet release's rules the simulation follows: its physics
//! ([`super::physics`]) and its DDRace rules ([`super::ddrace`]) differ
//! between releases. Not the network protocol's version
//! ([`crate::packet::Version`], 0.6 or 0.7): a DDNet 20.1 server speaks
//! both.

use serde::Serialize;

/// The DDNet release whose rules the world follows. Only these two are
/// checked against DDNet's source; every other release is mapped to the
/// nearer of them ([`Release::of_server`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Release {
    /// DDNet 16.4 (tag `16.4`), the Debian server of the 16.4 corpus.
    Ddnet16_4,
    /// DDNet 20.1 (commit `28baa427`), the server of the 20.1 corpus.
    Ddnet20_1,
}

impl Release {
    /// The rules for a teehistorian header's `server_version`: DDNet
    /// writes `GAME_VERSION`, e.g. `"0.6.4, 16.4"` or
    /// `"0.6, 20.1 (28baa427bad88b7d)"`; the release is the number after
    /// the comma. Releases before 17.2 get [`Release::Ddnet16_4`], 17.2
    /// and later [`Release::Ddnet20_1`]: 17.2 is the first release whose
    /// tuning has `ground_elasticity_x`/`_y` (47 parameters, as 20.1;
    /// every earlier one has 16.4's 45). Other physics changes between
    /// the two releases are not placed by this mapping. `None` when no
    /// release number can be read (DDNet's unit tests write
    /// `"DDNet test"`).
    pub fn of_server(server_version: &str) -> Option<Release> {
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
            Release::Ddnet16_4
        } else {
            Release::Ddnet20_1
        })
    }

    /// As a user names it: `16.4`, `20.1`.
    pub fn number(self) -> &'static str {
        match self {
            Release::Ddnet16_4 => "16.4",
            Release::Ddnet20_1 => "20.1",
        }
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.number())
    }
}

/// A release name that is not one the simulation models.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRelease(pub String);

impl std::fmt::Display for UnknownRelease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?}: the simulation models DDNet `16.4` and `20.1`",
            self.0
        )
    }
}

impl std::error::Error for UnknownRelease {}

impl std::str::FromStr for Release {
    type Err = UnknownRelease;

    /// `16.4` or `20.1`, as the command line and the Python package take it.
    fn from_str(text: &str) -> Result<Release, UnknownRelease> {
        [Release::Ddnet16_4, Release::Ddnet20_1]
            .into_iter()
            .find(|r| r.number() == text)
            .ok_or_else(|| UnknownRelease(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::Release::{self, *};

    #[test]
    fn a_server_version_names_the_nearer_release() {
        assert_eq!(Release::of_server("0.6.4, 16.4"), Some(Ddnet16_4));
        assert_eq!(
            Release::of_server("0.6, 20.1 (28baa427bad88b7d)"),
            Some(Ddnet20_1)
        );
        assert_eq!(Release::of_server("0.6.4, 17.1"), Some(Ddnet16_4));
        assert_eq!(Release::of_server("0.6.4, 17.2"), Some(Ddnet20_1));
        assert_eq!(Release::of_server("0.6.4, 18.0.3"), Some(Ddnet20_1));
        assert_eq!(Release::of_server("0.6.4, 15.9.1"), Some(Ddnet16_4));
        assert_eq!(Release::of_server("DDNet test"), None);
        assert_eq!(Release::of_server(""), None);
    }

    #[test]
    fn a_release_reads_back_as_it_is_shown() {
        for r in [Ddnet16_4, Ddnet20_1] {
            assert_eq!(r.to_string().parse::<Release>(), Ok(r));
        }
        assert!("20".parse::<Release>().is_err());
        assert!(" 16.4".parse::<Release>().is_err());
    }
}
