//! Which credentials to try for a provider, in which order (SPEC §9.1, OpenClaw
//! `resolveAuthProfileOrder` and `resolveApiKeyForProvider`).
//!
//! 1. A pinned profile (`--auth-profile`) is the only candidate.
//! 2. Otherwise the provider's profiles: the explicit `order` list when there is one (kept as
//!    written: the user chose it), else round-robin, least recently used first; either way the
//!    profiles in cooldown go last, the soonest to recover first.
//! 3. Then the provider's environment variable (the first one set).
//!
//! [`profile_order`] is pure. [`resolve`] also fetches referenced secrets (an environment
//! variable, or a command run with `sh -c` under a 5-second limit); a profile whose secret cannot
//! be had is skipped with the reason, so the caller can say why nothing was usable.

use std::io;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::cooldown::unavailable_until;
use super::store::{Profile, ProfileType, SecretRef, Store, same_provider};
use crate::secret::Secret;

/// How long a `keyRef` command may take.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);

/// One credential to try.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The profile id; `None` for an environment variable.
    pub profile_id: Option<String>,
    /// The key or token.
    pub secret: Secret,
    /// `profile:ID` or `env:VAR`.
    pub source: String,
    /// When the profile is in cooldown, until when (ms since the epoch).
    pub cooling_until: Option<u64>,
}

/// A credential that was considered and left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// `profile:ID` or `env:VAR`.
    pub source: String,
    /// Why, readable (`environment variable WORK_KEY is not set`).
    pub reason: String,
}

/// The outcome of [`resolve`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolution {
    /// What to try, in order.
    pub candidates: Vec<Candidate>,
    /// What was left out, and why.
    pub skipped: Vec<Skipped>,
}

/// The provider's profile ids in the order to try them at `now_ms` (no secrets fetched).
pub fn profile_order(store: &Store, provider: &str, now_ms: u64) -> Vec<String> {
    let belongs = |id: &String| {
        store
            .profiles
            .get(id)
            .is_some_and(|profile| same_provider(&profile.provider, provider))
    };
    let explicit: Vec<String> = store
        .order
        .iter()
        .filter(|(key, _)| same_provider(key, provider))
        .flat_map(|(_, ids)| ids.iter())
        .filter(|id| belongs(id))
        .fold(Vec::new(), |mut unique, id| {
            if !unique.contains(id) {
                unique.push(id.clone());
            }
            unique
        });
    let cooling_until = |id: &String| {
        store
            .usage_stats
            .get(id)
            .and_then(|stats| unavailable_until(stats, now_ms))
    };
    let (mut available, mut cooling): (Vec<String>, Vec<String>) = if explicit.is_empty() {
        store.provider_profile_ids(provider)
    } else {
        explicit.clone()
    }
    .into_iter()
    .partition(|id| cooling_until(id).is_none());
    if explicit.is_empty() {
        // Round-robin: tokens before keys (as OpenClaw), then the least recently used first;
        // the sort is stable, so equal ones keep id order.
        let rank = |id: &String| {
            let kind_rank = match store.profiles.get(id).map(|profile| &profile.kind) {
                Some(ProfileType::Token) => 0,
                Some(ProfileType::ApiKey) => 1,
                _ => 2,
            };
            let last_used = store
                .usage_stats
                .get(id)
                .and_then(|stats| stats.last_used)
                .unwrap_or(0);
            (kind_rank, last_used)
        };
        available.sort_by_key(rank);
    }
    cooling.sort_by_key(|id| cooling_until(id).unwrap_or(0));
    available.append(&mut cooling);
    available
}

