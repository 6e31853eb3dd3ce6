//! The map items (DDNet's `src/game/mapitems.h`, `mapitems_ex.h`): each a
//! run of int32s in the item's payload. Each typed item is a [`Codec`]
//! over the payload's bytes: it reads the fields every version of it has,
//! then those later versions added while the payload holds them, and
//! keeps the bytes after as they are ([`Blob`] `extra`), so that encoding
//! gives the payload back.
//!
//! Fields that point at data blocks (names, tiles, pixels) are block
//! indices, -1 for none; [`crate::map::Map`] reads the blocks.

use crate::bytes::Blob;
use crate::codec::{Codec, DecodeError, Reader};
use serde::Serialize;
use uuid::Uuid;

/// `MAPITEMTYPE_VERSION`: the map format version (1).
pub const TYPE_VERSION: u16 = 0;
/// `MAPITEMTYPE_INFO`: author, version, credits, license, settings.
pub const TYPE_INFO: u16 = 1;
/// `MAPITEMTYPE_IMAGE`.
pub const TYPE_IMAGE: u16 = 2;
/// `MAPITEMTYPE_ENVELOPE`.
pub const TYPE_ENVELOPE: u16 = 3;
/// `MAPITEMTYPE_GROUP`.
pub const TYPE_GROUP: u16 = 4;
/// `MAPITEMTYPE_LAYER`.
pub const TYPE_LAYER: u16 = 5;
/// `MAPITEMTYPE_ENVPOINTS`: every envelope's points, in one item.
pub const TYPE_ENVPOINTS: u16 = 6;
/// `MAPITEMTYPE_SOUND`.
pub const TYPE_SOUND: u16 = 7;
/// Types above this one are extension types: an `ITEMTYPE_EX` item with
/// the type as its id gives the UUID that names it.
pub const OFFSET_UUID_TYPE: u16 = 0x8000;

/// `LAYERTYPE_TILES`.
pub const LAYER_TILES: i32 = 2;
/// `LAYERTYPE_QUADS`.
pub const LAYER_QUADS: i32 = 3;
/// `LAYERTYPE_SOUNDS_DEPRECATED`: DDNet's first sound layers.
pub const LAYER_SOUNDS_DEPRECATED: i32 = 9;
/// `LAYERTYPE_SOUNDS`.
pub const LAYER_SOUNDS: i32 = 10;

/// The extension item types DDNet knows, by the names their UUIDs are
/// made from.
pub const UUID_NAMES: [(&str, Extension); 3] = [
    ("mapitemtype-test@ddnet.tw", Extension::Test),
    (
        "mapitemtype-automapper-config@ddnet.tw",
        Extension::AutomapperConfig,
    ),
    (
        "mapitemtype-envpoints-bezier@ddnet.tw",
        Extension::BezierPoints,
    ),
];

/// An extension item type DDNet knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Extension {
    /// `mapitemtype-test@ddnet.tw`.
    Test,
    /// `mapitemtype-automapper-config@ddnet.tw`.
    AutomapperConfig,
    /// `mapitemtype-envpoints-bezier@ddnet.tw`: DDNet's bezier tangents.
    BezierPoints,
}

impl Extension {
    /// The extension a UUID names, if DDNet knows it.
    pub fn of(uuid: Uuid) -> Option<Extension> {
        UUID_NAMES
            .iter()
            .find(|(name, _)| crate::packer::calculate_uuid(name) == uuid)
            .map(|&(_, e)| e)
    }
}

/// A field of an int32 record.
trait Field: Sized {
    /// Bytes it takes.
    const LEN: usize;
    fn read(r: &mut Reader<'_>, context: &'static str) -> Result<Self, DecodeError>;
    fn write(&self, out: &mut Vec<u8>);
}

