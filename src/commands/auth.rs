//! `pincer auth …`: manage the credential profile store (SPEC §1.7, §9.1).
//!
//! Secrets enter through stdin or a hidden prompt on the terminal, never through argv (where
//! `ps` and shell history would see them), and leave only as fingerprints. Every change goes
//! through [`AuthFile::update`] (lock, re-read, atomic replace). Data goes to stdout; confirmations
//! and warnings go to stderr.

use std::fmt::Write as _;
use std::io::{IsTerminal, Read};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Context, stdout_error};
use crate::auth::cooldown::{self, unavailable_until};
use crate::auth::resolve::profile_order;
use crate::auth::{AuthError, AuthFile, Profile, ProfileType, Secret, SecretRef, Store};
use crate::cli::{
    AuthAddArgs, AuthArgs, AuthCommand, AuthOrderArgs, AuthRemoveArgs, AuthResetArgs,
    CredentialType,
};
use crate::error::{CliError, CliResult, Exit};
use crate::output::Stdout;
use crate::output::report::{
    AuthAdded, AuthList, AuthOrder, AuthRemoved, AuthReset, AuthStatus, ProfileStatus,
    ProfileSummary, SecretSource,
};

/// Secrets are short; a bigger stdin is a mistake (a file piped by accident), not a key.
const MAX_SECRET_BYTES: u64 = 64 * 1024;

/// Run `pincer auth`.
pub(crate) fn dispatch(context: &Context, args: AuthArgs) -> CliResult<Exit> {
    let file = AuthFile::new(&context.settings.paths.auth_file);
    if let Some(warning) = file.permission_warning() {
        context.diagnostics.warn(&warning);
    }
    match args.command.unwrap_or(AuthCommand::List) {
        AuthCommand::List => list(context, &file),
        AuthCommand::Add(args) => add(context, &file, &args),
        AuthCommand::Remove(args) => remove(context, &file, &args),
        AuthCommand::Order(args) => order(context, &file, &args),
        AuthCommand::Status => status(context, &file),
        AuthCommand::Reset(args) => reset(context, &file, &args),
        AuthCommand::Test(args) => super::auth_test::run(context, &file, &args),
    }
}

/// A store error as the user sees it.
pub(crate) fn auth_error(error: AuthError) -> CliError {
    let message = error.to_string();
    match &error {
        AuthError::Corrupt { path, .. } => CliError::usage(message).with_hint(format!(
            "fix '{}' by hand or move it aside; pincer never overwrites a store it cannot read",
            path.display()
        )),
        AuthError::UnsupportedVersion { .. } => {
            CliError::usage(message).with_hint("upgrade pincer to use this auth store")
        }
        AuthError::NoSuchProfile { .. } => {
            CliError::usage(message).with_hint("`pincer auth list` shows the profile ids")
        }
        AuthError::Invalid(_) => CliError::usage(message),
        AuthError::Locked {
            source: lock @ crate::fs::LockError::Io { path, source },
            ..
        } => super::access_error(&lock.to_string(), path, source)
            .unwrap_or_else(|| CliError::new(Exit::RunFailed, lock.to_string())),
        AuthError::Locked {
            source: crate::fs::LockError::TimedOut { .. },
            ..
        } => CliError::new(Exit::Timeout, message),
        AuthError::Locked {
            source: crate::fs::LockError::LocalOnly { .. },
            ..
        } => CliError::usage(message).with_hint(super::LOCAL_LOCKS_HINT),
        AuthError::Locked { .. } => CliError::new(Exit::Busy, message)
            .with_hint("another pincer is changing the auth store; try again"),
        AuthError::Io { path, source } => super::access_error(&message, path, source)
            .unwrap_or_else(|| CliError::new(Exit::RunFailed, message)),
    }
}

pub(super) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// `ms` as ISO 8601, or none when unset (0 is unset too).
pub(super) fn iso(ms: Option<u64>) -> Option<String> {
    ms.filter(|ms| *ms > 0)
        .map(crate::session::record::iso_of_millis)
}

fn write_json(report: &impl serde::Serialize) -> CliResult<()> {
    Stdout::new().json_report(report).map_err(stdout_error)
}

fn write_text(text: &str) -> CliResult<()> {
    Stdout::new().write(text).map_err(stdout_error)
}

