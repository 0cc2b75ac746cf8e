//! Settings: the command line, the environment, `config.toml` and the defaults, resolved once
//! into plain values (SPEC §11).
//!
//! Precedence is CLI > environment > config file > defaults. `-c KEY=VALUE` overrides are part of
//! the CLI layer; flags with their own meaning (`-m`, `--sandbox`, …) are applied on top by
//! `commands/`, which is the only code that sees clap types. The environment is injected as a
//! function, so tests never set process-wide variables.
//!
//! Nothing here prints, creates files or reads anything but `config.toml`.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::config::file::{BackendConfig, ConfigFile, ToolProfile, parse_document};
use crate::config::{ConfigError, ConfigOrigin, ModelInfo, Paths, catalog};
use crate::conversation::{ApiKind, CacheTtl, SandboxMode, StructuredMode, ThinkingLevel};

pub(crate) use crate::agent::compaction::{DEFAULT_KEEP_RECENT_TOKENS, DEFAULT_RESERVE_TOKENS};
pub(crate) use crate::agent::context_files::DEFAULT_WORKSPACE_FILES;
/// Upper bound on one model request.
pub(crate) const DEFAULT_REQUEST_SECS: u64 = 600;
/// Longest silence tolerated from a provider stream or CLI child.
pub(crate) const DEFAULT_IDLE_SECS: u64 = 300;
/// Cap per workspace context file, in characters (SPEC §6.2).
pub(crate) const DEFAULT_MAX_FILE_CHARS: usize = 20_000;
/// Largest accepted stdin (SPEC §2).
pub(crate) const DEFAULT_STDIN_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// Invalid `--json-schema` answers sent back before the run gives up (SPEC §3.4).
pub(crate) const DEFAULT_STRUCTURED_OUTPUT_RETRIES: u32 = 2;
/// Context window assumed for a configured model with no catalog entry and no `context_window`.
pub(crate) const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
/// Output limit assumed for a configured model with no catalog entry and no `max_output`.
pub(crate) const DEFAULT_MAX_OUTPUT: u64 = 8_192;

/// Environment variables removed from a CLI backend's environment unless `clear_env` says
/// otherwise, so `claude` / `codex` use their own login rather than a key meant for pincer
/// (SPEC §4.2.6).
pub(crate) const DEFAULT_CLEAR_ENV: [&str; 6] = crate::redact::KEY_VARIABLES;

/// The built-in providers and what they speak, where their keys and base URLs come from.
struct BuiltinProvider {
    name: &'static str,
    api: ApiKind,
    /// The public endpoint. Request paths are appended by the provider code: Anthropic
    /// `/v1/messages`, OpenAI `/responses` and `/chat/completions`, Gemini
    /// `/models/{model}:streamGenerateContent`.
    base_url: &'static str,
    /// The environment variable overriding `base_url`.
    base_url_env: Option<&'static str>,
}

const BUILTIN_PROVIDERS: [BuiltinProvider; 5] = [
    BuiltinProvider {
        name: "anthropic",
        api: ApiKind::Anthropic,
        base_url: "https://api.anthropic.com",
        base_url_env: Some("ANTHROPIC_BASE_URL"),
    },
    BuiltinProvider {
        name: "openai",
        api: ApiKind::OpenAi,
        base_url: "https://api.openai.com/v1",
        base_url_env: Some("OPENAI_BASE_URL"),
    },
    BuiltinProvider {
        name: "openai-chat",
        api: ApiKind::OpenAiChat,
        base_url: "https://api.openai.com/v1",
        base_url_env: Some("OPENAI_BASE_URL"),
    },
    BuiltinProvider {
        name: "google",
        api: ApiKind::Google,
        base_url: "https://generativelanguage.googleapis.com/v1beta",
        base_url_env: Some("GEMINI_BASE_URL"),
    },
    BuiltinProvider {
        name: "ollama",
        api: ApiKind::OpenAiChat,
        base_url: "http://127.0.0.1:11434/v1",
        base_url_env: Some("OLLAMA_HOST"),
    },
];

fn builtin_provider(name: &str) -> Option<&'static BuiltinProvider> {
    BUILTIN_PROVIDERS
        .iter()
        .find(|builtin| builtin.name == name)
}

/// The environment variables a built-in provider's key is read from when no auth profile
/// applies, in order (SPEC §9.1). Empty for providers without keys (`ollama`) and unknown names.
pub(crate) fn credential_env_vars(provider: &str) -> &'static [&'static str] {
    match provider {
        "anthropic" => &["ANTHROPIC_API_KEY"],
        "openai" | "openai-chat" => &["OPENAI_API_KEY"],
        "google" => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        _ => &[],
    }
}

/// Reads the real process environment; what `main` passes to [`Settings::load`].
pub(crate) fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// A model reference resolved to its provider and the provider's model id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelRef {
    /// Provider or CLI backend name (`anthropic`, `ollama`, `claude-cli`, a custom name).
    pub provider: String,
    /// The model id as the provider knows it (or as the CLI backend takes it).
    pub model: String,
}

impl std::fmt::Display for ModelRef {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}/{}", self.provider, self.model)
    }
}

/// `[compaction]`, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionSettings {
    /// Compact automatically. Default: true.
    pub enabled: bool,
    /// Default: [`DEFAULT_RESERVE_TOKENS`].
    pub reserve_tokens: u64,
    /// Default: [`DEFAULT_KEEP_RECENT_TOKENS`].
    pub keep_recent_tokens: u64,
}

/// `[retry]`, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySettings {
    /// Default: 3.
    pub max_retries: u32,
    /// Default: 500 ms.
    pub base_delay_ms: u64,
    /// Default: 8,000 ms.
    pub max_delay_ms: u64,
}

/// `[tools]`, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSettings {
    /// Default: `coding`.
    pub profile: ToolProfile,
    /// Default: empty.
    pub allow: Vec<String>,
    /// Default: empty.
    pub deny: Vec<String>,
    /// Default: `workspace-write` (SPEC §10).
    pub sandbox: SandboxMode,
    /// `tools.add_dirs` as written (relative paths start at the workspace). Default: empty.
    pub add_dirs: Vec<PathBuf>,
    /// `[tools.exec]`.
    pub exec: ExecSettings,
    /// `tools.web_fetch.allow_private`. Default: false.
    pub web_fetch_allow_private: bool,
    /// `tools.web_search`: the provider's web search on every turn. Default: false.
    pub web_search: bool,
    /// `[sandbox] network` (or codex's `sandbox_workspace_write.network_access`): commands reach
    /// the network. Default: false.
    pub network: bool,
    /// `[sandbox.network]`: the network by name (SPEC §20). Default: no rules.
    pub network_rules: NetworkRules,
}

