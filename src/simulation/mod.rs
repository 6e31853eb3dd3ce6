//! DDNet's game, simulated: a teehistorian file's inputs drive a world on
//! the map it was recorded on, with the physics and DDRace rules of the
//! [`Release`] that recorded it, and every tick the world is compared with
//! the positions the file records (and, given the session's server demo,
//! with its Character items).
//!
//! - [`physics`]: DDNet's physics (vectors, float math, random generator,
//!   collision, tuning, the character core), knowing nothing of DDRace.
//! - [`ddrace`]: DDRace's rules over it (settings, characters, weapons,
//!   save strings, race teams, tiles) and the [`World`] they make.
//! - [`console`]: numbers as DDNet's console reads them (both layers take
//!   settings and tunings through it).
//! - [`machine`]: the [`Simulation`], a sans-IO machine fed one record at a
//!   time, and its [`Report`].
//! - [`demo_writer`]: the simulated world written as the server's demo.

pub mod console;
pub mod ddrace;
pub mod demo_writer;
pub mod machine;
pub mod physics;
pub mod release;

pub use ddrace::World;
pub use machine::*;
pub use release::{Release, UnknownRelease};
