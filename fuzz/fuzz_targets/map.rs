#![no_main]
teeoracle_fuzz::target!(map);
