#![no_main]
teeoracle_fuzz::target!(teehistorian);