/// `[sandbox.network]`, as written (each pattern already checked): the hosts commands may reach
/// when the network is not open whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkRules {
    /// `allow`.
    pub allow: Vec<String>,
    /// `deny`.
    pub deny: Vec<String>,
    /// `resolve`: each name with its pinned addresses.
    pub resolve: Vec<(String, Vec<String>)>,
}

/// `[tools.exec]`, resolved: the `exec` tool's environment (SPEC §10).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecSettings {
    /// Variables removed by name. Default: [`DEFAULT_CLEAR_ENV`] and every provider's
    /// `api_key_env`.
    pub clear_env: Vec<String>,
    /// Variables added. Default: empty.
    pub env: BTreeMap<String, String>,
}

impl ExecSettings {
    fn resolve(config: &ConfigFile) -> Self {
        let clear_env = config.tools.exec.clear_env.clone().unwrap_or_else(|| {
            let mut names: Vec<String> = DEFAULT_CLEAR_ENV
                .iter()
                .map(|name| (*name).to_owned())
                .collect();
            for variable in config
                .providers
                .values()
                .filter_map(|provider| provider.api_key_env.as_ref())
            {
                if !names.contains(variable) {
                    names.push(variable.clone());
                }
            }
            names
        });
        Self {
            clear_env,
            env: config.tools.exec.env.clone(),
        }
    }
}

/// `[timeouts]`, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeoutSettings {
    /// Default: [`DEFAULT_REQUEST_SECS`].
    pub request_secs: u64,
    /// Default: [`DEFAULT_IDLE_SECS`].
    pub idle_secs: u64,
    /// `None`: 0.5 s with a prompt argument, 5 s when stdin is the prompt (SPEC §2).
    pub stdin_secs: Option<f64>,
}

/// `[workspace]`, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceSettings {
    /// Default: [`DEFAULT_WORKSPACE_FILES`].
    pub files: Vec<String>,
    /// Default: [`DEFAULT_MAX_FILE_CHARS`].
    pub max_file_chars: usize,
    /// Appended to the system prompt on every turn. Default: empty.
    pub append_system_prompt: Vec<String>,
    /// The context files the agent may edit. Default: none.
    pub writable: Vec<String>,
}

/// `[skills]`, resolved (SPEC §6.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillSettings {
    /// Search the default places and `paths`. Default: true.
    pub enabled: bool,
    /// More places, absolute or relative to the workspace. Default: empty.
    pub paths: Vec<std::path::PathBuf>,
}

pub(crate) use crate::backend::BackendSettings;

/// One CLI backend from its `[backends.NAME]` table.
fn resolve_backend(config: &BackendConfig, default_command: &str) -> BackendSettings {
    BackendSettings {
        command: config
            .command
            .clone()
            .unwrap_or_else(|| default_command.to_owned()),
        extra_args: config.extra_args.clone(),
        clear_env: config.clear_env.clone().unwrap_or_else(|| {
            DEFAULT_CLEAR_ENV
                .iter()
                .map(|name| (*name).to_owned())
                .collect()
        }),
        env: config.env.clone(),
    }
}

/// Everything configurable, resolved once at startup.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Where files live.
    pub paths: Paths,
    /// `config.toml` with the `-c` overrides applied, as written (unset keys stay `None`).
    pub config: ConfigFile,
    /// Whether `config.toml` exists (`status` reports it).
    pub config_file_found: bool,
    /// Default model reference, unresolved (`-m` is applied by the caller). Default: none.
    pub model: Option<String>,
    /// Failover models, unresolved. Default: empty.
    pub fallbacks: Vec<String>,
    /// Default reasoning level. Default: none.
    pub thinking: Option<ThinkingLevel>,
    /// Automatic compaction.
    pub compaction: CompactionSettings,
    /// `[cache] ttl`: how long Anthropic keeps prompt-cache writes. Default: five minutes.
    pub cache_ttl: CacheTtl,
    /// Retries of failed model calls.
    pub retry: RetrySettings,
    /// Tool policy and sandbox.
    pub tools: ToolSettings,
    /// Time limits.
    pub timeouts: TimeoutSettings,
    /// Workspace context files.
    pub workspace: WorkspaceSettings,
    /// Skill discovery.
    pub skills: SkillSettings,
    /// Largest accepted stdin, in bytes. Default: [`DEFAULT_STDIN_MAX_BYTES`].
    pub stdin_max_bytes: u64,
    /// `structured_output.max_retries`: invalid `--json-schema` answers sent back. Default:
    /// [`DEFAULT_STRUCTURED_OUTPUT_RETRIES`].
    pub structured_output_max_retries: u32,
    /// `[backends.claude-cli]`.
    pub claude_cli: BackendSettings,
    /// `[backends.codex-cli]`.
    pub codex_cli: BackendSettings,
    /// `-c sessions.allow_local_locks` > `PINCER_ALLOW_LOCAL_LOCKS` > `[sessions]
    /// allow_local_locks`: locks that other machines do not see may be used. Default: false.
    pub allow_local_locks: bool,
    /// `[store]`; the command line's `--store` / `PINCER_STORE` replace its URL.
    pub store: StoreSettings,
    /// Resolved base URL per provider (built-in and configured), and where each came from.
    base_urls: BTreeMap<String, (String, BaseUrlOrigin)>,
}

/// The session store (SPEC §19), resolved: `--store` > `PINCER_STORE` > `[store] url`.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreSettings {
    /// None: no store (an empty URL anywhere turns it off).
    pub url: Option<String>,
    /// Where the URL came from, for messages: `--store`, `PINCER_STORE`, `[store] url`.
    pub origin: &'static str,
    /// Default: [`DEFAULT_LEASE_TTL_SECS`].
    pub lease_ttl_secs: f64,
    /// Default: 60.
    pub request_timeout_secs: f64,
    /// Default: 10.
    pub connect_timeout_secs: f64,
    /// Default: 3.
    pub max_retries: u32,
}

/// How long a session's lease stays valid without a renewal, by default.
pub(crate) const DEFAULT_LEASE_TTL_SECS: f64 = 30.0;

