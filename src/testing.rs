//! Shared test helpers (compiled for unit tests only).

/// Seed for every quickcheck run, so failures reproduce. Override the number
/// of cases with `QUICKCHECK_TESTS` for deeper local runs.
pub const SEED: u64 = 0x7ee0_2ac1e;

/// A seeded quickcheck runner.
pub fn qc() -> quickcheck::QuickCheck {
    quickcheck::QuickCheck::new().rng(quickcheck::Gen::from_size_and_seed(100, SEED))
}
