//! Provider failures, keeping the evidence (status, body, request id) for classification,
//! retries and the `result.error` object.

use std::time::Duration;

use super::connect::ConnectFailure;

/// What an error response said, in a protocol-neutral shape.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorDetails {
    /// The provider's error type (`rate_limit_error`, `invalid_request_error`, `RESOURCE_EXHAUSTED`).
    pub error_type: Option<String>,
    /// The provider's error code (`context_length_exceeded`, `insufficient_quota`, …).
    pub code: Option<String>,
    /// The human message.
    pub message: String,
    /// A retry delay the body itself asks for (Gemini `RetryInfo.retryDelay`).
    pub retry_delay: Option<Duration>,
    /// The exceeded quota (Gemini `QuotaFailure` `quotaId`, such as
    /// `GenerateRequestsPerDayPerProjectPerModel-FreeTier`); a per-day one when several are.
    pub quota_id: Option<String>,
}

/// An error response, with everything needed to classify and retry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpFailure {
    /// Provider name.
    pub provider: String,
    /// HTTP status.
    pub status: u16,
    /// What the body said.
    pub details: ErrorDetails,
    /// The raw body (truncated to 64 KiB).
    pub body: String,
    /// The request id header, when sent.
    pub request_id: Option<String>,
    /// `retry-after-ms` / `retry-after` as a duration, when sent.
    pub retry_after: Option<Duration>,
    /// `x-should-retry`, when sent.
    pub should_retry: Option<bool>,
}

/// A failed model call.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The server answered with an error status.
    #[error("{} returned HTTP {}: {}", .0.provider, .0.status, .0.details.message)]
    Http(Box<HttpFailure>),
    /// An error event arrived in the middle of a 200 stream.
    #[error("{provider} stream error: {}", .details.message)]
    Stream {
        /// Provider name.
        provider: String,
        /// What the event said.
        details: Box<ErrorDetails>,
        /// The raw event payload.
        raw: String,
    },
    /// The request never reached the provider: nothing listening, a host name that does not
    /// resolve, a failed TLS handshake, a connect timeout, or a connection closed before any
    /// response. Carries the URL and the cause, for the message and its hint.
    #[error("{0}")]
    Connect(Box<ConnectFailure>),
    /// The request went out but no response began within the idle timeout.
    #[error(
        "{provider}: no response from {url} within {} s (idle timeout)",
        .after.as_secs_f64()
    )]
    NoResponse {
        /// Provider name.
        provider: String,
        /// The base URL, as [`super::connect::shown_url`] shows it.
        url: String,
        /// The idle timeout.
        after: Duration,
    },
    /// The connection broke after the response began, or failed in a way that is not one of
    /// [`ProviderError::Connect`]'s causes.
    #[error("{provider}: connection failed: {message}")]
    Transport {
        /// Provider name.
        provider: String,
        /// What went wrong.
        message: String,
    },
    /// The request could not be sent because this process or the system ran out of file
    /// descriptors (`EMFILE`, `ENFILE`) while resolving or connecting: a fault of this machine,
    /// not of the provider. Never retried, never failed over: exit 1.
    #[error("{provider}: cannot connect: {message}")]
    LocalResource {
        /// Provider name.
        provider: String,
        /// What ran out, and what to do about it.
        message: String,
    },
    /// Nothing arrived for longer than the idle timeout.
    #[error("{provider}: no data for {} s (idle timeout)", .after.as_secs_f64())]
    IdleTimeout {
        /// Provider name.
        provider: String,
        /// The timeout.
        after: Duration,
    },
    /// The stream ended before its terminal event.
    #[error("{provider}: the stream ended before the response was complete")]
    UnexpectedEof {
        /// Provider name.
        provider: String,
    },
    /// Record and replay (SPEC §15): the replayed request matches nothing in the cassette, or
    /// the cassette cannot be written. Never retried, never failed over: exit 2. The message
    /// is complete (with a diff for a miss).
    #[error("{message}")]
    Cassette {
        /// Provider name.
        provider: String,
        /// What happened.
        message: String,
    },
    /// An event could not be understood.
    #[error("{provider}: cannot parse a stream event: {message}")]
    Decode {
        /// Provider name.
        provider: String,
        /// The parse error.
        message: String,
        /// The payload (truncated).
        raw: String,
    },
}

impl ProviderError {
    /// A decode error for `raw` (kept to 2 KiB).
    pub fn decode(provider: &str, message: impl Into<String>, raw: &str) -> ProviderError {
        ProviderError::Decode {
            provider: provider.to_owned(),
            message: message.into(),
            raw: truncate(raw, 2048),
        }
    }

    /// A mid-stream error event.
    pub fn stream(provider: &str, details: ErrorDetails, raw: &str) -> ProviderError {
        ProviderError::Stream {
            provider: provider.to_owned(),
            details: Box::new(details),
            raw: truncate(raw, 2048),
        }
    }

    /// The HTTP status, when there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ProviderError::Http(failure) => Some(failure.status),
            _ => None,
        }
    }

    /// The error details, when the provider sent some.
    pub fn details(&self) -> Option<&ErrorDetails> {
        match self {
            ProviderError::Http(failure) => Some(&failure.details),
            ProviderError::Stream { details, .. } => Some(details),
            _ => None,
        }
    }
}

/// Cut `text` to at most `limit` bytes at a character boundary.
pub fn truncate(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}
