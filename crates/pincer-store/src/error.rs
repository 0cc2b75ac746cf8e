//! The store's errors: one enum whose kinds a command line maps to exit codes, with the
//! evidence kept as text that never holds a credential.
//!
//! Every error that comes from an object store passes through [`Classifier::classify`], which
//! decides its kind and removes the values of the credential variables the store was opened
//! with from the text, so no message, log line or result object built from a [`StoreError`]
//! can carry a key (the object stores' own messages are not trusted to leave them out).

use std::error::Error as _;
use std::time::Duration;

use object_store::client::{HttpError, HttpErrorKind};

/// What went wrong, for the caller to branch on. The exit codes in brackets are the ones
/// pincer's command line gives each kind (`store_error` in its `remote` module, and
/// `docs/reference/retries.md`); only the binary decides them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The store could not be reached, timed out or failed (5xx, 429): retry later
    /// (`store_unavailable`, exit 75).
    Unavailable,
    /// The store refused the request: credentials, permissions, a bucket that is not there or
    /// in another region. Retrying does not help (`store_refused`, exit 1).
    Refused,
    /// Another writer holds the session's lease (`session_busy`, exit 75).
    Busy,
    /// This writer lost its lease or another commit came first; the turn was not committed
    /// (`fenced`, exit 75).
    Fenced,
    /// The session, name or snapshot does not exist (exit 2).
    NotFound,
    /// The store does not keep the guarantees sessions need (conditional writes, consistent
    /// listings), or holds objects this crate did not write (`store_refused`, exit 1).
    Inconsistent,
    /// The caller passed something invalid: a URL, an id, a segment that is not whole lines
    /// (`store_refused`, exit 1).
    Invalid,
    /// A pushed file and the store's copy of the session differ before the part to add
    /// (exit 2).
    Diverged,
}

/// An error of the session store. Its text names the store (its URL without credentials) and
/// the object or session concerned; it never holds a credential.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store could not be reached, was too slow, or failed; the operation may be retried.
    #[error("the session store {store} is unavailable{}: {detail}", if *.timed_out { " (timed out)" } else { "" })]
    Unavailable {
        store: String,
        detail: String,
        /// The request or the connection timed out (a slow store rather than an absent one).
        timed_out: bool,
    },
    /// The store refused the request (credentials, permissions, a missing bucket).
    #[error("the session store {store} refused the request: {detail}")]
    Refused { store: String, detail: String },
    /// The session's lease is held by another writer.
    #[error(
        "session {session} is busy: {holder} on {host} holds its lease (it expires once unrenewed for {}s)",
        retry_after.as_secs_f64().ceil()
    )]
    Busy {
        session: String,
        holder: String,
        host: String,
        /// How long a waiter must still watch the lease unchanged before it may take it over:
        /// the lease's TTL for a caller that did not wait.
        retry_after: Duration,
    },
    /// Another writer committed the segment this writer was about to commit.
    #[error(
        "session {session}: another writer committed segment {segment} first; your turn was not committed"
    )]
    Fenced { session: String, segment: u64 },
    /// This writer's lease was taken over (it was not renewed in time).
    #[error("session {session}: the lease was lost to another writer; your turn was not committed")]
    LeaseLost { session: String },
    /// A session, name or object that is not in the store.
    #[error("{what} is not in the session store {store}")]
    NotFound { store: String, what: String },
    /// The store failed a guarantee sessions rely on.
    #[error("the session store {store} cannot hold sessions safely: {detail}")]
    Inconsistent { store: String, detail: String },
    /// Invalid input.
    #[error("invalid {what}: {detail}")]
    Invalid { what: String, detail: String },
    /// A pushed session file does not continue the store's copy.
    #[error(
        "session {session}: the file differs from the store's copy (segments 1 to {head}); nothing was pushed"
    )]
    Diverged { session: String, head: u64 },
}