impl Field for i32 {
    const LEN: usize = 4;
    fn read(r: &mut Reader<'_>, context: &'static str) -> Result<Self, DecodeError> {
        r.take_array(context).map(i32::from_le_bytes)
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl<const N: usize> Field for [i32; N] {
    const LEN: usize = 4 * N;
    fn read(r: &mut Reader<'_>, context: &'static str) -> Result<Self, DecodeError> {
        let mut ints = [0; N];
        for v in &mut ints {
            *v = i32::read(r, context)?;
        }
        Ok(ints)
    }
    fn write(&self, out: &mut Vec<u8>) {
        for v in self {
            v.write(out);
        }
    }
}

/// A field later versions added: read while the payload holds it and
/// every such field before it.
fn later<'a, T: Field>(
    r: &mut Reader<'a>,
    present: &mut bool,
    context: &'static str,
) -> Result<Option<T>, DecodeError> {
    *present &= r.remaining() >= T::LEN;
    match present {
        true => T::read(r, context).map(Some),
        false => Ok(None),
    }
}

/// Defines an int32 record item: its fields every version has, then
/// (`later`) the fields later versions added, then its `extra` bytes;
/// and its [`Codec`].
macro_rules! record {
    (
        $(#[doc = $doc:literal])*
        $name:ident $context:literal {
            $($(#[doc = $fdoc:literal])* $field:ident: $ty:ty,)*
        }
        $(later {
            $($(#[doc = $ldoc:literal])* $later:ident: $lty:ty,)*
        })?
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Serialize)]
        pub struct $name<'a> {
            $($(#[doc = $fdoc])* pub $field: $ty,)*
            $($($(#[doc = $ldoc])* pub $later: Option<$lty>,)*)?
            /// Bytes after the fields known here, as they are.
            pub extra: Blob<'a>,
        }

        impl<'a> Codec<'a> for $name<'a> {
            fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
                $(let $field = <$ty>::read(r, concat!($context, ".", stringify!($field)))?;)*
                #[allow(unused_mut, unused_variables)]
                let mut present = true;
                $($(let $later = later::<$lty>(
                    r,
                    &mut present,
                    concat!($context, ".", stringify!($later)),
                )?;)*)?
                Ok($name {
                    $($field,)*
                    $($($later,)*)?
                    extra: r.rest().into(),
                })
            }

            fn encode(&self, out: &mut Vec<u8>, _: ()) {
                $(self.$field.write(out);)*
                $($(if let Some(v) = &self.$later {
                    v.write(out);
                })*)?
                out.extend_from_slice(&self.extra);
            }
        }
    };
}

record! {
    /// `CMapItemVersion` (type 0, id 0): DDNet loads only version 1.
    VersionItem "map.version" {
        /// The map format version.
        version: i32,
    }
}

record! {
    /// `CMapItemInfo` (type 1): data blocks holding NUL-terminated text.
    Info "map.info" {
        /// The item's version (1).
        version: i32,
        /// Block of the author's name, or -1.
        author: i32,
        /// Block of the map's version text, or -1.
        map_version: i32,
        /// Block of the credits, or -1.
        credits: i32,
        /// Block of the license, or -1.
        license: i32,
    }
    later {
        /// DDNet's block of server settings (NUL-separated commands), or -1.
        settings: i32,
    }
}

record! {
    /// `CMapItemImage` (type 2): an external image (by name, from the
    /// game's `mapres`) or an embedded one (RGBA pixels in a block).
    Image "map.image" {
        /// 1, or 2 with a format field.
        version: i32,
        /// Width in pixels.
        width: i32,
        /// Height in pixels.
        height: i32,
        /// Not 0: external (no pixels in the map).
        external: i32,
        /// Block of its name.
        name: i32,
        /// Block of its pixels (embedded images), or -1.
        data: i32,
    }
    later {
        /// Version 2: the pixel format, which must be 1 (RGBA) for DDNet.
        format: i32,
    }
}

record! {
    /// `CMapItemEnvelope` (type 3): an animation curve over 1 to 4
    /// channels, whose points are a range of the envelope points item.
    Envelope "map.envelope" {
        /// 1; 2 adds `synchronized`; 3 (Teeworlds 0.7) means every point
        /// carries bezier tangents.
        version: i32,
        /// Channels: 1 (sound volume), 3 (position), 4 (colour).
        channels: i32,
        /// Index of its first point.
        start_point: i32,
        /// How many points.
        num_points: i32,
    }
    later {
        /// Its name (StrToInts-packed; Teeworlds 0.5's version 1 items
        /// have one int here, kept in `extra`).
        name: [i32; 8],
        /// Version 2: follows the server's clock.
        synchronized: i32,
    }
}

record! {
    /// `CMapItemGroup` (type 4): a range of layers drawn with one offset,
    /// parallax and clip.
    Group "map.group" {
        /// 1; 2 adds the clip; 3 the name.
        version: i32,
        /// Offset, in pixels.
        offset_x: i32,
        /// Offset, in pixels.
        offset_y: i32,
        /// Parallax, in percent.
        parallax_x: i32,
        /// Parallax, in percent.
        parallax_y: i32,
        /// Index of its first layer among the layer items.
        start_layer: i32,
        /// How many layers.
        num_layers: i32,
    }
    later {
        /// Version 2: use clipping, x, y, width, height.
        clip: [i32; 5],
        /// Version 3: its name (StrToInts-packed).
        name: [i32; 3],
    }
}

record! {
    /// `CMapItemLayerQuads`: the body of a quads layer.
    QuadsLayer "map.layer.quads" {
        /// 1; 2 adds the name.
        version: i32,
        /// How many quads its block holds.
        num_quads: i32,
        /// Block of its quads (152 bytes each).
        data: i32,
        /// Index of its image, or -1.
        image: i32,
    }
    later {
        /// Version 2: its name (StrToInts-packed).
        name: [i32; 3],
    }
}

record! {
    /// `CMapItemLayerSounds`: the body of a sounds layer.
    SoundsLayer "map.layer.sounds" {
        /// 1 or 2.
        version: i32,
        /// How many sound sources its block holds.
        num_sources: i32,
        /// Block of its sources.
        data: i32,
        /// Index of its sound, or -1.
        sound: i32,
    }
    later {
        /// Its name (StrToInts-packed).
        name: [i32; 3],
    }
}

record! {
    /// `CMapItemSound` (type 7): an external or embedded (Opus) sound.
    Sound "map.sound" {
        /// 1.
        version: i32,
        /// Not 0: external.
        external: i32,
        /// Block of its name.
        name: i32,
        /// Block of its Opus data.
        data: i32,
        /// The data's size (DDNet ignores it and uses the block's).
        data_size: i32,
    }
}

record! {
    /// `CMapItemAutomapperConfig` (extension): the automapper rule a
    /// layer was drawn with.
    AutomapperConfig "map.automapper_config" {
        /// 1.
        version: i32,
        /// The group's index.
        group: i32,
        /// The layer's index in its group.
        layer: i32,
        /// The configuration's index in the image's rules.
        config: i32,
        /// The seed.
        seed: i32,
        /// 1: automatic.
        flags: i32,
    }
}

record! {
    /// `CMapItemTest` (extension): DDNet's test of extension items.
    TestItem "map.test" {
        /// 1.
        version: i32,
        /// Fields.
        fields: [i32; 4],
    }
}

/// An `ITEMTYPE_EX` item: the UUID its id (an extension type number)
/// stands for, as 4 int32s holding the UUID's bytes big-endian.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UuidType<'a> {
    /// The UUID.
    pub uuid: Uuid,
    /// Bytes after it, as they are.
    pub extra: Blob<'a>,
}

impl<'a> Codec<'a> for UuidType<'a> {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let ints = <[i32; 4]>::read(r, "map.uuid_type")?;
        let mut bytes = [0; 16];
        for (chunk, v) in bytes.chunks_exact_mut(4).zip(ints) {
            chunk.copy_from_slice(&v.to_be_bytes());
        }
        Ok(UuidType {
            uuid: Uuid::from_bytes(bytes),
            extra: r.rest().into(),
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        for chunk in self.uuid.as_bytes().chunks_exact(4) {
            let v = i32::from_be_bytes(chunk.try_into().unwrap_or_default());
            v.write(out);
        }
        out.extend_from_slice(&self.extra);
    }
}

/// `CMapItemLayerTilemap`: the body of a tiles layer, with its physics
/// layers' data blocks (DDNet's).
///
/// Version 2 has no name, and DDNet's first physics layers put their
/// blocks right after its fields; versions 3 and 4 (Teeworlds) add the
/// name, and DDNet the blocks after it. Either way old DDNet maps hold
/// only some of the five blocks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TilesLayer<'a> {
    /// 2, 3 or 4 (4: Teeworlds 0.7's tiles with skip runs).
    pub version: i32,
    /// Width in tiles.
    pub width: i32,
    /// Height in tiles.
    pub height: i32,
    /// `TILESLAYERFLAG_*`: game 1, tele 2, speedup 4, front 8, switch
    /// 16, tune 32.
    pub flags: i32,
    /// Colour, RGBA 0 to 255.
    pub color: [i32; 4],
    /// Colour envelope, or -1.
    pub color_env: i32,
    /// Colour envelope offset, in ms.
    pub color_env_offset: i32,
    /// Index of its image, or -1.
    pub image: i32,
    /// Block of its tiles (`CTile`, 4 bytes each).
    pub data: i32,
    /// Versions 3 and 4: its name (StrToInts-packed).
    pub name: Option<[i32; 3]>,
    /// DDNet's physics blocks as stored, in this order: tele, speedup,
    /// front, switch, tune (as many as the item holds).
    pub physics: Vec<i32>,
    /// Bytes after the fields known here, as they are.
    pub extra: Blob<'a>,
}

/// A physics layer a tiles layer can be (`TILESLAYERFLAG_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Physics {
    /// The game layer (collision, entities).
    Game,
    /// Teleporters.
    Tele,
    /// Speedups.
    Speedup,
    /// Front layer (tiles over the game layer).
    Front,
    /// Switches (doors, timed switches).
    Switch,
    /// Tune zones.
    Tune,
}

impl Physics {
    /// Every physics layer, in `TILESLAYERFLAG_*` order.
    pub const ALL: [Physics; 6] = [
        Physics::Game,
        Physics::Tele,
        Physics::Speedup,
        Physics::Front,
        Physics::Switch,
        Physics::Tune,
    ];

    /// Its `TILESLAYERFLAG_*` bit.
    pub fn flag(self) -> i32 {
        match self {
            Physics::Game => 1,
            Physics::Tele => 2,
            Physics::Speedup => 4,
            Physics::Front => 8,
            Physics::Switch => 16,
            Physics::Tune => 32,
        }
    }

    /// The name DDNet gives such a layer.
    pub fn name(self) -> &'static str {
        match self {
            Physics::Game => "Game",
            Physics::Tele => "Tele",
            Physics::Speedup => "Speedup",
            Physics::Front => "Front",
            Physics::Switch => "Switch",
            Physics::Tune => "Tune",
        }
    }

    /// Where its block is in [`TilesLayer::physics`] (the game layer's is
    /// [`TilesLayer::data`]).
    fn slot(self) -> Option<usize> {
        match self {
            Physics::Game => None,
            Physics::Tele => Some(0),
            Physics::Speedup => Some(1),
            Physics::Front => Some(2),
            Physics::Switch => Some(3),
            Physics::Tune => Some(4),
        }
    }
}

/// Most physics blocks a tiles layer holds.
const PHYSICS_SLOTS: usize = 5;

impl TilesLayer<'_> {
    /// The physics layers its flags make it (DDNet's loader refuses more
    /// than one).
    pub fn physics_flags(&self) -> Vec<Physics> {
        Physics::ALL
            .into_iter()
            .filter(|p| self.flags & p.flag() != 0)
            .collect()
    }

    /// The physics layer it is, by the first of its flags as DDNet
    /// checks them (game, tele, speedup, front, switch, tune), or `None`
    /// for a layer that is only drawn.
    pub fn physics(&self) -> Option<Physics> {
        self.physics_flags().first().copied()
    }

    /// The stored block index of physics layer `p` (`None`: the item does
    /// not hold that field).
    pub fn physics_data(&self, p: Physics) -> Option<i32> {
        match p.slot() {
            None => Some(self.data),
            Some(slot) => self.physics.get(slot).copied(),
        }
    }

    /// The block holding its tiles, as DDNet's loader picks it: the
    /// physics layer's own block, else `data`; `None` if the item does
    /// not hold it.
    pub fn tiles_data(&self) -> Option<i32> {
        match self.physics() {
            Some(p) => self.physics_data(p),
            None => Some(self.data),
        }
    }
}

impl<'a> Codec<'a> for TilesLayer<'a> {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let c = "map.layer.tiles";
        let version = i32::read(r, c)?;
        let width = i32::read(r, c)?;
        let height = i32::read(r, c)?;
        let flags = i32::read(r, c)?;
        let color = <[i32; 4]>::read(r, c)?;
        let color_env = i32::read(r, c)?;
        let color_env_offset = i32::read(r, c)?;
        let image = i32::read(r, c)?;
        let data = i32::read(r, c)?;
        let mut present = true;
        let name = match version >= 3 {
            true => later::<[i32; 3]>(r, &mut present, "map.layer.tiles.name")?,
            false => None,
        };
        let mut physics = Vec::new();
        while present && physics.len() < PHYSICS_SLOTS && r.remaining() >= 4 {
            physics.push(i32::read(r, "map.layer.tiles.physics")?);
        }
        Ok(TilesLayer {
            version,
            width,
            height,
            flags,
            color,
            color_env,
            color_env_offset,
            image,
            data,
            name,
            physics,
            extra: r.rest().into(),
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        for v in [self.version, self.width, self.height, self.flags] {
            v.write(out);
        }
        self.color.write(out);
        for v in [self.color_env, self.color_env_offset, self.image, self.data] {
            v.write(out);
        }
        if let Some(name) = &self.name {
            name.write(out);
        }
        for v in &self.physics {
            v.write(out);
        }
        out.extend_from_slice(&self.extra);
    }
}

/// `CMapItemLayer` (type 5): a layer's common fields, then its kind's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Layer<'a> {
    /// Unused (DDNet's loader resets it to 0).
    pub version: i32,
    /// `LAYERTYPE_*`: tiles 2, quads 3, sounds 10 (9: DDNet's first).
    pub kind: i32,
    /// 1: a detail layer (drawn only with high detail).
    pub flags: i32,
    /// The kind's fields.
    pub body: LayerBody<'a>,
}

