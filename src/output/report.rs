//! The `--json` shapes of the reporting commands, as types: a command fills one of these, and
//! both its JSON and its text view are rendered from it. Like the result object
//! ([`super::schema`]), every type here is `deny_unknown_fields`, so a test that parses a
//! command's output with them fails when the output grows a field the types do not know.
//!
//! Fields are declared in the order they are printed (serde keeps it).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where an auth profile's secret comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SecretSource {
    /// Kept in the auth store.
    Stored,
    /// Read from an environment variable at run time.
    Env,
    /// Printed by a command at run time.
    Command,
    /// None (an OAuth profile without a token, for one).
    None,
}

impl SecretSource {
    /// The name the JSON and the text view give it.
    pub fn as_str(self) -> &'static str {
        match self {
            SecretSource::Stored => "stored",
            SecretSource::Env => "env",
            SecretSource::Command => "command",
            SecretSource::None => "none",
        }
    }
}

/// `auth list --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthList {
    /// The auth store.
    pub file: PathBuf,
    /// Grouped by provider, ids sorted within each.
    pub profiles: Vec<ProfileSummary>,
}

/// One profile of `auth list`: never the secret, at most its fingerprint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileSummary {
    /// `provider:name`.
    pub id: String,
    /// The provider it is for.
    pub provider: String,
    /// `api_key`, `token` or `oauth`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where the secret comes from.
    pub source: SecretSource,
    /// The secret as shown: a fingerprint, `$VAR` or the command.
    pub secret: String,
    /// Neither cooling down nor disabled, and its secret can be had.
    pub available: bool,
    /// Until when it is not used (ISO 8601), when it is not available.
    pub unavailable_until: Option<String>,
    /// Why it cannot work whatever the time (its variable unset, its token expired), when so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unusable: Option<String>,
}

/// `auth add --json`: the profile added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthAdded {
    /// `provider:name`.
    pub id: String,
    /// The provider it is for.
    pub provider: String,
    /// `api_key`, `token` or `oauth`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where the secret comes from.
    pub source: SecretSource,
    /// The secret as shown.
    pub secret: String,
    /// The auth store it was added to.
    pub file: PathBuf,
}

/// `auth remove --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthRemoved {
    /// The id removed.
    pub removed: String,
    /// Its provider.
    pub provider: String,
}

/// `auth order --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthOrder {
    /// The provider.
    pub provider: String,
    /// The ids in the order they are tried.
    pub order: Vec<String>,
    /// Whether the order was set (`auth order PROVIDER ID…`) rather than derived.
    pub explicit: bool,
    /// Profiles of the provider an explicit order leaves out.
    pub not_tried: Vec<String>,
}

/// `auth status --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthStatus {
    /// The auth store.
    pub file: PathBuf,
    /// Grouped by provider, ids sorted within each.
    pub profiles: Vec<ProfileStatus>,
}

/// One profile of `auth status`, with its usage and failure state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileStatus {
    /// `provider:name`.
    pub id: String,
    /// The provider it is for.
    pub provider: String,
    /// `api_key`, `token` or `oauth`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where the secret comes from.
    pub source: SecretSource,
    /// The secret as shown.
    pub secret: String,
    /// Neither cooling down nor disabled, and its secret can be had.
    pub available: bool,
    /// Why it cannot work whatever the time (its variable unset, its token expired), when so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unusable: Option<String>,
    /// When a run last used it (ISO 8601).
    pub last_used: Option<String>,
    /// The end of its cooldown, while it lasts.
    pub cooldown_until: Option<String>,
    /// The end of its disabling (billing, auth), while it lasts.
    pub disabled_until: Option<String>,
    /// Why it was disabled.
    pub disabled_reason: Option<String>,
    /// Failures since its last success.
    pub error_count: u32,
    /// Failures by class.
    pub failure_counts: BTreeMap<String, u32>,
    /// When it last failed.
    pub last_failure_at: Option<String>,
    /// Whether it is the provider's last good profile.
    pub last_good: bool,
}

/// `auth reset --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthReset {
    /// How many profiles were reset.
    pub reset: usize,
    /// The one profile asked for, if one was.
    pub id: Option<String>,
}

/// `auth test --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthTest {
    /// One per credential tried (or per provider with none).
    pub results: Vec<CredentialTest>,
}

