//! The map's server settings (the info item's `m_Settings` block, which
//! `CGameContext::LoadMapSettings` runs as console lines at map load):
//! what they leave the world that no teehistorian header records, tune
//! zones and switches open by default, is the world's to take from here.

use super::Collision;

impl Collision {
    /// With the settings of `map`'s info item (the first; blocks inflated
    /// up to `cap` bytes), one console line each.
    #[cfg(feature = "zlib")]
    pub(super) fn with_settings_of(
        mut self,
        datafile: &crate::map::Datafile<'_>,
        map: &crate::map::Map<'_>,
        cap: u64,
    ) -> Collision {
        use crate::map::items::MapItem;
        let block = map.items.iter().flatten().find_map(|item| match item {
            MapItem::Info(i) => Some(i.settings),
            _ => None,
        });
        let Some(Some(block)) = block else {
            return self;
        };
        let Some(bytes) = usize::try_from(block)
            .ok()
            .and_then(|b| crate::map::data::block(datafile, b, cap).ok())
        else {
            return self;
        };
        self.settings = crate::map::quads::settings(&bytes)
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect();
        self
    }

    /// The map's settings, one console line each.
    pub fn map_settings(&self) -> &[Vec<u8>] {
        &self.settings
    }
}