/// What a layer is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LayerBody<'a> {
    /// A tiles layer (DDNet's physics layers are tiles layers too).
    Tiles(TilesLayer<'a>),
    /// A quads layer.
    Quads(QuadsLayer<'a>),
    /// A sounds layer (either kind).
    Sounds(SoundsLayer<'a>),
    /// A kind no reader knows, as its bytes.
    Other {
        /// The bytes after the common fields.
        bytes: Blob<'a>,
    },
}

impl<'a> Codec<'a> for Layer<'a> {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let version = i32::read(r, "map.layer.version")?;
        let kind = i32::read(r, "map.layer.kind")?;
        let flags = i32::read(r, "map.layer.flags")?;
        let body = match kind {
            LAYER_TILES => LayerBody::Tiles(TilesLayer::decode(r, ())?),
            LAYER_QUADS => LayerBody::Quads(QuadsLayer::decode(r, ())?),
            LAYER_SOUNDS | LAYER_SOUNDS_DEPRECATED => {
                LayerBody::Sounds(SoundsLayer::decode(r, ())?)
            }
            _ => LayerBody::Other {
                bytes: r.rest().into(),
            },
        };
        Ok(Layer {
            version,
            kind,
            flags,
            body,
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        for v in [self.version, self.kind, self.flags] {
            v.write(out);
        }
        match &self.body {
            LayerBody::Tiles(t) => t.encode(out, ()),
            LayerBody::Quads(q) => q.encode(out, ()),
            LayerBody::Sounds(s) => s.encode(out, ()),
            LayerBody::Other { bytes } => out.extend_from_slice(bytes),
        }
    }
}

/// How the envelope points item lays out a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PointForm {
    /// `CEnvPoint`: 6 ints (DDNet, and Teeworlds before 0.7's beziers).
    Basic,
    /// `CEnvPointBezier_upstream`: 22 ints, the tangents inline; what
    /// Teeworlds 0.7 writes when an envelope has version 3 or more.
    Bezier,
}

impl PointForm {
    /// Bytes per point.
    pub fn size(self) -> usize {
        match self {
            PointForm::Basic => 24,
            PointForm::Bezier => 88,
        }
    }
}

/// Bezier tangents of one point (`CEnvPointBezier`): per channel, the
/// in and out tangents' time (ms) and value (22.10 fixed point) deltas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Tangents {
    /// In-tangent time deltas.
    pub in_dx: [i32; 4],
    /// In-tangent value deltas.
    pub in_dy: [i32; 4],
    /// Out-tangent time deltas.
    pub out_dx: [i32; 4],
    /// Out-tangent value deltas.
    pub out_dy: [i32; 4],
}