impl StoreSettings {
    fn from_config(config: &crate::config::file::StoreConfig) -> Self {
        Self {
            url: config.url.clone().filter(|url| !url.trim().is_empty()),
            origin: "[store] url in config.toml",
            lease_ttl_secs: config.lease_ttl_secs.unwrap_or(DEFAULT_LEASE_TTL_SECS),
            request_timeout_secs: config.request_timeout_secs.unwrap_or(60.0),
            connect_timeout_secs: config.connect_timeout_secs.unwrap_or(10.0),
            max_retries: config.max_retries.unwrap_or(3),
        }
    }

    /// The command line's choice (`--store URL` or `PINCER_STORE`, as clap read them) over
    /// the config's: an empty value turns the store off.
    pub fn choose(&mut self, chosen: Option<&str>, origin: &'static str) {
        if let Some(url) = chosen {
            self.url = (!url.trim().is_empty()).then(|| url.trim().to_owned());
            self.origin = origin;
        }
    }
}

/// Where a provider's base URL came from, so that a message about a URL that does not work
/// names the setting to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseUrlOrigin {
    /// `-c providers.NAME.base_url=…`.
    Override,
    /// A variable (`ANTHROPIC_BASE_URL`, `OLLAMA_HOST`, …).
    Environment(&'static str),
    /// `[providers.NAME] base_url` in config.toml.
    ConfigFile,
    /// The built-in endpoint.
    Builtin,
}

impl BaseUrlOrigin {
    /// The setting to check, in words (`ANTHROPIC_BASE_URL`, `providers.ollama.base_url in
    /// config.toml`); `None` for the built-in endpoint.
    pub fn setting(&self, provider: &str) -> Option<String> {
        match self {
            BaseUrlOrigin::Override => Some(format!("-c providers.{provider}.base_url")),
            BaseUrlOrigin::Environment(variable) => Some((*variable).to_owned()),
            BaseUrlOrigin::ConfigFile => {
                Some(format!("providers.{provider}.base_url in config.toml"))
            }
            BaseUrlOrigin::Builtin => None,
        }
    }
}

