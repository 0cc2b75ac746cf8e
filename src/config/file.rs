//! The `config.toml` schema (SPEC §11) and the `-c KEY=VALUE` overrides applied on top of it.
//!
//! The schema records what the user wrote: every scalar is an `Option` so that "not set" stays
//! distinguishable from "set to the default", and `settings.rs` fills in the defaults (documented
//! on each field here). Every struct denies unknown fields, so a typo is an error that names the
//! key, its table and its line instead of a setting that silently does nothing.
//!
//! Overrides are applied to the parsed TOML table before it is deserialized into the schema, so
//! `-c` reaches every key the file can hold and an override of an unknown key is rejected the
//! same way a typo in the file is.

use std::collections::BTreeMap;

pub use crate::hooks::config::{HookConfig, HooksConfig};
pub use crate::mcp::config::{McpServerConfig, McpTransportKind};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml::de::{DeTable, DeValue};

use super::{ConfigError, ConfigOrigin};

/// The whole `config.toml`. A missing file is the same as an empty one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Default model reference (`provider/model` or an alias). Default: none, in which case the
    /// first provider with credentials is used (Anthropic, OpenAI, Google), then an installed
    /// `claude` or `codex` (SPEC §11).
    pub model: Option<String>,
    /// Models tried in order when the primary fails with a failover-class error (SPEC §9.3).
    /// Default: empty.
    #[serde(default)]
    pub fallbacks: Vec<String>,
    /// Default reasoning level. Default: none (each provider's own default).
    pub thinking: Option<ThinkingLevel>,
    /// Extra model aliases, `name = "provider/model"`. They take precedence over the catalog's
    /// built-in aliases (`sonnet`, `opus`, `haiku`, …).
    #[serde(default)]
    pub aliases: BTreeMap<String, String>,
    /// Per-provider settings, keyed by provider name (`anthropic`, `openai`, `openai-chat`,
    /// `google`, `ollama`, or any custom name, which then needs `api` and `base_url`).
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderConfig>,
    /// The CLI backends (SPEC §4.2).
    #[serde(default)]
    pub backends: BackendsConfig,
    /// Automatic compaction (SPEC §7).
    #[serde(default)]
    pub compaction: CompactionConfig,
    /// Retries of failed model calls (SPEC §9.3).
    #[serde(default)]
    pub retry: RetryConfig,
    /// Tool policy and sandbox default (SPEC §10).
    #[serde(default)]
    pub tools: ToolsConfig,
    /// Time limits.
    #[serde(default)]
    pub timeouts: TimeoutsConfig,
    /// Workspace context files (SPEC §6.2).
    #[serde(default)]
    pub workspace: WorkspaceConfig,
    /// Skill packages listed in the system prompt (SPEC §6.5).
    #[serde(default)]
    pub skills: SkillsConfig,
    /// Standard input handling (SPEC §2).
    #[serde(default)]
    pub stdin: StdinConfig,
    /// MCP servers by name, with codex's keys (SPEC §13). Default: none.
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// How MCP configuration is found (SPEC §13).
    #[serde(default)]
    pub mcp: McpOptions,
    /// Commands run at fixed points of a turn, `[[hooks.EVENT]]` (SPEC §14). Default: none.
    #[serde(default)]
    pub hooks: HooksConfig,
    /// `--json-schema` answers (SPEC §3.4).
    #[serde(default)]
    pub structured_output: StructuredOutputConfig,
    /// What confined commands may reach besides files (SPEC §10).
    #[serde(default)]
    pub sandbox: SandboxConfig,
    /// codex's spelling of the network switch, so that `-c
    /// sandbox_workspace_write.network_access=true` works as it does for `codex exec`.
    #[serde(default)]
    pub sandbox_workspace_write: CodexSandboxConfig,
    /// Where sessions are kept (SPEC §5.3).
    #[serde(default)]
    pub sessions: SessionsConfig,
    /// Provider prompt caching.
    #[serde(default)]
    pub cache: CacheConfig,
    /// Spending limits across runs, from the usage ledger (SPEC §18).
    #[serde(default)]
    pub budget: BudgetConfig,
    /// OpenTelemetry export (SPEC §17); the standard `OTEL_*` variables win over it.
    #[serde(default)]
    pub telemetry: TelemetryConfig,
    /// The session store shared across machines (SPEC §19).
    #[serde(default)]
    pub store: StoreConfig,
}

/// `[store]`: the session store on object storage that sessions carry on from one machine to
/// the next through (SPEC §19). Credentials never go here: they come from the provider's usual
/// environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// The store: `s3://bucket/prefix` (AWS or any S3-compatible service with conditional
    /// writes), `gs://bucket/prefix`, `az://container/prefix`, or `memory://NAME/prefix` (this
    /// process only, for tests). `--store` and `PINCER_STORE` win over it; an empty value turns
    /// the store off. Default: none (sessions are local files only).
    pub url: Option<String>,
    /// How long a session's lease stays valid without a renewal, in seconds: a runner that
    /// died holds its session this long; a live one renews every third of it. Default: 30.
    pub lease_ttl_secs: Option<f64>,
    /// The longest wait for one request's answer, in seconds. Default: 60.
    pub request_timeout_secs: Option<f64>,
    /// The longest wait for a connection, in seconds. Default: 10.
    pub connect_timeout_secs: Option<f64>,
    /// How often a failed request (refused connection, 5xx) is retried before the store counts
    /// as unavailable. Default: 3.
    pub max_retries: Option<u32>,
}

/// `[telemetry]`: where and how a run's traces and metrics go, for machines where setting the
/// `OTEL_*` variables is awkward. Each key stands for one variable, which wins when set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TelemetryConfig {
    /// The collector's OTLP base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`); over HTTP `/v1/traces` and
    /// `/v1/metrics` are appended, over gRPC it is the address as given. Default: none,
    /// telemetry off.
    pub endpoint: Option<String>,
    /// `http/protobuf` (default), `http/json` or `grpc` (`OTEL_EXPORTER_OTLP_PROTOCOL`).
    pub protocol: Option<String>,
    /// Headers of every export, such as an API key of the collector
    /// (`OTEL_EXPORTER_OTLP_HEADERS`).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// `service.name` (`OTEL_SERVICE_NAME`). Default: `pincer`.
    pub service_name: Option<String>,
    /// The most the export at exit may take, in milliseconds (`OTEL_EXPORTER_OTLP_TIMEOUT`).
    /// Default: 2000.
    pub flush_timeout_ms: Option<u64>,
    /// Export message content: the prompt, the system prompt and the answer
    /// (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`). Default: false.
    pub capture_content: Option<bool>,
    /// `false` turns telemetry off whatever the endpoint (`OTEL_SDK_DISABLED=true`).
    pub enabled: Option<bool>,
}