impl Tangents {
    fn read(r: &mut Reader<'_>, context: &'static str) -> Result<Tangents, DecodeError> {
        Ok(Tangents {
            in_dx: Field::read(r, context)?,
            in_dy: Field::read(r, context)?,
            out_dx: Field::read(r, context)?,
            out_dy: Field::read(r, context)?,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        for part in [&self.in_dx, &self.in_dy, &self.out_dx, &self.out_dy] {
            part.write(out);
        }
    }
}

/// One envelope point (`CEnvPoint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EnvPoint {
    /// Time in ms.
    pub time: i32,
    /// `CURVETYPE_*`: step 0, linear 1, slow 2, fast 3, smooth 4, bezier
    /// 5 (DDNet draws unknown ones as linear).
    pub curve: i32,
    /// The channels' values (22.10 fixed point).
    pub values: [i32; 4],
    /// The tangents ([`PointForm::Bezier`] only).
    pub tangents: Option<Tangents>,
}

/// The envelope points item (type 6): every envelope's points.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EnvPoints<'a> {
    /// The points.
    pub points: Vec<EnvPoint>,
    /// Bytes after the last whole point, as they are.
    pub extra: Blob<'a>,
}

impl<'a> Codec<'a, PointForm> for EnvPoints<'a> {
    fn decode(r: &mut Reader<'a>, form: PointForm) -> Result<Self, DecodeError> {
        let c = "map.envpoints";
        let mut points = Vec::with_capacity(r.remaining() / form.size());
        while r.remaining() >= form.size() {
            points.push(EnvPoint {
                time: i32::read(r, c)?,
                curve: i32::read(r, c)?,
                values: Field::read(r, c)?,
                tangents: match form {
                    PointForm::Basic => None,
                    PointForm::Bezier => Some(Tangents::read(r, c)?),
                },
            });
        }
        Ok(EnvPoints {
            points,
            extra: r.rest().into(),
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: PointForm) {
        for p in &self.points {
            p.time.write(out);
            p.curve.write(out);
            p.values.write(out);
            if let Some(t) = &p.tangents {
                t.write(out);
            }
        }
        out.extend_from_slice(&self.extra);
    }
}

/// DDNet's bezier extension item (`mapitemtype-envpoints-bezier`): the
/// tangents of every point, in the order of the envelope points item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BezierPoints<'a> {
    /// The tangents.
    pub points: Vec<Tangents>,
    /// Bytes after the last whole point, as they are.
    pub extra: Blob<'a>,
}