/// One credential's test: a one-token request to the provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CredentialTest {
    /// The provider.
    pub provider: String,
    /// `profile:ID` or `env:VAR`; none when the provider had no usable credential.
    pub source: Option<String>,
    /// The model the request named (absent when there was no credential).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whether the credential is in a cooldown (absent when there was no credential).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooling: Option<bool>,
    /// Whether the request succeeded.
    pub ok: bool,
    /// The failure's class (`auth`, `rate_limit`, …) when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The HTTP status of a failed request (`null` when it had none); absent otherwise.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub status: Option<Option<u16>>,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// How long the request took, when one was made to its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
}

/// A field that may be `null` and may be absent: present (even as `null`) is `Some`.
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// `status --mcp --json`: each configured server, started and stopped again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpStatus {
    /// In the order they are configured.
    pub mcp_servers: Vec<McpServerReport>,
}

/// One server of `status --mcp`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum McpServerReport {
    /// A server pincer started (`status` is `connected` or `failed`).
    Started(McpStartedServer),
    /// A server with `enabled = false` (`status` is `disabled`).
    Disabled(McpDisabledServer),
}

/// A server `status --mcp` started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpStartedServer {
    /// Its name.
    pub name: String,
    /// `connected` or `failed`.
    pub status: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// Where it was configured.
    pub origin: String,
    /// Declared `required`.
    pub required: bool,
    /// The server's own name and version, from `initialize`.
    pub server: Option<String>,
    /// How long starting took.
    pub startup_ms: u64,
    /// Its process id (stdio).
    pub pid: Option<i32>,
    /// How many tools it listed, offered or not.
    pub listed_tools: usize,
    /// The tools offered to the model.
    pub tools: Vec<McpToolReport>,
    /// Why it failed.
    pub error: Option<String>,
    /// The last lines of its stderr (stdio).
    pub stderr_tail: Vec<String>,
}

/// One offered tool of a started server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpToolReport {
    /// The name the model sees (`mcp__server__tool`).
    pub name: String,
    /// The server's own name for it.
    pub tool: String,
    /// The server marked it read-only (`readOnlyHint`).
    pub read_only: bool,
}

/// A server that is configured but not enabled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpDisabledServer {
    /// Its name.
    pub name: String,
    /// `disabled`.
    pub status: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// Where it was configured.
    pub origin: String,
    /// Declared `required`.
    pub required: bool,
}

/// `compact --json` when it succeeds: what it did, or that there was nothing to do. (A failed
/// compaction prints the result object of a run, [`super::schema::RunResult`].)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactReport {
    /// `compact`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The version of this output, bumped on any incompatible change.
    pub schema_version: super::schema::SchemaVersion,
    /// The session.
    pub session_id: String,
    /// Always false here.
    pub is_error: bool,
    /// Whether a summary replaced older entries; the fields below only when it did.
    pub compacted: bool,
    /// The context's size before, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_before: Option<u64>,
    /// The context's size after, in tokens (estimated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_after: Option<u64>,
    /// The first entry kept as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_kept_entry_id: Option<String>,
    /// Whether the model wrote the summary (false: the fallback lists of files and messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarized_by_model: Option<bool>,
    /// The summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// `compact --dry-run --json`: what a compaction would do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactPlan {
    /// `compact_plan`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The version of this output, bumped on any incompatible change.
    pub schema_version: super::schema::SchemaVersion,
    /// The session.
    pub session_id: String,
    /// Whether there is anything to compact; the fields below only when there is.
    pub would_compact: bool,
    /// The first entry that would be kept as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_kept_entry_id: Option<String>,
    /// The context's size now, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_before: Option<u64>,
    /// The estimated size of what would be kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_tokens_estimate: Option<u64>,
    /// How many messages the summary would replace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages_to_summarize: Option<usize>,
    /// How many messages of a split turn would be summarized apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_prefix_messages: Option<usize>,
    /// Whether an earlier summary would be updated rather than a new one written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updates_previous_summary: Option<bool>,
}