/// `[budget]`: the most the runs of one UTC day, week (from Monday) or month may spend. A budget
/// is a reservation: before its first request a run reserves its worst case (`--max-budget-usd`,
/// else `reserve_usd`), and a run that would start with its window's spend plus the reservations
/// of the runs in progress at or over a limit exits 5 before any request. So N runs started
/// together spend at most the limit plus one run's reservation, as long as each run stays within
/// its own (`--max-budget-usd` holds a run to its amount plus the model call that crosses it).
/// `--max-budget-usd` is the limit of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BudgetConfig {
    /// US dollars per UTC day. Default: no limit.
    #[serde(default, deserialize_with = "amount_usd")]
    pub daily_usd: Option<f64>,
    /// US dollars per week, Monday 00:00 UTC to Monday. Default: no limit.
    #[serde(default, deserialize_with = "amount_usd")]
    pub weekly_usd: Option<f64>,
    /// US dollars per calendar month (UTC). Default: no limit.
    #[serde(default, deserialize_with = "amount_usd")]
    pub monthly_usd: Option<f64>,
    /// What a run without `--max-budget-usd` reserves against the budgets while it runs, in US
    /// dollars: the estimate of its worst case. A run that spends more than it reserved can take
    /// a window past its limit by the difference. Default: 1.00.
    #[serde(default, deserialize_with = "amount_usd")]
    pub reserve_usd: Option<f64>,
}

/// What a run without `--max-budget-usd` reserves when `[budget] reserve_usd` does not say.
pub const DEFAULT_RESERVE_USD: f64 = 1.0;

/// An amount of US dollars: a finite number, 0 or more (an integer is taken too).
fn amount_usd<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    let amount = f64::deserialize(deserializer)?;
    if amount.is_finite() && amount >= 0.0 {
        Ok(Some(amount))
    } else {
        Err(serde::de::Error::custom(format!(
            "expected an amount of US dollars, 0 or more, such as 5.00, got {amount}"
        )))
    }
}

/// `[cache]`: provider prompt caching.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// How long Anthropic keeps what a request writes to its prompt cache: `5m` or `1h` (for
    /// sessions whose turns are more than five minutes apart). Other providers have no such
    /// setting. Default: `5m`.
    pub ttl: Option<CacheTtl>,
}

/// `[sessions]`: how the session store may be shared.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionsConfig {
    /// Write sessions (and the auth store) even on a filesystem whose locks other machines do
    /// not see (FUSE such as sshfs, SMB mounted `nobrl`, NFS with local locks): right when only
    /// this machine writes there. `PINCER_ALLOW_LOCAL_LOCKS=1` does the same. Default: false
    /// (refused, exit 2).
    pub allow_local_locks: Option<bool>,
}

/// `[sandbox]`: what commands (`exec`, and what they start) may reach besides files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxConfig {
    /// `network = true`: commands reach the whole network in `read-only` and `workspace-write`,
    /// like `--allow-network`. `[sandbox.network]` with `allow`, `deny` and `resolve`: only the
    /// hosts named (SPEC §20), like `--allow-host`. Default: false (each command has only a
    /// loopback interface of its own).
    pub network: Option<NetworkConfig>,
}

/// `[sandbox] network`: a switch for the whole network, or the network by name.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum NetworkConfig {
    /// `network = true` or `false`.
    Switch(bool),
    /// `[sandbox.network]`.
    Rules(NetworkRulesConfig),
}

impl NetworkConfig {
    /// Whether it opens the whole network.
    pub fn is_on(&self) -> bool {
        matches!(self, NetworkConfig::Switch(true))
    }
}

impl<'de> Deserialize<'de> for NetworkConfig {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> serde::de::Visitor<'de> for Either {
            type Value = NetworkConfig;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("true, false, or a table of allow, deny and resolve")
            }
            fn visit_bool<E: serde::de::Error>(self, on: bool) -> Result<NetworkConfig, E> {
                Ok(NetworkConfig::Switch(on))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<NetworkConfig, A::Error> {
                NetworkRulesConfig::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(NetworkConfig::Rules)
            }
        }
        deserializer.deserialize_any(Either)
    }
}

/// `[sandbox.network]`: the hosts commands may reach, and nothing else. The patterns and the
/// presets' hosts are in the guide's "Network by name"; each pattern is checked as the file is
/// read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NetworkRulesConfig {
    /// Hosts commands may reach: `registry.npmjs.org`, `*.pythonhosted.org`, `host:port`,
    /// `localhost:5432`, an address or network, a preset (`@npm`, `@pypi`, `@crates`, `@go`,
    /// `@debian`). `--allow-host` adds to it. Default: none.
    #[serde(default, deserialize_with = "network_patterns")]
    pub allow: Vec<String>,
    /// Hosts refused even when an allow rule covers them (deny wins). Default: none.
    #[serde(default, deserialize_with = "network_patterns")]
    pub deny: Vec<String>,
    /// Addresses a name goes to instead of the resolver's, like curl's `--resolve`: `name` or
    /// `name:port` = an address, `address:port`, or a list of them. A pin routes, it does not
    /// allow; pinned addresses count as named (private ones are reached). Default: none.
    #[serde(default, deserialize_with = "network_pins")]
    pub resolve: BTreeMap<String, PinnedAddresses>,
}

/// One pinned address or a list of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum PinnedAddresses {
    One(String),
    Many(Vec<String>),
}

impl PinnedAddresses {
    /// The addresses, in order.
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            PinnedAddresses::One(address) => vec![address.clone()],
            PinnedAddresses::Many(addresses) => addresses.clone(),
        }
    }
}