/// Bytes of one point's tangents.
const TANGENTS_LEN: usize = 64;

impl<'a> Codec<'a> for BezierPoints<'a> {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let mut points = Vec::with_capacity(r.remaining() / TANGENTS_LEN);
        while r.remaining() >= TANGENTS_LEN {
            points.push(Tangents::read(r, "map.envpoints_bezier")?);
        }
        Ok(BezierPoints {
            points,
            extra: r.rest().into(),
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        for t in &self.points {
            t.write(out);
        }
        out.extend_from_slice(&self.extra);
    }
}

/// What an item's type makes it, as [`MapItem`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Type 0.
    Version,
    /// Type 1.
    Info,
    /// Type 2.
    Image,
    /// Type 3.
    Envelope,
    /// Type 4.
    Group,
    /// Type 5.
    Layer,
    /// Type 6, its points in this form.
    EnvPoints(PointForm),
    /// Type 7.
    Sound,
    /// `ITEMTYPE_EX` (0xffff).
    UuidType,
    /// An extension type (above 0x8000) whose `ITEMTYPE_EX` item gives
    /// this UUID.
    Extension(Uuid),
    /// Any other type.
    Unknown,
}

/// One item, typed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MapItem<'a> {
    /// The map format version.
    Version(VersionItem<'a>),
    /// The map's info.
    Info(Info<'a>),
    /// An image.
    Image(Image<'a>),
    /// An envelope.
    Envelope(Envelope<'a>),
    /// A group.
    Group(Group<'a>),
    /// A layer.
    Layer(Layer<'a>),
    /// The envelope points.
    EnvPoints(EnvPoints<'a>),
    /// A sound.
    Sound(Sound<'a>),
    /// The UUID of an extension type.
    UuidType(UuidType<'a>),
    /// DDNet's test extension.
    Test(TestItem<'a>),
    /// DDNet's automapper configuration.
    AutomapperConfig(AutomapperConfig<'a>),
    /// DDNet's bezier tangents.
    BezierPoints(BezierPoints<'a>),
    /// An extension type DDNet does not know, by its UUID.
    Extension {
        /// The UUID its `ITEMTYPE_EX` item gives.
        uuid: Uuid,
        /// The payload.
        bytes: Blob<'a>,
    },
    /// A type no reader knows.
    Unknown {
        /// The payload.
        bytes: Blob<'a>,
    },
}

impl MapItem<'_> {
    /// Its `type` in JSON.
    pub fn name(&self) -> &'static str {
        match self {
            MapItem::Version(_) => "version",
            MapItem::Info(_) => "info",
            MapItem::Image(_) => "image",
            MapItem::Envelope(_) => "envelope",
            MapItem::Group(_) => "group",
            MapItem::Layer(_) => "layer",
            MapItem::EnvPoints(_) => "env_points",
            MapItem::Sound(_) => "sound",
            MapItem::UuidType(_) => "uuid_type",
            MapItem::Test(_) => "test",
            MapItem::AutomapperConfig(_) => "automapper_config",
            MapItem::BezierPoints(_) => "bezier_points",
            MapItem::Extension { .. } => "extension",
            MapItem::Unknown { .. } => "unknown",
        }
    }
}

impl<'a> Codec<'a, Kind> for MapItem<'a> {
    /// Reads a payload as `kind`; fails when it is too short for the
    /// fields every version of the item has.
    fn decode(r: &mut Reader<'a>, kind: Kind) -> Result<Self, DecodeError> {
        Ok(match kind {
            Kind::Version => MapItem::Version(Codec::decode(r, ())?),
            Kind::Info => MapItem::Info(Codec::decode(r, ())?),
            Kind::Image => MapItem::Image(Codec::decode(r, ())?),
            Kind::Envelope => MapItem::Envelope(Codec::decode(r, ())?),
            Kind::Group => MapItem::Group(Codec::decode(r, ())?),
            Kind::Layer => MapItem::Layer(Codec::decode(r, ())?),
            Kind::EnvPoints(form) => MapItem::EnvPoints(Codec::decode(r, form)?),
            Kind::Sound => MapItem::Sound(Codec::decode(r, ())?),
            Kind::UuidType => MapItem::UuidType(Codec::decode(r, ())?),
            Kind::Extension(uuid) => match Extension::of(uuid) {
                Some(Extension::Test) => MapItem::Test(Codec::decode(r, ())?),
                Some(Extension::AutomapperConfig) => {
                    MapItem::AutomapperConfig(Codec::decode(r, ())?)
                }
                Some(Extension::BezierPoints) => MapItem::BezierPoints(Codec::decode(r, ())?),
                None => MapItem::Extension {
                    uuid,
                    bytes: r.rest().into(),
                },
            },
            Kind::Unknown => MapItem::Unknown {
                bytes: r.rest().into(),
            },
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: Kind) {
        match self {
            MapItem::Version(i) => i.encode(out, ()),
            MapItem::Info(i) => i.encode(out, ()),
            MapItem::Image(i) => i.encode(out, ()),
            MapItem::Envelope(i) => i.encode(out, ()),
            MapItem::Group(i) => i.encode(out, ()),
            MapItem::Layer(i) => i.encode(out, ()),
            // Each point carries its form (tangents or none).
            MapItem::EnvPoints(i) => i.encode(out, PointForm::Basic),
            MapItem::Sound(i) => i.encode(out, ()),
            MapItem::UuidType(i) => i.encode(out, ()),
            MapItem::Test(i) => i.encode(out, ()),
            MapItem::AutomapperConfig(i) => i.encode(out, ()),
            MapItem::BezierPoints(i) => i.encode(out, ()),
            MapItem::Extension { bytes, .. } | MapItem::Unknown { bytes } => {
                out.extend_from_slice(bytes)
            }
        }
    }
}