impl StoreError {
    /// The kind of error, for the caller's exit code and retry decision.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Unavailable { .. } => ErrorKind::Unavailable,
            Self::Refused { .. } => ErrorKind::Refused,
            Self::Busy { .. } => ErrorKind::Busy,
            Self::Fenced { .. } | Self::LeaseLost { .. } => ErrorKind::Fenced,
            Self::NotFound { .. } => ErrorKind::NotFound,
            Self::Inconsistent { .. } => ErrorKind::Inconsistent,
            Self::Invalid { .. } => ErrorKind::Invalid,
            Self::Diverged { .. } => ErrorKind::Diverged,
        }
    }

    /// Whether the same operation may succeed if tried again later (an unavailable store, a
    /// busy session, a lost race for a commit after reading the new segments).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind(),
            ErrorKind::Unavailable | ErrorKind::Busy | ErrorKind::Fenced
        )
    }
}

/// Turns object store errors into [`StoreError`]s for one store: its label (the URL without
/// credentials) and the secret values to keep out of every message.
#[derive(Clone)]
pub(crate) struct Classifier {
    pub(crate) store: String,
    secrets: Vec<String>,
}

impl std::fmt::Debug for Classifier {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Classifier")
            .field("store", &self.store)
            .field("secrets", &self.secrets.len())
            .finish()
    }
}

/// The shortest value treated as a secret when scrubbing messages (shorter ones would cut
/// ordinary words out of them).
const MIN_SECRET_LENGTH: usize = 4;

impl Classifier {
    pub(crate) fn new(store: String, secrets: Vec<String>) -> Self {
        let secrets = secrets
            .into_iter()
            .filter(|secret| secret.len() >= MIN_SECRET_LENGTH)
            .collect();
        Self { store, secrets }
    }

    /// `text` with every secret value replaced by `[redacted]`.
    pub(crate) fn scrub(&self, text: &str) -> String {
        self.secrets.iter().fold(text.to_owned(), |text, secret| {
            text.replace(secret.as_str(), "[redacted]")
        })
    }

    /// An error from the object store, by kind. Not found, precondition failures and
    /// already-exists answers are handled by the callers, where they are answers rather than
    /// errors; here they mean the store answered something this crate did not expect.
    pub(crate) fn classify(&self, error: &object_store::Error) -> StoreError {
        let detail = self.scrub(&chain(error));
        let store = self.store.clone();
        match error {
            object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. }
            | object_store::Error::UnknownConfigurationKey { .. } => {
                StoreError::Refused { store, detail }
            }
            // A missing bucket or container is a 404 too, but no object will ever be found in
            // it: the URL is wrong, not the session.
            object_store::Error::NotFound { .. } if names_a_missing_bucket(&detail) => {
                StoreError::Refused { store, detail }
            }
            object_store::Error::NotFound { .. } => StoreError::NotFound {
                store,
                what: detail,
            },
            object_store::Error::NotSupported { .. }
            | object_store::Error::NotImplemented { .. } => {
                StoreError::Inconsistent { store, detail }
            }
            _ => match transport_kind(error) {
                Some(kind) => StoreError::Unavailable {
                    store,
                    detail,
                    timed_out: kind == HttpErrorKind::Timeout,
                },
                None => match status(&detail) {
                    // A 4xx other than the ones object_store maps (404, 409, 412, 401, 403) is
                    // a request the store will refuse again: a bad bucket name, a region
                    // redirect, a malformed request.
                    Some(code) if (400..500).contains(&code) && code != 408 && code != 429 => {
                        StoreError::Refused { store, detail }
                    }
                    _ => StoreError::Unavailable {
                        store,
                        detail,
                        timed_out: false,
                    },
                },
            },
        }
    }

    /// An object this crate wrote that it cannot read back.
    pub(crate) fn corrupt(&self, what: &str, detail: impl std::fmt::Display) -> StoreError {
        StoreError::Inconsistent {
            store: self.store.clone(),
            detail: self.scrub(&format!("{what} is not what pincer wrote: {detail}")),
        }
    }
}