/// Network rules, each checked as the egress policy reads it.
fn network_patterns<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    let patterns = Vec::<String>::deserialize(deserializer)?;
    for pattern in &patterns {
        pincer_egress::Rule::parse(pattern).map_err(serde::de::Error::custom)?;
    }
    Ok(patterns)
}

/// Pinned addresses, each checked as the egress policy reads it.
fn network_pins<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<BTreeMap<String, PinnedAddresses>, D::Error> {
    let pins = BTreeMap::<String, PinnedAddresses>::deserialize(deserializer)?;
    let mut policy = pincer_egress::Policy::new();
    for (host, addresses) in &pins {
        policy
            .pin(host, &addresses.to_vec())
            .map_err(serde::de::Error::custom)?;
    }
    Ok(pins)
}

/// codex's `[sandbox_workspace_write]` table; only its network switch applies to pincer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodexSandboxConfig {
    /// The same as `[sandbox] network` (which wins when both are set). Default: false.
    pub network_access: Option<bool>,
}

/// `[providers.NAME]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// Wire protocol. Default: implied by the built-in provider names (`ollama` speaks
    /// `openai-chat`); required for custom providers.
    pub api: Option<ApiKind>,
    /// Base URL. Default: the provider's public endpoint; the `*_BASE_URL` / `OLLAMA_HOST`
    /// environment variables override the file, `-c` overrides both.
    pub base_url: Option<String>,
    /// Environment variable holding the key when no auth profile is set. Default: the provider's
    /// usual variable (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `GEMINI_API_KEY`/`GOOGLE_API_KEY`).
    pub api_key_env: Option<String>,
    /// Extra HTTP headers sent with every request. Default: none.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Models added to or corrected in the built-in catalog, keyed by model id.
    #[serde(default)]
    pub models: BTreeMap<String, ModelConfig>,
    /// How `--json-schema` is enforced for this provider's models that say nothing themselves
    /// (`[providers.NAME.models.ID] structured_output`). Default: the catalog's word for known
    /// models, else `native`, except `tool` for Chat Completions servers (local ones mostly
    /// have no JSON Schema mode).
    pub structured_output: Option<StructuredMode>,
}

/// `[providers.NAME.models.ID]`: any field left out comes from the catalog entry, if there is
/// one; prices are USD per million tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Context window in tokens. Default without a catalog entry: 128,000.
    pub context_window: Option<u64>,
    /// Maximum output tokens per call. Default without a catalog entry: 8,192.
    pub max_output: Option<u64>,
    /// USD per million uncached input tokens. Default without a catalog entry: 0.
    pub input_price: Option<f64>,
    /// USD per million output tokens (reasoning included). Default without a catalog entry: 0.
    pub output_price: Option<f64>,
    /// USD per million cache-read tokens. Default without a catalog entry: 0.
    pub cache_read_price: Option<f64>,
    /// USD per million cache-write tokens. Default without a catalog entry: 0.
    pub cache_write_price: Option<f64>,
    /// USD per million tokens written to Anthropic's 1-hour cache. Default: the catalog's, else
    /// `cache_write_price`.
    pub cache_write_1h_price: Option<f64>,
    /// Whether the model accepts a reasoning/thinking level. Default without a catalog entry: false.
    pub reasoning: Option<bool>,
    /// Whether the provider's server-side web search may be requested for the model
    /// (`--web-search`; Anthropic, OpenAI Responses and Gemini protocols only). Default without a
    /// catalog entry: false.
    pub web_search: Option<bool>,
    /// Whether that search may be asked for beside function tools (Gemini 2.x models cannot).
    /// Default without a catalog entry: true.
    pub web_search_with_tools: Option<bool>,
    /// USD per 1,000 web searches. Default without a catalog entry: 0.
    pub web_search_price: Option<f64>,
    /// How `--json-schema` is enforced for this model. Default: the catalog's, else the
    /// provider's `structured_output`.
    pub structured_output: Option<StructuredMode>,
}

/// `[structured_output]` (SPEC §3.4).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StructuredOutputConfig {
    /// Times an answer that does not match `--json-schema` is sent back with the errors before
    /// the run ends with `error_max_structured_output_retries`. Default: 2.
    pub max_retries: Option<u32>,
}

/// `[backends]`: only the two CLI backends exist.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackendsConfig {
    /// `[backends.claude-cli]`.
    #[serde(rename = "claude-cli", default)]
    pub claude_cli: BackendConfig,
    /// `[backends.codex-cli]`.
    #[serde(rename = "codex-cli", default)]
    pub codex_cli: BackendConfig,
}

/// `[backends.claude-cli]` / `[backends.codex-cli]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackendConfig {
    /// Executable name on `PATH` or a path. Default: `claude` / `codex`.
    pub command: Option<String>,
    /// Arguments added to every invocation. Default: none.
    #[serde(default)]
    pub extra_args: Vec<String>,
    /// Variables removed from the child's environment. Default: the provider API-key variables,
    /// so the CLI uses its own login (SPEC §4.2.6). Whatever the list, every key variable but
    /// the CLI's own, and any variable holding a known key, is removed too.
    pub clear_env: Option<Vec<String>>,
    /// Variables added to the child's environment. Default: none.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// `[compaction]` (SPEC §7).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompactionConfig {
    /// Compact automatically when the context nears the window. Default: true.
    pub enabled: Option<bool>,
    /// Compact when `context > window - reserve_tokens`. Default: 20,000; at most a quarter of
    /// the model's window.
    pub reserve_tokens: Option<u64>,
    /// Recent history kept verbatim by a compaction. Default: 20,000; at most a quarter of the
    /// model's window.
    pub keep_recent_tokens: Option<u64>,
}

/// `[retry]`: retries of failed model calls before any output (SPEC §9.3).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetryConfig {
    /// Retries after the first attempt. Default: 3.
    pub max_retries: Option<u32>,
    /// First backoff delay in milliseconds, doubled per retry. Default: 500.
    pub base_delay_ms: Option<u64>,
    /// Longest backoff delay in milliseconds. Default: 8,000.
    pub max_delay_ms: Option<u64>,
}

