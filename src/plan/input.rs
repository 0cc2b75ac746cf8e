//! What a `run` or `resume` turn is given: the prompt from its argument or stdin (with the
//! pipeline rules of SPEC §2), images, and system prompt text from files.

use std::path::{Path, PathBuf};

use super::env::RunEnv;
use super::{TurnInput, TurnRequest, seconds};
use crate::agent::heartbeat;
use crate::conversation::{ContentBlock, ImageBlock};
use crate::error::{CliError, CliResult};
use crate::input::{InputError, StdinOptions, StdinUse};
use crate::scope::{CancelScope, cancelled_error};

/// The turn's input: the prompt (the argument, else stdin, else the heartbeat prompt for a
/// heartbeat run), images, and the system prompt's replacement and additions read from their
/// files.
pub(crate) fn read(
    context: &dyn RunEnv,
    args: &TurnRequest,
    prompt_argument: Option<&str>,
    scope: &CancelScope,
) -> CliResult<TurnInput> {
    // A heartbeat run without a prompt uses the heartbeat prompt (the cron idiom).
    let prompt_argument = match prompt_argument {
        None if args.heartbeat => Some(heartbeat::default_prompt()),
        other => other,
    };
    let prompt = scope
        .read_prompt(
            prompt_argument,
            StdinOptions {
                never: args.no_stdin,
                timeout: seconds(
                    args.stdin_timeout
                        .or(context.settings().timeouts.stdin_secs),
                ),
                max_bytes: context.settings().stdin_max_bytes,
                lossy: args.lossy_stdin,
            },
        )
        .map_err(cancelled_error)?
        .map_err(input_error)?;
    if prompt.lossy {
        context.warn("stdin was not valid UTF-8; invalid bytes were replaced (--lossy-stdin)");
    }
    report_stdin(context, prompt.stdin);
    let mut images = read_images(&args.image)?;
    images.extend(args.inline_images.iter().cloned());
    let mut system_replace = args.system_prompt.clone();
    if let Some(path) = &args.system_prompt_file {
        system_replace = Some(read_text_file(path, "--system-prompt-file")?);
    }
    let mut appends = context.settings().workspace.append_system_prompt.clone();
    appends.extend(args.append_system_prompt.iter().cloned());
    for path in &args.append_system_prompt_file {
        appends.push(read_text_file(path, "--append-system-prompt-file")?);
    }
    Ok(TurnInput {
        prompt,
        images,
        system_replace,
        appends,
    })
}

fn input_error(error: InputError) -> CliError {
    let hint = match &error {
        InputError::NoPrompt(_) | InputError::Missing => {
            "give the prompt as an argument, or pipe it in: echo \"…\" | pincer run -"
        }
        InputError::TooLarge(_) => "raise `stdin.max_bytes` in config.toml, or send less",
        InputError::InvalidUtf8(_) => "convert the input to UTF-8, or pass --lossy-stdin",
        InputError::Empty => "say what the agent should do",
        InputError::Read(_) => "check what is connected to stdin, or pass --no-stdin",
    };
    CliError::usage(error.to_string()).with_hint(hint)
}

/// Say when stdin was left unread (nothing is dropped silently, SPEC §2), and with `-v` what
/// the look for its writer found and cost.
fn report_stdin(context: &dyn RunEnv, stdin: StdinUse) {
    let scan_text = |scan: &crate::input::WriterScan| {
        format!(
            "looked through {} processes for its writer in {} µs",
            scan.processes,
            scan.elapsed.as_micros()
        )
    };
    match stdin {
        StdinUse::Ignored { window, scan } => {
            context.warn(&format!(
                "stdin was ignored: nothing arrived within {} s and no other process of this \
                 pipeline writes to it; to wait for it, pass --stdin-timeout 0 (or `-` to read \
                 the prompt itself from stdin)",
                window.as_secs_f64()
            ));
            if let Some(scan) = &scan {
                context.detail(&format!("stdin: {}", scan_text(scan)));
            }
        }
        StdinUse::Waited(scan) => context.detail(&format!(
            "stdin: nothing within the window, but process {} of this pipeline holds it open, so \
             it is read to the end ({})",
            scan.writer.unwrap_or_default(),
            scan_text(&scan)
        )),
        StdinUse::NotRead | StdinUse::Read => {}
    }
}

fn read_images(paths: &[PathBuf]) -> CliResult<Vec<ContentBlock>> {
    use base64::Engine as _;
    let mut blocks = Vec::new();
    for path in paths {
        let bytes = std::fs::read(path).map_err(|error| {
            CliError::usage(format!("cannot read image '{}': {error}", path.display()))
                .with_hint("-i takes the path of a PNG, JPEG, GIF or WebP file")
        })?;
        let mime = if bytes.starts_with(b"\x89PNG") {
            "image/png"
        } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
            "image/jpeg"
        } else if bytes.starts_with(b"GIF8") {
            "image/gif"
        } else if bytes.len() > 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            "image/webp"
        } else {
            return Err(CliError::usage(format!(
                "'{}' is not a PNG, JPEG, GIF or WebP image",
                path.display()
            )));
        };
        blocks.push(ContentBlock::Image(ImageBlock {
            data: base64::engine::general_purpose::STANDARD.encode(&bytes),
            mime_type: mime.to_owned(),
        }));
    }
    Ok(blocks)
}

fn read_text_file(path: &Path, what: &str) -> CliResult<String> {
    std::fs::read_to_string(path).map_err(|error| {
        CliError::usage(format!("cannot read {what} '{}': {error}", path.display()))
            .with_hint(format!("check the path given to {what}"))
    })
}