/// Where the secret comes from.
fn source_kind(profile: &Profile) -> SecretSource {
    match (profile.stored_secret(), profile.reference()) {
        (Some(_), _) => SecretSource::Stored,
        (None, Some(SecretRef::Env { .. })) => SecretSource::Env,
        (None, Some(SecretRef::Command { .. })) => SecretSource::Command,
        (None, None) => SecretSource::None,
    }
}

/// One profile for `list`: never the secret, at most its fingerprint.
fn profile_summary(id: &str, profile: &Profile, store: &Store, now: u64) -> ProfileSummary {
    let stats = store.usage_stats.get(id);
    let until = stats.and_then(|stats| unavailable_until(stats, now));
    let unusable = unusable(profile, now);
    ProfileSummary {
        id: id.to_owned(),
        provider: profile.provider.clone(),
        kind: profile.kind.as_str().to_owned(),
        source: source_kind(profile),
        secret: profile.source_text(),
        available: until.is_none() && unusable.is_none(),
        unavailable_until: iso(until),
        unusable,
    }
}

/// Why a profile cannot work whatever the time, as a run would find it (no key command runs):
/// the one answer `auth list`, `auth status`, `status` and `auth test` give.
pub(super) fn unusable(profile: &Profile, now: u64) -> Option<String> {
    let environment = |name: &str| std::env::var(name).ok();
    crate::auth::resolve::profile_problem(profile, &environment, now)
        .map(|problem| problem.to_string())
}

/// Profiles grouped by provider, ids sorted within each.
fn sorted_profiles(store: &Store) -> Vec<(&String, &Profile)> {
    let mut profiles: Vec<(&String, &Profile)> = store.profiles.iter().collect();
    profiles.sort_by(|(left_id, left), (right_id, right)| {
        (&left.provider, left_id).cmp(&(&right.provider, right_id))
    });
    profiles
}

fn list(context: &Context, file: &AuthFile) -> CliResult<Exit> {
    let store = file.load().map_err(auth_error)?;
    let now = now_ms();
    let report = AuthList {
        file: file.path().to_owned(),
        profiles: sorted_profiles(&store)
            .into_iter()
            .map(|(id, profile)| profile_summary(id, profile, &store, now))
            .collect(),
    };
    if context.format.is_json() {
        write_json(&report)?;
        return Ok(Exit::Success);
    }
    if report.profiles.is_empty() {
        context.diagnostics.info(&format!(
            "no auth profiles in '{}'; add one with `pincer auth add PROVIDER`",
            file.path().display()
        ));
        return Ok(Exit::Success);
    }
    let rows: Vec<[String; 5]> = report
        .profiles
        .iter()
        .map(|profile| {
            let state = match (&profile.unusable, &profile.unavailable_until) {
                (Some(reason), _) => format!("unusable: {reason}"),
                (None, Some(until)) => format!("cooling down until {until}"),
                (None, None) => "ready".to_owned(),
            };
            [
                profile.id.clone(),
                profile.kind.clone(),
                profile.source.as_str().to_owned(),
                profile.secret.clone(),
                state,
            ]
        })
        .collect();
    write_text(&table(&["ID", "TYPE", "SOURCE", "SECRET", "STATE"], &rows))?;
    Ok(Exit::Success)
}

/// An optional value as the text view shows it: `-` when unset.
fn or_dash(value: Option<&str>) -> String {
    value.unwrap_or("-").to_owned()
}

/// Left-aligned columns separated by two spaces; the last column is not padded.
fn table<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
    let mut widths = header.map(|title| title.chars().count());
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: Vec<&str>| {
        let mut text = String::new();
        for (index, cell) in cells.iter().enumerate() {
            if index + 1 == N {
                text.push_str(cell);
            } else {
                let _ = write!(text, "{cell:<width$}  ", width = widths[index]);
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
    out
}

/// Provider ids are lower-case names: `anthropic`, `openai`, `my-proxy`.
fn validate_provider(provider: &str) -> CliResult<String> {
    let provider = provider.trim().to_ascii_lowercase();
    let valid = !provider.is_empty()
        && provider
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if valid {
        Ok(provider)
    } else {
        Err(CliError::usage(format!(
            "'{provider}' is not a provider id (letters, digits, '-', '_' and '.')"
        )))
    }
}

fn validate_env_name(name: &str) -> CliResult<()> {
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(CliError::usage(format!(
            "'{name}' is not an environment variable name"
        )))
    }
}

/// The profile id for `--name`: `PROVIDER:NAME` (a name already starting with `PROVIDER:` is
/// taken as the whole id).
fn id_for_name(provider: &str, name: &str) -> CliResult<String> {
    let name = name.trim();
    let id = match name.strip_prefix(&format!("{provider}:")) {
        Some(_) => name.to_owned(),
        None => format!("{provider}:{name}"),
    };
    let short = &id[provider.len() + 1..];
    if short.is_empty() || short.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(CliError::usage(format!(
            "'{name}' is not a profile name (no spaces, not empty)"
        )));
    }
    Ok(id)
}