/// Named tool sets (SPEC §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ToolProfile {
    /// The smallest useful set.
    Minimal,
    /// File tools and `exec`.
    Coding,
    /// Every built-in tool.
    Full,
}

impl ToolProfile {
    /// The name used in `config.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Minimal => "minimal",
            Self::Coding => "coding",
            Self::Full => "full",
        }
    }
}

use crate::conversation::{ApiKind, CacheTtl, SandboxMode, StructuredMode, ThinkingLevel};

/// `[tools]` (SPEC §10).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolsConfig {
    /// Base tool set. Default: `coding`.
    pub profile: Option<ToolProfile>,
    /// Allow rules (`exec(git *)`, `group:fs`): they narrow the profile to the tools and arguments
    /// they name, like `--allowed-tools`. Default: none.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Patterns removed; deny wins over allow. Default: none.
    #[serde(default)]
    pub deny: Vec<String>,
    /// Default sandbox. Default: `workspace-write`.
    pub sandbox: Option<SandboxMode>,
    /// Extra roots for the file tools and `exec`'s writable roots, like `--add-dir` (which adds
    /// to them); relative paths start at the workspace. Each must be an existing directory.
    /// Default: none.
    #[serde(default)]
    #[schemars(extend("items" = { "type": "string", "format": "path" }))]
    pub add_dirs: Vec<PathBuf>,
    /// The `exec` tool's environment (SPEC §10).
    #[serde(default)]
    pub exec: ExecConfig,
    /// `[tools.web_fetch]`.
    #[serde(default)]
    pub web_fetch: WebFetchConfig,
    /// Ask the provider for its server-side web search on every turn, like `--web-search`: for
    /// a model that cannot search, a warning and a turn without it. Default: false.
    pub web_search: Option<bool>,
}

/// `[tools.web_fetch]`: what the `web_fetch` tool may reach.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchConfig {
    /// Also fetch from loopback, private (RFC 1918, CGNAT), link-local (cloud metadata),
    /// unique-local, unspecified and multicast addresses. Default: false (the SSRF guard).
    pub allow_private: Option<bool>,
}

/// `[tools.exec]`: what `exec` commands find in their environment (SPEC §10).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecConfig {
    /// Variables removed from the commands' environment by name. Default: the provider key
    /// variables (`ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `OPENAI_API_KEY`, `CODEX_API_KEY`,
    /// `GEMINI_API_KEY`, `GOOGLE_API_KEY`) and every provider's `api_key_env`. Whatever the list,
    /// those, every variable an auth profile refers to and any variable whose value is a key
    /// pincer knows of are removed too.
    pub clear_env: Option<Vec<String>>,
    /// Variables added to the commands' environment (after the removal). Default: none.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// `[timeouts]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeoutsConfig {
    /// Upper bound on one model request, first byte to last. Default: 600 seconds.
    pub request_secs: Option<u64>,
    /// Longest silence tolerated from a provider stream or CLI child. Default: 300 seconds.
    pub idle_secs: Option<u64>,
    /// How long to wait for the first byte on stdin (SPEC §2). Default: unset, meaning 0.5 s
    /// when a prompt argument is given and 5 s when stdin is the prompt; `0` waits without limit.
    pub stdin_secs: Option<f64>,
}

/// `[workspace]` (SPEC §6.2).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceConfig {
    /// Context files read from the workspace root, in order. Default: `AGENTS.md` (else
    /// `CLAUDE.md`), `SOUL.md`, `TOOLS.md`, `IDENTITY.md`, `USER.md`, `MEMORY.md`.
    pub files: Option<Vec<String>>,
    /// Cap per file, in characters (head and tail kept). Default: 20,000.
    pub max_file_chars: Option<usize>,
    /// Texts appended to the system prompt on every turn. Default: none.
    #[serde(default)]
    pub append_system_prompt: Vec<String>,
    /// Context files the agent may edit (OpenClaw's `MEMORY.md` habit): every other one is
    /// read-only to the file tools and to commands. A file named here can be rewritten by a
    /// prompt-injected model and is read into the next run's system prompt. Default: none.
    #[serde(default)]
    pub writable: Vec<String>,
}

/// `[skills]` (SPEC §6.5).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillsConfig {
    /// Search `<config>/skills/`, the workspace's `.pincer/skills/` and `.agents/skills/`, and
    /// `paths`. `--skill` paths load either way. Default: true.
    pub enabled: Option<bool>,
    /// More places, searched after the workspace's and before `--skill`: a directory of skills,
    /// one skill directory or one `SKILL.md`; absolute, or relative to the workspace.
    /// Default: none.
    #[serde(default)]
    #[schemars(extend("items" = { "type": "string", "format": "path" }))]
    pub paths: Vec<std::path::PathBuf>,
}

/// `[stdin]` (SPEC §2).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StdinConfig {
    /// Largest accepted stdin, in bytes. Default: 10 MiB.
    pub max_bytes: Option<u64>,
}

/// `[mcp]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpOptions {
    /// Also load the workspace's `.mcp.json` (claude's project file). Default: false — a
    /// repository must not be able to make pincer start processes (SPEC §13).
    pub load_workspace: Option<bool>,
    /// `[mcp.allow_key_env]`: server name → the key variables (`ANTHROPIC_API_KEY`, an
    /// `api_key_env`, a variable an auth profile refers to) that a `${VAR}` in its `.mcp.json`
    /// or `--mcp-config` entry may expand to. Default: none — such a server is not started.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub allow_key_env: BTreeMap<String, Vec<String>>,
}

impl ConfigFile {
    /// Parses and validates a config file's text. Errors name `path` and the line of the problem.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|error| file_error(&error, text, path))
    }

    /// Deserializes `base` (the table of the file at `path`) with `overrides` applied in order.
    /// Each override is validated as it is applied, so an error names the `-c` argument that
    /// caused it.
    pub fn with_overrides(
        base: toml::Table,
        overrides: &[String],
        path: &Path,
    ) -> Result<Self, ConfigError> {
        let mut document = base;
        let mut config = None;
        for spec in overrides {
            let key_path = apply_override(&mut document, spec)?;
            let validated = document
                .clone()
                .try_into::<Self>()
                .map_err(|error| override_error(&error, spec, &key_path))?;
            config = Some(validated);
        }
        match config {
            Some(config) => Ok(config),
            // No overrides: the errors are the file's, but a table has no line numbers; callers
            // wanting those validate the text with `parse` first.
            None => document
                .try_into::<Self>()
                .map_err(|error| ConfigError::InvalidValue {
                    key: None,
                    origin: ConfigOrigin::File {
                        path: path.to_path_buf(),
                        line: None,
                    },
                    message: first_line(error.message()),
                }),
        }
    }
}

