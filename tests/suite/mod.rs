mod cli_surface;
mod compaction;
mod run_flags;
mod run_input;
mod sessions;
mod status;
mod turns;
mod workspace;
