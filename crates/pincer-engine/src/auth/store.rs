//! `<config>/auth-profiles.json`: the credential profile store, in OpenClaw's layout.
//!
//! ```json
//! {"version": 1,
//!  "profiles": {"anthropic:default": {"type": "api_key", "provider": "anthropic", "key": "sk-…"}},
//!  "order": {"anthropic": ["anthropic:work", "anthropic:default"]},
//!  "lastGood": {"anthropic": "anthropic:work"},
//!  "usageStats": {"anthropic:work": {"lastUsed": 0, "cooldownUntil": 0, "errorCount": 0}}}
//! ```
//!
//! Invariants:
//! - the file is created with mode 0600 (set when the staging file is created, never chmod-ed
//!   after the secret is on disk) inside a 0700 directory, and a write killed half-way leaves no
//!   staging file holding the keys (`crate::fs`'s unnamed staging; the store's directory is
//!   swept of older leftovers on every write);
//! - every change goes through [`AuthFile::update`]: take `auth-profiles.json.lock`, read the file
//!   afresh, apply the change, write a temp file in the same directory, rename it over. Parallel
//!   cron runs therefore never lose each other's updates, and a reader never sees half a file;
//! - a file that does not parse is reported with its line and column and never overwritten;
//! - fields this build does not know (OpenClaw's `email`, `metadata`, `displayName`, …) are kept.

use std::collections::BTreeMap;
use std::fs::{File, Permissions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::AuthError;
pub use super::cooldown::UsageStats;
use crate::fs::{FileLock, lock_path};
use crate::secret::Secret;

/// The layout version this build reads and writes (OpenClaw `AUTH_STORE_VERSION`).
pub const STORE_VERSION: u64 = 1;

/// How long a change waits for another process's change to finish. Changes take milliseconds;
/// the bound only matters when a process hangs while holding the lock, and a run's --timeout
/// ends it sooner (`crate::fs::set_wait_deadline`).
const LOCK_WAIT: Duration = Duration::from_secs(10);

const DIRECTORY_MODE: u32 = 0o700;

/// The fields in which OpenClaw's `oauth` profiles keep their tokens.
const OAUTH_SECRET_FIELDS: [&str; 2] = ["access", "refresh"];

/// The whole store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Store {
    /// Layout version; [`STORE_VERSION`].
    #[serde(default = "default_version")]
    pub version: u64,
    /// Profiles by id (`provider:name`).
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
    /// Explicit try-order per provider.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub order: BTreeMap<String, Vec<String>>,
    /// The profile that last worked, per provider (informational: it is not preferred).
    #[serde(
        default,
        rename = "lastGood",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub last_good: BTreeMap<String, String>,
    /// Use and failure bookkeeping per profile id.
    #[serde(
        default,
        rename = "usageStats",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub usage_stats: BTreeMap<String, UsageStats>,
    /// Top-level fields written by other tools, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn default_version() -> u64 {
    STORE_VERSION
}

impl Default for Store {
    fn default() -> Store {
        Store {
            version: STORE_VERSION,
            profiles: BTreeMap::new(),
            order: BTreeMap::new(),
            last_good: BTreeMap::new(),
            usage_stats: BTreeMap::new(),
            extra: Map::new(),
        }
    }
}

