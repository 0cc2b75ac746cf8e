//! Retrying a failed model call with exponential backoff (SPEC §9.3).
//!
//! [`decide`] is the whole policy as a pure function of the failure, the number of retries
//! already made and whether output already reached the user; [`call_with_retries`] is the thin
//! loop around [`http::call`] that applies it. The loop never retries once visible output (text,
//! reasoning or a tool call) has been passed on: re-sending would print the answer twice, so that
//! case is handed back to the caller, which decides whether the partial output can be discarded.
//!
//! Server-directed waits are honoured up to [`RetryPolicy::max_honoured_wait`]; a longer wait,
//! and any failure tied to the credential (auth, billing, an exhausted rate limit), ends the loop
//! with [`RetryDecision::Rotate`] so the caller can try another profile instead of sleeping.
//!
//! Jitter follows the Anthropic and OpenAI SDKs: the exponential delay is shortened by up to a
//! quarter (`delay · (1 − 0.25·r)`), so a wait never drops far below the schedule. Full jitter
//! (`r · delay`) would let some clients come back almost at once to a server that just said it
//! is overloaded.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio_util::sync::CancellationToken;

use super::classify::{FailureKind, classify};
use super::http::{self, CallOutcome, Endpoint, Transport};
use super::{Protocol, ProviderError, StreamEvent};

/// How often and how long to wait before trying a failed call again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (SPEC: 3).
    pub max_retries: u32,
    /// The first backoff delay, doubled on each retry (SPEC: 0.5 s).
    pub base: Duration,
    /// The longest backoff delay (SPEC: 8 s).
    pub cap: Duration,
    /// The longest wait a server may ask for (`retry-after`, Gemini `retryDelay`) that is slept
    /// through; a longer request rotates the credential instead (SPEC: 60 s).
    pub max_honoured_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_retries: 3,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(8),
            max_honoured_wait: Duration::from_secs(60),
        }
    }
}

/// What to do after a failed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryDecision {
    /// Wait this long, then send the same request again with the same credential.
    RetryAfter(Duration),
    /// Stop retrying with this credential; another profile may succeed. Chosen for auth and
    /// billing failures, for a rate limit that outlasted the retries, and when the server asks
    /// for a wait above the honoured maximum (`requested` then says how long).
    Rotate {
        /// The wait the server asked for, when it did.
        requested: Option<Duration>,
    },
    /// Stop: retrying cannot help, or output already reached the user.
    GiveUp,
}

/// A retry about to happen, for the `api_retry` stream-json event and the progress line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// Which retry this is, from 1.
    pub attempt: u32,
    /// How long the loop waits before sending again.
    pub delay: Duration,
    /// The failure being retried, as a sentence.
    pub error: String,
}

/// Decide what follows a failed call.
///
/// `attempt` counts the retries already made (0 after the first failure); `output_started` says
/// whether any visible event of this call reached the user; `jitter` is a number in `0..1` (the
/// caller's random source, fixed in tests).
pub fn decide(
    policy: &RetryPolicy,
    attempt: u32,
    error: &ProviderError,
    output_started: bool,
    jitter: f64,
) -> RetryDecision {
    // Sending again would repeat what the user has already seen.
    if output_started {
        return RetryDecision::GiveUp;
    }
    let kind = classify(error);
    match kind {
        // The same request with the same key fails the same way; another key may not.
        FailureKind::Auth | FailureKind::Billing => {
            return RetryDecision::Rotate { requested: None };
        }
        // The same prompt cannot fit however often it is sent; compaction handles it upstream.
        FailureKind::ContextOverflow | FailureKind::SessionExpired => {
            return RetryDecision::GiveUp;
        }
        // A host name that does not resolve, or a handshake that fails, stays so until someone
        // changes the URL or the server: no wait helps (the next model of the chain may).
        FailureKind::Connection if matches!(error, ProviderError::Connect(failure) if !failure.cause.may_heal()) =>
        {
            return RetryDecision::GiveUp;
        }
        _ => {}
    }
    let failure = match error {
        ProviderError::Http(failure) => Some(failure),
        _ => None,
    };
    let requested = requested_wait(error);
    // `x-should-retry` is the server's own verdict and overrides the status (the SDKs do the
    // same): `true` even on a 409 or 400, `false` even on a 500.
    let retryable = match failure.and_then(|failure| failure.should_retry) {
        Some(verdict) => verdict,
        None => kind.retryable() || matches!(error.status(), Some(500..=599)),
    };
    // A rate limit belongs to the key: when waiting here is over, another key may be free.
    let stop = if kind == FailureKind::RateLimit {
        RetryDecision::Rotate { requested }
    } else {
        RetryDecision::GiveUp
    };
    if !retryable {
        return stop;
    }
    if let Some(wait) = requested
        && wait > policy.max_honoured_wait
    {
        return RetryDecision::Rotate {
            requested: Some(wait),
        };
    }
    if attempt >= policy.max_retries {
        return stop;
    }
    RetryDecision::RetryAfter(requested.unwrap_or_else(|| backoff(policy, attempt, jitter)))
}

