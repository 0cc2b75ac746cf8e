//! Configuration data: where pincer keeps its files, what `config.toml` may contain, and the
//! built-in model catalog.
//!
//! This module only describes and parses; it never creates directories or writes files, and it
//! never prints. Turning the parsed file, `-c` overrides and the environment into the plain values
//! the rest of the program uses is `settings.rs`'s job (SPEC §11).
//!
//! Every failure here is a [`ConfigError`]: a usage/config error that `main` maps to exit code 2.
//! The errors keep the evidence (file path, line, the offending key or `-c` argument) so the
//! message can point at the exact spot, and [`ConfigError::hint`] says what to do about it.

pub(crate) mod catalog;
pub mod file;
pub use pincer_base::paths;

use std::fmt;
use std::path::PathBuf;

pub use catalog::{Catalog, Cost, ModelInfo, catalog};
pub use file::{ConfigFile, apply_override};
pub use paths::Paths;

/// Where a piece of configuration came from, so an error can point back at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigOrigin {
    /// A line of a config file (the line is 1-based; unknown when the parser gave no span).
    File {
        /// The config file.
        path: PathBuf,
        /// 1-based line number of the offending key or value.
        line: Option<usize>,
    },
    /// One `-c KEY=VALUE` argument, kept verbatim.
    Override {
        /// The argument as the user typed it.
        spec: String,
    },
    /// An environment variable standing for a key (`PINCER_ALLOW_LOCAL_LOCKS`).
    Environment {
        /// The variable's name.
        name: &'static str,
    },
}

impl fmt::Display for ConfigOrigin {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File {
                path,
                line: Some(line),
            } => write!(formatter, "'{}' (line {line})", path.display()),
            Self::File { path, line: None } => write!(formatter, "'{}'", path.display()),
            Self::Override { spec } => write!(formatter, "-c '{spec}'"),
            Self::Environment { name } => write!(formatter, "the environment variable {name}"),
        }
    }
}

/// A configuration problem. Always a usage/config error (exit code 2); the Display text is one
/// line, and [`ConfigError::hint`] adds an actionable second line.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file exists but could not be read (permissions, a directory in its place, …).
    /// A missing file is not an error: it means "all defaults".
    #[error("cannot read config file '{}': {source}", path.display())]
    Read {
        /// The config file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },

    /// The file is not valid TOML (or not valid UTF-8).
    #[error("invalid TOML in {origin}: {message}")]
    Syntax {
        /// The file and line.
        origin: ConfigOrigin,
        /// The parser's message, first line only.
        message: String,
    },

    /// A key the schema does not know. Typos must not be silently ignored (SPEC §11).
    #[error("unknown key '{key}'{} in {origin}", table_suffix(table))]
    UnknownKey {
        /// The key as written.
        key: String,
        /// Dotted path of the table holding it; empty for the top level.
        table: String,
        /// The file and line, or the `-c` argument.
        origin: ConfigOrigin,
        /// The keys that are valid in that table, for the hint.
        expected: Vec<String>,
    },

    /// A known key with a value of the wrong type or outside its set of choices.
    #[error("invalid value{} in {origin}: {message}", key_suffix(key))]
    InvalidValue {
        /// Dotted path of the key, when it could be determined.
        key: Option<String>,
        /// The file and line, or the `-c` argument.
        origin: ConfigOrigin,
        /// What was wrong, from the deserializer.
        message: String,
    },

    /// A `-c` argument that is not `KEY=VALUE`, or whose key cannot be parsed.
    #[error("invalid -c argument '{spec}': {reason}")]
    OverrideSyntax {
        /// The argument as the user typed it.
        spec: String,
        /// What is wrong with it.
        reason: file::OverrideProblem,
    },

    /// Neither `--home`/`PINCER_HOME` nor a home directory for the XDG locations.
    #[error("cannot determine where pincer keeps its files: no home directory found")]
    NoHome,

    /// A model reference that is neither `provider/model` nor a known alias.
    #[error("unknown model '{reference}'")]
    UnknownModel {
        /// The reference as given.
        reference: String,
        /// Aliases that would have worked, for the hint.
        known_aliases: Vec<String>,
    },

    /// A `provider/model` reference with an empty half, or an alias pointing at one.
    #[error("invalid model reference '{reference}': {reason}")]
    InvalidModelRef {
        /// The reference as given.
        reference: String,
        /// What is wrong with it.
        reason: String,
    },
}