impl Store {
    /// The ids of `provider`'s profiles, sorted.
    pub fn provider_profile_ids(&self, provider: &str) -> Vec<String> {
        self.profiles
            .iter()
            .filter(|(_, profile)| same_provider(&profile.provider, provider))
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Delete a profile and every mention of it (order lists, `lastGood`, `usageStats`).
    pub fn remove_profile(&mut self, id: &str) -> Result<Profile, AuthError> {
        let profile = self
            .profiles
            .remove(id)
            .ok_or_else(|| AuthError::NoSuchProfile { id: id.to_owned() })?;
        for ids in self.order.values_mut() {
            ids.retain(|entry| entry != id);
        }
        self.order.retain(|_, ids| !ids.is_empty());
        self.last_good.retain(|_, entry| entry != id);
        self.usage_stats.remove(id);
        Ok(profile)
    }

    /// Every environment variable a profile refers to (`--from-env`), of every provider and
    /// type, in profile order, each once: what no child process may inherit (SPEC §10).
    pub fn referenced_variables(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        let references = self
            .profiles
            .values()
            .flat_map(|profile| [&profile.key_ref, &profile.token_ref])
            .flatten();
        for reference in references {
            if let SecretRef::Env { name } = reference
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
        }
        names
    }

    /// Every secret the store holds or refers to through a variable, as `env` has it, of every
    /// profile whatever its provider, type or state — what the redactor must know. Key commands
    /// are not run: their secrets are known once a run has resolved them.
    pub fn known_secrets(&self, env: &dyn Fn(&str) -> Option<String>) -> Vec<Secret> {
        let stored = self
            .profiles
            .values()
            .flat_map(|profile| [&profile.key, &profile.token])
            .flatten()
            .cloned();
        // OpenClaw's `oauth` profiles keep their tokens in fields of their own.
        let oauth = self
            .profiles
            .values()
            .flat_map(|profile| OAUTH_SECRET_FIELDS.map(|field| profile.extra.get(field)))
            .flatten()
            .filter_map(Value::as_str)
            .map(Secret::new);
        let referenced = self
            .referenced_variables()
            .into_iter()
            .filter_map(env)
            .map(|value| Secret::new(value.trim()));
        stored
            .chain(oauth)
            .chain(referenced)
            .filter(|secret| !secret.is_blank())
            .collect()
    }

    /// The first free id for a new profile of `provider`: `provider:default`, then
    /// `provider:2`, `provider:3`, …
    pub fn next_profile_id(&self, provider: &str) -> String {
        let default = format!("{provider}:default");
        if !self.profiles.contains_key(&default) {
            return default;
        }
        (2u64..)
            .map(|number| format!("{provider}:{number}"))
            .find(|id| !self.profiles.contains_key(id))
            .unwrap_or(default)
    }
}

/// Provider ids compare case-insensitively (`Anthropic` in a hand-edited file still matches).
pub fn same_provider(left: &str, right: &str) -> bool {
    left.trim().eq_ignore_ascii_case(right.trim())
}

/// One stored credential.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// `api_key`, `token` (a static bearer) or a type this build cannot use (`oauth`).
    #[serde(rename = "type")]
    pub kind: ProfileType,
    /// Provider id (`anthropic`, `openai`, `google`, a custom provider).
    pub provider: String,
    /// The API key, for `api_key` profiles that store the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<Secret>,
    /// The token, for `token` profiles that store the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<Secret>,
    /// Where to get the key instead of storing it.
    #[serde(default, rename = "keyRef", skip_serializing_if = "Option::is_none")]
    pub key_ref: Option<SecretRef>,
    /// Where to get the token instead of storing it.
    #[serde(default, rename = "tokenRef", skip_serializing_if = "Option::is_none")]
    pub token_ref: Option<SecretRef>,
    /// Expiry of a token in milliseconds since the epoch; an expired token is not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<u64>,
    /// Fields written by other tools (`email`, `displayName`, `metadata`, …), kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Profile {
    /// A profile that stores `secret` itself.
    pub fn with_value(kind: ProfileType, provider: &str, secret: Secret) -> Profile {
        let mut profile = Profile::empty(kind.clone(), provider);
        match kind {
            ProfileType::Token => profile.token = Some(secret),
            _ => profile.key = Some(secret),
        }
        profile
    }

    /// A profile that stores where to find the secret.
    pub fn with_reference(kind: ProfileType, provider: &str, reference: SecretRef) -> Profile {
        let mut profile = Profile::empty(kind.clone(), provider);
        match kind {
            ProfileType::Token => profile.token_ref = Some(reference),
            _ => profile.key_ref = Some(reference),
        }
        profile
    }

    fn empty(kind: ProfileType, provider: &str) -> Profile {
        Profile {
            kind,
            provider: provider.to_owned(),
            key: None,
            token: None,
            key_ref: None,
            token_ref: None,
            expires: None,
            extra: Map::new(),
        }
    }

    /// The stored value, if the profile holds one (`key` for keys, `token` for tokens, either as
    /// a fallback for hand-written files).
    pub fn stored_secret(&self) -> Option<&Secret> {
        match self.kind {
            ProfileType::Token => self.token.as_ref().or(self.key.as_ref()),
            _ => self.key.as_ref().or(self.token.as_ref()),
        }
    }

    /// The reference, if the profile holds one.
    pub fn reference(&self) -> Option<&SecretRef> {
        match self.kind {
            ProfileType::Token => self.token_ref.as_ref().or(self.key_ref.as_ref()),
            _ => self.key_ref.as_ref().or(self.token_ref.as_ref()),
        }
    }