/// `status --json` without a session: the installation as a turn run here would find it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstallationStatus {
    /// pincer's version.
    pub version: String,
    /// The configured model, if one is.
    pub model: Option<String>,
    /// The configured fallback models.
    pub fallbacks: Vec<String>,
    /// The workspace.
    pub workspace: PathBuf,
    /// Where pincer keeps its files.
    pub paths: StatusPaths,
    /// Per provider, the credentials a run would try.
    pub credentials: Vec<ProviderCredentials>,
    /// Every stored profile, or why the auth store could not be read.
    pub auth_profiles: StoredProfiles,
    /// The CLI backends on `PATH`.
    pub cli_backends: CliBackends,
    /// The sandbox of a turn run here with no flags.
    pub sandbox: SandboxReport,
    /// The system prompt such a turn sends.
    pub system_prompt: SystemPromptReport,
    /// What every request carries besides the messages.
    pub overhead: OverheadReport,
    /// The skills found.
    pub skills: crate::agent::skills::Discovery,
    /// What pincer reads from a workspace as configuration or prompt (issue #45's registry).
    pub consumed: Vec<crate::consumed::ConsumedReport>,
    /// The consumed files of this workspace a turn run here would not read, with why and what
    /// to do (absent when none is).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_files: Vec<crate::consumed::Refusal>,
    /// The prompt cache.
    pub cache: CacheReport,
    /// Sessions in the store.
    pub sessions: usize,
    /// Sessions of this workspace.
    pub sessions_here: usize,
    /// Each `[budget]` against its current window (SPEC §18); absent when none is configured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub budgets: Vec<crate::output::usage::BudgetRow>,
    /// The session store (`--store`, SPEC §19), checked now; absent when none is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<StoreStatus>,
}

/// `status`'s session store: its consistency check, run now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreStatus {
    /// The store's URL, without credentials.
    pub url: String,
    /// Where the URL came from (`--store or PINCER_STORE`, `[store] url in config.toml`).
    pub origin: String,
    /// Whether the store answered.
    pub reachable: bool,
    /// Whether it passed the check sessions need (conditional writes honoured, listings
    /// strongly consistent); absent when it could not be asked.
    pub consistent: Option<bool>,
    /// Sessions in the store (when reachable and consistent).
    pub sessions: Option<usize>,
    /// What failed: its `error.kind` and message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<StoreStatusError>,
}

/// Why the store check failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreStatusError {
    /// `store_unavailable`, `store_refused`, …
    pub kind: String,
    pub message: String,
}

/// The files of `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusPaths {
    /// `config.toml`.
    pub config_file: PathBuf,
    /// The auth store.
    pub auth_file: PathBuf,
    /// The sessions directory.
    pub sessions_dir: PathBuf,
}

/// One provider's credentials in `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderCredentials {
    /// The provider.
    pub provider: String,
    /// Whether a run could use it now (or it needs no key).
    pub usable: bool,
    /// The first source a run would use.
    pub source: Option<String>,
    /// Every source, in the order a run tries them.
    pub sources: Vec<CredentialSource>,
    /// Its key variables that are set (names only).
    pub env_vars_set: Vec<String>,
    /// Where its requests go.
    pub base_url: Option<String>,
}

/// One credential source: never a value, a fingerprint at most.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CredentialSource {
    /// `profile:ID` or `env:VAR`.
    pub source: String,
    /// A stored key's fingerprint, `env:VAR` or `command:CMD`; none for a variable.
    pub secret: Option<String>,
    /// `ready`, `cooldown`, `disabled` or `unusable`.
    pub state: String,
    /// The end of a cooldown or disabling (ISO 8601).
    pub until: Option<String>,
    /// Why it waits or cannot be used.
    pub reason: Option<String>,
}

impl CredentialSource {
    /// Whether it waits out a cooldown or a disabling.
    pub fn is_waiting(&self) -> bool {
        matches!(self.state.as_str(), "cooldown" | "disabled")
    }
}

/// The stored profiles of `status`, or the reason the store could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StoredProfiles {
    /// The profiles, in the store's order.
    Read(Vec<StoredProfile>),
    /// The store could not be read.
    Unreadable {
        /// Why.
        error: String,
    },
}

/// One stored profile of `status`, with its cooldown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredProfile {
    /// `provider:name`.
    pub id: String,
    /// The provider.
    pub provider: String,
    /// Where the secret is, as shown.
    pub source: String,
    /// When a run last used it (ms since the epoch).
    pub last_used: Option<u64>,
    /// The end of its cooldown (ms since the epoch).
    pub cooldown_until: Option<u64>,
    /// The end of its disabling (ms since the epoch).
    pub disabled_until: Option<u64>,
    /// Why it was disabled.
    pub disabled_reason: Option<String>,
    /// Failures by class.
    pub failure_counts: BTreeMap<String, u32>,
    /// Its state as a source (absent when its provider does not list it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// The end of a cooldown or disabling (ISO 8601), with `state`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub until: Option<Option<String>>,
    /// Why it waits, with `state`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub reason: Option<Option<String>>,
}