/// `allow_local_locks`: a `-c` override (the merged config differs from the file's) beats
/// `PINCER_ALLOW_LOCAL_LOCKS`, which beats the file.
fn resolve_allow_local_locks(
    file_config: &ConfigFile,
    config: &ConfigFile,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<bool, ConfigError> {
    let overridden = config.sessions.allow_local_locks;
    if overridden != file_config.sessions.allow_local_locks {
        return Ok(overridden.unwrap_or(false));
    }
    match env(ALLOW_LOCAL_LOCKS_ENV).as_deref().map(str::trim) {
        None | Some("") => Ok(config.sessions.allow_local_locks.unwrap_or(false)),
        Some("1" | "true" | "yes") => Ok(true),
        Some("0" | "false" | "no") => Ok(false),
        Some(other) => Err(ConfigError::InvalidValue {
            key: Some("sessions.allow_local_locks".to_owned()),
            origin: ConfigOrigin::Environment {
                name: ALLOW_LOCAL_LOCKS_ENV,
            },
            message: format!("'{other}' is neither 1 nor 0"),
        }),
    }
}

/// The variable that allows locks other machines do not see, like `[sessions]
/// allow_local_locks`.
pub(crate) const ALLOW_LOCAL_LOCKS_ENV: &str = "PINCER_ALLOW_LOCAL_LOCKS";

impl Settings {
    /// Resolves paths, reads `config.toml` (a missing file means defaults), applies the `-c`
    /// overrides and the environment, and fills in defaults.
    ///
    /// `home` is `--home` / `PINCER_HOME` as clap read it; `env` looks up environment variables
    /// (pass [`process_env`] in production).
    pub fn load(
        home: Option<&Path>,
        overrides: &[String],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let paths = Paths::resolve(home)?;
        let config_path = paths.config_file.clone();
        let text = match std::fs::read(&config_path) {
            Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| ConfigError::Syntax {
                origin: ConfigOrigin::File {
                    path: config_path.clone(),
                    line: None,
                },
                message: "the file is not valid UTF-8".to_owned(),
            })?),
            Err(error) if error.kind() == ErrorKind::NotFound => None,
            Err(source) => {
                return Err(ConfigError::Read {
                    path: config_path,
                    source,
                });
            }
        };
        let config_file_found = text.is_some();
        let text = text.unwrap_or_default();
        Self::from_text(paths, &text, config_file_found, overrides, env)
    }

    /// [`Settings::load`] without the file system: `text` is the config file's content.
    pub fn from_text(
        paths: Paths,
        text: &str,
        config_file_found: bool,
        overrides: &[String],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        // The file alone first: its errors can point at a line.
        let file_config = ConfigFile::parse(text, &paths.config_file)?;
        let config = if overrides.is_empty() {
            file_config.clone()
        } else {
            let document = parse_document(text, &paths.config_file)?;
            ConfigFile::with_overrides(document, overrides, &paths.config_file)?
        };

        let base_urls = resolve_base_urls(&file_config, &config, env);
        let defaults_files = || {
            DEFAULT_WORKSPACE_FILES
                .iter()
                .map(|name| (*name).to_owned())
                .collect()
        };
        Ok(Self {
            model: config.model.clone(),
            fallbacks: config.fallbacks.clone(),
            thinking: config.thinking,
            compaction: CompactionSettings {
                enabled: config.compaction.enabled.unwrap_or(true),
                reserve_tokens: config
                    .compaction
                    .reserve_tokens
                    .unwrap_or(DEFAULT_RESERVE_TOKENS),
                keep_recent_tokens: config
                    .compaction
                    .keep_recent_tokens
                    .unwrap_or(DEFAULT_KEEP_RECENT_TOKENS),
            },
            cache_ttl: config.cache.ttl.unwrap_or_default(),
            retry: RetrySettings {
                max_retries: config.retry.max_retries.unwrap_or(3),
                base_delay_ms: config.retry.base_delay_ms.unwrap_or(500),
                max_delay_ms: config.retry.max_delay_ms.unwrap_or(8_000),
            },
            tools: ToolSettings {
                profile: config.tools.profile.unwrap_or(ToolProfile::Coding),
                allow: config.tools.allow.clone(),
                deny: config.tools.deny.clone(),
                sandbox: config.tools.sandbox.unwrap_or(SandboxMode::WorkspaceWrite),
                add_dirs: config.tools.add_dirs.clone(),
                exec: ExecSettings::resolve(&config),
                web_fetch_allow_private: config.tools.web_fetch.allow_private.unwrap_or(false),
                web_search: config.tools.web_search.unwrap_or(false),
                network: match &config.sandbox.network {
                    Some(network) => network.is_on(),
                    None => config.sandbox_workspace_write.network_access == Some(true),
                },
                network_rules: match &config.sandbox.network {
                    Some(crate::config::file::NetworkConfig::Rules(rules)) => NetworkRules {
                        allow: rules.allow.clone(),
                        deny: rules.deny.clone(),
                        resolve: rules
                            .resolve
                            .iter()
                            .map(|(host, addresses)| (host.clone(), addresses.to_vec()))
                            .collect(),
                    },
                    _ => NetworkRules::default(),
                },
            },
            timeouts: TimeoutSettings {
                request_secs: config.timeouts.request_secs.unwrap_or(DEFAULT_REQUEST_SECS),
                idle_secs: config.timeouts.idle_secs.unwrap_or(DEFAULT_IDLE_SECS),
                stdin_secs: config.timeouts.stdin_secs,
            },
            workspace: WorkspaceSettings {
                files: config
                    .workspace
                    .files
                    .clone()
                    .unwrap_or_else(defaults_files),
                max_file_chars: config
                    .workspace
                    .max_file_chars
                    .unwrap_or(DEFAULT_MAX_FILE_CHARS),
                append_system_prompt: config.workspace.append_system_prompt.clone(),
                writable: config.workspace.writable.clone(),
            },
            skills: SkillSettings {
                enabled: config.skills.enabled.unwrap_or(true),
                paths: config.skills.paths.clone(),
            },
            stdin_max_bytes: config.stdin.max_bytes.unwrap_or(DEFAULT_STDIN_MAX_BYTES),
            structured_output_max_retries: config
                .structured_output
                .max_retries
                .unwrap_or(DEFAULT_STRUCTURED_OUTPUT_RETRIES),
            claude_cli: resolve_backend(&config.backends.claude_cli, "claude"),
            codex_cli: resolve_backend(&config.backends.codex_cli, "codex"),
            allow_local_locks: resolve_allow_local_locks(&file_config, &config, env)?,
            store: StoreSettings::from_config(&config.store),
            base_urls,
            paths,
            config,
            config_file_found,
        })
    }

    /// The base URL requests to `provider` go to: `-c providers.NAME.base_url` > the provider's
    /// environment variable (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`, `GEMINI_BASE_URL`,
    /// `OLLAMA_HOST`) > `config.toml` > the built-in endpoint. `None` for a custom provider
    /// without a `base_url`.
    pub fn base_url(&self, provider: &str) -> Option<String> {
        self.base_urls.get(provider).map(|(url, _)| url.clone())
    }

    /// Where [`Settings::base_url`] of `provider` came from.
    pub fn base_url_origin(&self, provider: &str) -> Option<&BaseUrlOrigin> {
        self.base_urls.get(provider).map(|(_, origin)| origin)
    }

    /// The wire protocol of `provider`: `api` from the config, else the built-in provider's.
    /// `None` for CLI backends and for custom providers without `api`.
    pub fn provider_api(&self, provider: &str) -> Option<ApiKind> {
        self.config
            .providers
            .get(provider)
            .and_then(|config| config.api)
            .or_else(|| builtin_provider(provider).map(|builtin| builtin.api))
    }

    /// Extra HTTP headers configured for `provider`.
    pub fn provider_headers(&self, provider: &str) -> BTreeMap<String, String> {
        self.config
            .providers
            .get(provider)
            .map(|config| config.headers.clone())
            .unwrap_or_default()
    }

    /// The environment variables `provider`'s key may come from, in order: the configured
    /// `api_key_env` alone when set, else the built-in list of [`credential_env_vars`].
    pub fn key_env_vars(&self, provider: &str) -> Vec<String> {
        match self
            .config
            .providers
            .get(provider)
            .and_then(|config| config.api_key_env.clone())
        {
            Some(variable) => vec![variable],
            None => credential_env_vars(provider)
                .iter()
                .map(|name| (*name).to_owned())
                .collect(),
        }
    }

    /// Every variable a provider key may be read from, whichever provider a run uses: the
    /// built-in providers' ([`crate::redact::KEY_VARIABLES`]) and every configured
    /// `api_key_env`, each once. No child process inherits them (SPEC §10).
    pub fn key_variables(&self) -> Vec<String> {
        let mut names: Vec<String> = crate::redact::KEY_VARIABLES
            .iter()
            .map(|name| (*name).to_owned())
            .collect();
        for name in self
            .config
            .providers
            .values()
            .filter_map(|provider| provider.api_key_env.as_ref())
        {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }

    /// The settings of a CLI backend by name (`claude-cli`, `codex-cli`).
    pub fn backend(&self, name: &str) -> Option<&BackendSettings> {
        match name {
            "claude-cli" => Some(&self.claude_cli),
            "codex-cli" => Some(&self.codex_cli),
            _ => None,
        }
    }

    /// Resolves a model reference: `provider/model` as given (the model part may itself contain
    /// `/`, as OpenRouter ids do), else a `[aliases]` entry from the config, else a catalog
    /// alias or a model id known to exactly one provider.
    pub fn resolve_model_ref(&self, reference: &str) -> Result<ModelRef, ConfigError> {
        let reference = reference.trim();
        if reference.is_empty() {
            return Err(ConfigError::InvalidModelRef {
                reference: reference.to_owned(),
                reason: "it is empty".to_owned(),
            });
        }
        if reference.contains('/') {
            return split_model_ref(reference);
        }
        if let Some(target) = self.config.aliases.get(reference) {
            let target = target.trim();
            // An alias may name another catalog alias (`fast = "haiku"`), but not chain further.
            if target.contains('/') {
                return split_model_ref(target);
            }
            return catalog()
                .resolve_alias(target)
                .map(|(provider, model)| ModelRef {
                    provider: provider.to_owned(),
                    model: model.to_owned(),
                })
                .ok_or_else(|| ConfigError::InvalidModelRef {
                    reference: reference.to_owned(),
                    reason: format!("its alias target '{target}' is not provider/model"),
                });
        }
        if let Some((provider, model)) = catalog().resolve_alias(reference) {
            return Ok(ModelRef {
                provider: provider.to_owned(),
                model: model.to_owned(),
            });
        }
        let mut known_aliases: Vec<String> = self.config.aliases.keys().cloned().collect();
        known_aliases.extend(catalog().aliases().map(|(alias, _, _)| alias.to_owned()));
        known_aliases.sort();
        known_aliases.dedup();
        Err(ConfigError::UnknownModel {
            reference: reference.to_owned(),
            known_aliases,
        })
    }

    /// What pincer knows about a model: see [`model_info`].
    pub fn model_info(&self, provider: &str, model: &str) -> Option<ModelInfo> {
        model_info(&self.config, provider, model)
    }

    /// How `--json-schema` is enforced for `provider/model` speaking `api` (SPEC §3.4): the
    /// model's `structured_output` (config, else catalog), else the provider's, else `native`,
    /// except `tool` for a Chat Completions server whose models the catalog does not know
    /// (local servers mostly have no JSON Schema mode, and say so with a 400 or ignore it).
    pub fn structured_mode(&self, provider: &str, model: &str, api: ApiKind) -> StructuredMode {
        self.model_info(provider, model)
            .and_then(|info| info.structured_output)
            .or_else(|| {
                self.config
                    .providers
                    .get(provider)
                    .and_then(|config| config.structured_output)
            })
            .unwrap_or(match api {
                ApiKind::OpenAiChat if catalog().lookup(provider, model).is_none() => {
                    StructuredMode::Tool
                }
                _ => StructuredMode::Native,
            })
    }
}

