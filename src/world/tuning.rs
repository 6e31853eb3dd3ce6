//! Placeholder until the tuning branch lands: DDNet 20.1's defaults with
//! DDRace's overrides, as hundredths.
#![allow(missing_docs)]

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    v: [i32; 48],
}

macro_rules! params {
    ($($i:literal $name:ident = $def:literal),* $(,)?) => {
        impl Default for Tuning {
            fn default() -> Tuning {
                let mut v = [0; 48];
                $( v[$i] = $def; )*
                Tuning { v }
            }
        }
        impl Tuning {
            $( pub fn $name(&self) -> f32 { self.v[$i] as f32 / 100.0 } )*
        }
    };
}

params! {
    0 ground_control_speed = 1000,
    1 ground_control_accel = 200,
    2 ground_friction = 50,
    3 ground_jump_impulse = 1320,
    4 air_jump_impulse = 1200,
    5 air_control_speed = 500,
    6 air_control_accel = 150,
    7 air_friction = 95,
    8 hook_length = 38000,
    9 hook_fire_speed = 8000,
    10 hook_drag_accel = 300,
    11 hook_drag_speed = 1500,
    12 gravity = 50,
    13 velramp_start = 55000,
    14 velramp_range = 200000,
    15 velramp_curvature = 140,
    16 player_collision = 100,
    17 player_hooking = 100,
    18 hook_duration = 125,
    19 ground_elasticity_x = 0,
    20 ground_elasticity_y = 0,
    21 hammer_strength = 100,
    22 hammer_hit_fire_delay = 32000,
    23 hammer_fire_delay = 12500,
    24 gun_fire_delay = 12500,
    25 shotgun_fire_delay = 50000,
    26 grenade_fire_delay = 50000,
    27 laser_fire_delay = 80000,
    28 ninja_fire_delay = 80000,
    29 gun_curvature = 0,
    30 gun_speed = 140000,
    31 gun_lifetime = 200,
    32 shotgun_curvature = 0,
    33 shotgun_speed = 50000,
    34 grenade_curvature = 700,
    35 grenade_speed = 100000,
    36 grenade_lifetime = 200,
    37 laser_reach = 80000,
    38 laser_bounce_delay = 15000,
    39 laser_bounce_num = 100000,
    40 laser_bounce_cost = 0,
    41 shotgun_strength = 1000,
    42 explosion_strength = 600,
    43 jetpack_strength = 40000,
}

impl Tuning {
    pub fn set_gravity(&mut self, hundredths: i32) {
        self.v[12] = hundredths;
    }
}