/// Whether a 404's text says the bucket (S3, GCS) or container (Azure) is missing rather
/// than the object.
fn names_a_missing_bucket(detail: &str) -> bool {
    [
        "NoSuchBucket",
        "ContainerNotFound",
        "The specified bucket does not exist",
    ]
    .iter()
    .any(|code| detail.contains(code))
}

/// The error and its sources, joined (object_store puts the useful part in the sources).
fn chain(error: &object_store::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The transport failure (connect, timeout, dropped connection) somewhere in the chain.
fn transport_kind(error: &object_store::Error) -> Option<HttpErrorKind> {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = current {
        if let Some(http) = cause.downcast_ref::<HttpError>() {
            return Some(http.kind());
        }
        current = cause.source();
    }
    None
}

/// The HTTP status in object_store's text for a failed response ("...status code: 400 ...").
/// Its retry error type is private, so the text is the only place the status is kept.
fn status(detail: &str) -> Option<u16> {
    let (_, after) = detail.split_once("status code: ")?;
    after.get(..3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classifier() -> Classifier {
        Classifier::new(
            "s3://bucket/prefix".to_owned(),
            vec!["wJalrXUtnFEMI/K7MDENG".to_owned()],
        )
    }

    #[test]
    fn a_secret_in_an_object_store_message_never_reaches_the_error_text() {
        let error = object_store::Error::Generic {
            store: "S3",
            source: "signature mismatch for key wJalrXUtnFEMI/K7MDENG".into(),
        };
        let classified = classifier().classify(&error);
        let text = classified.to_string();
        assert!(!text.contains("wJalrXUtnFEMI"), "{text}");
        assert!(text.contains("[redacted]"), "{text}");
        assert!(!format!("{classified:?}").contains("wJalrXUtnFEMI"));
    }

    #[test]
    fn client_errors_are_refused_and_server_errors_unavailable() {
        let with = |text: &str| object_store::Error::Generic {
            store: "S3",
            source: text.to_owned().into(),
        };
        let kind = |text: &str| classifier().classify(&with(text)).kind();
        assert_eq!(
            kind("Server returned non-2xx status code: 400 Bad Request: InvalidBucketName"),
            ErrorKind::Refused
        );
        assert_eq!(
            kind("Server returned non-2xx status code: 503 Service Unavailable"),
            ErrorKind::Unavailable
        );
        assert_eq!(
            kind("Server returned non-2xx status code: 429 Too Many Requests"),
            ErrorKind::Unavailable
        );
        let no_bucket = object_store::Error::NotFound {
            path: "team/x".to_owned(),
            source: "Server returned non-2xx status code: 404 Not Found: <Error><Code>NoSuchBucket</Code></Error>".into(),
        };
        assert_eq!(classifier().classify(&no_bucket).kind(), ErrorKind::Refused);
        let no_object = object_store::Error::NotFound {
            path: "team/x".to_owned(),
            source: "Server returned non-2xx status code: 404 Not Found: <Error><Code>NoSuchKey</Code></Error>".into(),
        };
        assert_eq!(
            classifier().classify(&no_object).kind(),
            ErrorKind::NotFound
        );
        let denied = object_store::Error::PermissionDenied {
            path: "x".to_owned(),
            source: "403".into(),
        };
        assert_eq!(classifier().classify(&denied).kind(), ErrorKind::Refused);
    }

    #[test]
    fn busy_fenced_and_unavailable_are_retryable_the_rest_not() {
        let busy = StoreError::Busy {
            session: "s".to_owned(),
            holder: "h".to_owned(),
            host: "m".to_owned(),
            retry_after: Duration::from_secs(30),
        };
        assert!(busy.is_retryable());
        assert_eq!(
            busy.to_string(),
            "session s is busy: h on m holds its lease (it expires once unrenewed for 30s)"
        );
        let fenced = StoreError::Fenced {
            session: "s".to_owned(),
            segment: 4,
        };
        assert!(fenced.is_retryable());
        assert!(fenced.to_string().ends_with("your turn was not committed"));
        let refused = StoreError::Refused {
            store: "s3://b".to_owned(),
            detail: "403".to_owned(),
        };
        assert!(!refused.is_retryable());
    }
}