/// Parses a config file's text into a plain TOML table (syntax only, no schema).
pub fn parse_document(text: &str, path: &Path) -> Result<toml::Table, ConfigError> {
    text.parse::<toml::Table>()
        .map_err(|error| ConfigError::Syntax {
            origin: ConfigOrigin::File {
                path: path.to_path_buf(),
                line: error.span().map(|span| line_of(text, span.start)),
            },
            message: first_line(error.message()),
        })
}

/// Applies one `-c KEY=VALUE` to `document` and returns the key path it set.
///
/// The key is a dotted path (`providers.anthropic.base_url`); segments may be quoted
/// (`backends."claude-cli".command`). The value is parsed as a TOML value (`42`, `true`,
/// `["a", "b"]`, `"text"`); when it does not parse it is taken as a plain string, so
/// `-c model=openai/gpt-5` works without shell-escaped quotes. Missing tables are created.
pub fn apply_override(document: &mut toml::Table, spec: &str) -> Result<Vec<String>, ConfigError> {
    let syntax_error = |reason: OverrideProblem| ConfigError::OverrideSyntax {
        spec: spec.to_owned(),
        reason,
    };
    let (key_path, value_text) = split_override(spec).map_err(syntax_error)?;
    let value_text = value_text.trim();
    let value = value_text
        .parse::<toml::Value>()
        .unwrap_or_else(|_| toml::Value::String(value_text.to_owned()));

    let Some((last, parents)) = key_path.split_last() else {
        return Err(syntax_error(OverrideProblem::EmptyKey));
    };
    let mut table = document;
    let mut walked = Vec::new();
    for segment in parents {
        walked.push(segment.as_str());
        let entry = table
            .entry(segment.clone())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        table = match entry {
            toml::Value::Table(inner) => inner,
            _ => {
                return Err(syntax_error(OverrideProblem::NotATable(walked.join("."))));
            }
        };
    }
    table.insert(last.clone(), value);
    Ok(key_path)
}

/// What is wrong with a `-c KEY=VALUE`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverrideProblem {
    #[error("the key is empty")]
    EmptyKey,
    #[error("the key before '=' is empty")]
    EmptyBeforeEquals,
    #[error("the key ends with '.'")]
    TrailingDot,
    #[error("the key has an empty segment")]
    EmptySegment,
    #[error("unterminated {0} in the key")]
    Unterminated(char),
    #[error("unexpected text after a quoted key segment")]
    TextAfterQuote,
    #[error("missing '=' or invalid character {0:?} in the key (quote the segment)")]
    InvalidCharacter(char),
    #[error("missing '=' between the key and the value")]
    NoEquals,
    /// The dotted path to a value that the key goes through as if it were a table.
    #[error("'{0}' is a value, not a table")]
    NotATable(String),
}

/// Splits `KEY=VALUE` at the first `=` outside a quoted key segment and parses the key path.
fn split_override(spec: &str) -> Result<(Vec<String>, &str), OverrideProblem> {
    let mut segments = Vec::new();
    let mut current = String::new();
    // Whether the current segment has content (a quoted empty string counts as content).
    let mut has_segment = false;
    let mut chars = spec.char_indices();
    while let Some((index, character)) = chars.next() {
        match character {
            '=' => {
                if !has_segment {
                    return Err(if segments.is_empty() {
                        OverrideProblem::EmptyBeforeEquals
                    } else {
                        OverrideProblem::TrailingDot
                    });
                }
                segments.push(current);
                return Ok((segments, &spec[index + 1..]));
            }
            '.' => {
                if !has_segment {
                    return Err(OverrideProblem::EmptySegment);
                }
                segments.push(std::mem::take(&mut current));
                has_segment = false;
            }
            '"' | '\'' if current.trim().is_empty() => {
                let quote = character;
                current.clear();
                let mut closed = false;
                while let Some((_, inner)) = chars.next() {
                    if inner == quote {
                        closed = true;
                        break;
                    }
                    if inner == '\\' && quote == '"' {
                        if let Some((_, escaped)) = chars.next() {
                            current.push(escaped);
                        }
                        continue;
                    }
                    current.push(inner);
                }
                if !closed {
                    return Err(OverrideProblem::Unterminated(quote));
                }
                has_segment = true;
                // Only whitespace may follow a closing quote before '.' or '='.
                for (_, after) in chars.clone() {
                    match after {
                        '.' | '=' => break,
                        ' ' | '\t' => {
                            chars.next();
                        }
                        _ => return Err(OverrideProblem::TextAfterQuote),
                    }
                }
            }
            ' ' | '\t' => {}
            _ if character.is_ascii_alphanumeric() || character == '_' || character == '-' => {
                current.push(character);
                has_segment = true;
            }
            _ => {
                return Err(OverrideProblem::InvalidCharacter(character));
            }
        }
    }
    Err(OverrideProblem::NoEquals)
}

/// Turns a schema error on the file's text into an error naming the key, its table and its line.
fn file_error(error: &toml::de::Error, text: &str, path: &Path) -> ConfigError {
    let line = error.span().map(|span| line_of(text, span.start));
    let origin = ConfigOrigin::File {
        path: path.to_path_buf(),
        line,
    };
    let message = error.message();
    // Where in the document the error points, as a key path, when the parser gave a span.
    let located = error.span().and_then(|span| {
        DeTable::parse(text)
            .ok()
            .and_then(|document| locate(document.get_ref(), span.start, &mut Vec::new()))
    });

    if let Some(key) = unknown_field_name(message) {
        let table = match &located {
            Some(path) if path.last().map(String::as_str) == Some(key.as_str()) => {
                path[..path.len() - 1].join(".")
            }
            _ => String::new(),
        };
        return ConfigError::UnknownKey {
            key,
            table,
            origin,
            expected: expected_fields(message),
        };
    }
    if error.span().is_some() && located.is_none() && line.is_some() && is_syntax_message(message) {
        return ConfigError::Syntax {
            origin,
            message: first_line(message),
        };
    }
    ConfigError::InvalidValue {
        key: located.map(|path| path.join(".")),
        origin,
        message: first_line(message),
    }
}