    /// Where the secret comes from, printable: `sk-…a1b2`, `env:VAR`, `command:CMD`, `none`.
    pub fn source_text(&self) -> String {
        if let Some(secret) = self.stored_secret() {
            return secret.fingerprint();
        }
        match self.reference() {
            Some(SecretRef::Env { name }) => format!("env:{name}"),
            Some(SecretRef::Command { command }) => format!("command:{command}"),
            None => "none".to_owned(),
        }
    }
}

/// The kind of credential a profile holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum ProfileType {
    /// `api_key`: a provider API key.
    ApiKey,
    /// `token`: a static bearer token (not refreshed).
    Token,
    /// Any other type (OpenClaw's `oauth`): kept in the file, never used by pincer.
    Other(String),
}

impl ProfileType {
    /// The name written in the file.
    pub fn as_str(&self) -> &str {
        match self {
            ProfileType::ApiKey => "api_key",
            ProfileType::Token => "token",
            ProfileType::Other(name) => name,
        }
    }
}

impl From<String> for ProfileType {
    fn from(name: String) -> ProfileType {
        match name.as_str() {
            "api_key" => ProfileType::ApiKey,
            "token" => ProfileType::Token,
            _ => ProfileType::Other(name),
        }
    }
}

impl From<ProfileType> for String {
    fn from(kind: ProfileType) -> String {
        kind.as_str().to_owned()
    }
}

/// Where a referenced secret comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "lowercase")]
pub enum SecretRef {
    /// An environment variable, read when the secret is needed.
    Env {
        /// The variable's name.
        name: String,
    },
    /// A shell command whose trimmed stdout is the secret (a password manager, `pass`, `op`).
    Command {
        /// Run with `sh -c`.
        command: String,
    },
}

/// The store file on disk.
#[derive(Debug, Clone)]
pub struct AuthFile {
    path: PathBuf,
}

impl AuthFile {
    /// The store at `path` (normally `Paths::auth_file`).
    pub fn new(path: impl Into<PathBuf>) -> AuthFile {
        AuthFile { path: path.into() }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Read the store; a missing file is an empty store. Needs no lock: the file is only ever
    /// replaced by a rename, so a reader sees the old or the new content, never a mix.
    pub fn load(&self) -> Result<Store, AuthError> {
        match read_to_string(&self.path) {
            Ok(Some(text)) => parse(&self.path, &text),
            Ok(None) => Ok(Store::default()),
            Err(source) => Err(self.io_error(source)),
        }
    }

    /// Change the store: lock, re-read, apply `change`, write atomically, unlock.
    ///
    /// When `change` fails nothing is written. The file and its directory are created on first
    /// use with modes 0600 and 0700.
    /// Record how a profile fared in a run: a success (`failure` `None`) makes it the
    /// provider's last good profile; a failure of class `failure` starts or lengthens its
    /// cooldown (SPEC §9.3). Under the lock, so parallel cron runs never lose an update.
    ///
    /// The outcome belongs to the profile the run used, `used` as the run read it: when
    /// `profile_id` is gone, or is another profile now (removed and added again, with another
    /// key, while the run was in flight), nothing is recorded and `false` is returned. Every
    /// profile's windows are [`settle`](super::cooldown::settle)d on the way, so one written by a
    /// clock that was ahead ends at most its own step after this run.
    pub fn record_outcome(
        &self,
        provider: &str,
        profile_id: &str,
        used: &Profile,
        failure: Option<&str>,
        now_millis: u64,
    ) -> Result<bool, AuthError> {
        self.update(|store| {
            for stats in store.usage_stats.values_mut() {
                *stats = super::cooldown::settle(stats, now_millis);
            }
            if store.profiles.get(profile_id) != Some(used) {
                return Ok(false);
            }
            let stats = store
                .usage_stats
                .get(profile_id)
                .cloned()
                .unwrap_or_default();
            let updated = match failure {
                Some(kind) => super::cooldown::record_failure(&stats, kind, now_millis),
                None => {
                    store
                        .last_good
                        .insert(provider.to_owned(), profile_id.to_owned());
                    super::cooldown::record_success(&stats, now_millis)
                }
            };
            store.usage_stats.insert(profile_id.to_owned(), updated);
            Ok(true)
        })
    }

    /// Change the store under its lock, after a fresh read, and write it back atomically.
    pub fn update<T>(
        &self,
        change: impl FnOnce(&mut Store) -> Result<T, AuthError>,
    ) -> Result<T, AuthError> {
        let directory = parent_dir(&self.path);
        ensure_private_directory(directory).map_err(|source| AuthError::Io {
            path: directory.to_owned(),
            source,
        })?;
        let _lock =
            FileLock::acquire(&lock_path(&self.path), Some(LOCK_WAIT)).map_err(|source| {
                AuthError::Locked {
                    path: self.path.clone(),
                    source,
                }
            })?;
        let existed = self.path.exists();
        let mut store = self.load()?;
        let value = change(&mut store)?;
        let mut text = serde_json::to_string_pretty(&store)
            .map_err(|error| self.io_error(io::Error::other(error)))?;
        text.push('\n');
        if !existed {
            tighten_directory(directory).map_err(|source| AuthError::Io {
                path: directory.to_owned(),
                source,
            })?;
        }
        write_private_atomic(&self.path, text.as_bytes())
            .map_err(|source| self.io_error(source))?;
        Ok(value)
    }

    /// A warning when the file can be read by group or others (it is still used).
    pub fn permission_warning(&self) -> Option<String> {
        let mode = std::fs::metadata(&self.path).ok()?.mode() & 0o777;
        (mode & 0o077 != 0).then(|| {
            format!(
                "auth store '{}' is readable by group or others (mode {mode:04o}); run `chmod 600 '{}'`",
                self.path.display(),
                self.path.display()
            )
        })
    }

    fn io_error(&self, source: io::Error) -> AuthError {
        AuthError::Io {
            path: self.path.clone(),
            source,
        }
    }
}

/// Parse the file's text, naming the line and column of any problem.
pub fn parse(path: &Path, text: &str) -> Result<Store, AuthError> {
    let store: Store = serde_json::from_str(text).map_err(|error| AuthError::Corrupt {
        path: path.to_owned(),
        line: error.line(),
        column: error.column(),
        message: strip_position(&error.to_string()),
    })?;
    if store.version != STORE_VERSION {
        return Err(AuthError::UnsupportedVersion {
            path: path.to_owned(),
            version: store.version,
        });
    }
    Ok(store)
}

/// serde_json appends " at line L column C"; the error already names both.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(index) => message[..index].to_owned(),
        None => message.to_owned(),
    }
}

