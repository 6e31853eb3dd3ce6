#![no_main]
teeoracle_fuzz::target!(huffman);
