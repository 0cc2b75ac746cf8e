//! Classification of failed model calls (SPEC §9.2): one pure function from the evidence (HTTP
//! status, provider error type and code, message) to a class that decides retries and the exit
//! code. Structured signals win over message patterns.

use super::ProviderError;
use crate::error::Exit;

/// Why a model call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The credential was rejected.
    Auth,
    /// Out of credits or quota.
    Billing,
    /// Too many requests now.
    RateLimit,
    /// The provider is overloaded or failing (5xx, Anthropic 529).
    Overloaded,
    /// No answer in time, or the connection broke.
    Timeout,
    /// The prompt does not fit the model's context window.
    ContextOverflow,
    /// The request was malformed (a 400 about its shape).
    Format,
    /// The model does not exist or is not available.
    ModelNotFound,
    /// A CLI child's session is gone.
    SessionExpired,
    /// Anything else.
    Unknown,
}

impl FailureKind {
    /// The name used in `result.error.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Auth => "auth",
            FailureKind::Billing => "billing",
            FailureKind::RateLimit => "rate_limit",
            FailureKind::Overloaded => "overloaded",
            FailureKind::Timeout => "timeout",
            FailureKind::ContextOverflow => "context_overflow",
            FailureKind::Format => "format",
            FailureKind::ModelNotFound => "model_not_found",
            FailureKind::SessionExpired => "session_expired",
            FailureKind::Unknown => "unknown",
        }
    }

    /// The exit code of a run that ends with this failure (SPEC §3.5).
    pub fn exit(self) -> Exit {
        match self {
            FailureKind::Auth => Exit::Auth,
            FailureKind::Billing
            | FailureKind::RateLimit
            | FailureKind::Overloaded
            | FailureKind::Timeout => Exit::Unavailable,
            FailureKind::ContextOverflow => Exit::ContextOverflow,
            FailureKind::Format
            | FailureKind::ModelNotFound
            | FailureKind::SessionExpired
            | FailureKind::Unknown => Exit::RunFailed,
        }
    }

    /// Whether the next model of the failover chain should get the turn (SPEC §9.3): the
    /// credential, the account or the provider failed, not the request itself. A malformed
    /// request or an overflowing context would fail the same way elsewhere.
    pub fn fails_over(self) -> bool {
        matches!(
            self,
            FailureKind::Auth
                | FailureKind::Billing
                | FailureKind::RateLimit
                | FailureKind::Overloaded
                | FailureKind::Timeout
                | FailureKind::ModelNotFound
                | FailureKind::SessionExpired
        )
    }

    /// Whether trying again later may help.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            FailureKind::RateLimit | FailureKind::Overloaded | FailureKind::Timeout
        )
    }
}

const OVERFLOW_PATTERNS: [&str; 12] = [
    "prompt is too long",
    "exceed context limit",
    "input is too long for requested model",
    "exceeds the context window",
    "context_length_exceeded",
    "context length exceeded",
    "maximum context length is",
    "exceeds the maximum number of tokens",
    "exceeds the available context size",
    "exceed_context_size_error",
    "greater than the context length",
    "maximum prompt length is",
];

/// Whether a message reads like a context-window overflow (the reference's pattern list).
pub fn is_overflow_message(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    OVERFLOW_PATTERNS
        .iter()
        .any(|pattern| lower.contains(pattern))
        || (lower.contains("input token count") && lower.contains("exceeds the maximum"))
        || (lower.contains("too large for model with") && lower.contains("maximum context length"))
}

/// Classify a failed call.
pub fn classify(error: &ProviderError) -> FailureKind {
    match error {
        ProviderError::IdleTimeout { .. }
        | ProviderError::UnexpectedEof { .. }
        | ProviderError::Transport { .. } => FailureKind::Timeout,
        ProviderError::Decode { .. } => FailureKind::Unknown,
        ProviderError::Http(failure) => classify_parts(
            Some(failure.status),
            failure.details.error_type.as_deref(),
            failure.details.code.as_deref(),
            &failure.details.message,
        ),
        ProviderError::Stream { details, .. } => classify_parts(
            None,
            details.error_type.as_deref(),
            details.code.as_deref(),
            &details.message,
        ),
    }
}