/// The wait the server asked for: the `retry-after-ms` / `retry-after` headers (already merged
/// by [`http`], milliseconds first), else the body's own delay (Gemini `RetryInfo.retryDelay`,
/// OpenAI "Please try again in 644ms"). A zero or negative request means "no opinion" and falls
/// back to the backoff schedule, as in the SDKs.
pub fn requested_wait(error: &ProviderError) -> Option<Duration> {
    let header = match error {
        ProviderError::Http(failure) => failure.retry_after,
        _ => None,
    };
    let body = error.details().and_then(|details| details.retry_delay);
    header
        .filter(|wait| !wait.is_zero())
        .or_else(|| body.filter(|wait| !wait.is_zero()))
}

/// The backoff before retry number `attempt + 1`: `base · 2^attempt`, at most `cap`, shortened by
/// up to a quarter by `jitter` (0 keeps the full delay, 1 takes 25 % off).
pub fn backoff(policy: &RetryPolicy, attempt: u32, jitter: f64) -> Duration {
    // 2^31 half-seconds is already far above any cap; limiting the exponent avoids infinity.
    let exponent = i32::try_from(attempt.min(31)).unwrap_or(31);
    let full = (policy.base.as_secs_f64() * 2f64.powi(exponent)).min(policy.cap.as_secs_f64());
    let jitter = if jitter.is_finite() {
        jitter.clamp(0.0, 1.0)
    } else {
        0.0
    };
    Duration::try_from_secs_f64(full * (1.0 - 0.25 * jitter)).unwrap_or(policy.cap)
}

/// A small xorshift generator for jitter. Retry timing needs spread between processes, not
/// cryptographic quality, so seeding from the clock is enough.
#[derive(Debug, Clone)]
pub struct Jitter {
    state: u64,
}

impl Jitter {
    /// A generator seeded from the current time and the process id, so parallel cron runs that
    /// fail together do not come back together.
    pub fn from_clock() -> Jitter {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        // The low 64 bits of the nanosecond count are the ones that differ between runs.
        let seed = (nanos as u64) ^ (u64::from(std::process::id()) << 32);
        Jitter::seeded(seed)
    }

    /// A generator with a fixed seed (zero is replaced: xorshift would stay at zero forever).
    pub fn seeded(seed: u64) -> Jitter {
        Jitter {
            state: if seed == 0 {
                0x9E37_79B9_7F4A_7C15
            } else {
                seed
            },
        }
    }

