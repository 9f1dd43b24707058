//! The `softosa` command: one front end over the engine's three drivers.
fn main() {}