/// Classify from the raw parts; `status` is `None` for mid-stream errors.
pub fn classify_parts(
    status: Option<u16>,
    error_type: Option<&str>,
    code: Option<&str>,
    message: &str,
) -> FailureKind {
    let signals = [error_type.unwrap_or(""), code.unwrap_or("")];
    let has = |name: &str| {
        signals
            .iter()
            .any(|signal| signal.eq_ignore_ascii_case(name))
    };
    let lower = message.to_ascii_lowercase();
    if has("context_length_exceeded")
        || has("exceed_context_size_error")
        || is_overflow_message(message)
    {
        return FailureKind::ContextOverflow;
    }
    if has("insufficient_quota")
        || has("billing_error")
        || lower.contains("credit balance is too low")
        || lower.contains("exceeded your current quota")
        || status == Some(402)
    {
        return FailureKind::Billing;
    }
    if has("authentication_error")
        || has("invalid_api_key")
        || has("permission_error")
        || has("api_key_invalid")
        || has("unauthenticated")
        || matches!(status, Some(401 | 403))
        || lower.contains("api key not valid")
    {
        return FailureKind::Auth;
    }
    if has("rate_limit_error")
        || has("rate_limit_exceeded")
        || has("resource_exhausted")
        || status == Some(429)
    {
        return FailureKind::RateLimit;
    }
    if has("overloaded_error") || has("unavailable") || matches!(status, Some(503 | 529)) {
        return FailureKind::Overloaded;
    }
    if has("timeout_error") || has("deadline_exceeded") || matches!(status, Some(408 | 504)) {
        return FailureKind::Timeout;
    }
    if has("not_found_error")
        || has("model_not_found")
        || (status == Some(404) && (lower.contains("model") || lower.contains("not found")))
    {
        return FailureKind::ModelNotFound;
    }
    if matches!(status, Some(500..=599))
        || has("api_error")
        || has("server_error")
        || has("internal")
    {
        return FailureKind::Overloaded;
    }
    if has("invalid_request_error") || has("invalid_argument") || status == Some(400) {
        return FailureKind::Format;
    }
    FailureKind::Unknown
}

/// The context window an overflow error states, in tokens, when it states one (SPEC §7): a model
/// whose window pincer does not know, or knows as larger, learns it from here. Read from the
/// message of each provider — Anthropic `… tokens > 200000 maximum`, Gemini `… tokens allowed
/// (131072)`, OpenAI and vLLM `maximum context length is 128000 tokens`, Mistral `… model with
/// 32768 maximum context length`, llama.cpp `available context size (512 tokens)` — and from
/// llama.cpp's `n_ctx` field in the raw body.
pub fn reported_window(error: &ProviderError) -> Option<u64> {
    let (message, body) = match error {
        ProviderError::Http(failure) => (failure.details.message.as_str(), failure.body.as_str()),
        ProviderError::Stream { details, raw, .. } => (details.message.as_str(), raw.as_str()),
        _ => return None,
    };
    window_in_message(message)
        .or_else(|| window_in_message(body))
        .or_else(|| llama_cpp_n_ctx(body))
        .filter(|window| *window > 0)
}

/// The window in an overflow message: the number right after one of the markers.
fn window_in_message(message: &str) -> Option<u64> {
    const AFTER: [&str; 5] = [
        "tokens > ",
        "maximum number of tokens allowed (",
        "maximum context length is ",
        "available context size (",
        "too large for model with ",
    ];
    let lower = message.to_ascii_lowercase();
    AFTER.iter().find_map(|marker| {
        let start = lower.find(marker)? + marker.len();
        leading_number(&lower[start..])
    })
}

