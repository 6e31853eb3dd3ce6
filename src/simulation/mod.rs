//! DDNet's game, simulated: a teehistorian file's inputs drive a world on
//! the map it was recorded on, with the physics and DDRace rules of the
//! [`Release`] that recorded it, and every tick the world is compared with
//! the positions the file records (and, given the session's server demo,
//! with its Character items).
//!
//! - [`physics`]: our model of DDNet's physics (vectors, float math, random generator,
//!   collision, tuning, the character core), knowing nothing of DDRace.
//! - [`ddrace`]: DDRace's rules over it (settings, characters, weapons,
//!   save strings, race teams, tiles) and the [`World`] they make.
//! - [`console`]: numbers as DDNet's console reads them (both layers take
//!   settings and tunings through it); [`release`]: whose rules.
//! - [`machine`]: the [`Simulation`], a sans-IO machine fed one record at
//!   a time, and [`simulate`], which drives one over a file; [`event`]:
//!   what a record does to the world; [`window`]: the last ticks, kept to
//!   step them again; [`header`]: the world a header describes;
//!   [`report`]: what it found; [`demo_compare`]: the comparison with the
//!   session's server demo.
//! - [`coverage`]: what the model covers of DDNet's physics, and how
//!   the world detects what it does not (docs/physics-coverage.md).
//! - [`maps`]: the maps to simulate on, found by the header's checksum;
//!   [`check`]: the simulation as `check` runs it (findings on a verdict).
//! - [`demo_writer`]: the simulated world written as the server's demo;
//!   [`synthetic`]: long valid files that simulate exactly.

pub mod check;
pub mod console;
pub mod coverage;
pub mod ddrace;
pub mod demo_compare;
pub mod demo_writer;
pub mod error;
pub mod event;
pub mod header;
pub mod machine;
pub mod maps;
pub mod physics;
pub mod release;
pub mod report;
pub mod synthetic;
pub mod window;

pub use ddrace::World;
pub use error::{HeaderError, SimulateError};
pub use machine::{Observer, Options, Simulation, Stepper, simulate, simulate_observed};
pub use maps::{Lookup, LookupError, Maps, collision_of_file, lookup};
pub use release::{Release, UnknownRelease};
pub use report::DemoReport;
pub use report::{Divergence, MAX_GAP, PlayerSummary, Report, Stopped};
pub use synthetic::synthetic_session;
