//! The session store shared across machines (SPEC §19, issue #49), as the command line uses
//! it: opening the store `--store` / `PINCER_STORE` / `[store] url` names, the one mapping of
//! the store's errors to exit codes and `error.kind`, and how a synchronous command calls the
//! asynchronous store.
//!
//! # Async
//! The store (`pincer_store`) is async, over `object_store` and reqwest. A turn already runs on
//! its command's one-thread runtime ([`crate::scope::CancelScope`]): the turn's store
//! calls go through [`CancelScope::block_on`](crate::scope::CancelScope::block_on) on
//! that runtime, so the lease's renewals ([`pincer_store::Lease::keep_alive`], a task spawned
//! on it) run while the turn runs. Commands without a scope (`status --store`, `sessions …`)
//! call [`block_on`], which runs one future on a one-thread runtime of its own. A store's HTTP
//! connections belong to the runtime that opened them: use one store value with one runtime.
//!
//! # Credentials
//! The store reads its credentials from the environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`);
//! pincer never writes, shows or passes them on. Every variable
//! [`pincer_store::is_credential_variable`] names is removed from the environment of every
//! tool, hook and MCP server whether or not a store is in use, and of a CLI backend when one
//! is (it joins the run's key variables, [`crate::plan::keys::KnownKeys`]); the store removes
//! their values from its messages.

pub(crate) mod session;

use std::future::Future;
use std::time::Duration;

use pincer_store::{ErrorKind as StoreKind, Holder, Store, StoreError, StoreOptions};

use crate::error::{CliError, CliResult, ErrorKind, Exit};
use crate::settings::{Settings, StoreSettings};

/// What a session selector names in a store ([`find`]).
pub(crate) enum Found {
    One(pincer_store::SessionId),
    None,
    /// The start of several session ids.
    Many(Vec<pincer_store::SessionId>),
}

/// The session `query` names in `store`, as for local sessions: a full id the store has (one
/// read of its manifest, else a listing of its segments' numbers), else a name, else — for a
/// query of at least eight characters that can start an id — the start of one id (a listing of
/// every session: only then).
pub(crate) async fn find(store: &Store, query: &str) -> Result<Found, StoreError> {
    if let Ok(id) = pincer_store::SessionId::parse(query)
        && (store.manifest(&id).await?.is_some()
            || !store.segment_numbers(&id, 0).await?.is_empty())
    {
        return Ok(Found::One(id));
    }
    match store.resolve_name(query).await {
        Ok(Some(id)) => return Ok(Found::One(id)),
        Ok(None) | Err(StoreError::Invalid { .. }) => {}
        Err(error) => return Err(error),
    }
    let could_start_an_id = query.len() >= 8
        && query
            .bytes()
            .all(|byte| byte.is_ascii_hexdigit() || byte == b'-');
    if !could_start_an_id {
        return Ok(Found::None);
    }
    let mut matching: Vec<_> = store
        .list_sessions()
        .await?
        .into_iter()
        .filter(|id| id.as_str().starts_with(query))
        .collect();
    Ok(match matching.len() {
        0 => Found::None,
        1 => Found::One(matching.remove(0)),
        _ => Found::Many(matching),
    })
}

/// The usage error of a `query` that starts several of the store's session ids.
pub(crate) fn ambiguous(
    query: &str,
    store: &Store,
    sessions: &[pincer_store::SessionId],
) -> CliError {
    CliError::usage(format!(
        "'{query}' is the start of {} session ids in the session store {}: {}",
        sessions.len(),
        store.url(),
        sessions
            .iter()
            .take(5)
            .map(pincer_store::SessionId::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    ))
    .with_hint("give more of the id, or the session's name")
}

/// The store the settings name, opened (nothing is sent yet), or None without one.
pub(crate) fn open(settings: &Settings) -> CliResult<Option<Store>> {
    let store = &settings.store;
    let Some(url) = &store.url else {
        return Ok(None);
    };
    let options = options(store)?;
    Store::open(url, options).map(Some).map_err(|error| {
        store_error(error).with_hint(format!("check the store's URL ({})", store.origin))
    })
}

/// The store, once checked: the consistency check runs at the first use of a store (and is
/// recorded in it), so a store whose listing or conditional writes cannot be trusted is refused
/// before it holds a session.
pub(crate) async fn checked(store: &Store) -> CliResult<()> {
    store.ensure_checked().await.map_err(store_error)
}

fn options(store: &StoreSettings) -> CliResult<StoreOptions> {
    let seconds = |key: &str, value: f64| {
        if value.is_finite() && value > 0.0 {
            Ok(Duration::from_secs_f64(value))
        } else {
            Err(CliError::usage(format!(
                "store.{key} takes a positive number of seconds, not {value}"
            ))
            .with_hint(format!(
                "set [store] {key} in config.toml, or -c store.{key}=30"
            )))
        }
    };
    Ok(StoreOptions {
        connect_timeout: seconds("connect_timeout_secs", store.connect_timeout_secs)?,
        request_timeout: seconds("request_timeout_secs", store.request_timeout_secs)?,
        max_retries: usize::try_from(store.max_retries).unwrap_or(usize::MAX),
        ..StoreOptions::default()
    })
}

/// How long a session's lease lasts without a renewal (`[store] lease_ttl_secs`).
pub(crate) fn lease_ttl(settings: &Settings) -> CliResult<Duration> {
    let value = settings.store.lease_ttl_secs;
    if value.is_finite() && value >= 0.3 {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(CliError::usage(format!(
            "store.lease_ttl_secs takes a number of seconds of at least 0.3, not {value}"
        ))
        .with_hint("set [store] lease_ttl_secs in config.toml, or -c store.lease_ttl_secs=30"))
    }
}

/// Who this run is to the other writers of a session: a fresh id and this machine's name.
pub(crate) fn holder() -> Holder {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "unknown host".to_owned());
    Holder::new(format!("pincer {}", uuid::Uuid::now_v7()), host)
}

