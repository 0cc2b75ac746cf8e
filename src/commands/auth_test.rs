//! `pincer auth test`: send one minimal request with each credential and print the classified
//! outcome (SPEC §1.7), so a key can be checked before a cron job depends on it.
//!
//! The request is the smallest a provider accepts: no tools, no reasoning, a short reply. It is
//! sent once, without retries or rotation, so the outcome describes that one credential; the
//! profile store is read, never changed (cooldowns belong to real runs; `auth reset` clears them).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::output::report::{AuthTest, CredentialTest};

use super::{Context, stdout_error};
use crate::auth::store::same_provider;
use crate::auth::{AuthFile, Store};
use crate::cli::AuthTestArgs;
use crate::conversation::{Message, MessageContent, UserMessage};
use crate::error::{CliError, CliResult, Exit, FailureOutcome as _};
use crate::output::Stdout;
use crate::plan::models::{ResolvedModel, resolve_model};
use crate::provider::classify::{FailureKind, classify};
use crate::provider::http::{CallOutcome, Endpoint, Transport};
use crate::provider::{self, ModelRequest, ThinkingLevel};

/// Providers tried when no target is named and no profile mentions them.
const KEYED_PROVIDERS: [&str; 3] = ["anthropic", "openai", "google"];

/// The model a provider is tested with when none is given: its cheapest catalog model.
fn test_model(provider: &str) -> Option<&'static str> {
    match provider {
        "anthropic" => Some("claude-haiku-4-5"),
        "openai" | "openai-chat" => Some("gpt-5-mini"),
        "google" => Some("gemini-2.5-flash"),
        _ => None,
    }
}

/// One credential to test.
struct Target {
    provider: String,
    /// `Some(id)` to test that profile alone.
    pinned: Option<String>,
}

/// Run `pincer auth test`.
pub(crate) fn run(context: &Context, file: &AuthFile, args: &AuthTestArgs) -> CliResult<Exit> {
    let store = file.load().map_err(super::auth::auth_error)?;
    let targets = targets(context, &store, args.target.as_deref());
    let cassette = crate::plan::replay::RunCassette::open(context, &(&args.cassette).into())?;
    let (runtime, client) = (super::runtime()?, cassette.transport()?);
    let mut results = Vec::new();
    // The class of the first failure decides the exit code.
    let mut first_failure: Option<FailureKind> = None;
    for target in &targets {
        let model = model_for(context, &target.provider, args.model.as_deref())?;
        let credentials = if cassette.replaying() {
            vec![crate::plan::replay::stand_in_credential()]
        } else {
            crate::plan::models::credentials(context, &target.provider, target.pinned.as_deref())?
        };
        if credentials.is_empty() {
            first_failure.get_or_insert(FailureKind::Auth);
            results.push(CredentialTest {
                provider: target.provider.clone(),
                source: target.pinned.as_ref().map(|id| format!("profile:{id}")),
                model: None,
                cooling: None,
                ok: false,
                kind: Some("auth".to_owned()),
                status: None,
                message: Some(
                    target
                        .pinned
                        .as_ref()
                        .and_then(|id| store.profiles.get(id))
                        .and_then(|profile| super::auth::unusable(profile, super::auth::now_ms()))
                        .unwrap_or_else(|| {
                            "no usable credential (see `pincer auth status`)".to_owned()
                        }),
                ),
                latency_ms: None,
            });
        }
        for credential in credentials {
            let (outcome, failure) =
                runtime.block_on(probe(context, &client, &model, credential.key.clone()));
            if let Some(kind) = failure {
                first_failure.get_or_insert(kind);
            }
            results.push(CredentialTest {
                provider: target.provider.clone(),
                source: Some(credential.source.clone()),
                model: Some(model.reference.to_string()),
                cooling: Some(credential.cooling),
                ok: outcome.ok,
                kind: outcome.kind,
                status: outcome.status,
                message: outcome.message,
                latency_ms: outcome.latency_ms,
            });
        }
    }
    if results.is_empty() {
        return Err(CliError::new(Exit::Auth, "no credentials to test").with_hint(
            "add one with `pincer auth add PROVIDER` or set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY",
        ));
    }
    let exit = exit_for(first_failure);
    let mut stdout = Stdout::new();
    if context.format.is_json() {
        stdout
            .json_report(&AuthTest { results })
            .map_err(stdout_error)?;
    } else {
        stdout.write(&render(&results)).map_err(stdout_error)?;
    }
    Ok(exit)
}

/// What to test: the named profile, the named provider's credentials, or every provider that
/// has a profile or an environment key.
fn targets(context: &Context, store: &Store, target: Option<&str>) -> Vec<Target> {
    if let Some(target) = target {
        if let Some(profile) = store.profiles.get(target) {
            return vec![Target {
                provider: profile.provider.clone(),
                pinned: Some(target.to_owned()),
            }];
        }
        return vec![Target {
            provider: target.to_owned(),
            pinned: None,
        }];
    }
    let mut providers: Vec<String> = Vec::new();
    for profile in store.profiles.values() {
        if !providers
            .iter()
            .any(|known| same_provider(known, &profile.provider))
        {
            providers.push(profile.provider.clone());
        }
    }
    for provider in KEYED_PROVIDERS {
        let has_env = context
            .settings
            .key_env_vars(provider)
            .iter()
            .any(|name| std::env::var(name).is_ok_and(|value| !value.trim().is_empty()));
        if has_env && !providers.iter().any(|known| same_provider(known, provider)) {
            providers.push(provider.to_owned());
        }
    }
    providers.sort();
    providers
        .into_iter()
        .map(|provider| Target {
            provider,
            pinned: None,
        })
        .collect()
}