/// The CLI backends of `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CliBackends {
    /// `claude`.
    pub claude: CliBackendReport,
    /// `codex`.
    pub codex: CliBackendReport,
}

/// One CLI backend: whether it is installed and logged in (its login file exists).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CliBackendReport {
    /// Found on `PATH`.
    pub installed: bool,
    /// Where.
    pub path: Option<PathBuf>,
    /// Its login file exists.
    pub logged_in: bool,
}

/// The sandbox as `status` and `--dry-run` report it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxReport {
    /// `read-only`, `workspace-write` or `danger-full-access`.
    pub mode: String,
    /// Directories writable besides the workspace.
    pub added_dirs: Vec<PathBuf>,
    /// `allowed` or `refused`.
    pub web_fetch_private_addresses: String,
    /// The protection level `exec` commands get here.
    pub exec_protection: String,
    /// That protection in a sentence.
    pub exec_enforcement: String,
    /// Whether the sandbox is enforced by the kernel.
    pub exec_enforced: bool,
    /// Whether namespaces are available, in a sentence.
    pub exec_namespace: String,
    /// Whether Landlock is available, in a sentence.
    pub exec_landlock: String,
    /// The network of `exec` commands, in a sentence.
    pub exec_network: String,
    /// The network rules in force (SPEC §20), in one line, when there are any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec_network_rules: Option<String>,
    /// The launcher used to confine commands.
    pub exec_launcher: Option<PathBuf>,
    /// When the protection was probed, if not by this process (ISO 8601).
    pub exec_probed_at: Option<String>,
}

/// The system prompt of `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemPromptReport {
    /// Its length in characters.
    pub chars: usize,
    /// Its sections, in order.
    pub sections: Vec<crate::agent::prompt::SectionSize>,
    /// The workspace files in it, in order.
    pub workspace_files: Vec<crate::agent::prompt::FileReport>,
}

/// What every request carries besides the messages (estimated tokens).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverheadReport {
    /// The system prompt and the tools.
    pub tokens: u64,
    /// The system prompt.
    pub system_prompt_tokens: u64,
    /// The tool definitions.
    pub tool_tokens: u64,
    /// The tools offered.
    pub tools: Vec<String>,
}

/// The prompt cache of `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheReport {
    /// `5m` or `1h`.
    pub ttl: String,
}

/// `status SESSION --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionStatus {
    /// The session's id.
    pub session_id: String,
    /// Its name.
    pub session_name: Option<String>,
    /// Its file.
    pub file: PathBuf,
    /// Its workspace.
    pub cwd: String,
    /// `api`, `claude-cli` or `codex-cli`.
    pub backend: String,
    /// The provider of its current model.
    pub provider: Option<String>,
    /// Its current model.
    pub model: Option<String>,
    /// CLI-backend session ids by backend.
    pub backend_session_ids: BTreeMap<String, String>,
    /// Its thinking level.
    pub thinking_level: Option<String>,
    /// User prompts.
    pub turns: u64,
    /// Messages.
    pub messages: u64,
    /// Compactions.
    pub compactions: u64,
    /// How full its context is.
    pub context: StatusContext,
    /// The usage of the last successful call.
    pub last_call_usage: Option<UsageReport>,
    /// The usage of every call.
    pub usage: UsageReport,
    /// What every call cost.
    #[serde(serialize_with = "super::money::usd")]
    pub total_cost_usd: f64,
    /// When it was created (ISO 8601).
    pub created: String,
    /// Its last entry's time (ISO 8601).
    pub last_activity: String,
    /// Whether its last model call was aborted or failed.
    pub last_run_aborted: bool,
    /// That call's error.
    pub last_error: Option<String>,
    /// Whether a run holds it now.
    pub locked: bool,
    /// Why it could not be fully read.
    pub problem: Option<String>,
    /// The command that repairs it, with `problem`.
    pub repair_command: Option<String>,
    /// Whether it ends in a torn line the next append repairs.
    pub torn_tail: bool,
}

