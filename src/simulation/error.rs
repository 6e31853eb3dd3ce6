//! Why a file cannot be simulated, as data: what was wrong, and where
//! there are bytes, the offset ([`DecodeError`] names it).

use super::ddrace::config::ConfigError;
use super::physics::collision::MapError;
use super::physics::prng::BadDescription;
use super::physics::tuning::TuningError;
use crate::codec::DecodeError;

/// Why a file cannot be simulated.
#[derive(Clone, Debug, PartialEq)]
pub enum SimulateError {
    /// The teehistorian file does not decode (its header, or a record
    /// before the simulation could start).
    Decode(DecodeError),
    /// The header names a server this simulator does not know.
    UnknownServer(String),
    /// The header's settings, tuning or random generator cannot be read.
    Header(HeaderError),
    /// The header names no map (`map_sha256` is missing): DDNet's unit
    /// tests write such files.
    NoMapNamed,
    /// The map gives no world.
    Map(MapError),
    /// The demo to compare with does not decode.
    Demo(DecodeError),
    /// A stop tick and a demo to compare with were both asked for: the
    /// comparison needs the whole file.
    UntilWithDemo,
    /// A synthetic session could not be written (a bug: its bots'
    /// records are in order by construction).
    Recorder(crate::teehistorian::RecorderError),
    /// A tuning change asked for does not apply (a parameter the
    /// release lacks, a value its console would not read).
    Tune(TuningError),
    /// The stop tick asked for is not among the file's ticks.
    UntilOutside {
        /// The tick asked for.
        until: i32,
        /// The file's first and last ticks.
        ticks: (i32, i32),
    },
}

/// What of a header cannot be read.
#[derive(Clone, Debug, PartialEq)]
pub enum HeaderError {
    /// Its `config`.
    Config(ConfigError),
    /// Its `tuning`.
    Tuning(TuningError),
    /// Its `prng_description`.
    Prng(BadDescription),
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeaderError::Config(e) => write!(f, "config: {e}"),
            HeaderError::Tuning(e) => write!(f, "tuning: {e}"),
            HeaderError::Prng(e) => write!(f, "prng_description: {e}"),
        }
    }
}

impl std::fmt::Display for SimulateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimulateError::Decode(e) => write!(f, "{e}"),
            SimulateError::UnknownServer(s) => write!(
                f,
                "the header's server_version {s:?} is not a DDNet version this simulator models (16.4 or 20.1)"
            ),
            SimulateError::Header(e) => write!(f, "the header's {e}"),
            SimulateError::NoMapNamed => {
                f.write_str("the header's map_sha256 is missing: no map to find")
            }
            SimulateError::Map(e) => write!(f, "the map: {e}"),
            SimulateError::Demo(e) => write!(f, "the demo: {e}"),
            SimulateError::Recorder(e) => write!(f, "the synthetic session: {e}"),
            SimulateError::Tune(e) => write!(f, "a changed tuning: {e}"),
            SimulateError::UntilWithDemo => {
                f.write_str("a stop tick and a demo to compare with do not go together")
            }
            SimulateError::UntilOutside { until, ticks } => write!(
                f,
                "tick {until}: the file's ticks are {}..{}",
                ticks.0, ticks.1
            ),
        }
    }
}

impl std::error::Error for SimulateError {}
