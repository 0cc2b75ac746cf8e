//! Classification of failed model calls (SPEC §9.2): one pure function from the evidence (HTTP
//! status, provider error type and code, message) to a class that decides retries and the exit
//! code. Structured signals win over message patterns.

use std::time::Duration;

use super::{ErrorDetails, ProviderError};

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
    /// No answer in time, or the connection broke after the response began.
    Timeout,
    /// The request never reached the provider: nothing listening, a host name that does not
    /// resolve, a failed TLS handshake (the cause is in [`ProviderError::Connect`]).
    Connection,
    /// The prompt does not fit the model's context window.
    ContextOverflow,
    /// The request was malformed (a 400 about its shape).
    Format,
    /// The model does not exist or is not available.
    ModelNotFound,
    /// A CLI child's session is gone.
    SessionExpired,
    /// A replayed request matched nothing in the cassette, or the cassette cannot be written
    /// (SPEC §15): the run ends, whatever the failover chain.
    Cassette,
    /// This machine ran out of something (file descriptors) before the request left: no
    /// provider is at fault, and no retry or other model would fare better.
    LocalResource,
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
            FailureKind::Connection => "connection",
            FailureKind::ContextOverflow => "context_overflow",
            FailureKind::Format => "format",
            FailureKind::ModelNotFound => "model_not_found",
            FailureKind::SessionExpired => "session_expired",
            FailureKind::Cassette => "cassette",
            FailureKind::LocalResource => "local_resource",
            FailureKind::Unknown => "unknown",
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
                | FailureKind::Connection
                | FailureKind::ModelNotFound
                | FailureKind::SessionExpired
        )
    }

    /// Whether trying again later may help.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            FailureKind::RateLimit
                | FailureKind::Overloaded
                | FailureKind::Timeout
                | FailureKind::Connection
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

/// Whether a Gemini `quotaId` names a per-day quota (`…PerDay…`): it resets once a day, so no
/// retry within minutes can lift it.
pub fn is_daily_quota(quota_id: &str) -> bool {
    quota_id.to_ascii_lowercase().contains("perday")
}

/// Whether a Gemini `quotaId` names a per-minute quota (`…PerMinute…`), which clears by itself.
fn is_minute_quota(quota_id: &str) -> bool {
    quota_id.to_ascii_lowercase().contains("perminute")
}

/// Everything a failure says about itself that classification reads.
#[derive(Debug, Clone, Copy, Default)]
struct Evidence<'a> {
    /// The HTTP status; `None` for mid-stream errors and CLI children.
    status: Option<u16>,
    error_type: Option<&'a str>,
    code: Option<&'a str>,
    message: &'a str,
    /// The exceeded quota (Gemini `QuotaFailure`).
    quota_id: Option<&'a str>,
    /// The server said when to come back: a non-zero `retry-after(-ms)` header or a body delay
    /// (Gemini `RetryInfo.retryDelay`, OpenAI "try again in 644ms").
    says_when: bool,
}

impl<'a> Evidence<'a> {
    fn of(status: Option<u16>, details: &'a ErrorDetails, header: Option<Duration>) -> Self {
        Evidence {
            status,
            error_type: details.error_type.as_deref(),
            code: details.code.as_deref(),
            message: &details.message,
            quota_id: details.quota_id.as_deref(),
            says_when: header
                .into_iter()
                .chain(details.retry_delay)
                .any(|wait| !wait.is_zero()),
        }
    }
}

/// Classify a failed call.
pub fn classify(error: &ProviderError) -> FailureKind {
    match error {
        ProviderError::IdleTimeout { .. }
        | ProviderError::NoResponse { .. }
        | ProviderError::UnexpectedEof { .. }
        | ProviderError::Transport { .. } => FailureKind::Timeout,
        ProviderError::Connect(_) => FailureKind::Connection,
        ProviderError::Decode { .. } => FailureKind::Unknown,
        ProviderError::Cassette { .. } => FailureKind::Cassette,
        ProviderError::LocalResource { .. } => FailureKind::LocalResource,
        ProviderError::Http(failure) => classify_evidence(&Evidence::of(
            Some(failure.status),
            &failure.details,
            failure.retry_after,
        )),
        ProviderError::Stream { details, .. } => {
            classify_evidence(&Evidence::of(None, details, None))
        }
    }
}