    /// The next number in `0..1`.
    pub fn next_fraction(&mut self) -> f64 {
        let mut state = self.state;
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        self.state = state;
        // The top 53 bits fill an f64 mantissa exactly.
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Whether an event puts something in front of the user (after which a retry would repeat it).
pub fn shows_output(event: &StreamEvent) -> bool {
    matches!(
        event,
        StreamEvent::TextDelta { .. }
            | StreamEvent::ThinkingDelta { .. }
            | StreamEvent::ToolCallStart { .. }
            | StreamEvent::ToolCallArguments { .. }
            | StreamEvent::ToolCall { .. }
            | StreamEvent::ServerToolStart { .. }
            | StreamEvent::ServerToolInput { .. }
            | StreamEvent::ServerTool { .. }
    )
}

/// Call the model, retrying per `policy` while no output has been shown.
///
/// `build` makes a fresh [`Protocol`] for each attempt (a parser holds state from the stream it
/// read). Every event is passed to `on_event` as it arrives; `on_retry` hears of each retry
/// before its wait. Returns the last outcome and how many retries were made. A failure comes
/// back as [`CallOutcome::Failed`] whether the policy gave up or wants another credential: the
/// caller tells them apart with [`decide`] (deterministic for everything but the delay).
#[expect(
    clippy::too_many_arguments,
    reason = "mirrors http::call plus the retry hooks; a struct would only rename them"
)]
pub async fn call_with_retries(
    client: &Transport,
    endpoint: &Endpoint,
    build: &dyn Fn() -> Protocol,
    idle_timeout: Duration,
    cancel: &CancellationToken,
    on_event: &mut dyn FnMut(&StreamEvent),
    on_retry: &mut dyn FnMut(RetryNotice),
    policy: &RetryPolicy,
) -> (CallOutcome, u32) {
    // A replay's delays are the same on every run (the recorded ones came from the clock).
    let mut jitter = if client
        .cassette()
        .is_some_and(|cassette| cassette.is_replay())
    {
        Jitter::seeded(1)
    } else {
        Jitter::from_clock()
    };
    retry_loop(
        client,
        endpoint,
        build,
        idle_timeout,
        cancel,
        on_event,
        on_retry,
        policy,
        &mut || jitter.next_fraction(),
    )
    .await
}

