//! Man pages and shell completions, generated from the clap definition in `cli.rs`.
//!
//! The output is committed under `man/` and `completions/` and must be a pure function of the
//! command-line definition (no dates, no environment), so a test can regenerate it and compare byte
//! for byte. `pincer generate-docs` calls [`write_all`].

use std::io;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::{Generator, Shell};

use crate::cli::Cli;

/// Name of the binary, as completions and man pages spell it.
const BINARY_NAME: &str = "pincer";

/// Directory of the man pages, relative to the output root.
const MAN_DIRECTORY: &str = "man";

/// Directory of the completion scripts, relative to the output root.
const COMPLETIONS_DIRECTORY: &str = "completions";

/// Shells that get a completion script.
const SHELLS: [Shell; 5] = [
    Shell::Bash,
    Shell::Zsh,
    Shell::Fish,
    Shell::Elvish,
    Shell::PowerShell,
];

/// Every generated file: its path relative to the output root and its contents.
///
/// One man page for `pincer` and one for each visible subcommand, nested ones included
/// (`man/pincer-sessions-list.1`), then one completion script per shell in [`SHELLS`].
pub fn render_all() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();

    let mut command = Cli::command();
    command.build();
    render_man_pages(&command, &mut files);

    for shell in SHELLS {
        files.push((
            Path::new(COMPLETIONS_DIRECTORY).join(shell.file_name(BINARY_NAME)),
            render_completion(shell),
        ));
    }
    files
}

/// The completion script for one shell.
pub fn render_completion(shell: Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), BINARY_NAME, &mut script);
    script
}

/// A generated file (or one of its directories) that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("'{}': {source}", .path.display())]
pub struct WriteError {
    /// The file or directory.
    pub path: PathBuf,
    /// Why; a [`crate::fs::NotRegular`] when a link or a special file is in the way.
    #[source]
    pub source: io::Error,
}

/// Writes [`render_all`] under `root`, creating `man/` and `completions/` as needed and removing
/// files there that are no longer generated (a removed subcommand leaves no stale page behind).
///
/// `root` is often a repository, whose content is not pincer's to trust: `man/` and
/// `completions/` must be real directories (a link there would have pincer delete the other
/// directory's files as stale pages), and no page is written through a link at its name or
/// into anything but a regular file (SPEC §10).
pub fn write_all(root: &Path) -> Result<(), WriteError> {
    let files = render_all();
    for directory in [MAN_DIRECTORY, COMPLETIONS_DIRECTORY] {
        let directory = root.join(directory);
        let at = |source| WriteError {
            path: directory.clone(),
            source,
        };
        std::fs::create_dir_all(&directory).map_err(at)?;
        let kind = crate::fs::FileKind::of(
            std::fs::symlink_metadata(&directory)
                .map_err(at)?
                .file_type(),
        );
        if kind != crate::fs::FileKind::Directory {
            return Err(at(crate::fs::NotRegular(kind).into_io()));
        }
        for entry in std::fs::read_dir(&directory).map_err(at)? {
            let path = entry.map_err(at)?.path();
            let generated = files
                .iter()
                .any(|(relative, _)| root.join(relative) == path);
            if path.is_file() && !generated {
                // A link is removed itself, never what it points to.
                std::fs::remove_file(&path).map_err(|source| WriteError { path, source })?;
            }
        }
    }
    for (relative, contents) in &files {
        let path = root.join(relative);
        crate::fs::open_for_user(&path, crate::fs::UserFile::Truncate)
            .and_then(|mut file| io::Write::write_all(&mut file, contents))
            .map_err(|source| WriteError { path, source })?;
    }
    Ok(())
}

/// Renders the page of `command` and recurses into its visible subcommands. `command` must be
/// built, so subcommands carry their full names (`pincer-sessions-list`).
fn render_man_pages(command: &clap::Command, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    // Every page names the crate and its version (clap alone writes "resume " on subcommands).
    let man = clap_mangen::Man::new(command.clone())
        .source(concat!("pincer ", env!("CARGO_PKG_VERSION")))
        .manual("pincer manual");
    let mut page = Vec::new();
    #[expect(clippy::expect_used, reason = "writing to a Vec<u8> cannot fail")]
    man.render(&mut page)
        .expect("render a man page into memory");
    files.push((Path::new(MAN_DIRECTORY).join(man.get_filename()), page));

    for subcommand in command.get_subcommands() {
        // clap's generated `help` subcommand has no page of its own; hidden ones stay hidden.
        if subcommand.is_hide_set() || subcommand.get_name() == "help" {
            continue;
        }
        render_man_pages(subcommand, files);
    }
}