/// What pincer knows about `provider/model`: the catalog entry, with any fields set in
/// `[providers.PROVIDER.models.MODEL]` replacing the catalog's. A model only in the config gets
/// [`DEFAULT_CONTEXT_WINDOW`], [`DEFAULT_MAX_OUTPUT`] and zero prices for what it leaves out. A
/// custom provider whose `api` is anthropic, openai or google also finds that provider's
/// catalog entries (a proxy in front of the real API costs the same). `None` when neither knows
/// the model.
pub(crate) fn model_info(config: &ConfigFile, provider: &str, model: &str) -> Option<ModelInfo> {
    let provider_config = config.providers.get(provider);
    let catalog_entry = catalog().lookup(provider, model).or_else(|| {
        let api_provider = match provider_config.and_then(|config| config.api)? {
            ApiKind::Anthropic => "anthropic",
            ApiKind::OpenAi => "openai",
            ApiKind::Google => "google",
            ApiKind::OpenAiChat => return None,
        };
        catalog().lookup(api_provider, model)
    });
    let configured = provider_config.and_then(|config| config.models.get(model));

    let mut info = match (catalog_entry, configured) {
        (None, None) => return None,
        (Some(entry), _) => entry.clone(),
        (None, Some(_)) => ModelInfo {
            provider: provider.to_owned(),
            id: model.to_owned(),
            context_window: DEFAULT_CONTEXT_WINDOW,
            max_output: DEFAULT_MAX_OUTPUT,
            input_price: 0.0,
            output_price: 0.0,
            cache_read_price: 0.0,
            cache_write_price: 0.0,
            cache_write_1h_price: 0.0,
            reasoning: false,
            structured_output: None,
            web_search: false,
            web_search_with_tools: true,
            web_search_price: 0.0,
            source: String::new(),
        },
    };
    if let Some(configured) = configured {
        let set = |target: &mut f64, value: Option<f64>| {
            if let Some(value) = value {
                *target = value;
            }
        };
        set(&mut info.input_price, configured.input_price);
        set(&mut info.output_price, configured.output_price);
        set(&mut info.cache_read_price, configured.cache_read_price);
        set(&mut info.cache_write_price, configured.cache_write_price);
        // A configured 5-minute price without a 1-hour one: the 1-hour cache costs the same,
        // unless the catalog knows better.
        if catalog_entry.is_none() {
            info.cache_write_1h_price = info.cache_write_price;
        }
        set(
            &mut info.cache_write_1h_price,
            configured.cache_write_1h_price,
        );
        if let Some(window) = configured.context_window {
            info.context_window = window;
        }
        if let Some(max_output) = configured.max_output {
            info.max_output = max_output;
        }
        if let Some(reasoning) = configured.reasoning {
            info.reasoning = reasoning;
        }
        if configured.structured_output.is_some() {
            info.structured_output = configured.structured_output;
        }
        if let Some(web_search) = configured.web_search {
            info.web_search = web_search;
        }
        if let Some(with_tools) = configured.web_search_with_tools {
            info.web_search_with_tools = with_tools;
        }
        set(&mut info.web_search_price, configured.web_search_price);
        info.provider = provider.to_owned();
        info.id = model.to_owned();
        info.source = if info.source.is_empty() {
            format!("config.toml [providers.{provider}.models.{model}]")
        } else {
            format!(
                "config.toml [providers.{provider}.models.{model}] over the catalog: {}",
                info.source
            )
        };
    }
    Some(info)
}

/// Splits `provider/model` at the first `/`.
fn split_model_ref(reference: &str) -> Result<ModelRef, ConfigError> {
    let invalid = |reason: &str| ConfigError::InvalidModelRef {
        reference: reference.to_owned(),
        reason: reason.to_owned(),
    };
    let (provider, model) = reference
        .split_once('/')
        .ok_or_else(|| invalid("expected provider/model"))?;
    let (provider, model) = (provider.trim(), model.trim());
    if provider.is_empty() {
        return Err(invalid("the provider before '/' is empty"));
    }
    if model.is_empty() {
        return Err(invalid("the model after '/' is empty"));
    }
    Ok(ModelRef {
        provider: provider.to_owned(),
        model: model.to_owned(),
    })
}