fn add(context: &Context, file: &AuthFile, args: &AuthAddArgs) -> CliResult<Exit> {
    let provider = validate_provider(&args.provider)?;
    let kind = match args.type_ {
        CredentialType::ApiKey => ProfileType::ApiKey,
        CredentialType::Token => ProfileType::Token,
    };
    let wanted_id = args
        .name
        .as_deref()
        .map(|name| id_for_name(&provider, name))
        .transpose()?;
    let profile = if let Some(name) = &args.from_env {
        validate_env_name(name)?;
        Profile::with_reference(kind, &provider, SecretRef::Env { name: name.clone() })
    } else if let Some(command) = &args.command {
        if command.trim().is_empty() {
            return Err(CliError::usage("--command needs a command"));
        }
        Profile::with_reference(
            kind,
            &provider,
            SecretRef::Command {
                command: command.clone(),
            },
        )
    } else {
        // Read before taking the lock: a person typing must not block other processes.
        let secret = read_secret(&provider)?;
        Profile::with_value(kind, &provider, secret)
    };
    let id = file
        .update(|store| {
            let id = match &wanted_id {
                Some(id) if store.profiles.contains_key(id) => {
                    return Err(AuthError::Invalid(format!(
                        "auth profile '{id}' already exists; remove it first with `pincer auth remove {id}`"
                    )));
                }
                Some(id) => id.clone(),
                None => store.next_profile_id(&provider),
            };
            store.profiles.insert(id.clone(), profile.clone());
            // A new profile starts clean, whatever an older run left under its id.
            store.usage_stats.remove(&id);
            // An explicit order lists every profile that is tried; a new one joins at its end.
            if let Some(order) = store.order.get_mut(&provider) {
                order.push(id.clone());
            }
            Ok(id)
        })
        .map_err(auth_error)?;
    let summary = AuthAdded {
        id: id.clone(),
        provider: provider.clone(),
        kind: profile.kind.as_str().to_owned(),
        source: source_kind(&profile),
        secret: profile.source_text(),
        file: file.path().to_owned(),
    };
    if context.format.is_json() {
        write_json(&summary)?;
    } else {
        context.diagnostics.info(&format!(
            "added auth profile {id} ({}, {})",
            profile.kind.as_str(),
            profile.source_text()
        ));
    }
    Ok(Exit::Success)
}

/// The secret from stdin (piped) or a hidden prompt (terminal); never from argv.
fn read_secret(provider: &str) -> CliResult<Secret> {
    let text = if std::io::stdin().is_terminal() {
        hidden::prompt(&format!("{provider} secret (input hidden): "))?
    } else {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_SECRET_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| {
                CliError::usage(format!("cannot read the secret from stdin: {error}"))
            })?;
        if bytes.len() as u64 > MAX_SECRET_BYTES {
            return Err(CliError::usage(format!(
                "stdin holds more than {MAX_SECRET_BYTES} bytes; that is not a key"
            )));
        }
        String::from_utf8(bytes)
            .map_err(|_| CliError::usage("the secret on stdin is not valid UTF-8"))?
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(CliError::usage("no secret given: stdin was empty").with_hint(
            "pipe the key in (`pincer auth add openai < key.txt`), or use --from-env VAR or --command CMD",
        ));
    }
    if trimmed.chars().any(char::is_whitespace) {
        return Err(CliError::usage(
            "the secret contains spaces or several lines; a key or token is one word",
        ));
    }
    Ok(Secret::new(trimmed))
}

fn remove(context: &Context, file: &AuthFile, args: &AuthRemoveArgs) -> CliResult<Exit> {
    let removed = file
        .update(|store| store.remove_profile(&args.id))
        .map_err(auth_error)?;
    if context.format.is_json() {
        write_json(&AuthRemoved {
            removed: args.id.clone(),
            provider: removed.provider,
        })?;
    } else {
        context
            .diagnostics
            .info(&format!("removed auth profile {}", args.id));
    }
    Ok(Exit::Success)
}

