//! The one integration test binary; each module under `suite/` covers one area.

mod suite {
    pub mod cli_surface;
}
