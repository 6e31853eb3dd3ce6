//! DDRace's rules over the physics ([`super::physics`]): the server
//! settings the game reads ([`config`]), characters with their freeze,
//! weapons and ammunition ([`character`]), the events the server sends
//! beside them ([`effects`]), player slots ([`player`]), projectiles, lasers, explosions
//! and the ninja ([`weapons`]), plasma turrets and draggers ([`map_entities`]), save strings as DDNet reads them
//! ([`save`]), the server's snapshot ids ([`snap_ids`]), and the [`World`] that steps them all tick by tick: its
//! players, spawns, console commands, race teams and tiles
//! ([`world`]).

pub mod character;
pub mod config;
pub mod effects;
pub mod map_entities;
pub mod player;
pub mod save;
pub mod snap_ids;
pub mod weapons;
pub mod world;

pub use world::World;