/// A profile id given on the command line: the full id, or the name after `PROVIDER:`.
fn find_id(store: &Store, provider: &str, given: &str) -> Result<String, AuthError> {
    let qualified = format!("{provider}:{given}");
    let id = [given, qualified.as_str()]
        .into_iter()
        .find(|id| store.profiles.contains_key(*id))
        .ok_or_else(|| AuthError::NoSuchProfile {
            id: given.to_owned(),
        })?;
    match store.profiles.get(id) {
        Some(profile) if crate::auth::store::same_provider(&profile.provider, provider) => {
            Ok(id.to_owned())
        }
        Some(profile) => Err(AuthError::Invalid(format!(
            "auth profile '{id}' is for provider '{}', not '{provider}'",
            profile.provider
        ))),
        None => Err(AuthError::NoSuchProfile { id: id.to_owned() }),
    }
}

fn order(context: &Context, file: &AuthFile, args: &AuthOrderArgs) -> CliResult<Exit> {
    let provider = validate_provider(&args.provider)?;
    let store = if args.ids.is_empty() {
        file.load().map_err(auth_error)?
    } else {
        file.update(|store| {
            let mut ids = Vec::new();
            for given in &args.ids {
                let id = find_id(store, &provider, given)?;
                if ids.contains(&id) {
                    return Err(AuthError::Invalid(format!("'{id}' is listed twice")));
                }
                ids.push(id);
            }
            store.order.insert(provider.clone(), ids);
            Ok(store.clone())
        })
        .map_err(auth_error)?
    };
    let explicit = store.order.contains_key(&provider);
    let order = profile_order(&store, &provider, now_ms());
    let left_out: Vec<String> = store
        .provider_profile_ids(&provider)
        .into_iter()
        .filter(|id| !order.contains(id))
        .collect();
    if !left_out.is_empty() {
        context.diagnostics.warn(&format!(
            "not in {provider}'s order, so never tried: {}",
            left_out.join(", ")
        ));
    }
    if context.format.is_json() {
        write_json(&AuthOrder {
            provider: provider.clone(),
            order: order.clone(),
            explicit,
            not_tried: left_out,
        })?;
    } else if order.is_empty() {
        context
            .diagnostics
            .info(&format!("no auth profiles for {provider}"));
    } else {
        let mut text = String::new();
        for (position, id) in order.iter().enumerate() {
            let _ = writeln!(text, "{}. {id}", position + 1);
        }
        if !explicit {
            let _ = writeln!(
                text,
                "(no explicit order: least recently used first, cooling profiles last)"
            );
        }
        write_text(&text)?;
    }
    Ok(Exit::Success)
}