/// The candidates for `provider`: the pinned profile alone, or the profile order then the first
/// set variable of `env_vars`. `env` reads the environment (a closure so tests need no
/// `set_var`).
pub fn resolve(
    store: &Store,
    provider: &str,
    pinned: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    env_vars: &[String],
    now_ms: u64,
) -> Resolution {
    let mut resolution = Resolution::default();
    if let Some(pinned) = pinned {
        let qualified = format!("{provider}:{pinned}");
        let found = [pinned, qualified.as_str()]
            .into_iter()
            .find_map(|id| store.profiles.get_key_value(id));
        match found {
            Some((id, profile)) if same_provider(&profile.provider, provider) => {
                add_profile(&mut resolution, store, id, profile, env, now_ms);
            }
            Some((id, profile)) => resolution.skipped.push(Skipped {
                source: format!("profile:{id}"),
                reason: format!(
                    "the profile is for provider '{}', not '{provider}'",
                    profile.provider
                ),
            }),
            None => resolution.skipped.push(Skipped {
                source: format!("profile:{pinned}"),
                reason: "no such profile in the auth store".to_owned(),
            }),
        }
        return resolution;
    }
    for id in profile_order(store, provider, now_ms) {
        if let Some(profile) = store.profiles.get(&id) {
            add_profile(&mut resolution, store, &id, profile, env, now_ms);
        }
    }
    let set = env_vars.iter().find_map(|name| {
        env(name)
            .filter(|value| !value.trim().is_empty())
            .map(|value| (name, value))
    });
    match set {
        Some((name, value)) => resolution.candidates.push(Candidate {
            profile_id: None,
            secret: Secret::new(value.trim()),
            source: format!("env:{name}"),
            cooling_until: None,
        }),
        None => resolution
            .skipped
            .extend(env_vars.iter().map(|name| Skipped {
                source: format!("env:{name}"),
                reason: "not set".to_owned(),
            })),
    }
    resolution
}

fn add_profile(
    resolution: &mut Resolution,
    store: &Store,
    id: &str,
    profile: &Profile,
    env: &dyn Fn(&str) -> Option<String>,
    now_ms: u64,
) {
    let source = format!("profile:{id}");
    match profile_secret(profile, env, now_ms) {
        Ok(secret) => resolution.candidates.push(Candidate {
            profile_id: Some(id.to_owned()),
            secret,
            source,
            cooling_until: store
                .usage_stats
                .get(id)
                .and_then(|stats| unavailable_until(stats, now_ms)),
        }),
        Err(problem) => resolution.skipped.push(Skipped {
            source,
            reason: problem.to_string(),
        }),
    }
}

/// Why a profile's secret cannot be had.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SecretProblem {
    #[error("profiles of type '{0}' are not supported")]
    UnsupportedType(String),
    #[error("the token has expired")]
    Expired,
    #[error("environment variable {0} is not set")]
    VariableUnset(String),
    #[error("the profile holds no key, token or reference")]
    Nothing,
    #[error("the secret is empty")]
    Empty,
    #[error(transparent)]
    Command(#[from] KeyCommandError),
}

/// How a `--command` key reference failed.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyCommandError {
    #[error("cannot run the key command: {0}")]
    Spawn(String),
    #[error("the key command failed: {0}")]
    Wait(String),
    #[error("the key command did not finish within {} s", .0.as_secs_f64())]
    TimedOut(Duration),
    #[error("the key command exited with {code}")]
    Exited { code: i32 },
    #[error("the key command exited with {code}: {first_line}")]
    ExitedSaying { code: i32, first_line: String },
    #[error("the key command was killed by a signal")]
    Killed,
    #[error("the key command printed invalid UTF-8")]
    NotUtf8,
    #[error("the key command printed nothing")]
    PrintedNothing,
}

/// Why a profile cannot be used whatever its secret says: an unsupported type, an expired token.
fn unusable_profile(profile: &Profile, now_ms: u64) -> Option<SecretProblem> {
    if let ProfileType::Other(kind) = &profile.kind {
        return Some(SecretProblem::UnsupportedType(kind.clone()));
    }
    if profile.expires.is_some_and(|expires| now_ms >= expires) {
        return Some(SecretProblem::Expired);
    }
    None
}