/// Classify from the raw parts; `status` is `None` for mid-stream errors. Without the retry
/// hints and quota ids of a full [`ProviderError`], quota wording reads as billing.
pub fn classify_parts(
    status: Option<u16>,
    error_type: Option<&str>,
    code: Option<&str>,
    message: &str,
) -> FailureKind {
    classify_evidence(&Evidence {
        status,
        error_type,
        code,
        message,
        ..Evidence::default()
    })
}

/// The decision table. Structured signals (type, code, quota id) win over wording; on a 429 the
/// line between `billing` (disables the profile for hours) and `rate_limit` (a short cooldown,
/// retried) is drawn by what lifts it:
///
/// - `insufficient_quota`, `billing_error`, Anthropic's `enforced_spend_limit_reached`, a 402, or
///   "credit balance is too low": money is missing, nothing clears by waiting — billing.
/// - a per-day Gemini quota: clears at the next daily reset, hours away — billing.
/// - `rate_limit_error` / `rate_limit_exceeded`: a rate limit whatever the wording.
/// - "exceeded your current quota" (Gemini's wording for every quota, OpenAI's for billing):
///   a rate limit when the server says when to come back or names a per-minute quota, else
///   billing.
/// - any other `RESOURCE_EXHAUSTED` or 429: a rate limit (Gemini's `MODEL_CAPACITY_EXHAUSTED`:
///   overloaded, the model is busy for everyone).
fn classify_evidence(evidence: &Evidence<'_>) -> FailureKind {
    let Evidence {
        status,
        error_type,
        code,
        message,
        quota_id,
        says_when,
    } = *evidence;
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
        || has("enforced_spend_limit_reached")
        || lower.contains("credit balance is too low")
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
    if quota_id.is_some_and(is_daily_quota) {
        return FailureKind::Billing;
    }
    // The model's capacity, not the key's quota: another key does not help, a retry may.
    if has("model_capacity_exhausted") {
        return FailureKind::Overloaded;
    }
    if has("rate_limit_error") || has("rate_limit_exceeded") {
        return FailureKind::RateLimit;
    }
    if lower.contains("exceeded your current quota") {
        return if says_when || quota_id.is_some_and(is_minute_quota) {
            FailureKind::RateLimit
        } else {
            FailureKind::Billing
        };
    }
    if has("resource_exhausted") || status == Some(429) {
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

    /// One HTTP failure as `http::call` builds it: the provider's own body parser, the
    /// `retry-after` header already read.
    fn http(
        parse: fn(u16, &str) -> ErrorDetails,
        status: u16,
        body: &str,
        retry_after: Option<Duration>,
    ) -> ProviderError {
        ProviderError::Http(Box::new(crate::error::HttpFailure {
            provider: "test".to_owned(),
            status,
            details: parse(status, body),
            body: body.to_owned(),
            request_id: None,
            retry_after,
            should_retry: None,
        }))
    }

    /// The 429 paths of every protocol (SPEC §9.2): which quota and rate-limit errors disable a
    /// profile for hours (billing) and which are retried and cool it down for minutes.
    #[test]
    fn every_providers_429_is_billing_only_when_waiting_cannot_lift_it() {
        use crate::{anthropic, gemini, openai, openai_chat};
        let secs = |count| Some(Duration::from_secs(count));
        let gemini_quota = |quota_id: &str, retry_delay: Option<&str>| {
            let mut details = vec![serde_json::json!({
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                                "quotaId": quota_id}]
            })];
            if let Some(delay) = retry_delay {
                details.push(serde_json::json!({
                    "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay
                }));
            }
            serde_json::json!({"error": {
                "code": 429,
                "message": "You exceeded your current quota, please check your plan and billing details.",
                "status": "RESOURCE_EXHAUSTED",
                "details": details
            }})
            .to_string()
        };
        const GEMINI_BARE_QUOTA: &str = r#"{"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and billing details.", "status": "RESOURCE_EXHAUSTED"}}"#;
        let table: Vec<(&str, ProviderError, FailureKind)> = vec![
            // Gemini: the same wording for every quota; the details and headers decide.
            (
                "gemini per-minute quota with RetryInfo",
                http(
                    gemini::stream::parse_error_body,
                    429,
                    &gemini_quota(
                        "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                        Some("34.4s"),
                    ),
                    None,
                ),
                FailureKind::RateLimit,
            ),
            (
                "gemini quota wording with a retry-after header only",
                http(
                    gemini::stream::parse_error_body,
                    429,
                    GEMINI_BARE_QUOTA,
                    secs(2),
                ),
                FailureKind::RateLimit,
            ),
            (
                "gemini per-minute quota without any delay",
                http(
                    gemini::stream::parse_error_body,
                    429,
                    &gemini_quota("GenerateContentInputTokensPerModelPerMinute-FreeTier", None),
                    None,
                ),
                FailureKind::RateLimit,
            ),
            (
                "gemini per-day quota, even with a RetryInfo delay",
                http(
                    gemini::stream::parse_error_body,
                    429,
                    &gemini_quota(
                        "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                        Some("41s"),
                    ),
                    None,
                ),
                FailureKind::Billing,
            ),
            (
                "gemini quota wording with no delay and no quota id",
                http(
                    gemini::stream::parse_error_body,
                    429,
                    GEMINI_BARE_QUOTA,
                    None,
                ),
                FailureKind::Billing,
            ),
            (
                "gemini generic RESOURCE_EXHAUSTED",
                http(
                    gemini::stream::parse_error_body,
                    429,
                    r#"{"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}"#,
                    None,
                ),
                FailureKind::RateLimit,
            ),
            (
                "gemini model capacity exhausted",
                http(
                    gemini::stream::parse_error_body,
                    429,
                    r#"{"error": {"code": 429, "message": "No capacity available for model gemini-3-flash-preview on the server", "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "MODEL_CAPACITY_EXHAUSTED", "domain": "cloudcode-pa.googleapis.com"}]}}"#,
                    None,
                ),
                FailureKind::Overloaded,
            ),
            // OpenAI Responses: the code decides, whatever the headers say.
            (
                "openai insufficient_quota, even with a retry-after header",
                http(
                    openai::stream::parse_error_body,
                    429,
                    r#"{"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}"#,
                    secs(20),
                ),
                FailureKind::Billing,
            ),
            (
                "openai requests-per-day rate limit",
                http(
                    openai::stream::parse_error_body,
                    429,
                    r#"{"error": {"message": "Rate limit reached for gpt-4o-mini in organization org-abc on requests per day (RPD): Limit 10000, Used 10000, Requested 1. Please try again in 8.64s.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}"#,
                    None,
                ),
                FailureKind::RateLimit,
            ),
            (
                "openai rate limit mid-stream (response.failed)",
                ProviderError::stream(
                    "openai",
                    openai::stream::parse_error_body(
                        200,
                        r#"{"error": {"code": "rate_limit_exceeded", "message": "Rate limit reached for gpt-5. Please try again in 1.5s."}}"#,
                    ),
                    "",
                ),
                FailureKind::RateLimit,
            ),
            // Chat Completions servers.
            (
                "chat server: quota wording under a rate-limit code",
                http(
                    openai_chat::stream::parse_error_body,
                    429,
                    r#"{"error": {"message": "You exceeded your current quota for this minute.", "type": "rate_limit_exceeded", "code": "rate_limit_exceeded"}}"#,
                    None,
                ),
                FailureKind::RateLimit,
            ),
            (
                "groq tokens-per-day limit",
                http(
                    openai_chat::stream::parse_error_body,
                    429,
                    r#"{"error": {"message": "Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01` service tier `on_demand` on tokens per day (TPD): Limit 100000, Used 99793, Requested 1126. Please try again in 13m14.4s.", "type": "tokens", "code": "rate_limit_exceeded"}}"#,
                    None,
                ),
                FailureKind::RateLimit,
            ),
            (
                "openrouter 429 with a numeric code",
                http(
                    openai_chat::stream::parse_error_body,
                    429,
                    r#"{"error": {"message": "Rate limit exceeded: free-models-per-min.", "code": 429}}"#,
                    None,
                ),
                FailureKind::RateLimit,
            ),
            (
                "deepseek 402 insufficient balance",
                http(
                    openai_chat::stream::parse_error_body,
                    402,
                    r#"{"error": {"message": "Insufficient Balance", "type": "unknown_error", "param": null, "code": "invalid_request_error"}}"#,
                    None,
                ),
                FailureKind::Billing,
            ),
            // Anthropic.
            (
                "anthropic rate_limit_error with retry-after",
                http(
                    anthropic::stream::parse_error_body,
                    429,
                    r#"{"type": "error", "error": {"type": "rate_limit_error", "message": "This request would exceed your organization's rate limit of 50,000 input tokens per minute."}, "request_id": "req_01"}"#,
                    secs(12),
                ),
                FailureKind::RateLimit,
            ),
            (
                "anthropic spend limit reached (a 429 no wait lifts)",
                http(
                    anthropic::stream::parse_error_body,
                    429,
                    r#"{"type": "error", "error": {"type": "rate_limit_error", "message": "Spend limit reached", "details": {"error_code": "enforced_spend_limit_reached"}}, "request_id": null}"#,
                    None,
                ),
                FailureKind::Billing,
            ),
            (
                "anthropic credit balance too low (a 400)",
                http(
                    anthropic::stream::parse_error_body,
                    400,
                    r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}, "request_id": "req_02"}"#,
                    None,
                ),
                FailureKind::Billing,
            ),
        ];
        for (case, error, expected) in table {
            assert_eq!(classify(&error), expected, "{case}");
        }
    }

    #[test]
    fn a_per_day_quota_wins_over_a_per_minute_one_in_the_same_error() {
        let body = serde_json::json!({"error": {
            "code": 429,
            "message": "You exceeded your current quota, please check your plan and billing details.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
                {"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"},
                {"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}
            ]}]
        }});
        let details = crate::gemini::stream::parse_error_body(429, &body.to_string());
        assert_eq!(
            details.quota_id.as_deref(),
            Some("GenerateRequestsPerDayPerProjectPerModel-FreeTier")
        );
        assert!(is_daily_quota(
            "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
        ));
        assert!(!is_daily_quota(
            "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
        ));
    }

    #[test]
    fn only_transient_classes_are_retried() {
        assert!(FailureKind::Overloaded.retryable());
        assert!(!FailureKind::Billing.retryable());
    }

    #[test]
    fn running_out_of_file_descriptors_is_a_local_failure_not_an_unavailable_provider() {
        let error = ProviderError::LocalResource {
            provider: "anthropic".to_owned(),
            message: "Too many open files (os error 24)".to_owned(),
        };
        let kind = classify(&error);
        assert_eq!(kind, FailureKind::LocalResource);
        assert_eq!(kind.as_str(), "local_resource");
        assert!(!kind.retryable());
        assert!(!kind.fails_over());
        assert_eq!(
            crate::retry::decide(&crate::retry::RetryPolicy::default(), 0, &error, false, 0.5),
            crate::retry::RetryDecision::GiveUp
        );
    }

    #[test]
    fn the_window_an_overflow_error_states_is_read_for_each_provider() {
        use crate::ErrorDetails;
        use crate::error::HttpFailure;
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