/// How full a session's context is, in `status SESSION` and `sessions list` (where `tokens`
/// is always known: a listed session without it has no context object).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusContext {
    /// Tokens in context.
    pub tokens: Option<u64>,
    /// The model's window.
    pub window: Option<u64>,
    /// `tokens / window` in percent.
    pub percent: Option<f64>,
    /// Whether `tokens` is an estimate.
    pub estimated: bool,
}

/// Token usage in the Anthropic names `status SESSION` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageReport {
    /// Input tokens not read from or written to the cache.
    pub input_tokens: u64,
    /// Tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
}

impl From<&crate::conversation::TokenUsage> for UsageReport {
    fn from(usage: &crate::conversation::TokenUsage) -> UsageReport {
        UsageReport {
            input_tokens: usage.input,
            cache_creation_input_tokens: usage.cache_write,
            cache_read_input_tokens: usage.cache_read,
            output_tokens: usage.output,
        }
    }
}

/// One session of `sessions list --json` (the listing is an array of these, newest first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionListItem {
    /// The session's id.
    pub id: String,
    /// Its name.
    pub name: Option<String>,
    /// Its file.
    pub file: PathBuf,
    /// Its workspace.
    pub cwd: String,
    /// When it was created (ISO 8601).
    pub created: String,
    /// Its last entry's time (ISO 8601).
    pub updated: String,
    /// Its current model, `provider/model`.
    pub model: Option<String>,
    /// User prompts.
    pub turns: u64,
    /// Messages.
    pub messages: u64,
    /// How full its context is, when known.
    pub context: Option<StatusContext>,
    /// The usage of every call.
    pub usage: ListUsage,
    /// What every call cost.
    #[serde(serialize_with = "super::money::usd")]
    pub total_cost_usd: f64,
    /// Compactions.
    pub compactions: u64,
    /// Whether its last model call was aborted or failed.
    pub last_run_aborted: bool,
    /// Why it could not be fully read.
    pub problem: Option<String>,
    /// The shortest prefix of the id that names it alone.
    pub short_id: String,
}

/// The usage of a listed session (in the order `sessions list` has always printed it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListUsage {
    /// Input tokens not read from or written to the cache.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// Tokens written to the cache.
    pub cache_creation_input_tokens: u64,
}

/// `sessions show --json`: the current branch, entries as in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionShown {
    /// The session's id.
    pub id: String,
    /// Its file.
    pub file: PathBuf,
    /// Its header line.
    pub header: crate::session::record::SessionHeader,
    /// The entries from the root to the leaf.
    pub entries: Vec<crate::session::record::Entry>,
}

/// `sessions show --tree --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionTreeShown {
    /// The session's id.
    pub id: String,
    /// Its file.
    pub file: PathBuf,
    /// The entry the next turn continues from.
    pub leaf: Option<String>,
    /// Every entry.
    pub tree: SessionTree,
}

/// The entries of a session as a tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionTree {
    /// The entries without a parent.
    pub roots: Vec<String>,
    /// Every entry, in file order.
    pub nodes: Vec<TreeNode>,
}

/// One entry of the tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeNode {
    /// Its id.
    pub id: String,
    /// Its parent's id.
    #[serde(rename = "parentId")]
    pub parent_id: Option<String>,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: String,
    /// A line about it.
    pub label: String,
    /// Its children's ids.
    pub children: Vec<String>,
}

/// `sessions fork --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionForked {
    /// The new session's id.
    pub id: String,
    /// Its file.
    pub file: PathBuf,
    /// The session it was forked from.
    pub forked_from: String,
    /// The entry it was forked at.
    pub at: Option<String>,
    /// Its name.
    pub name: Option<String>,
}

/// `sessions rename --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRenamed {
    /// The session's id.
    pub id: String,
    /// Its new name.
    pub name: String,
    /// Its file.
    pub file: PathBuf,
}

/// `sessions rm --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionsRemoved {
    /// The files removed.
    pub removed: Vec<PathBuf>,
}

/// `sessions prune --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionsPruned {
    /// Whether nothing was removed (`--dry-run`).
    pub dry_run: bool,
    /// The files removed (without `--dry-run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<PathBuf>>,
    /// The files that would be removed (with `--dry-run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub would_remove: Option<Vec<PathBuf>>,
    /// The files kept: busy, or not a session file.
    pub skipped: Vec<PathBuf>,
}

