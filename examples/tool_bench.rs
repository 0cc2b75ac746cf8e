//! Runs one of pincer's tools once, outside any turn, and prints its result: what the benchmark
//! times next to `rg` on the same tree, so that the tool's own cost is seen without the model
//! round-trips of a whole run.
//!
//! Usage: `tool_bench TOOL ARGUMENTS_JSON [WORKSPACE]` (workspace: the current directory). The
//! tool runs as a run would run it: `tools::execute` in a `workspace-write` sandbox around the
//! workspace, on a single-threaded runtime like the CLI's.

#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the tool's text on stdout is this program's output"
)]

use pincer::conversation::SandboxMode;
use pincer::tools::{Sandbox, ToolContext, execute};
use tokio_util::sync::CancellationToken;

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(tool), Some(arguments)) = (args.next(), args.next()) else {
        eprintln!("usage: tool_bench TOOL ARGUMENTS_JSON [WORKSPACE]");
        return std::process::ExitCode::from(2);
    };
    let arguments: serde_json::Value = match serde_json::from_str(&arguments) {
        Ok(value) => value,
        Err(error) => {
            eprintln!("tool_bench: bad arguments: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    let workspace = match args
        .next()
        .map_or_else(std::env::current_dir, std::fs::canonicalize)
    {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("tool_bench: no workspace: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    let context = ToolContext {
        // No pincer home of its own: nothing beyond the workspace's own dirs is protected.
        sandbox: Sandbox::new(
            SandboxMode::WorkspaceWrite,
            &workspace,
            &[],
            &pincer::config::Paths::under_home(std::path::Path::new("/nonexistent/pincer-bench")),
            None,
        ),
        workspace,
        cancel: CancellationToken::new(),
        trace: Default::default(),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("tool_bench: no runtime: {error}");
            return std::process::ExitCode::from(1);
        }
    };
    let output = runtime.block_on(execute(&tool, &arguments, &context));
    println!("{}", output.text_content());
    if output.is_error {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    }
}