fn model_for(context: &Context, provider: &str, given: Option<&str>) -> CliResult<ResolvedModel> {
    if let Some(given) = given {
        return resolve_model(context, given);
    }
    if let Some(configured) = &context.settings.model
        && let Ok(reference) = context.settings.resolve_model_ref(configured)
        && reference.provider == provider
    {
        return resolve_model(context, configured);
    }
    match test_model(provider) {
        Some(model) => resolve_model(context, &format!("{provider}/{model}")),
        None => Err(
            CliError::usage(format!("no default test model for provider '{provider}'"))
                .with_hint("pass -m PROVIDER/MODEL"),
        ),
    }
}

/// The command's exit code: success, or the class of the first failure.
fn exit_for(first_failure: Option<FailureKind>) -> Exit {
    first_failure.map_or(Exit::Success, FailureKind::exit)
}

/// What one request said: the outcome fields of a [`CredentialTest`].
#[derive(Debug, Default)]
struct Probe {
    ok: bool,
    kind: Option<String>,
    status: Option<Option<u16>>,
    message: Option<String>,
    latency_ms: Option<u64>,
}

/// Send the minimal request with `key`; the outcome, and its class on failure.
async fn probe(
    context: &Context,
    client: &Transport,
    model: &ResolvedModel,
    key: Option<crate::secret::Secret>,
) -> (Probe, Option<FailureKind>) {
    let request = ModelRequest {
        cache_key: None,
        cache_writes: None,
        model: model.reference.model.clone(),
        system_prompt: String::new(),
        messages: vec![Message::User(UserMessage {
            content: MessageContent::Text("Reply with the word OK.".to_owned()),
            timestamp: 0,
        })]
        .into(),
        tools: Vec::new(),
        thinking: ThinkingLevel::Off,
        thinking_budget: None,
        max_output_tokens: 32,
        reasoning_model: context
            .settings
            .model_info(&model.reference.provider, &model.reference.model)
            .is_some_and(|info| info.reasoning),
        output_format: None,
        web_search: None,
    };
    let endpoint = Endpoint {
        provider: model.reference.provider.clone(),
        base_url: model.base_url.clone(),
        api_key: key,
        headers: model.headers.clone(),
    };
    let started = Instant::now();
    let outcome = provider::http::call(
        client,
        &endpoint,
        provider::protocol(model.api, &request),
        Duration::from_secs(context.settings.timeouts.idle_secs.min(60)),
        &tokio_util::sync::CancellationToken::new(),
        &mut |_| {},
    )
    .await;
    let latency = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match outcome {
        CallOutcome::Complete(_) => (
            Probe {
                ok: true,
                latency_ms: Some(latency),
                ..Probe::default()
            },
            None,
        ),
        CallOutcome::Failed { error, .. } => {
            let kind = classify(&error);
            let fields = Probe {
                ok: false,
                kind: Some(kind.as_str().to_owned()),
                status: Some(error.status()),
                message: Some(error.to_string()),
                latency_ms: Some(latency),
            };
            (fields, Some(kind))
        }
        CallOutcome::Cancelled { .. } => (
            Probe {
                ok: false,
                kind: Some("unknown".to_owned()),
                message: Some("cancelled".to_owned()),
                ..Probe::default()
            },
            Some(FailureKind::Unknown),
        ),
    }
}

/// One line per credential: `SOURCE  ok|KIND  MODEL  LATENCY  [message]`.
fn render(results: &[CredentialTest]) -> String {
    let text = |value: Option<&String>| value.map_or("-", String::as_str).to_owned();
    let mut out = String::new();
    for result in results {
        let verdict = if result.ok {
            "ok".to_owned()
        } else {
            text(result.kind.as_ref())
        };
        let latency = result
            .latency_ms
            .map_or_else(|| "-".to_owned(), |ms| format!("{ms} ms"));
        let _ = write!(
            out,
            "{:<28} {:<12} {:<36} {:>8}",
            text(result.source.as_ref()),
            verdict,
            text(result.model.as_ref()),
            latency
        );
        if !result.ok {
            let _ = write!(out, "  {}", text(result.message.as_ref()));
        } else if result.cooling == Some(true) {
            out.push_str("  (works; still in its cooldown: `pincer auth reset` clears it)");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_result_is_rendered_with_its_class_and_message() {
        let result = |source: &str, model: &str, latency_ms| CredentialTest {
            provider: String::new(),
            source: Some(source.to_owned()),
            model: Some(model.to_owned()),
            cooling: Some(false),
            ok: true,
            kind: None,
            status: None,
            message: None,
            latency_ms: Some(latency_ms),
        };
        let results = [
            result("profile:anthropic:a", "anthropic/claude-haiku-4-5", 12),
            CredentialTest {
                ok: false,
                kind: Some("auth".to_owned()),
                status: Some(Some(401)),
                message: Some("openai returned HTTP 401: bad key".to_owned()),
                ..result("env:OPENAI_API_KEY", "openai/gpt-5-mini", 3)
            },
        ];
        let text = render(&results);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("profile:anthropic:a"));
        assert!(lines[0].contains(" ok "));
        assert!(lines[0].contains("12 ms"));
        assert!(lines[1].contains(" auth "));
        assert!(lines[1].ends_with("openai returned HTTP 401: bad key"));
    }

    #[test]
    fn the_first_failures_class_decides_the_exit_code() {
        assert_eq!(exit_for(Some(FailureKind::Auth)), Exit::Auth);
        assert_eq!(exit_for(Some(FailureKind::RateLimit)), Exit::Unavailable);
        assert_eq!(exit_for(None), Exit::Success);
    }
}