/// One session of `sessions list --json` against a session store (`--store`): what the store's
/// listing says without reading the session's segments (the listing is an array of these,
/// newest first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSessionListItem {
    /// The session's id.
    pub id: String,
    /// Its first name (sorted), when it has one.
    pub name: Option<String>,
    /// Every name that points to it.
    pub names: Vec<String>,
    /// When its first segment was written, by the store's clock (ISO 8601).
    pub created: Option<String>,
    /// When its last segment was written, by the store's clock (ISO 8601).
    pub updated: Option<String>,
    /// Its segments: one per committed turn, or per push.
    pub segments: u64,
    /// The number the last committed turn gave, when one did.
    pub last_turn: Option<u64>,
    /// The size of the session file its segments make.
    pub bytes: u64,
}

/// `sessions pull --json`, and what `show` and `export` did to the local copy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionPulled {
    /// The store, its URL without credentials.
    pub store: String,
    /// The session's id.
    pub id: String,
    /// The local copy: the store's segments concatenated, a pi v3 session file.
    pub file: PathBuf,
    /// The segments the local copy holds (1 to this one).
    pub segments: u64,
    /// The segments read from the store this time (the others were in the local copy).
    pub fetched: u64,
    /// The size of the local copy.
    pub bytes: u64,
}

/// What `sessions push` did with one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushOutcome {
    /// The session was not in the store: the file is its first segment.
    Pushed,
    /// The store held the start of the file: the rest is one more segment.
    Extended,
    /// The store already held the whole file: nothing was written.
    AlreadyInStore,
    /// Not pushed: `error` says why (the store's copy differs, another writer holds it, …).
    Refused,
}

/// One session of `sessions push --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionPushed {
    /// The session's id.
    pub id: String,
    /// Its local file.
    pub file: PathBuf,
    /// What happened.
    pub outcome: PushOutcome,
    /// The session's segments in the store afterwards (None when refused).
    pub segments: Option<u64>,
    /// The local name given to it in the store too (None: it has none, or the store gave
    /// that name to another session, which `error` then says).
    pub name: Option<String>,
    /// Why it was refused, or why its name was not given.
    pub error: Option<String>,
}

/// `sessions push --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionsPushed {
    /// The store, its URL without credentials.
    pub store: String,
    /// Each session asked for, in order.
    pub sessions: Vec<SessionPushed>,
}

/// `sessions rm --json` against a session store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSessionsRemoved {
    /// The store, its URL without credentials.
    pub store: String,
    /// The ids of the sessions removed from it.
    pub removed: Vec<String>,
}

/// `sessions prune --json` against a session store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSessionsPruned {
    /// The store, its URL without credentials.
    pub store: String,
    /// Whether nothing was removed (`--dry-run`).
    pub dry_run: bool,
    /// The ids removed (without `--dry-run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<String>>,
    /// The ids that would be removed (with `--dry-run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub would_remove: Option<Vec<String>>,
    /// The ids kept: another writer held them, or they were written to while the prune ran.
    pub skipped: Vec<String>,
}

/// `sessions path --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionPath {
    /// The session's file.
    pub file: PathBuf,
}

/// `sessions repair --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRepaired {
    /// The session's file.
    pub file: PathBuf,
    /// Whether nothing was changed (`--dry-run`).
    pub dry_run: bool,
    /// Whether there was nothing to repair.
    pub clean: bool,
    /// The corrupt lines moved to the side file (1-based).
    pub dropped_lines: Vec<usize>,
    /// The header written in place of a damaged one.
    pub rebuilt_header: Option<RebuiltHeaderReport>,
    /// Where the corrupt lines went.
    pub side_file: Option<PathBuf>,
    /// What became of a torn last line.
    pub torn_tail: Option<TornTailReport>,
    /// The format version the file was migrated from.
    pub migrated_from: Option<u32>,
}

/// A rebuilt header of `sessions repair`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RebuiltHeaderReport {
    /// The session's id.
    pub id: String,
    /// Its workspace.
    pub cwd: String,
    /// Whether the workspace was found in its entries rather than assumed.
    pub cwd_recovered: bool,
    /// Whether line 1 was replaced rather than a header inserted.
    pub replaced_line_1: bool,
}

