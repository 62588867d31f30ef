//! `xffi/sys/testing.h` (extension tier): hooks for the test suites.

extern "C" {
    /// Frees the retired global-registry blocks no lookup can reach any more;
    /// returns how many are still waiting (0 once no lookup is in flight).
    pub fn xffi_testing_registry_reclaim() -> usize;
}