/// The profile's secret, fetching a reference if needed; the error is a readable reason.
pub fn profile_secret(
    profile: &Profile,
    env: &dyn Fn(&str) -> Option<String>,
    now_ms: u64,
) -> Result<Secret, SecretProblem> {
    if let Some(reason) = unusable_profile(profile, now_ms) {
        return Err(reason);
    }
    let secret = match (profile.stored_secret(), profile.reference()) {
        (Some(secret), _) => secret.clone(),
        (None, Some(SecretRef::Env { name })) => match env(name) {
            Some(value) => Secret::new(value.trim()),
            None => return Err(SecretProblem::VariableUnset(name.clone())),
        },
        (None, Some(SecretRef::Command { command })) => {
            Secret::new(run_secret_command(command, COMMAND_TIMEOUT)?)
        }
        (None, None) => return Err(SecretProblem::Nothing),
    };
    if secret.is_blank() {
        return Err(SecretProblem::Empty);
    }
    Ok(secret)
}

/// Whether a credential can be tried now, as `status` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceState {
    /// It would be tried now. A `--command` reference counts as ready: it is not run to find out.
    Ready,
    /// In cooldown after auth or rate-limit failures, until `until` (ms since the epoch).
    CoolingDown {
        /// When it may be tried again.
        until: u64,
        /// The failure kinds counted in the current window (`rate_limit`, `auth`), by name.
        reason: String,
    },
    /// Disabled after billing failures, until `until`.
    Disabled {
        /// When it may be tried again.
        until: u64,
        /// The recorded reason (`billing`).
        reason: String,
    },
    /// It cannot be used at all: an unset variable, an expired token, an empty secret.
    Unusable(String),
}

/// One credential of a provider, described without its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceReport {
    /// `profile:ID` or `env:VAR`.
    pub source: String,
    /// The profile id; `None` for an environment variable.
    pub profile_id: Option<String>,
    /// Where a profile's secret is: a stored key's fingerprint (`sk-…a1b2`), `env:VAR` or
    /// `command:CMD`; `None` for an environment variable.
    pub secret: Option<String>,
    /// Whether it can be tried now.
    pub state: SourceState,
}

/// Every credential of `provider` in the order a run tries them (the profile order of
/// [`profile_order`], then the first of `env_vars` that is set), each with its state at
/// `now_ms`. Nothing is fetched: no key command runs, no value is read beyond "set or not".
pub fn describe_sources(
    store: &Store,
    provider: &str,
    env: &dyn Fn(&str) -> Option<String>,
    env_vars: &[String],
    now_ms: u64,
) -> Vec<SourceReport> {
    let mut reports: Vec<SourceReport> = profile_order(store, provider, now_ms)
        .into_iter()
        .filter_map(|id| {
            let profile = store.profiles.get(&id)?;
            let stats = store.usage_stats.get(&id);
            let state = match profile_problem(profile, env, now_ms) {
                Some(reason) => SourceState::Unusable(reason.to_string()),
                None => stats.map_or(SourceState::Ready, |stats| cooling_state(stats, now_ms)),
            };
            Some(SourceReport {
                source: format!("profile:{id}"),
                profile_id: Some(id),
                secret: Some(profile.source_text()),
                state,
            })
        })
        .collect();
    let set = env_vars
        .iter()
        .find(|name| env(name).is_some_and(|value| !value.trim().is_empty()));
    if let Some(name) = set {
        reports.push(SourceReport {
            source: format!("env:{name}"),
            profile_id: None,
            secret: None,
            state: SourceState::Ready,
        });
    }
    reports
}