/// [`call_with_retries`] with the jitter source passed in (tests fix it).
#[expect(
    clippy::too_many_arguments,
    reason = "call_with_retries' arguments plus the jitter source"
)]
async fn retry_loop(
    client: &Transport,
    endpoint: &Endpoint,
    build: &dyn Fn() -> Protocol,
    idle_timeout: Duration,
    cancel: &CancellationToken,
    on_event: &mut dyn FnMut(&StreamEvent),
    on_retry: &mut dyn FnMut(RetryNotice),
    policy: &RetryPolicy,
    jitter: &mut dyn FnMut() -> f64,
) -> (CallOutcome, u32) {
    let mut retries = 0;
    loop {
        let mut output_started = false;
        let outcome = {
            let mut forward = |event: &StreamEvent| {
                output_started |= shows_output(event);
                on_event(event);
            };
            http::call(
                client,
                endpoint,
                build(),
                idle_timeout,
                cancel,
                &mut forward,
            )
            .await
        };
        let (error, partial) = match outcome {
            CallOutcome::Failed { error, partial } => (error, partial),
            finished => return (finished, retries),
        };
        let delay = match decide(policy, retries, &error, output_started, jitter()) {
            RetryDecision::RetryAfter(delay) => delay,
            RetryDecision::Rotate { .. } | RetryDecision::GiveUp => {
                return (CallOutcome::Failed { error, partial }, retries);
            }
        };
        retries += 1;
        on_retry(RetryNotice {
            attempt: retries,
            delay,
            error: error.to_string(),
        });
        if !client.pause(delay, cancel).await {
            return (CallOutcome::Cancelled { partial }, retries);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::error::HttpFailure;
    use crate::mock_server::{MockServer, Piece, Reply};
    use crate::{ApiKind, ErrorDetails, ModelRequest, ThinkingLevel};
    use crate::{anthropic, gemini, openai};

    const SECOND: Duration = Duration::from_secs(1);

    fn millis(count: u64) -> Duration {
        Duration::from_millis(count)
    }

    /// An HTTP failure as [`http::call`] builds it, from the provider's own error-body parser.
    fn http_failure(
        status: u16,
        details: ErrorDetails,
        retry_after: Option<Duration>,
        should_retry: Option<bool>,
    ) -> ProviderError {
        ProviderError::Http(Box::new(HttpFailure {
            provider: "test".to_owned(),
            status,
            details,
            body: String::new(),
            request_id: None,
            retry_after,
            should_retry,
        }))
    }

    fn anthropic_error(status: u16, error_type: &str, message: &str) -> ProviderError {
        anthropic_error_with(status, error_type, message, None, None)
    }

    fn anthropic_error_with(
        status: u16,
        error_type: &str,
        message: &str,
        retry_after: Option<Duration>,
        should_retry: Option<bool>,
    ) -> ProviderError {
        let body = serde_json::json!({
            "type": "error",
            "error": {"type": error_type, "message": message},
            "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"
        });
        let details = anthropic::stream::parse_error_body(status, &body.to_string());
        http_failure(status, details, retry_after, should_retry)
    }

    fn overloaded_mid_stream() -> ProviderError {
        ProviderError::stream(
            "anthropic",
            ErrorDetails {
                error_type: Some("overloaded_error".to_owned()),
                message: "Overloaded".to_owned(),
                ..ErrorDetails::default()
            },
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#,
        )
    }

    const GEMINI_QUOTA: &str = r#"{"error": {"code": 429,
        "message": "You exceeded your current quota, please check your plan.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
          {"@type": "type.googleapis.com/google.rpc.QuotaFailure",
           "violations": [{"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},
          {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34.4s"}]}}"#;

    const OPENAI_QUOTA: &str = r#"{"error": {"message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}"#;

    const OPENAI_RATE: &str = r#"{"error": {"message": "Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms.", "type": "tokens", "param": null, "code": "rate_limit_exceeded"}}"#;

    #[test]
    fn real_failures_get_the_documented_decision() {
        let policy = RetryPolicy::default();
        let retry = RetryDecision::RetryAfter;
        let rotate = |requested| RetryDecision::Rotate { requested };
        // (case, error, attempt, output started, expected) — jitter 0: the full backoff.
        let table: Vec<(&str, ProviderError, u32, bool, RetryDecision)> = vec![
            (
                "first 529 overloaded",
                anthropic_error(529, "overloaded_error", "Overloaded"),
                0,
                false,
                retry(millis(500)),
            ),
            (
                "second 529 overloaded",
                anthropic_error(529, "overloaded_error", "Overloaded"),
                1,
                false,
                retry(SECOND),
            ),
            (
                "529 after the three retries",
                anthropic_error(529, "overloaded_error", "Overloaded"),
                3,
                false,
                RetryDecision::GiveUp,
            ),
            (
                "429 asking for 1.5 s (retry-after-ms already preferred by http)",
                anthropic_error_with(
                    429,
                    "rate_limit_error",
                    "This request would exceed your organization's rate limit",
                    Some(millis(1500)),
                    Some(true),
                ),
                0,
                false,
                retry(millis(1500)),
            ),
            (
                "429 asking for 600 s",
                anthropic_error_with(
                    429,
                    "rate_limit_error",
                    "rate limited",
                    Some(Duration::from_secs(600)),
                    None,
                ),
                0,
                false,
                rotate(Some(Duration::from_secs(600))),
            ),
            (
                "503 asking for exactly the honoured maximum",
                anthropic_error_with(
                    503,
                    "api_error",
                    "unavailable",
                    Some(Duration::from_secs(60)),
                    None,
                ),
                0,
                false,
                retry(Duration::from_secs(60)),
            ),
            (
                "retry-after: 0 falls back to the schedule",
                anthropic_error_with(
                    429,
                    "rate_limit_error",
                    "rate limited",
                    Some(Duration::ZERO),
                    None,
                ),
                2,
                false,
                retry(Duration::from_secs(2)),
            ),
            (
                "500 with x-should-retry: false",
                anthropic_error_with(500, "api_error", "Internal server error", None, Some(false)),
                0,
                false,
                RetryDecision::GiveUp,
            ),
            (
                "plain 500",
                anthropic_error(500, "api_error", "Internal server error"),
                0,
                false,
                retry(millis(500)),
            ),
            (
                "409 with x-should-retry: true",
                anthropic_error_with(409, "conflict", "Conflict", None, Some(true)),
                1,
                false,
                retry(SECOND),
            ),
            (
                "400 format error",
                anthropic_error(400, "invalid_request_error", "temperature: range: 0..1"),
                0,
                false,
                RetryDecision::GiveUp,
            ),
            (
                "401 invalid key",
                anthropic_error(401, "authentication_error", "invalid x-api-key"),
                0,
                false,
                rotate(None),
            ),
            (
                "429 insufficient_quota (billing)",
                http_failure(
                    429,
                    openai::stream::parse_error_body(429, OPENAI_QUOTA),
                    None,
                    None,
                ),
                0,
                false,
                rotate(None),
            ),
            (
                "Anthropic spend limit 429",
                http_failure(
                    429,
                    anthropic::stream::parse_error_body(
                        429,
                        r#"{"type":"error","error":{"type":"rate_limit_error","message":"Spend limit reached","details":{"error_code":"enforced_spend_limit_reached"}},"request_id":null}"#,
                    ),
                    None,
                    None,
                ),
                0,
                false,
                rotate(None),
            ),
            (
                "Gemini 429 with RetryInfo 34.4s",
                http_failure(
                    429,
                    gemini::stream::parse_error_body(429, GEMINI_QUOTA),
                    None,
                    None,
                ),
                0,
                false,
                retry(millis(34_400)),
            ),
            (
                "Gemini quota wording with only a retry-after header",
                http_failure(
                    429,
                    gemini::stream::parse_error_body(
                        429,
                        r#"{"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and billing details.", "status": "RESOURCE_EXHAUSTED"}}"#,
                    ),
                    Some(Duration::from_secs(2)),
                    None,
                ),
                0,
                false,
                retry(Duration::from_secs(2)),
            ),
            (
                "Gemini per-day quota: another key, not a wait",
                http_failure(
                    429,
                    gemini::stream::parse_error_body(
                        429,
                        &GEMINI_QUOTA.replace("PerMinute", "PerDay"),
                    ),
                    None,
                    None,
                ),
                0,
                false,
                rotate(None),
            ),
            (
                "OpenAI 429 saying try again in 644ms",
                http_failure(
                    429,
                    openai::stream::parse_error_body(429, OPENAI_RATE),
                    None,
                    None,
                ),
                1,
                false,
                retry(millis(644)),
            ),
            (
                "rate limit after the three retries",
                anthropic_error(429, "rate_limit_error", "rate limited"),
                3,
                false,
                rotate(None),
            ),
            (
                "context overflow, even if the server says retry",
                anthropic_error_with(
                    400,
                    "invalid_request_error",
                    "prompt is too long: 219898 tokens > 200000 maximum",
                    None,
                    Some(true),
                ),
                0,
                false,
                RetryDecision::GiveUp,
            ),
            (
                "unknown model",
                anthropic_error(404, "not_found_error", "model: claude-does-not-exist"),
                0,
                false,
                RetryDecision::GiveUp,
            ),
            (
                "mid-stream overloaded after text was shown",
                overloaded_mid_stream(),
                0,
                true,
                RetryDecision::GiveUp,
            ),
            (
                "mid-stream overloaded before any text",
                overloaded_mid_stream(),
                0,
                false,
                retry(millis(500)),
            ),
            (
                "idle timeout before output",
                ProviderError::IdleTimeout {
                    provider: "anthropic".to_owned(),
                    after: Duration::from_secs(120),
                },
                1,
                false,
                retry(SECOND),
            ),
            (
                "connection cut after a tool call began",
                ProviderError::UnexpectedEof {
                    provider: "anthropic".to_owned(),
                },
                0,
                true,
                RetryDecision::GiveUp,
            ),
            (
                "connection refused",
                ProviderError::Transport {
                    provider: "ollama".to_owned(),
                    message: "tcp connect error: Connection refused (os error 111)".to_owned(),
                },
                2,
                false,
                retry(Duration::from_secs(2)),
            ),
            (
                "undecodable event",
                ProviderError::decode("anthropic", "expected value", "{not json"),
                0,
                false,
                RetryDecision::GiveUp,
            ),
        ];
        for (case, error, attempt, output_started, expected) in table {
            assert_eq!(
                decide(&policy, attempt, &error, output_started, 0.0),
                expected,
                "{case}"
            );
        }
    }

    #[test]
    fn a_retry_after_header_wins_over_the_body_delay() {
        let details = gemini::stream::parse_error_body(429, GEMINI_QUOTA);
        let error = http_failure(429, details, Some(Duration::from_secs(3)), None);
        assert_eq!(
            decide(&RetryPolicy::default(), 0, &error, false, 0.9),
            RetryDecision::RetryAfter(Duration::from_secs(3))
        );
    }

    #[test]
    fn backoff_doubles_from_half_a_second_up_to_the_eight_second_cap() {
        let policy = RetryPolicy::default();
        let full: Vec<f64> = (0..7)
            .map(|attempt| backoff(&policy, attempt, 0.0).as_secs_f64())
            .collect();
        assert_eq!(full, [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]);
        let shortest: Vec<f64> = (0..6)
            .map(|attempt| backoff(&policy, attempt, 1.0).as_secs_f64())
            .collect();
        assert_eq!(shortest, [0.375, 0.75, 1.5, 3.0, 6.0, 6.0]);
        assert_eq!(backoff(&policy, 1, 0.5), millis(875));
        assert_eq!(backoff(&policy, u32::MAX, 0.0), Duration::from_secs(8));
        // Out-of-range jitter cannot stretch or zero the wait.
        assert_eq!(backoff(&policy, 0, 7.0), millis(375));
        assert_eq!(backoff(&policy, 0, -1.0), millis(500));
        assert_eq!(backoff(&policy, 0, f64::NAN), millis(500));
    }

    #[test]
    fn clock_jitter_spreads_delays_within_a_quarter_below_the_schedule() {
        let policy = RetryPolicy::default();
        let mut jitter = Jitter::from_clock();
        let delays: Vec<Duration> = (0..1000)
            .map(|_| backoff(&policy, 3, jitter.next_fraction()))
            .collect();
        assert!(
            delays
                .iter()
                .all(|delay| *delay >= Duration::from_secs(3) && *delay <= Duration::from_secs(4))
        );
        let first = delays[0];
        assert!(delays.iter().any(|delay| *delay != first));
        let mut seeded = Jitter::seeded(0);
        let fractions: Vec<f64> = (0..100).map(|_| seeded.next_fraction()).collect();
        assert!(
            fractions
                .iter()
                .all(|fraction| (0.0..1.0).contains(fraction))
        );
        assert!(fractions.iter().any(|fraction| *fraction > 0.5));
        assert!(fractions.iter().any(|fraction| *fraction < 0.5));
    }

    // ---- the loop against the in-process mock server ----

    fn sse_event(name: &str, payload: &serde_json::Value) -> String {
        format!("event: {name}\ndata: {payload}\n\n")
    }

    /// The start of an Anthropic stream: `message_start` and an open text block.
    fn anthropic_opening() -> String {
        let mut stream = sse_event(
            "message_start",
            &serde_json::json!({"type": "message_start", "message": {
                "model": "claude-sonnet-4-5-20250929", "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
                "type": "message", "role": "assistant", "content": [], "stop_reason": null,
                "stop_sequence": null,
                "usage": {"input_tokens": 12, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 0, "output_tokens": 1}}}),
        );
        stream.push_str(&sse_event(
            "content_block_start",
            &serde_json::json!({"type": "content_block_start", "index": 0,
                                "content_block": {"type": "text", "text": ""}}),
        ));
        stream.push_str("event: ping\ndata: {\"type\": \"ping\"}\n\n");
        stream
    }

    fn anthropic_text_delta(text: &str) -> String {
        sse_event(
            "content_block_delta",
            &serde_json::json!({"type": "content_block_delta", "index": 0,
                                "delta": {"type": "text_delta", "text": text}}),
        )
    }

    /// A complete Anthropic answer streaming `chunks` as one text block.
    fn anthropic_text_stream(chunks: &[&str]) -> Vec<u8> {
        let mut stream = anthropic_opening();
        for chunk in chunks {
            stream.push_str(&anthropic_text_delta(chunk));
        }
        stream.push_str(&sse_event(
            "content_block_stop",
            &serde_json::json!({"type": "content_block_stop", "index": 0}),
        ));
        stream.push_str(&sse_event(
            "message_delta",
            &serde_json::json!({"type": "message_delta",
                                "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                                "usage": {"output_tokens": 9}}),
        ));
        stream.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
        stream.into_bytes()
    }

    const OVERLOADED_EVENT: &str = "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n";

    fn overloaded_reply() -> Reply {
        Reply::json(
            529,
            &serde_json::json!({"type": "error",
                "error": {"type": "overloaded_error", "message": "Overloaded"},
                "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}),
        )
        .header("x-should-retry", "true")
    }

    fn rate_limit_reply() -> Reply {
        Reply::json(
            429,
            &serde_json::json!({"type": "error",
                "error": {"type": "rate_limit_error",
                          "message": "This request would exceed your organization's rate limit of 30,000 input tokens per minute"},
                "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}),
        )
    }

    fn quick_policy() -> RetryPolicy {
        RetryPolicy {
            max_retries: 3,
            base: millis(10),
            cap: millis(80),
            max_honoured_wait: Duration::from_secs(60),
        }
    }

    /// What one run of the loop produced.
    struct Run {
        outcome: CallOutcome,
        retries: u32,
        notices: Vec<RetryNotice>,
        texts: Vec<String>,
        elapsed: Duration,
    }

    async fn run(
        server: &MockServer,
        policy: &RetryPolicy,
        cancel: &CancellationToken,
        jitter: Option<f64>,
    ) -> Run {
        let client = Transport::Network(http::client().unwrap());
        let endpoint = Endpoint {
            provider: "anthropic".to_owned(),
            base_url: server.url(),
            api_key: Some(crate::secret::Secret::new("sk-ant-test")),
            headers: Vec::new(),
        };
        let request = ModelRequest {
            cache_key: None,
            cache_writes: Some(crate::conversation::CacheTtl::default()),
            model: "claude-sonnet-4-5".to_owned(),
            system_prompt: String::new(),
            messages: Vec::new().into(),
            tools: Vec::new(),
            thinking: ThinkingLevel::Off,
            thinking_budget: None,
            max_output_tokens: 1024,
            reasoning_model: false,
            output_format: None,
            web_search: None,
        };
        let build = || crate::protocol(ApiKind::Anthropic, &request);
        let mut texts = Vec::new();
        let mut notices = Vec::new();
        let started = Instant::now();
        let mut on_event = |event: &StreamEvent| {
            if let StreamEvent::TextDelta { text, .. } = event {
                texts.push(text.clone());
            }
        };
        let mut on_retry = |notice: RetryNotice| notices.push(notice);
        let (outcome, retries) = match jitter {
            Some(fraction) => {
                retry_loop(
                    &client,
                    &endpoint,
                    &build,
                    Duration::from_secs(5),
                    cancel,
                    &mut on_event,
                    &mut on_retry,
                    policy,
                    &mut || fraction,
                )
                .await
            }
            None => {
                call_with_retries(
                    &client,
                    &endpoint,
                    &build,
                    Duration::from_secs(5),
                    cancel,
                    &mut on_event,
                    &mut on_retry,
                    policy,
                )
                .await
            }
        };
        Run {
            outcome,
            retries,
            notices,
            texts,
            elapsed: started.elapsed(),
        }
    }

    #[tokio::test]
    async fn two_overloaded_replies_are_retried_and_the_third_answer_streams_once() {
        let server = MockServer::start(vec![
            overloaded_reply(),
            overloaded_reply(),
            Reply::sse(&anthropic_text_stream(&["Hel", "lo"])),
        ]);
        let run = run(
            &server,
            &quick_policy(),
            &CancellationToken::new(),
            Some(0.0),
        )
        .await;
        assert_eq!(server.requests().len(), 3);
        assert_eq!(run.retries, 2);
        assert_eq!(
            run.notices,
            [
                RetryNotice {
                    attempt: 1,
                    delay: millis(10),
                    error: "anthropic returned HTTP 529: Overloaded".to_owned(),
                },
                RetryNotice {
                    attempt: 2,
                    delay: millis(20),
                    error: "anthropic returned HTTP 529: Overloaded".to_owned(),
                },
            ]
        );
        assert_eq!(run.texts, ["Hel", "lo"]);
        match run.outcome {
            CallOutcome::Complete(accumulator) => assert_eq!(accumulator.text(), "Hello"),
            other => panic!("expected a complete answer, got {other:?}"),
        }
        // Every attempt sent the same request.
        let bodies: Vec<_> = server
            .requests()
            .iter()
            .map(crate::mock_server::Recorded::json)
            .collect();
        assert_eq!(bodies[0], bodies[2]);
    }

    #[tokio::test]
    async fn a_six_hundred_second_retry_after_returns_at_once_for_rotation() {
        let server = MockServer::start(vec![rate_limit_reply().header("retry-after", "600")]);
        let policy = quick_policy();
        let run = run(&server, &policy, &CancellationToken::new(), None).await;
        assert_eq!(server.requests().len(), 1);
        assert_eq!(run.retries, 0);
        assert!(run.notices.is_empty());
        assert!(run.elapsed < Duration::from_secs(3), "{:?}", run.elapsed);
        match run.outcome {
            CallOutcome::Failed { error, .. } => {
                assert_eq!(error.status(), Some(429));
                assert_eq!(
                    decide(&policy, run.retries, &error, false, 0.0),
                    RetryDecision::Rotate {
                        requested: Some(Duration::from_secs(600))
                    }
                );
            }
            other => panic!("expected the 429 back, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn retry_after_ms_is_preferred_to_retry_after_seconds() {
        let server = MockServer::start(vec![
            rate_limit_reply()
                .header("retry-after-ms", "15")
                .header("retry-after", "7"),
            Reply::sse(&anthropic_text_stream(&["ok"])),
        ]);
        let run = run(&server, &quick_policy(), &CancellationToken::new(), None).await;
        assert_eq!(server.requests().len(), 2);
        assert_eq!(run.notices.len(), 1);
        assert_eq!(run.notices[0].delay, millis(15));
        assert!(run.elapsed < Duration::from_secs(5), "{:?}", run.elapsed);
        assert!(matches!(run.outcome, CallOutcome::Complete(_)));
    }

    #[tokio::test]
    async fn an_error_event_after_text_is_not_retried_and_keeps_the_partial_text() {
        let mut stream = anthropic_opening();
        stream.push_str(&anthropic_text_delta("Partial"));
        stream.push_str(OVERLOADED_EVENT);
        let server = MockServer::start(vec![
            Reply::sse(stream.as_bytes()),
            Reply::sse(&anthropic_text_stream(&["never sent"])),
        ]);
        let run = run(
            &server,
            &quick_policy(),
            &CancellationToken::new(),
            Some(0.0),
        )
        .await;
        assert_eq!(server.requests().len(), 1);
        assert_eq!(run.retries, 0);
        assert_eq!(run.texts, ["Partial"]);
        match run.outcome {
            CallOutcome::Failed { error, partial } => {
                assert_eq!(error.to_string(), "anthropic stream error: Overloaded");
                assert_eq!(partial.text(), "Partial");
            }
            other => panic!("expected the stream error back, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn an_error_event_before_any_text_is_retried() {
        let mut stream = anthropic_opening();
        stream.push_str(OVERLOADED_EVENT);
        let server = MockServer::start(vec![
            Reply::sse(stream.as_bytes()),
            Reply::sse(&anthropic_text_stream(&["second try"])),
        ]);
        let run = run(
            &server,
            &quick_policy(),
            &CancellationToken::new(),
            Some(0.0),
        )
        .await;
        assert_eq!(server.requests().len(), 2);
        assert_eq!(run.retries, 1);
        assert_eq!(run.texts, ["second try"]);
        assert_eq!(run.notices[0].error, "anthropic stream error: Overloaded");
        assert!(matches!(run.outcome, CallOutcome::Complete(_)));
    }

    #[tokio::test]
    async fn a_stream_cut_before_output_is_retried_until_the_retries_run_out() {
        let cut = || {
            let opening = anthropic_opening().into_bytes();
            Reply::sse_pieces(vec![Piece::Data(opening), Piece::Close])
        };
        let server = MockServer::start(vec![cut(), cut(), cut(), cut(), cut()]);
        let run = run(
            &server,
            &quick_policy(),
            &CancellationToken::new(),
            Some(1.0),
        )
        .await;
        assert_eq!(server.requests().len(), 4);
        assert_eq!(run.retries, 3);
        let delays: Vec<Duration> = run.notices.iter().map(|notice| notice.delay).collect();
        assert_eq!(
            delays,
            [
                millis(7) + Duration::from_micros(500),
                millis(15),
                millis(30)
            ]
        );
        assert!(matches!(
            run.outcome,
            CallOutcome::Failed {
                error: ProviderError::UnexpectedEof { .. } | ProviderError::Transport { .. },
                ..
            }
        ));
    }

    #[tokio::test]
    async fn cancelling_during_the_backoff_ends_the_wait_at_once() {
        let server = MockServer::start(vec![overloaded_reply(), overloaded_reply()]);
        let policy = RetryPolicy {
            base: Duration::from_secs(30),
            cap: Duration::from_secs(30),
            ..RetryPolicy::default()
        };
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(millis(200)).await;
            trigger.cancel();
        });
        let run = run(&server, &policy, &cancel, Some(0.0)).await;
        assert_eq!(server.requests().len(), 1);
        assert_eq!(run.retries, 1);
        assert_eq!(run.notices[0].delay, Duration::from_secs(30));
        assert!(run.elapsed < Duration::from_secs(5), "{:?}", run.elapsed);
        assert!(matches!(run.outcome, CallOutcome::Cancelled { .. }));
    }
}
