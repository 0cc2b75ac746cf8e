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
    /// Neither cooling down nor disabled.
    pub available: bool,
    /// Until when it is not used (ISO 8601), when it is not available.
    pub unavailable_until: Option<String>,
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
    /// Neither cooling down nor disabled.
    pub available: bool,
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
