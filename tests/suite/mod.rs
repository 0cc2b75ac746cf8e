mod cli_surface;
mod sessions;
mod status;