/// Resolves every provider's base URL once. An override is detected by comparing the file's
/// value with the value after `-c`: the two differ only when `-c` set it, and then it wins over
/// the environment.
fn resolve_base_urls(
    file_config: &ConfigFile,
    config: &ConfigFile,
    env: &dyn Fn(&str) -> Option<String>,
) -> BTreeMap<String, (String, BaseUrlOrigin)> {
    let configured = |config: &ConfigFile, provider: &str| {
        config
            .providers
            .get(provider)
            .and_then(|provider| provider.base_url.clone())
            .filter(|url| !url.trim().is_empty())
    };
    let mut names: Vec<&str> = BUILTIN_PROVIDERS
        .iter()
        .map(|builtin| builtin.name)
        .collect();
    names.extend(config.providers.keys().map(String::as_str));
    names.sort_unstable();
    names.dedup();

    let mut urls = BTreeMap::new();
    for name in names {
        let from_file = configured(file_config, name);
        let from_config = configured(config, name);
        let from_override = from_config
            .clone()
            .filter(|url| Some(url) != from_file.as_ref());
        let builtin = builtin_provider(name);
        let from_env = builtin
            .and_then(|builtin| builtin.base_url_env)
            .and_then(|variable| {
                let value = env(variable)?.trim().to_owned();
                (!value.is_empty()).then_some((variable, value))
            })
            .map(|(variable, value)| {
                let url = match name {
                    "ollama" => ollama_base_url(&value),
                    "google" => gemini_base_url(&value),
                    _ => value,
                };
                (url, BaseUrlOrigin::Environment(variable))
            });
        let url = from_override
            .map(|url| (url, BaseUrlOrigin::Override))
            .or(from_env)
            .or(from_config.map(|url| (url, BaseUrlOrigin::ConfigFile)))
            .or_else(|| {
                builtin.map(|builtin| (builtin.base_url.to_owned(), BaseUrlOrigin::Builtin))
            });
        if let Some((url, origin)) = url {
            urls.insert(
                name.to_owned(),
                (url.trim_end_matches('/').to_owned(), origin),
            );
        }
    }
    urls
}

/// `GEMINI_BASE_URL` as Google's SDKs read it: a server root (`https://proxy.example`,
/// `http://127.0.0.1:8080/gemini`) gets the API version `/v1beta` appended; a URL whose last path
/// segment already is a version (`/v1`, `/v1beta`, `/v1alpha`) is kept as it is.
fn gemini_base_url(url: &str) -> String {
    let url = url.trim_end_matches('/');
    let path = url.split_once("://").map_or(url, |(_, rest)| rest);
    let last_segment = path
        .split_once('/')
        .map_or("", |(_, path)| path.rsplit('/').next().unwrap_or_default());
    if is_api_version(last_segment) {
        url.to_owned()
    } else {
        format!("{url}/v1beta")
    }
}

/// `v1`, `v1beta`, `v1alpha`, `v2beta3`: `v`, digits, then optionally `alpha`/`beta` and digits.
fn is_api_version(segment: &str) -> bool {
    let Some(rest) = segment.strip_prefix('v') else {
        return false;
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return false;
    }
    let rest = &rest[digits..];
    let rest = rest
        .strip_prefix("alpha")
        .or_else(|| rest.strip_prefix("beta"))
        .unwrap_or(rest);
    rest.chars().all(|c| c.is_ascii_digit())
}