/// Syntax errors come from the parser, schema errors from serde; serde's messages start with a
/// small set of phrases, so everything else is treated as syntax.
fn is_syntax_message(message: &str) -> bool {
    const SCHEMA_PREFIXES: [&str; 6] = [
        "invalid type",
        "invalid value",
        "unknown variant",
        "missing field",
        "invalid length",
        "duplicate field",
    ];
    !SCHEMA_PREFIXES
        .iter()
        .any(|prefix| message.starts_with(prefix))
}

/// Turns a schema error after a `-c` override into an error naming the argument.
fn override_error(error: &toml::de::Error, spec: &str, key_path: &[String]) -> ConfigError {
    let origin = ConfigOrigin::Override {
        spec: spec.to_owned(),
    };
    let message = error.message();
    if let Some(key) = unknown_field_name(message) {
        let table = match key_path.split_last() {
            Some((last, parents)) if *last == key => parents.join("."),
            _ => key_path.join("."),
        };
        return ConfigError::UnknownKey {
            key,
            table,
            origin,
            expected: expected_fields(message),
        };
    }
    ConfigError::InvalidValue {
        key: Some(key_path.join(".")),
        origin,
        message: first_line(message),
    }
}

/// Finds the key path whose key or value covers byte `offset` of the document.
fn locate(table: &DeTable<'_>, offset: usize, prefix: &mut Vec<String>) -> Option<Vec<String>> {
    for (key, value) in table.iter() {
        prefix.push(key.get_ref().to_string());
        if key.span().contains(&offset) {
            return Some(prefix.clone());
        }
        // Header tables (`[tools]`) may not have a span covering their body, so descend into every
        // table rather than only the one whose span contains the offset.
        let nested = match value.get_ref() {
            DeValue::Table(inner) => locate(inner, offset, prefix),
            DeValue::Array(items) => items.iter().find_map(|item| match item.get_ref() {
                DeValue::Table(inner) => locate(inner, offset, prefix),
                _ => None,
            }),
            _ => None,
        };
        if nested.is_some() {
            return nested;
        }
        if value.span().contains(&offset) {
            return Some(prefix.clone());
        }
        prefix.pop();
    }
    None
}

/// The field named by serde's "unknown field `x`, expected …" message.
fn unknown_field_name(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let end = rest.find('`')?;
    Some(rest[..end].to_owned())
}

/// The valid field names listed in serde's "unknown field" message.
fn expected_fields(message: &str) -> Vec<String> {
    let Some(index) = message.find("expected ") else {
        return Vec::new();
    };
    let list = &message[index + "expected ".len()..];
    let list = list.strip_prefix("one of ").unwrap_or(list);
    list.split(", ")
        .filter_map(|item| {
            let item = item.trim().trim_start_matches("or ");
            let name = item.strip_prefix('`')?.strip_suffix('`')?;
            Some(name.to_owned())
        })
        .collect()
}