fn read_to_string(path: &Path) -> io::Result<Option<String>> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok(Some(text))
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Create the directory (0700 from creation) when it is missing.
fn ensure_private_directory(directory: &Path) -> io::Result<()> {
    if directory.is_dir() {
        return Ok(());
    }
    crate::fs::create_dir_all(directory)
}

/// When the store is first created in a directory others can enter (a pre-existing
/// `PINCER_HOME`, say), make the directory 0700: pincer's config directory holds secrets now.
fn tighten_directory(directory: &Path) -> io::Result<()> {
    let mode = std::fs::metadata(directory)?.mode() & 0o777;
    if mode & 0o077 != 0 {
        std::fs::set_permissions(directory, Permissions::from_mode(DIRECTORY_MODE))?;
    }
    Ok(())
}

/// Atomic replace whose staging file is created 0600, so the secret is never on disk with wider
/// permissions, not even for a moment, and unnamed, so a kill leaves no copy of it
/// (`crate::fs`); what an older pincer's killed writes left is swept first.
fn write_private_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    crate::fs::sweep_staging(parent_dir(path));
    crate::fs::write_atomic(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn sample() -> &'static str {
        r#"{
  "version": 1,
  "profiles": {
    "anthropic:default": {"type": "api_key", "provider": "anthropic", "key": "sk-ant-0123456789abcdef", "email": "a@example.com"},
    "openai-codex:default": {"type": "oauth", "provider": "openai-codex", "access": "x", "refresh": "y", "expires": 1736000000000},
    "openai:env": {"type": "api_key", "provider": "openai", "keyRef": {"source": "env", "name": "WORK_OPENAI_KEY"}}
  },
  "order": {"anthropic": ["anthropic:default"]},
  "lastGood": {"anthropic": "anthropic:default"},
  "usageStats": {"anthropic:default": {"lastUsed": 5, "errorCount": 2, "failureCounts": {"rate_limit": 2}, "cooldownReason": "rate_limit"}},
  "someFutureField": [1, 2]
}"#
    }

    #[test]
    fn every_profiles_variables_and_secrets_are_known_whatever_its_provider_or_type() {
        let path = Path::new("/x/auth-profiles.json");
        let mut store = parse(path, sample()).unwrap();
        store.profiles.insert(
            "google:token".to_owned(),
            Profile::with_reference(
                ProfileType::Token,
                "google",
                SecretRef::Env {
                    name: "GOOGLE_TOKEN_VAR".to_owned(),
                },
            ),
        );
        store.profiles.insert(
            "openai:again".to_owned(),
            Profile::with_reference(
                ProfileType::ApiKey,
                "openai",
                SecretRef::Env {
                    name: "WORK_OPENAI_KEY".to_owned(),
                },
            ),
        );
        store.profiles.insert(
            "openai:command".to_owned(),
            Profile::with_reference(
                ProfileType::ApiKey,
                "openai",
                SecretRef::Command {
                    command: "exit 1".to_owned(),
                },
            ),
        );
        assert_eq!(
            store.referenced_variables(),
            ["GOOGLE_TOKEN_VAR", "WORK_OPENAI_KEY"]
        );
        let env = |name: &str| (name == "WORK_OPENAI_KEY").then(|| " sk-work-1234\n".to_owned());
        let secrets: Vec<String> = store
            .known_secrets(&env)
            .iter()
            .map(|secret| secret.expose().to_owned())
            .collect();
        assert_eq!(
            secrets,
            ["sk-ant-0123456789abcdef", "x", "y", "sk-work-1234"]
        );
    }

    #[test]
    fn an_openclaw_store_parses_and_keeps_every_unknown_field_on_rewrite() {
        let path = Path::new("/x/auth-profiles.json");
        let store = parse(path, sample()).unwrap();
        assert_eq!(store.profiles.len(), 3);
        let anthropic = &store.profiles["anthropic:default"];
        assert_eq!(anthropic.kind, ProfileType::ApiKey);
        assert_eq!(
            anthropic.stored_secret().unwrap().expose(),
            "sk-ant-0123456789abcdef"
        );
        assert_eq!(anthropic.extra["email"], "a@example.com");
        assert_eq!(
            store.profiles["openai-codex:default"].kind,
            ProfileType::Other("oauth".into())
        );
        assert_eq!(
            store.profiles["openai:env"].reference(),
            Some(&SecretRef::Env {
                name: "WORK_OPENAI_KEY".into()
            })
        );
        assert_eq!(store.usage_stats["anthropic:default"].error_count, 2);

        let rewritten: Value = serde_json::to_value(&store).unwrap();
        let original: Value = serde_json::from_str(sample()).unwrap();
        assert_eq!(rewritten, original);
    }

    #[test]
    fn a_corrupt_store_names_the_file_line_and_column() {
        let error = parse(
            Path::new("/home/u/auth-profiles.json"),
            "{\n  \"version\": 1,\n  \"profiles\": {,\n}",
        )
        .unwrap_err();
        let AuthError::Corrupt { line, .. } = &error else {
            panic!("expected corrupt, got {error:?}")
        };
        assert_eq!(*line, 3);
        let text = error.to_string();
        assert!(
            text.starts_with(
                "auth store '/home/u/auth-profiles.json' is not valid: line 3, column"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_newer_version_is_refused() {
        let error = parse(Path::new("a.json"), r#"{"version": 2, "profiles": {}}"#).unwrap_err();
        assert!(matches!(
            error,
            AuthError::UnsupportedVersion { version: 2, .. }
        ));
    }

    #[test]
    fn new_profile_ids_count_up_from_default() {
        let mut store = Store::default();
        assert_eq!(store.next_profile_id("openai"), "openai:default");
        for id in ["openai:default", "openai:2", "openai:4"] {
            store.profiles.insert(
                id.into(),
                Profile::with_value(ProfileType::ApiKey, "openai", Secret::new("k")),
            );
        }
        assert_eq!(store.next_profile_id("openai"), "openai:3");
        assert_eq!(store.next_profile_id("anthropic"), "anthropic:default");
    }

    #[test]
    fn removing_a_profile_removes_its_order_entry_last_good_and_stats() {
        let mut store = parse(Path::new("a.json"), sample()).unwrap();
        store.remove_profile("anthropic:default").unwrap();
        assert!(store.order.is_empty());
        assert!(store.last_good.is_empty());
        assert!(store.usage_stats.is_empty());
        assert!(matches!(
            store.remove_profile("anthropic:default"),
            Err(AuthError::NoSuchProfile { .. })
        ));
    }

    #[test]
    fn update_creates_the_file_0600_in_a_new_0700_directory() {
        let root = tempfile::tempdir().unwrap();
        let file = AuthFile::new(root.path().join("config").join("auth-profiles.json"));
        file.update(|store| {
            store.profiles.insert(
                "openai:default".into(),
                Profile::with_value(
                    ProfileType::ApiKey,
                    "openai",
                    Secret::new("sk-0123456789abcdef"),
                ),
            );
            Ok(())
        })
        .unwrap();
        let file_mode = std::fs::metadata(file.path()).unwrap().mode() & 0o777;
        let directory_mode = std::fs::metadata(root.path().join("config"))
            .unwrap()
            .mode()
            & 0o777;
        assert_eq!((file_mode, directory_mode), (0o600, 0o700));
        assert_eq!(file.permission_warning(), None);
        let store = file.load().unwrap();
        assert_eq!(store.profiles.len(), 1);
    }

    #[test]
    fn a_failed_change_writes_nothing() {
        let root = tempfile::tempdir().unwrap();
        let file = AuthFile::new(root.path().join("auth-profiles.json"));
        let outcome: Result<(), _> = file.update(|_| Err(AuthError::Invalid("refused".into())));
        assert!(outcome.is_err());
        assert!(!file.path().exists());
    }

    #[test]
    fn an_outcome_is_recorded_only_on_the_profile_the_run_used() {
        const NOW: u64 = 1_800_000_000_000;
        let root = tempfile::tempdir().unwrap();
        let file = AuthFile::new(root.path().join("auth-profiles.json"));
        let old_key = Profile::with_value(ProfileType::ApiKey, "openai", Secret::new("sk-old-1"));
        let new_key = Profile::with_value(ProfileType::ApiKey, "openai", Secret::new("sk-new-2"));
        let put = |profile: &Profile| {
            file.update(|store| {
                store.profiles.insert("openai:work".into(), profile.clone());
                Ok(())
            })
            .unwrap();
        };
        put(&old_key);
        let recorded = |used: &Profile| {
            file.record_outcome("openai", "openai:work", used, Some("rate_limit"), NOW)
                .unwrap()
        };
        assert!(recorded(&old_key));
        assert_eq!(
            file.load().unwrap().usage_stats["openai:work"].error_count,
            1
        );

        // Removed, then added again with another key, while a run of the old one was in flight.
        file.update(|store| store.remove_profile("openai:work").map(drop))
            .unwrap();
        assert!(!recorded(&old_key), "a removed profile gets nothing");
        put(&new_key);
        assert!(!recorded(&old_key), "nor does the new profile under its id");
        let store = file.load().unwrap();
        assert_eq!(store.usage_stats.get("openai:work"), None);
        assert!(recorded(&new_key));
    }

    #[test]
    fn recording_an_outcome_settles_every_profiles_windows() {
        const NOW: u64 = 1_800_000_000_000;
        let root = tempfile::tempdir().unwrap();
        let file = AuthFile::new(root.path().join("auth-profiles.json"));
        let profile = Profile::with_value(ProfileType::ApiKey, "openai", Secret::new("sk-1"));
        file.update(|store| {
            for id in ["openai:a", "openai:b"] {
                store.profiles.insert(id.into(), profile.clone());
            }
            // Written by a clock a day ahead.
            store.usage_stats.insert(
                "openai:b".into(),
                UsageStats {
                    cooldown_until: Some(NOW + 86_400_000 + 60_000),
                    error_count: 1,
                    last_failure_at: Some(NOW + 86_400_000),
                    ..UsageStats::default()
                },
            );
            Ok(())
        })
        .unwrap();
        assert!(
            file.record_outcome("openai", "openai:a", &profile, None, NOW)
                .unwrap()
        );
        let skewed = &file.load().unwrap().usage_stats["openai:b"];
        assert_eq!(skewed.cooldown_until, Some(NOW + 60_000));
        assert_eq!(skewed.last_failure_at, Some(NOW));
    }

    #[test]
    fn a_world_readable_store_gets_a_warning_naming_the_mode() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("auth-profiles.json");
        std::fs::write(&path, r#"{"version":1,"profiles":{}}"#).unwrap();
        std::fs::set_permissions(&path, Permissions::from_mode(0o644)).unwrap();
        let warning = AuthFile::new(&path).permission_warning().unwrap();
        assert!(warning.contains("mode 0644"), "{warning}");
        assert!(AuthFile::new(&path).load().is_ok());
    }
}