/// What would make [`profile_secret`] fail, found without running a key command.
pub fn profile_problem(
    profile: &Profile,
    env: &dyn Fn(&str) -> Option<String>,
    now_ms: u64,
) -> Option<SecretProblem> {
    if let Some(reason) = unusable_profile(profile, now_ms) {
        return Some(reason);
    }
    match (profile.stored_secret(), profile.reference()) {
        (Some(secret), _) if secret.is_blank() => Some(SecretProblem::Empty),
        (Some(_), _) | (None, Some(SecretRef::Command { .. })) => None,
        (None, Some(SecretRef::Env { name })) => env(name)
            .filter(|value| !value.trim().is_empty())
            .is_none()
            .then(|| SecretProblem::VariableUnset(name.clone())),
        (None, None) => Some(SecretProblem::Nothing),
    }
}

/// The cooldown or disable in force at `now_ms`, from a profile's stats (windows settled: never
/// further than their own step from now).
fn cooling_state(stats: &super::cooldown::UsageStats, now_ms: u64) -> SourceState {
    let stats = &super::cooldown::settle(stats, now_ms);
    match stats.disabled_until.filter(|until| *until > now_ms) {
        Some(until) if stats.cooldown_until.is_none_or(|cooling| cooling <= until) => {
            SourceState::Disabled {
                until,
                reason: stats
                    .disabled_reason
                    .clone()
                    .unwrap_or_else(|| super::cooldown::BILLING.to_owned()),
            }
        }
        _ => match stats.cooldown_until.filter(|until| *until > now_ms) {
            Some(until) => SourceState::CoolingDown {
                until,
                reason: stats
                    .failure_counts
                    .iter()
                    .filter(|(kind, count)| **count > 0 && kind.as_str() != "billing")
                    .map(|(kind, _)| kind.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            },
            None => SourceState::Ready,
        },
    }
}

/// Run `command` with `sh -c` in its own process group and return its trimmed stdout; killed
/// (with everything it started) after `timeout`.
pub fn run_secret_command(command: &str, timeout: Duration) -> Result<String, KeyCommandError> {
    use std::os::unix::process::CommandExt as _;
    // Not a `sh` that a relative PATH entry finds in the directory pincer runs in.
    let shell = crate::tools::program::shell(&[]);
    let child = Command::new(shell)
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|error| KeyCommandError::Spawn(error.to_string()))?;
    let pid = child.id();
    let (sender, receiver) = mpsc::channel::<io::Result<Output>>();
    // A thread owns the child so the wait (and the pipe reads) can be bounded from here.
    std::thread::spawn(move || {
        let _ = sender.send(child.wait_with_output());
    });
    let output = match receiver.recv_timeout(timeout) {
        Ok(output) => output.map_err(|error| KeyCommandError::Wait(error.to_string()))?,
        Err(_) => {
            kill_group(pid);
            // Let the thread reap the child; nothing more to learn from it.
            let _ = receiver.recv_timeout(Duration::from_secs(1));
            return Err(KeyCommandError::TimedOut(timeout));
        }
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first_line = stderr.lines().next().unwrap_or("").trim();
        let first_line: String = first_line.chars().take(200).collect();
        return Err(match output.status.code() {
            Some(code) if first_line.is_empty() => KeyCommandError::Exited { code },
            Some(code) => KeyCommandError::ExitedSaying { code, first_line },
            None => KeyCommandError::Killed,
        });
    }
    let stdout = String::from_utf8(output.stdout).map_err(|_| KeyCommandError::NotUtf8)?;
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return Err(KeyCommandError::PrintedNothing);
    }
    Ok(trimmed.to_owned())
}

