//! Unit tests of the teehistorian codec, stream and replay.