/// `OLLAMA_HOST` is a host and port (`127.0.0.1:11434`, `0.0.0.0`, `http://box:11434`), as the
/// ollama CLI reads it; pincer talks to its OpenAI-compatible endpoint under `/v1`.
fn ollama_base_url(host: &str) -> String {
    let host = host.trim_end_matches('/');
    let with_scheme = if host.contains("://") {
        host.to_owned()
    } else {
        format!("http://{host}")
    };
    let authority_start = with_scheme.find("://").map_or(0, |index| index + 3);
    let has_port = with_scheme[authority_start..]
        .split('/')
        .next()
        .is_some_and(|authority| authority.contains(':'));
    let with_port = if has_port {
        with_scheme
    } else {
        let (authority_end, rest) = match with_scheme[authority_start..].find('/') {
            Some(index) => (
                authority_start + index,
                &with_scheme[authority_start + index..],
            ),
            None => (with_scheme.len(), ""),
        };
        format!("{}:11434{rest}", &with_scheme[..authority_end])
    };
    if with_port.ends_with("/v1") {
        with_port
    } else {
        format!("{with_port}/v1")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn settings(text: &str, overrides: &[&str]) -> Result<Settings, ConfigError> {
        settings_with_env(text, overrides, &no_env)
    }

    fn settings_with_env(
        text: &str,
        overrides: &[&str],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings, ConfigError> {
        let overrides: Vec<String> = overrides.iter().map(|spec| (*spec).to_owned()).collect();
        let paths = Paths::under_home(Path::new("/tmp/pincer-test-home"));
        Settings::from_text(paths, text, true, &overrides, env)
    }

    #[test]
    fn nothing_configured_gives_the_documented_defaults() {
        let settings = settings("", &[]).unwrap();
        assert_eq!(settings.model, None);
        assert!(settings.fallbacks.is_empty());
        assert!(settings.compaction.enabled);
        assert_eq!(settings.compaction.reserve_tokens, 20_000);
        assert_eq!(settings.compaction.keep_recent_tokens, 20_000);
        assert_eq!(settings.tools.sandbox, SandboxMode::WorkspaceWrite);
        assert_eq!(settings.tools.profile, ToolProfile::Coding);
        assert_eq!(settings.workspace.max_file_chars, 20_000);
        assert_eq!(settings.workspace.files[0], "AGENTS.md");
        assert!(settings.skills.enabled);
        assert!(settings.skills.paths.is_empty());
        assert_eq!(settings.stdin_max_bytes, 10 * 1024 * 1024);
        assert_eq!(settings.timeouts.stdin_secs, None);
        assert_eq!(settings.claude_cli.command, "claude");
        assert_eq!(settings.codex_cli.command, "codex");
        assert!(
            settings
                .claude_cli
                .clear_env
                .contains(&"ANTHROPIC_API_KEY".to_owned())
        );
        assert_eq!(
            settings.base_url("anthropic").as_deref(),
            Some("https://api.anthropic.com")
        );
        assert_eq!(settings.base_url("custom"), None);
    }

    #[test]
    fn exec_clears_the_key_variables_and_every_api_key_env_unless_clear_env_replaces_them() {
        let resolved = settings(
            "[providers.corp]\napi = \"openai-chat\"\nbase_url = \"http://x\"\napi_key_env = \"CORP_TOKEN\"\n",
            &[],
        )
        .unwrap();
        let mut expected: Vec<String> = DEFAULT_CLEAR_ENV
            .iter()
            .map(|name| (*name).to_owned())
            .collect();
        expected.push("CORP_TOKEN".to_owned());
        assert_eq!(resolved.tools.exec.clear_env, expected);
        assert!(resolved.tools.exec.env.is_empty());
        // Whatever clear_env says, these are never inherited.
        assert_eq!(resolved.key_variables(), expected);

        let resolved = settings(
            "[tools.exec]\nclear_env = [\"ONLY_THIS\"]\nenv = { CI = \"1\" }\n",
            &["tools.exec.env.LANG=C"],
        )
        .unwrap();
        assert_eq!(resolved.tools.exec.clear_env, ["ONLY_THIS"]);
        assert_eq!(resolved.key_variables(), DEFAULT_CLEAR_ENV);
        assert_eq!(
            resolved.tools.exec.env,
            BTreeMap::from([
                ("CI".to_owned(), "1".to_owned()),
                ("LANG".to_owned(), "C".to_owned())
            ])
        );
        let error = settings("[tools.exec]\nclear = []\n", &[]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("unknown key 'clear' in table [tools.exec]"),
            "{error}"
        );
    }

    #[test]
    fn added_directories_and_private_web_access_come_from_the_tools_table() {
        let defaults = settings("", &[]).unwrap();
        assert!(defaults.tools.add_dirs.is_empty());
        assert!(!defaults.tools.web_fetch_allow_private);
        let resolved = settings(
            "[tools]\nadd_dirs = [\"../lib\", \"/srv/docs\"]\n",
            &["tools.web_fetch.allow_private=true"],
        )
        .unwrap();
        assert_eq!(
            resolved.tools.add_dirs,
            [PathBuf::from("../lib"), PathBuf::from("/srv/docs")]
        );
        assert!(resolved.tools.web_fetch_allow_private);
        let error = settings("[tools.web_fetch]\nallow_local = true\n", &[]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("unknown key 'allow_local' in table [tools.web_fetch]"),
            "{error}"
        );
    }

    #[test]
    fn a_missing_config_file_means_defaults_and_nothing_is_created() {
        let parent = tempfile::tempdir().unwrap();
        let home = parent.path().join("home");
        let settings = Settings::load(Some(&home), &[], &no_env).unwrap();
        assert!(!settings.config_file_found);
        assert_eq!(settings.config, ConfigFile::default());
        assert!(!home.exists());
    }

    #[test]
    fn an_invalid_config_file_is_an_error_naming_the_file() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), "modle = \"x\"\n").unwrap();
        let error = Settings::load(Some(home.path()), &[], &no_env).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("config.toml"), "{message}");
        assert!(message.contains("'modle'"), "{message}");
        assert!(message.contains("(line 1)"), "{message}");
    }

    #[test]
    fn an_unreadable_config_file_is_an_error_naming_the_file() {
        let home = tempfile::tempdir().unwrap();
        // A directory where the file should be cannot be read as a file.
        std::fs::create_dir_all(home.path().join("config.toml")).unwrap();
        let error = Settings::load(Some(home.path()), &[], &no_env).unwrap_err();
        assert!(matches!(&error, ConfigError::Read { .. }), "{error:?}");
        assert!(error.to_string().contains("config.toml"));
    }

    #[test]
    fn config_values_replace_defaults_and_overrides_replace_config() {
        let text = "model = \"anthropic/claude-haiku-4-5\"\n[compaction]\nreserve_tokens = 1000\n";
        let settings = settings(
            text,
            &["compaction.keep_recent_tokens=7", "model=openai/gpt-5"],
        )
        .unwrap();
        assert_eq!(settings.model.as_deref(), Some("openai/gpt-5"));
        assert_eq!(settings.compaction.reserve_tokens, 1000);
        assert_eq!(settings.compaction.keep_recent_tokens, 7);
    }

    #[test]
    fn skills_settings_come_from_the_file_and_overrides() {
        let text = "[skills]\npaths = [\"team/skills\"]\n";
        let resolved = settings(text, &["skills.enabled=false"]).unwrap();
        assert!(!resolved.skills.enabled);
        assert_eq!(
            resolved.skills.paths,
            [std::path::PathBuf::from("team/skills")]
        );
        let error = settings("[skills]\npath = [\"x\"]\n", &[]).unwrap_err();
        assert!(error.to_string().contains("path"), "{error}");
    }

    #[test]
    fn the_environment_overrides_the_config_base_url() {
        let text = "[providers.anthropic]\nbase_url = \"http://from-file\"\n";
        let env =
            |name: &str| (name == "ANTHROPIC_BASE_URL").then(|| "http://from-env/".to_owned());
        let settings = settings_with_env(text, &[], &env).unwrap();
        assert_eq!(
            settings.base_url("anthropic").as_deref(),
            Some("http://from-env")
        );
        let settings = settings_with_env(text, &[], &no_env).unwrap();
        assert_eq!(
            settings.base_url("anthropic").as_deref(),
            Some("http://from-file")
        );
    }

    #[test]
    fn a_base_url_override_wins_over_the_environment() {
        let env = |name: &str| (name == "OPENAI_BASE_URL").then(|| "http://from-env".to_owned());
        let settings =
            settings_with_env("", &["providers.openai.base_url=http://from-cli/v1"], &env).unwrap();
        assert_eq!(
            settings.base_url("openai").as_deref(),
            Some("http://from-cli/v1")
        );
        assert_eq!(
            settings.base_url("openai-chat").as_deref(),
            Some("http://from-env")
        );
    }

    #[test]
    fn gemini_and_ollama_base_urls_come_from_their_variables() {
        let env = |name: &str| match name {
            "GEMINI_BASE_URL" => Some("http://gemini.test".to_owned()),
            "OLLAMA_HOST" => Some("10.0.0.2".to_owned()),
            _ => None,
        };
        let settings = settings_with_env("", &[], &env).unwrap();
        assert_eq!(
            settings.base_url("google").as_deref(),
            Some("http://gemini.test/v1beta")
        );
        assert_eq!(
            settings.base_url("ollama").as_deref(),
            Some("http://10.0.0.2:11434/v1")
        );
    }

    #[test]
    fn gemini_base_url_gets_the_api_version_like_googles_sdk_unless_it_has_one() {
        for (given, expected) in [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1beta"),
            ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1beta"),
            (
                "https://proxy.example/gemini",
                "https://proxy.example/gemini/v1beta",
            ),
            (
                "https://proxy.example/v1beta",
                "https://proxy.example/v1beta",
            ),
            (
                "https://proxy.example/v1beta/",
                "https://proxy.example/v1beta",
            ),
            (
                "https://proxy.example/google/v1",
                "https://proxy.example/google/v1",
            ),
            (
                "https://proxy.example/v1alpha",
                "https://proxy.example/v1alpha",
            ),
            ("https://v1.example", "https://v1.example/v1beta"),
            (
                "https://proxy.example/vendor",
                "https://proxy.example/vendor/v1beta",
            ),
        ] {
            assert_eq!(gemini_base_url(given), expected, "{given}");
        }
        // The config file's base_url is taken as written, as for every provider.
        let settings = settings(
            "[providers.google]\nbase_url = \"http://configured\"\n",
            &[],
        )
        .unwrap();
        assert_eq!(
            settings.base_url("google").as_deref(),
            Some("http://configured")
        );
    }

    #[test]
    fn ollama_host_forms_become_an_openai_compatible_base_url() {
        assert_eq!(
            ollama_base_url("127.0.0.1:11434"),
            "http://127.0.0.1:11434/v1"
        );
        assert_eq!(ollama_base_url("https://box:8080/"), "https://box:8080/v1");
        assert_eq!(ollama_base_url("http://box"), "http://box:11434/v1");
        assert_eq!(ollama_base_url("http://box:1/v1"), "http://box:1/v1");
    }

    #[test]
    fn a_custom_provider_has_its_configured_base_url_api_and_key_variable() {
        let text = "[providers.local]\napi = \"openai-chat\"\nbase_url = \"http://127.0.0.1:8080/v1\"\napi_key_env = \"LOCAL_KEY\"\n";
        let settings = settings(text, &[]).unwrap();
        assert_eq!(
            settings.base_url("local").as_deref(),
            Some("http://127.0.0.1:8080/v1")
        );
        assert_eq!(settings.provider_api("local"), Some(ApiKind::OpenAiChat));
        assert_eq!(settings.key_env_vars("local"), vec!["LOCAL_KEY".to_owned()]);
        assert_eq!(settings.provider_api("ollama"), Some(ApiKind::OpenAiChat));
        assert_eq!(settings.provider_api("claude-cli"), None);
    }

    #[test]
    fn credential_variables_per_provider() {
        assert_eq!(credential_env_vars("anthropic"), ["ANTHROPIC_API_KEY"]);
        assert_eq!(credential_env_vars("openai"), ["OPENAI_API_KEY"]);
        assert_eq!(
            credential_env_vars("google"),
            ["GEMINI_API_KEY", "GOOGLE_API_KEY"]
        );
        assert!(credential_env_vars("ollama").is_empty());
    }

    #[test]
    fn a_provider_slash_model_reference_is_taken_as_given() {
        let settings = settings("", &[]).unwrap();
        let reference = settings.resolve_model_ref("ollama/qwen3").unwrap();
        assert_eq!(reference.provider, "ollama");
        assert_eq!(reference.model, "qwen3");
        let reference = settings
            .resolve_model_ref("openrouter/anthropic/claude-sonnet-4.5")
            .unwrap();
        assert_eq!(reference.provider, "openrouter");
        assert_eq!(reference.model, "anthropic/claude-sonnet-4.5");
        assert_eq!(
            reference.to_string(),
            "openrouter/anthropic/claude-sonnet-4.5"
        );
    }

    #[test]
    fn config_aliases_win_over_catalog_aliases() {
        let text = "[aliases]\nsonnet = \"anthropic/claude-sonnet-4\"\nfast = \"haiku\"\n";
        let settings = settings(text, &[]).unwrap();
        let reference = settings.resolve_model_ref("sonnet").unwrap();
        assert_eq!(reference.model, "claude-sonnet-4");
        let reference = settings.resolve_model_ref("fast").unwrap();
        assert_eq!(reference.model, "claude-haiku-4-5");
        let reference = settings.resolve_model_ref("opus").unwrap();
        assert_eq!(reference.provider, "anthropic");
        assert_eq!(reference.model, "claude-opus-4-5");
        let reference = settings.resolve_model_ref("gpt-5").unwrap();
        assert_eq!(reference.provider, "openai");
    }

    #[test]
    fn an_unknown_model_name_is_an_error_with_a_hint() {
        let settings = settings("", &[]).unwrap();
        let error = settings.resolve_model_ref("sonet").unwrap_err();
        assert_eq!(error.to_string(), "unknown model 'sonet'");
        assert_eq!(error.hint().unwrap(), "did you mean `sonnet`?");
        let error = settings.resolve_model_ref("frobnicator").unwrap_err();
        let hint = error.hint().unwrap();
        assert!(hint.contains("provider/model"), "{hint}");
        assert!(hint.contains("sonnet"), "{hint}");
        for bad in ["", "anthropic/", "/claude"] {
            assert!(
                matches!(
                    settings.resolve_model_ref(bad),
                    Err(ConfigError::InvalidModelRef { .. })
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn configured_model_fields_override_the_catalog() {
        let text = "[providers.anthropic.models.claude-sonnet-4-5]\ncontext_window = 1000000\n";
        let settings = settings(text, &[]).unwrap();
        let info = settings
            .model_info("anthropic", "claude-sonnet-4-5")
            .unwrap();
        assert_eq!(info.context_window, 1_000_000);
        assert!((info.input_price - 3.0).abs() < 1e-9);
        assert!(info.source.contains("config.toml"));
    }

    #[test]
    fn a_model_only_in_the_config_gets_defaults_for_missing_fields() {
        let text = "[providers.ollama.models.qwen3]\ncontext_window = 32768\n";
        let settings = settings(text, &[]).unwrap();
        let info = settings.model_info("ollama", "qwen3").unwrap();
        assert_eq!(info.context_window, 32_768);
        assert_eq!(info.max_output, DEFAULT_MAX_OUTPUT);
        assert_eq!(info.input_price, 0.0);
        assert!(settings.model_info("ollama", "llama3").is_none());
    }

    #[test]
    fn a_proxy_provider_with_a_known_api_finds_catalog_prices() {
        let text = "[providers.corp]\napi = \"anthropic\"\nbase_url = \"http://proxy\"\n";
        let settings = settings(text, &[]).unwrap();
        let info = settings
            .model_info("corp", "claude-sonnet-4-5-20250929")
            .unwrap();
        assert!((info.output_price - 15.0).abs() < 1e-9);
        assert!(
            settings
                .model_info("anthropic", "claude-sonnet-4-5")
                .is_some()
        );
    }

    #[test]
    fn a_bad_override_is_reported_even_with_a_valid_file() {
        let error = settings("model = \"a/b\"", &["tools.profile=everything"]).unwrap_err();
        assert!(
            matches!(&error, ConfigError::InvalidValue { key: Some(key), .. } if key == "tools.profile"),
            "{error:?}"
        );
    }
}