/// The number at the start of `text`, thousands separators allowed (`131,072`).
fn leading_number(text: &str) -> Option<u64> {
    let digits: String = text
        .chars()
        .take_while(|character| character.is_ascii_digit() || *character == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// llama.cpp's error body: `{"error": {"type": "exceed_context_size_error", "n_ctx": 512, …}}`.
fn llama_cpp_n_ctx(body: &str) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Envelope {
        error: Fields,
    }
    #[derive(serde::Deserialize)]
    struct Fields {
        n_ctx: Option<u64>,
    }
    serde_json::from_str::<Envelope>(body).ok()?.error.n_ctx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_error_bodies_of_each_protocol_are_classified() {
        type Row<'a> = (
            Option<u16>,
            Option<&'a str>,
            Option<&'a str>,
            &'a str,
            FailureKind,
        );
        let table: [Row<'_>; 12] = [
            (
                Some(400),
                Some("invalid_request_error"),
                None,
                "prompt is too long: 219898 tokens > 200000 maximum",
                FailureKind::ContextOverflow,
            ),
            (
                Some(400),
                Some("invalid_request_error"),
                Some("context_length_exceeded"),
                "Your input exceeds the context window of this model.",
                FailureKind::ContextOverflow,
            ),
            (
                Some(400),
                Some("INVALID_ARGUMENT"),
                None,
                "The input token count (132478) exceeds the maximum number of tokens allowed (131072).",
                FailureKind::ContextOverflow,
            ),
            (
                Some(400),
                Some("exceed_context_size_error"),
                None,
                "request (2009 tokens) exceeds the available context size (512 tokens), try increasing it",
                FailureKind::ContextOverflow,
            ),
            (
                Some(401),
                Some("authentication_error"),
                None,
                "invalid x-api-key",
                FailureKind::Auth,
            ),
            (
                Some(400),
                Some("INVALID_ARGUMENT"),
                Some("API_KEY_INVALID"),
                "API key not valid. Please pass a valid API key.",
                FailureKind::Auth,
            ),
            (
                Some(429),
                Some("insufficient_quota"),
                Some("insufficient_quota"),
                "You exceeded your current quota, please check your plan and billing details.",
                FailureKind::Billing,
            ),
            (
                Some(429),
                Some("rate_limit_error"),
                None,
                "This request would exceed your organization's rate limit",
                FailureKind::RateLimit,
            ),
            (
                Some(529),
                Some("overloaded_error"),
                None,
                "Overloaded",
                FailureKind::Overloaded,
            ),
            (
                None,
                Some("overloaded_error"),
                None,
                "Overloaded",
                FailureKind::Overloaded,
            ),
            (
                Some(404),
                Some("not_found_error"),
                None,
                "model: claude-does-not-exist",
                FailureKind::ModelNotFound,
            ),
            (
                Some(400),
                Some("invalid_request_error"),
                None,
                "temperature: range: 0..1",
                FailureKind::Format,
            ),
        ];
        for (status, error_type, code, message, expected) in table {
            assert_eq!(
                classify_parts(status, error_type, code, message),
                expected,
                "{message}"
            );
        }
    }

    #[test]
    fn classes_map_to_the_documented_exit_codes() {
        assert_eq!(FailureKind::Auth.exit().code(), 3);
        assert_eq!(FailureKind::RateLimit.exit().code(), 4);
        assert_eq!(FailureKind::ContextOverflow.exit().code(), 6);
        assert_eq!(FailureKind::Format.exit().code(), 1);
        assert!(FailureKind::Overloaded.retryable());
        assert!(!FailureKind::Billing.retryable());
    }

    #[test]
    fn the_window_an_overflow_error_states_is_read_for_each_provider() {
        use crate::provider::ErrorDetails;
        use crate::provider::error::HttpFailure;
        let http = |message: &str, body: &str| {
            ProviderError::Http(Box::new(HttpFailure {
                provider: "test".into(),
                status: 400,
                details: ErrorDetails {
                    message: message.into(),
                    ..ErrorDetails::default()
                },
                body: body.into(),
                request_id: None,
                retry_after: None,
                should_retry: None,
            }))
        };
        let rows = [
            (
                "prompt is too long: 219898 tokens > 200000 maximum",
                "",
                Some(200_000),
            ),
            (
                "The input token count (140000) exceeds the maximum number of tokens allowed (131072).",
                "",
                Some(131_072),
            ),
            (
                "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.",
                "",
                Some(128_000),
            ),
            (
                "request (2009 tokens) exceeds the available context size (512 tokens), try increasing it",
                "",
                Some(512),
            ),
            (
                "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
                "",
                Some(32_768),
            ),
            (
                "context overflow",
                r#"{"error":{"code":400,"message":"context overflow","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}"#,
                Some(4_096),
            ),
            (
                "Your input exceeds the context window of this model.",
                "",
                None,
            ),
            ("maximum context length is 0 tokens", "", None),
        ];
        for (message, body, expected) in rows {
            assert_eq!(reported_window(&http(message, body)), expected, "{message}");
        }
        let stream = ProviderError::stream(
            "llama.cpp",
            ErrorDetails {
                message: "the request exceeds the available context size (8,192 tokens)".into(),
                ..ErrorDetails::default()
            },
            "",
        );
        assert_eq!(reported_window(&stream), Some(8_192));
    }
}