fn kill_group(pid: u32) {
    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::Pid;
    if let Ok(pid) = i32::try_from(pid) {
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::cooldown::UsageStats;
    use crate::auth::cooldown::record_failure;
    use pretty_assertions::assert_eq;

    const NOW: u64 = 1_800_000_000_000;

    fn key(provider: &str, value: &str) -> Profile {
        Profile::with_value(ProfileType::ApiKey, provider, Secret::new(value))
    }

    fn used(store: &mut Store, id: &str, last_used: u64) {
        store.usage_stats.insert(
            id.into(),
            UsageStats {
                last_used: Some(last_used),
                ..UsageStats::default()
            },
        );
    }

    fn three_openai_profiles() -> Store {
        let mut store = Store::default();
        for id in ["openai:a", "openai:b", "openai:c"] {
            store
                .profiles
                .insert(id.into(), key("openai", &format!("sk-{id}")));
        }
        store
            .profiles
            .insert("anthropic:x".into(), key("anthropic", "sk-ant"));
        store
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn without_an_explicit_order_the_least_recently_used_profile_comes_first() {
        let mut store = three_openai_profiles();
        used(&mut store, "openai:a", 300);
        used(&mut store, "openai:b", 100);
        used(&mut store, "openai:c", 200);
        assert_eq!(
            profile_order(&store, "openai", NOW),
            ["openai:b", "openai:c", "openai:a"]
        );
    }

    #[test]
    fn never_used_profiles_come_before_used_ones_and_tokens_before_keys() {
        let mut store = three_openai_profiles();
        used(&mut store, "openai:a", 100);
        store.profiles.insert(
            "openai:tok".into(),
            Profile::with_value(ProfileType::Token, "openai", Secret::new("t")),
        );
        used(&mut store, "openai:tok", 500);
        assert_eq!(
            profile_order(&store, "openai", NOW),
            ["openai:tok", "openai:b", "openai:c", "openai:a"]
        );
    }

    #[test]
    fn profiles_in_cooldown_go_last_soonest_recovery_first() {
        let mut store = three_openai_profiles();
        let long = record_failure(&UsageStats::default(), "billing", NOW);
        let short = record_failure(&UsageStats::default(), "rate_limit", NOW);
        store.usage_stats.insert("openai:a".into(), long);
        store.usage_stats.insert("openai:b".into(), short);
        assert_eq!(
            profile_order(&store, "openai", NOW),
            ["openai:c", "openai:b", "openai:a"]
        );
    }

    #[test]
    fn an_explicit_order_is_kept_except_for_cooling_profiles() {
        let mut store = three_openai_profiles();
        store.order.insert(
            "openai".into(),
            vec![
                "openai:c".into(),
                "gone:id".into(),
                "openai:a".into(),
                "anthropic:x".into(),
                "openai:c".into(),
            ],
        );
        used(&mut store, "openai:c", 900);
        assert_eq!(
            profile_order(&store, "openai", NOW),
            ["openai:c", "openai:a"]
        );
        let cooling = record_failure(&UsageStats::default(), "auth", NOW);
        store.usage_stats.insert("openai:c".into(), cooling);
        assert_eq!(
            profile_order(&store, "openai", NOW),
            ["openai:a", "openai:c"]
        );
    }

    #[test]
    fn resolve_lists_profiles_then_the_first_set_env_var() {
        let mut store = three_openai_profiles();
        let cooling = record_failure(&UsageStats::default(), "auth", NOW);
        store.usage_stats.insert("openai:a".into(), cooling);
        let env = |name: &str| (name == "OPENAI_API_KEY").then(|| "sk-from-env\n".to_owned());
        let resolution = resolve(
            &store,
            "openai",
            None,
            &env,
            &["OTHER_KEY".into(), "OPENAI_API_KEY".into()],
            NOW,
        );
        let sources: Vec<&str> = resolution
            .candidates
            .iter()
            .map(|candidate| candidate.source.as_str())
            .collect();
        assert_eq!(
            sources,
            [
                "profile:openai:b",
                "profile:openai:c",
                "profile:openai:a",
                "env:OPENAI_API_KEY"
            ]
        );
        assert_eq!(resolution.candidates[2].cooling_until, Some(NOW + 60_000));
        assert_eq!(resolution.candidates[3].secret.expose(), "sk-from-env");
        assert_eq!(resolution.candidates[3].profile_id, None);
        assert!(resolution.skipped.is_empty());
    }

    #[test]
    fn a_pinned_profile_is_the_only_candidate_even_by_its_short_name() {
        let store = three_openai_profiles();
        let env = |_: &str| Some("sk-env".to_owned());
        let resolution = resolve(
            &store,
            "openai",
            Some("b"),
            &env,
            &["OPENAI_API_KEY".into()],
            NOW,
        );
        assert_eq!(resolution.candidates.len(), 1);
        assert_eq!(
            resolution.candidates[0].profile_id.as_deref(),
            Some("openai:b")
        );
        assert_eq!(resolution.candidates[0].secret.expose(), "sk-openai:b");

        let missing = resolve(&store, "openai", Some("nope"), &env, &[], NOW);
        assert!(missing.candidates.is_empty());
        assert_eq!(missing.skipped[0].source, "profile:nope");

        let other = resolve(&store, "openai", Some("anthropic:x"), &env, &[], NOW);
        assert!(other.candidates.is_empty());
        assert!(other.skipped[0].reason.contains("'anthropic'"));
    }

    #[test]
    fn references_are_fetched_and_failures_skipped_with_a_reason() {
        let mut store = Store::default();
        store.profiles.insert(
            "openai:env".into(),
            Profile::with_reference(
                ProfileType::ApiKey,
                "openai",
                SecretRef::Env {
                    name: "WORK_KEY".into(),
                },
            ),
        );
        store.profiles.insert(
            "openai:missing".into(),
            Profile::with_reference(
                ProfileType::ApiKey,
                "openai",
                SecretRef::Env {
                    name: "UNSET_KEY".into(),
                },
            ),
        );
        store.profiles.insert(
            "openai:cmd".into(),
            Profile::with_reference(
                ProfileType::Token,
                "openai",
                SecretRef::Command {
                    command: "printf '  tok-from-command\\n'".into(),
                },
            ),
        );
        store.profiles.insert(
            "openai:oauth".into(),
            Profile {
                kind: ProfileType::Other("oauth".into()),
                ..key("openai", "x")
            },
        );
        let env = |name: &str| (name == "WORK_KEY").then(|| "sk-work".to_owned());
        let resolution = resolve(&store, "openai", None, &env, &[], NOW);
        let found: Vec<(&str, &str)> = resolution
            .candidates
            .iter()
            .map(|candidate| (candidate.source.as_str(), candidate.secret.expose()))
            .collect();
        assert_eq!(
            found,
            [
                ("profile:openai:cmd", "tok-from-command"),
                ("profile:openai:env", "sk-work")
            ]
        );
        let skipped: Vec<(&str, &str)> = resolution
            .skipped
            .iter()
            .map(|skipped| (skipped.source.as_str(), skipped.reason.as_str()))
            .collect();
        assert_eq!(
            skipped,
            [
                (
                    "profile:openai:missing",
                    "environment variable UNSET_KEY is not set"
                ),
                (
                    "profile:openai:oauth",
                    "profiles of type 'oauth' are not supported"
                ),
            ]
        );
    }

    #[test]
    fn an_expired_token_is_skipped() {
        let mut store = Store::default();
        store.profiles.insert(
            "x:tok".into(),
            Profile {
                expires: Some(NOW),
                ..Profile::with_value(ProfileType::Token, "x", Secret::new("t"))
            },
        );
        let resolution = resolve(&store, "x", None, &no_env, &[], NOW);
        assert!(resolution.candidates.is_empty());
        assert_eq!(resolution.skipped[0].reason, "the token has expired");
    }

    #[test]
    fn an_unset_env_var_is_reported_when_nothing_else_is_set() {
        let resolution = resolve(
            &Store::default(),
            "anthropic",
            None,
            &no_env,
            &["ANTHROPIC_API_KEY".into()],
            NOW,
        );
        assert!(resolution.candidates.is_empty());
        assert_eq!(
            resolution.skipped,
            [Skipped {
                source: "env:ANTHROPIC_API_KEY".into(),
                reason: "not set".into()
            }]
        );
    }

    #[test]
    fn a_failing_key_command_says_how_it_failed() {
        assert_eq!(
            run_secret_command("echo nope >&2; exit 3", COMMAND_TIMEOUT),
            Err(KeyCommandError::ExitedSaying {
                code: 3,
                first_line: "nope".to_owned()
            })
        );
        assert_eq!(
            run_secret_command("true", COMMAND_TIMEOUT),
            Err(KeyCommandError::PrintedNothing)
        );
    }

    #[test]
    fn a_hanging_key_command_is_killed_at_the_timeout() {
        let started = std::time::Instant::now();
        let outcome = run_secret_command("sleep 30; echo late", Duration::from_millis(200));
        assert_eq!(
            outcome.map_err(|error| error.to_string()),
            Err("the key command did not finish within 0.2 s".to_owned())
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn status_describes_each_source_in_try_order_without_running_commands() {
        let mut store = three_openai_profiles();
        store.profiles.insert(
            "openai:cmd".into(),
            Profile::with_reference(
                ProfileType::ApiKey,
                "openai",
                SecretRef::Command {
                    command: "exit 7".into(),
                },
            ),
        );
        store.profiles.insert(
            "openai:envref".into(),
            Profile::with_reference(
                ProfileType::ApiKey,
                "openai",
                SecretRef::Env {
                    name: "NOT_SET_ANYWHERE".into(),
                },
            ),
        );
        used(&mut store, "openai:a", 100);
        let billing = record_failure(&UsageStats::default(), "billing", NOW);
        store.usage_stats.insert("openai:b".into(), billing.clone());
        let limited = record_failure(&UsageStats::default(), "rate_limit", NOW);
        store.usage_stats.insert("openai:c".into(), limited.clone());
        let env = |name: &str| (name == "OPENAI_API_KEY").then(|| "sk-env".to_owned());
        let reports = describe_sources(
            &store,
            "openai",
            &env,
            &["OPENAI_API_KEY".to_owned()],
            NOW + 1,
        );
        let states: Vec<(&str, &SourceState)> = reports
            .iter()
            .map(|report| (report.source.as_str(), &report.state))
            .collect();
        assert_eq!(
            states,
            [
                ("profile:openai:cmd", &SourceState::Ready),
                (
                    "profile:openai:envref",
                    &SourceState::Unusable(
                        "environment variable NOT_SET_ANYWHERE is not set".into()
                    )
                ),
                ("profile:openai:a", &SourceState::Ready),
                (
                    "profile:openai:c",
                    &SourceState::CoolingDown {
                        until: limited.cooldown_until.unwrap(),
                        reason: "rate_limit".into()
                    }
                ),
                (
                    "profile:openai:b",
                    &SourceState::Disabled {
                        until: billing.disabled_until.unwrap(),
                        reason: "billing".into()
                    }
                ),
                ("env:OPENAI_API_KEY", &SourceState::Ready),
            ]
        );
        // A stored key shows its fingerprint; a reference shows where it points; never a value.
        assert_eq!(reports[0].secret.as_deref(), Some("command:exit 7"));
        assert_eq!(reports[5].secret, None);
        assert!(reports.iter().all(|report| {
            !format!("{report:?}").contains("sk-openai:a")
                && !format!("{report:?}").contains("sk-env")
        }));
        // Once the windows have passed, both are ready again.
        let later = describe_sources(&store, "openai", &no_env, &[], NOW + 25 * 3_600_000);
        assert!(
            later
                .iter()
                .filter(|report| report.profile_id.as_deref() != Some("openai:envref"))
                .all(|report| report.state == SourceState::Ready),
            "{later:?}"
        );
    }
}