/// Run `future` to its end on a one-thread runtime of its own: how a command without a turn's
/// runtime calls the store.
pub(crate) fn block_on<F: Future>(future: F) -> CliResult<F::Output> {
    let runtime = crate::scope::runtime()?;
    Ok(runtime.block_on(future))
}

/// The one mapping of a store error to the command line's: its exit code and `error.kind`
/// (`retryable` follows from the kind), a message that names the store and never a credential
/// (the store removed them), and what to do.
pub(crate) fn store_error(error: StoreError) -> CliError {
    let message = error.to_string();
    let kind = error.kind();
    match (&error, kind) {
        (StoreError::Busy { .. }, _) => CliError::new(Exit::Busy, message)
            .with_kind(ErrorKind::SessionBusy)
            .with_hint(
                "wait for that run to finish, or pass --wait SECS to wait for the session's lease",
            ),
        (_, StoreKind::Fenced) => CliError::new(Exit::Busy, message)
            .with_kind(ErrorKind::Fenced)
            .with_hint(
                "another run wrote to the session meanwhile; resume it again to continue from \
                 what is in the store",
            ),
        (_, StoreKind::Unavailable) => CliError::new(ErrorKind::StoreUnavailable.exit(), message)
            .with_kind(ErrorKind::StoreUnavailable)
            .with_hint("the session store did not answer; try again later (nothing was lost)"),
        (_, StoreKind::NotFound) => CliError::usage(message)
            .with_hint("`pincer sessions list --store URL` lists the sessions in the store"),
        (_, StoreKind::Inconsistent) => CliError::new(ErrorKind::StoreRefused.exit(), message)
            .with_kind(ErrorKind::StoreRefused)
            .with_hint(
                "use a store with conditional writes and strongly consistent listings (AWS \
                     S3, MinIO, R2, GCS, Azure); `pincer status --store` runs the check",
            ),
        (_, StoreKind::Refused) => CliError::new(ErrorKind::StoreRefused.exit(), message)
            .with_kind(ErrorKind::StoreRefused)
            .with_hint(
                "check the store's credentials (AWS_*, GOOGLE_*, AZURE_*), its permissions and \
                 that the bucket exists",
            ),
        _ => CliError::new(ErrorKind::StoreRefused.exit(), message)
            .with_kind(ErrorKind::StoreRefused),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_store_error_has_its_exit_kind_and_retryable() {
        let cases = [
            (
                StoreError::Unavailable {
                    store: "s3://b/p".to_owned(),
                    detail: "connection refused".to_owned(),
                    timed_out: false,
                },
                ErrorKind::StoreUnavailable,
                75,
                true,
            ),
            (
                StoreError::Refused {
                    store: "s3://b/p".to_owned(),
                    detail: "403".to_owned(),
                },
                ErrorKind::StoreRefused,
                1,
                false,
            ),
            (
                StoreError::Inconsistent {
                    store: "s3://b/p".to_owned(),
                    detail: "a listing is late".to_owned(),
                },
                ErrorKind::StoreRefused,
                1,
                false,
            ),
            (
                StoreError::Fenced {
                    session: "s".to_owned(),
                    segment: 3,
                },
                ErrorKind::Fenced,
                75,
                true,
            ),
            (
                StoreError::LeaseLost {
                    session: "s".to_owned(),
                },
                ErrorKind::Fenced,
                75,
                true,
            ),
            (
                StoreError::Busy {
                    session: "s".to_owned(),
                    holder: "pincer 1".to_owned(),
                    host: "ci-7".to_owned(),
                    retry_after: Duration::from_secs(30),
                },
                ErrorKind::SessionBusy,
                75,
                true,
            ),
        ];
        for (error, kind, exit, retryable) in cases {
            let mapped = store_error(error.clone());
            assert_eq!(mapped.kind(), kind, "{error}");
            assert_eq!(mapped.exit.code(), exit, "{error}");
            assert_eq!(mapped.kind().retryable(), retryable, "{error}");
            assert!(mapped.hint.is_some(), "{error}");
        }
        let busy = store_error(StoreError::Busy {
            session: "s".to_owned(),
            holder: "pincer 1".to_owned(),
            host: "ci-7".to_owned(),
            retry_after: Duration::from_secs(30),
        });
        assert!(busy.message.contains("ci-7"), "{}", busy.message);
    }

    #[test]
    fn no_store_url_opens_nothing_and_a_bad_one_is_refused_naming_its_origin() {
        let paths = crate::config::Paths::under_home(std::path::Path::new("/tmp/pincer-test-home"));
        let mut settings = Settings::from_text(paths, "", false, &[], &|_| None).unwrap();
        assert!(open(&settings).unwrap().is_none());
        settings.store.choose(Some("ftp://x/y"), "--store");
        let error = open(&settings).err().unwrap();
        assert_eq!(error.kind(), ErrorKind::StoreRefused);
        assert!(error.message.contains("ftp"), "{}", error.message);
        assert!(error.hint.unwrap().contains("--store"));
        settings.store.choose(Some(""), "--store");
        assert!(open(&settings).unwrap().is_none());
    }
}
