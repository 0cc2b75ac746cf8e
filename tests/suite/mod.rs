mod cli_surface;
mod run_input;
mod sessions;
mod status;
mod turns;