fn table_suffix(table: &str) -> String {
    if table.is_empty() {
        String::new()
    } else {
        format!(" in table [{table}]")
    }
}

fn key_suffix(key: &Option<String>) -> String {
    match key {
        Some(key) => format!(" for '{key}'"),
        None => String::new(),
    }
}

/// The hint for a file or directory of pincer's home that cannot be read or written.
pub fn access_hint(path: &std::path::Path) -> String {
    format!(
        "check the owner and permissions of '{}' (pincer must read and write it), or point \
         --home / PINCER_HOME elsewhere",
        path.display()
    )
}

/// The model a mistyped reference most likely meant, from the aliases and the catalog of every
/// provider: an alias, a bare model id (`gpt-5`) or `provider/id`.
fn meant_model(reference: &str, known_aliases: &[String]) -> Option<String> {
    let catalog = catalog::catalog();
    let ids: Vec<String> = catalog
        .models()
        .iter()
        .map(|info| info.id.clone())
        .collect();
    let qualified: Vec<String> = catalog
        .models()
        .iter()
        .map(|info| format!("{}/{}", info.provider, info.id))
        .collect();
    let candidates = known_aliases.iter().chain(&ids).chain(&qualified);
    crate::suggest::closest(reference, candidates.map(String::as_str)).map(str::to_owned)
}

impl From<paths::NoHome> for ConfigError {
    fn from(_: paths::NoHome) -> ConfigError {
        ConfigError::NoHome
    }
}

impl ConfigError {
    /// A second line telling the user what to do, when there is something useful to say.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::Read { path, .. } => Some(access_hint(path)),
            Self::Syntax { .. } => Some(
                "fix the TOML syntax; strings need quotes, e.g. model = \"anthropic/claude-sonnet-4-5\""
                    .to_owned(),
            ),
            Self::UnknownKey { key, expected, .. } if !expected.is_empty() => {
                match crate::suggest::closest(key, expected.iter().map(String::as_str)) {
                    Some(meant) => Some(format!("did you mean `{meant}`?")),
                    None => Some(format!("valid keys here: {}", expected.join(", "))),
                }
            }
            Self::UnknownKey { .. } => Some("remove the key or check its spelling".to_owned()),
            Self::InvalidValue { .. } => None,
            Self::OverrideSyntax { .. } => Some(
                "write -c KEY=VALUE with a dotted key, e.g. -c model=openai/gpt-5 or \
                 -c providers.anthropic.base_url=\"http://127.0.0.1:8080\""
                    .to_owned(),
            ),
            Self::NoHome => Some("set PINCER_HOME or pass --home DIR".to_owned()),
            Self::UnknownModel {
                reference,
                known_aliases,
            } => {
                if let Some(meant) = meant_model(reference, known_aliases) {
                    return Some(format!("did you mean `{meant}`?"));
                }
                let mut hint = "use provider/model (e.g. anthropic/claude-sonnet-4-5, openai/gpt-5, \
                                google/gemini-2.5-pro, ollama/qwen3)"
                    .to_owned();
                if !known_aliases.is_empty() {
                    hint.push_str(" or an alias: ");
                    hint.push_str(&known_aliases.join(", "));
                }
                Some(hint)
            }
            Self::InvalidModelRef { .. } => {
                Some("use provider/model, e.g. anthropic/claude-sonnet-4-5".to_owned())
            }
        }
    }
}