/// A torn last line in `sessions repair`: `"completed"` or `{"moved_to": FILE}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TornTailReport {
    /// `completed`: it was a whole entry missing its newline.
    Completed(String),
    /// The fragment was moved to a side file.
    Moved {
        /// The side file.
        moved_to: PathBuf,
    },
}

/// `sessions export --format json`: the whole file, every branch, as one document. Borrowed
/// when written, so a long session is not copied to be exported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionExport<'a> {
    /// The header line.
    pub header: std::borrow::Cow<'a, crate::session::record::SessionHeader>,
    /// Every entry, in file order.
    pub entries: std::borrow::Cow<'a, [crate::session::record::Entry]>,
}

/// `run --dry-run` / `resume --dry-run`: what the turn would send (or which child it would
/// start), touching nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DryRun {
    /// `dry_run`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The session resumed (none for a new one: no id is made).
    pub session_id: Option<String>,
    /// The primary model.
    pub model: String,
    /// Its provider.
    pub provider: String,
    /// `api`, `claude-cli` or `codex-cli`.
    pub backend: String,
    /// The fallback models, `provider/model`, in order.
    pub fallbacks: Vec<String>,
    /// The system prompt.
    pub system_prompt: String,
    /// Its sections, in order.
    pub system_prompt_sections: Vec<crate::agent::prompt::SectionSize>,
    /// The workspace files in it, in order.
    pub workspace_files: Vec<crate::agent::prompt::FileReport>,
    /// The skills found.
    pub skills: crate::agent::skills::Discovery,
    /// The tools offered to the model (a CLI child's own names for a CLI backend).
    pub tools: Vec<String>,
    /// The tool policy (as `tools::policy::ToolPolicy::describe` shows it).
    pub tool_policy: serde_json::Value,
    /// The sandbox.
    pub sandbox: SandboxReport,
    /// The MCP servers configured, none started.
    pub mcp_servers: Vec<McpDryRunServer>,
    /// The hooks configured.
    pub hooks: Vec<HookDryRun>,
    /// The API the request is for (API backend only, as the fields up to `body`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    /// Where it would go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `found`, `missing` or `not needed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
    /// The thinking level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// The prompt cache's lifetime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_ttl: Option<String>,
    /// The estimated tokens of the system prompt and tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_tokens: Option<u64>,
    /// The request body, in the provider's wire format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<serde_json::Value>,
    /// The child a CLI backend would start (CLI backends only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child: Option<ChildInvocation>,
}

/// The CLI child of a `--dry-run`: environment variable names, never values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChildInvocation {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub argv: Vec<String>,
    /// Whether the prompt goes on its stdin rather than in `argv`.
    pub prompt_via_stdin: bool,
    /// The variables it is given, by name.
    pub env_names: Vec<String>,
    /// The variables removed from its environment.
    pub cleared_env: Vec<String>,
    /// The MCP configuration it is given (Claude Code), in its own format.
    pub mcp_config: Option<serde_json::Value>,
    /// The hook settings it is given (Claude Code), in its own format.
    pub hook_settings: Option<serde_json::Value>,
}

/// One MCP server of a `--dry-run`: nothing started, variable names instead of values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpDryRunServer {
    /// Its name.
    pub name: String,
    /// Where it was configured.
    pub origin: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// Whether it would be started.
    pub enabled: bool,
    /// Declared `required`.
    pub required: bool,
    /// `command` as declared (`${VAR}` unexpanded).
    pub command: Option<serde_json::Value>,
    /// `args` as declared.
    pub args: Option<serde_json::Value>,
    /// `url` as declared.
    pub url: Option<serde_json::Value>,
    /// The names of its `env` variables.
    pub env_names: Vec<String>,
    /// The names of its headers.
    pub header_names: Vec<String>,
    /// How long it may take to start.
    pub startup_timeout_sec: f64,
    /// How long one tool call may take.
    pub tool_timeout_sec: f64,
    /// The only tools offered, when set.
    pub enabled_tools: Option<Vec<String>>,
    /// Tools never offered.
    pub disabled_tools: Vec<String>,
}

/// One hook of a `--dry-run`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookDryRun {
    /// The event it runs on.
    pub event: String,
    /// The tools it matches (none: all).
    pub matcher: Option<String>,
    /// The command.
    pub command: String,
    /// Its timeout in seconds.
    pub timeout: f64,
    /// Whether it runs in the sandbox.
    pub sandbox: bool,
    /// Where it was configured.
    pub origin: String,
}