/// 1-based line number of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&byte| byte == b'\n')
        .count()
        + 1
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ConfigFile, ConfigError> {
        ConfigFile::parse(text, Path::new("/home/user/.config/pincer/config.toml"))
    }

    fn overridden(text: &str, overrides: &[&str]) -> Result<ConfigFile, ConfigError> {
        let path = Path::new("config.toml");
        let table = parse_document(text, path)?;
        let overrides: Vec<String> = overrides.iter().map(|spec| (*spec).to_owned()).collect();
        ConfigFile::with_overrides(table, &overrides, path)
    }

    #[test]
    fn an_empty_file_is_all_defaults() {
        assert_eq!(parse("").unwrap(), ConfigFile::default());
    }

    #[test]
    fn every_documented_key_parses() {
        let text = r#"
model = "anthropic/claude-sonnet-4-5"
fallbacks = ["openai/gpt-5"]
thinking = "high"

[aliases]
fast = "anthropic/claude-haiku-4-5"

[providers.ollama]
api = "openai-chat"
base_url = "http://127.0.0.1:11434/v1"
api_key_env = "MY_KEY_VAR"
headers = { "x-team" = "ops" }

[providers.ollama.models.qwen3]
context_window = 32768
max_output = 8192
input_price = 0.0
output_price = 0
cache_read_price = 0.0
cache_write_price = 0.0
reasoning = true

[backends.claude-cli]
command = "/opt/claude"
extra_args = ["--debug"]
clear_env = ["ANTHROPIC_API_KEY"]
env = { FOO = "bar" }

[backends.codex-cli]
command = "codex"

[compaction]
enabled = false
reserve_tokens = 10000
keep_recent_tokens = 5000

[tools]
profile = "full"
allow = ["exec(git *)"]
deny = ["write"]
sandbox = "read-only"

[timeouts]
request_secs = 120
idle_secs = 60
stdin_secs = 0.25

[workspace]
files = ["AGENTS.md"]
max_file_chars = 1000
append_system_prompt = ["Be brief."]

[skills]
enabled = false
paths = ["ci/skills", "/opt/skills"]

[stdin]
max_bytes = 1024
"#;
        let config = parse(text).unwrap();
        assert_eq!(config.thinking, Some(ThinkingLevel::High));
        let ollama = &config.providers["ollama"];
        assert_eq!(ollama.api, Some(ApiKind::OpenAiChat));
        assert_eq!(ollama.headers["x-team"], "ops");
        assert_eq!(ollama.models["qwen3"].context_window, Some(32768));
        assert_eq!(ollama.models["qwen3"].output_price, Some(0.0));
        assert_eq!(
            config.backends.claude_cli.command.as_deref(),
            Some("/opt/claude")
        );
        assert_eq!(config.tools.sandbox, Some(SandboxMode::ReadOnly));
        assert_eq!(config.tools.profile, Some(ToolProfile::Full));
        assert_eq!(config.timeouts.stdin_secs, Some(0.25));
        assert_eq!(config.stdin.max_bytes, Some(1024));
        assert_eq!(config.skills.enabled, Some(false));
        assert_eq!(
            config.skills.paths,
            [
                std::path::PathBuf::from("ci/skills"),
                std::path::PathBuf::from("/opt/skills")
            ]
        );
    }

    #[test]
    fn budgets_take_amounts_and_refuse_negative_ones_or_unknown_periods() {
        let config =
            parse("[budget]\ndaily_usd = 5\nweekly_usd = 20.5\nmonthly_usd = 0\n").unwrap();
        assert_eq!(config.budget.daily_usd, Some(5.0));
        assert_eq!(config.budget.weekly_usd, Some(20.5));
        assert_eq!(config.budget.monthly_usd, Some(0.0));
        let error = parse("[budget]\ndaily_usd = -1\n").unwrap_err();
        match &error {
            ConfigError::InvalidValue { key, origin, .. } => {
                assert_eq!(key.as_deref(), Some("budget.daily_usd"));
                assert!(matches!(origin, ConfigOrigin::File { line: Some(2), .. }));
            }
            other => panic!("expected InvalidValue, got {other:?}"),
        }
        let error = parse("[budget]\nyearly_usd = 100\n").unwrap_err();
        assert!(
            matches!(&error, ConfigError::UnknownKey { key, .. } if key == "yearly_usd"),
            "{error:?}"
        );
        let error = overridden("", &["budget.daily_usd=\"lots\""]).unwrap_err();
        assert!(
            matches!(error, ConfigError::InvalidValue { .. }),
            "{error:?}"
        );
    }

    #[test]
    fn mcp_server_tables_take_codexs_keys_and_a_typo_is_named_with_its_line() {
        let text = "[mcp]\nload_workspace = true\nallow_key_env = { gw = [\"ANTHROPIC_API_KEY\"] }\n\n\
                    [mcp_servers.fs]\ncommand = \"npx\"\n\
                    args = [\"-y\"]\nenv = { A = \"1\" }\nenv_vars = [\"T\"]\ncwd = \"x\"\n\
                    startup_timeout_sec = 5\ntool_timeout_sec = 1.5\nenabled = true\n\
                    required = false\nenabled_tools = [\"a\"]\ndisabled_tools = [\"b\"]\n\n\
                    [mcp_servers.gh]\nurl = \"https://h/mcp\"\nbearer_token_env_var = \"GH\"\n\
                    http_headers = { X = \"y\" }\nenv_http_headers = { Y = \"Z\" }\n\n\
                    [mcp_servers.old]\ntype = \"sse\"\nurl = \"http://h/sse\"\n";
        let config = parse(text).unwrap();
        assert_eq!(config.mcp.load_workspace, Some(true));
        assert_eq!(config.mcp.allow_key_env["gw"], ["ANTHROPIC_API_KEY"]);
        assert_eq!(config.mcp_servers["fs"].tool_timeout_sec, Some(1.5));
        assert_eq!(
            config.mcp_servers["gh"].bearer_token_env_var.as_deref(),
            Some("GH")
        );
        assert_eq!(
            config.mcp_servers["old"].transport,
            Some(McpTransportKind::Sse)
        );
        let error = parse("[mcp_servers.fs]\ncommand = \"x\"\nbearer_token = \"t\"\n").unwrap_err();
        assert!(
            matches!(&error, ConfigError::UnknownKey { key, table, origin: ConfigOrigin::File { line: Some(3), .. }, .. }
                if key == "bearer_token" && table == "mcp_servers.fs"),
            "{error:?}"
        );
    }

    #[test]
    fn hook_tables_take_claudes_event_names_and_a_typo_is_named_with_its_line() {
        let text = "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\ncommand = \"guard.sh\"\n\
                    timeout = 5\nsandbox = false\n\n[[hooks.Stop]]\ncommand = \"check\"\n";
        let config = parse(text).unwrap();
        assert_eq!(
            config.hooks.pre_tool_use,
            [HookConfig {
                matcher: Some("Bash".into()),
                command: "guard.sh".into(),
                timeout: Some(5.0),
                sandbox: Some(false),
            }]
        );
        assert_eq!(config.hooks.stop.len(), 1);
        let error = parse("[[hooks.PreToolUse]]\ncommand = \"x\"\ntimout = 5\n").unwrap_err();
        assert!(
            matches!(&error, ConfigError::UnknownKey { key, origin: ConfigOrigin::File { line: Some(3), .. }, .. }
                if key == "timout"),
            "{error:?}"
        );
        let error = parse("[[hooks.PreTool]]\ncommand = \"x\"\n").unwrap_err();
        assert!(
            matches!(&error, ConfigError::UnknownKey { key, .. } if key == "PreTool"),
            "{error:?}"
        );
    }

    #[test]
    fn an_unknown_top_level_key_is_named_with_its_line() {
        let error = parse("# settings\nmodel = \"x/y\"\nmodle = \"a/b\"\n").unwrap_err();
        match &error {
            ConfigError::UnknownKey {
                key,
                table,
                origin,
                expected,
            } => {
                assert_eq!(key, "modle");
                assert_eq!(table, "");
                assert!(matches!(origin, ConfigOrigin::File { line: Some(3), .. }));
                assert!(expected.contains(&"model".to_owned()));
            }
            other => panic!("expected UnknownKey, got {other:?}"),
        }
        assert_eq!(
            error.to_string(),
            "unknown key 'modle' in '/home/user/.config/pincer/config.toml' (line 3)"
        );
        assert!(error.hint().unwrap().contains("model"));
    }

    #[test]
    fn an_unknown_nested_key_is_named_with_its_table_and_line() {
        let text = "model = \"a/b\"\n\n[providers.anthropic]\nbase_url = \"http://x\"\nbase_ur = \"http://y\"\n";
        let error = parse(text).unwrap_err();
        match &error {
            ConfigError::UnknownKey {
                key, table, origin, ..
            } => {
                assert_eq!(key, "base_ur");
                assert_eq!(table, "providers.anthropic");
                assert!(matches!(origin, ConfigOrigin::File { line: Some(5), .. }));
            }
            other => panic!("expected UnknownKey, got {other:?}"),
        }
        assert!(
            error
                .to_string()
                .contains("unknown key 'base_ur' in table [providers.anthropic]")
        );
    }

    #[test]
    fn an_unknown_key_in_a_backend_table_is_named() {
        let error = parse("[backends.claude-cli]\ncomand = \"claude\"\n").unwrap_err();
        assert!(
            matches!(&error, ConfigError::UnknownKey { key, table, .. }
                if key == "comand" && table == "backends.claude-cli"),
            "{error:?}"
        );
    }

    #[test]
    fn a_value_of_the_wrong_type_names_the_key_and_line() {
        let error = parse("[tools]\nsandbox = \"wide-open\"\n").unwrap_err();
        match &error {
            ConfigError::InvalidValue { key, origin, .. } => {
                assert_eq!(key.as_deref(), Some("tools.sandbox"));
                assert!(matches!(origin, ConfigOrigin::File { line: Some(2), .. }));
            }
            other => panic!("expected InvalidValue, got {other:?}"),
        }
    }

    #[test]
    fn broken_toml_is_a_syntax_error_with_a_line() {
        let text = "model = \"a/b\"\nfallbacks = [\n";
        let error = parse_document(text, Path::new("config.toml")).unwrap_err();
        assert!(
            matches!(
                &error,
                ConfigError::Syntax {
                    origin: ConfigOrigin::File { line: Some(_), .. },
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(parse(text).is_err());
    }

    #[test]
    fn an_override_sets_a_nested_key() {
        let config = overridden(
            "[providers.anthropic]\napi_key_env = \"K\"\n",
            &["providers.anthropic.base_url=\"http://127.0.0.1:9\""],
        )
        .unwrap();
        let anthropic = &config.providers["anthropic"];
        assert_eq!(anthropic.base_url.as_deref(), Some("http://127.0.0.1:9"));
        assert_eq!(anthropic.api_key_env.as_deref(), Some("K"));
    }

    #[test]
    fn an_override_value_without_quotes_is_a_string() {
        let config = overridden("model = \"a/b\"", &["model=openai/gpt-5"]).unwrap();
        assert_eq!(config.model.as_deref(), Some("openai/gpt-5"));
        let config = overridden("", &["providers.x.base_url=http://h:1/v1"]).unwrap();
        assert_eq!(
            config.providers["x"].base_url.as_deref(),
            Some("http://h:1/v1")
        );
    }

    #[test]
    fn override_values_are_parsed_as_toml_arrays_integers_and_booleans() {
        let config = overridden(
            "",
            &[
                "fallbacks=[\"openai/gpt-5\", \"google/gemini-2.5-pro\"]",
                "compaction.reserve_tokens=5000",
                "compaction.enabled=false",
            ],
        )
        .unwrap();
        assert_eq!(
            config.fallbacks,
            vec![
                "openai/gpt-5".to_owned(),
                "google/gemini-2.5-pro".to_owned()
            ]
        );
        assert_eq!(config.compaction.reserve_tokens, Some(5000));
        assert_eq!(config.compaction.enabled, Some(false));
    }

    #[test]
    fn an_override_key_may_have_quoted_segments() {
        let config =
            overridden("", &["backends.\"claude-cli\".command = /opt/bin/claude"]).unwrap();
        assert_eq!(
            config.backends.claude_cli.command.as_deref(),
            Some("/opt/bin/claude")
        );
    }

    #[test]
    fn a_later_override_wins_over_an_earlier_one_and_the_file() {
        let config = overridden("model = \"a/b\"", &["model=c/d", "model=e/f"]).unwrap();
        assert_eq!(config.model.as_deref(), Some("e/f"));
    }

    #[test]
    fn an_override_of_an_unknown_key_is_rejected_by_name() {
        let error = overridden("", &["tools.sandbx=read-only"]).unwrap_err();
        match &error {
            ConfigError::UnknownKey {
                key, table, origin, ..
            } => {
                assert_eq!(key, "sandbx");
                assert_eq!(table, "tools");
                assert!(
                    matches!(origin, ConfigOrigin::Override { spec } if spec == "tools.sandbx=read-only")
                );
            }
            other => panic!("expected UnknownKey, got {other:?}"),
        }
        assert_eq!(
            error.to_string(),
            "unknown key 'sandbx' in table [tools] in -c 'tools.sandbx=read-only'"
        );
        let error = overridden("", &["modle=x/y"]).unwrap_err();
        assert!(
            matches!(&error, ConfigError::UnknownKey { key, table, .. } if key == "modle" && table.is_empty())
        );
    }

    #[test]
    fn an_override_with_a_bad_value_names_the_key() {
        let error = overridden("", &["compaction.enabled=maybe"]).unwrap_err();
        assert!(
            matches!(&error, ConfigError::InvalidValue { key: Some(key), .. } if key == "compaction.enabled"),
            "{error:?}"
        );
    }

    #[test]
    fn an_override_without_an_equals_sign_is_rejected_with_a_hint() {
        let mut document = toml::Table::new();
        let error = apply_override(&mut document, "model").unwrap_err();
        assert!(matches!(&error, ConfigError::OverrideSyntax { .. }));
        assert!(error.to_string().contains("missing '='"), "{error}");
        assert!(error.hint().unwrap().contains("KEY=VALUE"));
    }

    #[test]
    fn malformed_override_keys_are_rejected() {
        let mut document = toml::Table::new();
        for spec in ["=x", "a..b=1", "a.=1", "\"open=1", "a b c"] {
            assert!(
                matches!(
                    apply_override(&mut document, spec),
                    Err(ConfigError::OverrideSyntax { .. })
                ),
                "{spec} should be rejected"
            );
        }
    }

    #[test]
    fn an_override_through_a_scalar_is_rejected() {
        let mut document = toml::Table::new();
        apply_override(&mut document, "model=a/b").unwrap();
        let error = apply_override(&mut document, "model.inner=1").unwrap_err();
        assert!(error.to_string().contains("'model' is a value"), "{error}");
    }

    #[test]
    fn line_numbers_count_from_one() {
        assert_eq!(line_of("abc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 4), 3);
        assert_eq!(line_of("a\n", 99), 2);
    }
}