fn status(context: &Context, file: &AuthFile) -> CliResult<Exit> {
    let store = file.load().map_err(auth_error)?;
    let now = now_ms();
    let profiles: Vec<ProfileStatus> = sorted_profiles(&store)
        .into_iter()
        .map(|(id, profile)| {
            let stats = store
                .usage_stats
                .get(id.as_str())
                .cloned()
                .unwrap_or_default();
            let stats = cooldown::settle(&stats, now);
            let until = unavailable_until(&stats, now);
            let unusable = unusable(profile, now);
            ProfileStatus {
                id: id.clone(),
                provider: profile.provider.clone(),
                kind: profile.kind.as_str().to_owned(),
                source: source_kind(profile),
                secret: profile.source_text(),
                available: until.is_none() && unusable.is_none(),
                unusable,
                last_used: iso(stats.last_used),
                cooldown_until: iso(stats.cooldown_until.filter(|until| *until > now)),
                disabled_until: iso(stats.disabled_until.filter(|until| *until > now)),
                disabled_reason: stats.disabled_reason.clone(),
                error_count: stats.error_count,
                failure_counts: stats.failure_counts.clone(),
                last_failure_at: iso(stats.last_failure_at),
                last_good: store
                    .last_good
                    .get(&profile.provider)
                    .is_some_and(|good| good == id),
            }
        })
        .collect();
    let report = AuthStatus {
        file: file.path().to_owned(),
        profiles,
    };
    if context.format.is_json() {
        write_json(&report)?;
        return Ok(Exit::Success);
    }
    if report.profiles.is_empty() {
        context
            .diagnostics
            .info(&format!("no auth profiles in '{}'", file.path().display()));
        return Ok(Exit::Success);
    }
    let mut out = String::new();
    for profile in &report.profiles {
        let _ = writeln!(out, "{}", profile.id);
        let field = |out: &mut String, key: &str, value: String| {
            let _ = writeln!(out, "  {key:<16}{value}");
        };
        field(&mut out, "type:", profile.kind.clone());
        let source = match profile.source {
            SecretSource::Stored => format!("stored ({})", profile.secret),
            _ => profile.secret.clone(),
        };
        field(&mut out, "source:", source);
        if let Some(reason) = &profile.unusable {
            field(&mut out, "unusable:", reason.clone());
        }
        field(
            &mut out,
            "last used:",
            or_dash(profile.last_used.as_deref()),
        );
        field(
            &mut out,
            "cooldown until:",
            or_dash(profile.cooldown_until.as_deref()),
        );
        let disabled = match (&profile.disabled_until, &profile.disabled_reason) {
            (Some(until), Some(reason)) => format!("{until} ({reason})"),
            (until, _) => or_dash(until.as_deref()),
        };
        field(&mut out, "disabled until:", disabled);
        let failures = if profile.failure_counts.is_empty() {
            "none".to_owned()
        } else {
            profile
                .failure_counts
                .iter()
                .map(|(kind, count)| format!("{kind} {count}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        field(&mut out, "failures:", failures);
    }
    write_text(&out)?;
    Ok(Exit::Success)
}

fn reset(context: &Context, file: &AuthFile, args: &AuthResetArgs) -> CliResult<Exit> {
    let count = file
        .update(|store| {
            let ids: Vec<String> = match &args.id {
                Some(id) if store.profiles.contains_key(id) => vec![id.clone()],
                Some(id) => return Err(AuthError::NoSuchProfile { id: id.clone() }),
                None => store.usage_stats.keys().cloned().collect(),
            };
            for id in &ids {
                if let Some(stats) = store.usage_stats.get_mut(id) {
                    *stats = cooldown::reset(stats);
                }
            }
            Ok(ids.len())
        })
        .map_err(auth_error)?;
    if context.format.is_json() {
        write_json(&AuthReset {
            reset: count,
            id: args.id.clone(),
        })?;
    } else {
        context.diagnostics.info(&match &args.id {
            Some(id) => format!("cleared cooldowns and failure counts of {id}"),
            None => format!("cleared cooldowns and failure counts of {count} profile(s)"),
        });
    }
    Ok(Exit::Success)
}

/// The hidden prompt on a terminal.
///
/// Echo is switched off with `stty` on `/dev/tty` (the crate forbids `unsafe`, and nix's termios
/// is not among its enabled features). Signal keys are switched off too, so Ctrl-C arrives as a
/// byte this code handles (restore the terminal, then exit 130) instead of killing the process
/// with echo still off. The prompt goes to the terminal itself, not to stdout or stderr.
mod hidden {
    use std::fs::{File, OpenOptions};
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};

    use crate::error::{CliError, CliResult, Exit};

    /// What a run of typed bytes amounts to.
    #[derive(Debug, PartialEq, Eq)]
    pub(super) enum Line {
        /// Enter was pressed; the bytes typed (after editing).
        Done(Vec<u8>),
        /// Ctrl-C, or Ctrl-D on an empty line.
        Cancelled,
        /// More input needed.
        Pending,
    }

    /// Apply one typed byte to the line: Enter ends it, Backspace removes one character
    /// (all its UTF-8 bytes), Ctrl-U clears, Ctrl-C cancels, Ctrl-D cancels an empty line.
    pub(super) fn edit(line: &mut Vec<u8>, byte: u8) -> Line {
        match byte {
            b'\r' | b'\n' => Line::Done(std::mem::take(line)),
            0x03 => Line::Cancelled,
            0x04 if line.is_empty() => Line::Cancelled,
            0x7f | 0x08 => {
                while let Some(last) = line.pop() {
                    // Stop after removing a character's first byte (not a continuation byte).
                    if last & 0b1100_0000 != 0b1000_0000 {
                        break;
                    }
                }
                Line::Pending
            }
            0x15 => {
                line.clear();
                Line::Pending
            }
            byte if byte < 0x20 => Line::Pending,
            byte => {
                line.push(byte);
                Line::Pending
            }
        }
    }

    fn stty(tty: &File, arguments: &[&str]) -> std::io::Result<String> {
        let output = Command::new("stty")
            .args(arguments)
            .stdin(Stdio::from(tty.try_clone()?))
            .stderr(Stdio::null())
            .output()?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
        } else {
            Err(std::io::Error::other("stty failed"))
        }
    }

    /// Restores the saved terminal settings when dropped, whatever happened in between.
    struct Restore<'a> {
        tty: &'a File,
        saved: String,
    }

    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            let _ = stty(self.tty, &[&self.saved]);
            let mut tty = self.tty;
            let _ = tty.write_all(b"\n");
        }
    }

    fn refuse(reason: &str) -> CliError {
        CliError::usage(format!(
            "cannot read a hidden secret from the terminal: {reason}"
        ))
        .with_hint("pipe the secret in instead: `pincer auth add PROVIDER < key.txt`")
    }

    /// Show `prompt` on the terminal and read one line without echo.
    pub(super) fn prompt(prompt: &str) -> CliResult<String> {
        let tty = OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|error| refuse(&error.to_string()))?;
        let saved = stty(&tty, &["-g"]).map_err(|error| refuse(&error.to_string()))?;
        let _restore = Restore {
            tty: &tty,
            saved: saved.clone(),
        };
        stty(
            &tty,
            &["-echo", "-icanon", "-isig", "min", "1", "time", "0"],
        )
        .map_err(|error| refuse(&error.to_string()))?;
        let mut writer = &tty;
        writer
            .write_all(prompt.as_bytes())
            .map_err(|error| refuse(&error.to_string()))?;
        let mut line = Vec::new();
        let mut reader = &tty;
        let mut byte = [0u8; 1];
        loop {
            let read = reader
                .read(&mut byte)
                .map_err(|error| refuse(&error.to_string()))?;
            if read == 0 {
                return Err(CliError::new(
                    Exit::Interrupted,
                    "the terminal closed; nothing was stored",
                ));
            }
            match edit(&mut line, byte[0]) {
                Line::Done(bytes) => {
                    return String::from_utf8(bytes)
                        .map_err(|_| CliError::usage("the secret is not valid UTF-8"));
                }
                Line::Cancelled => {
                    return Err(CliError::new(
                        Exit::Interrupted,
                        "cancelled; nothing was stored",
                    ));
                }
                Line::Pending => {}
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn type_bytes(bytes: &[u8]) -> Line {
            let mut line = Vec::new();
            for &byte in bytes {
                match edit(&mut line, byte) {
                    Line::Pending => {}
                    outcome => return outcome,
                }
            }
            Line::Pending
        }

        #[test]
        fn enter_ends_the_line_and_backspace_removes_whole_characters() {
            assert_eq!(type_bytes(b"sk-abc\r"), Line::Done(b"sk-abc".to_vec()));
            assert_eq!(
                type_bytes("sk-é\x7fx\n".as_bytes()),
                Line::Done(b"sk-x".to_vec())
            );
            assert_eq!(
                type_bytes(b"wrong\x15right\r"),
                Line::Done(b"right".to_vec())
            );
        }

        #[test]
        fn ctrl_c_cancels_and_ctrl_d_cancels_only_an_empty_line() {
            assert_eq!(type_bytes(b"sk-\x03"), Line::Cancelled);
            assert_eq!(type_bytes(b"\x04"), Line::Cancelled);
            assert_eq!(type_bytes(b"ab\x04c\r"), Line::Done(b"abc".to_vec()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_provider_qualified_ids() {
        assert_eq!(id_for_name("openai", "work").unwrap(), "openai:work");
        assert_eq!(id_for_name("openai", "openai:work").unwrap(), "openai:work");
        assert_eq!(id_for_name("openai", "a:b").unwrap(), "openai:a:b");
        assert!(id_for_name("openai", "two words").is_err());
        assert!(id_for_name("openai", "openai:").is_err());
    }

    #[test]
    fn provider_ids_are_lower_case_names() {
        assert_eq!(validate_provider(" OpenAI ").unwrap(), "openai");
        assert!(validate_provider("open ai").is_err());
        assert!(validate_provider("").is_err());
    }

    #[test]
    fn times_print_as_utc_with_milliseconds() {
        assert_eq!(
            crate::session::record::iso_of_millis(1_800_000_000_123),
            "2027-01-15T08:00:00.123Z"
        );
        assert_eq!(iso(Some(0)), None);
    }

    #[test]
    fn tables_pad_every_column_but_the_last() {
        let text = table(
            &["ID", "STATE"],
            &[["openai:default".into(), "ready".into()]],
        );
        assert_eq!(text, "ID              STATE\nopenai:default  ready\n");
    }
}
