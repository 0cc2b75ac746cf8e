//! The models of a turn: the primary and its fallbacks, each resolved to a provider, protocol
//! and endpoint, with the credentials it would use — what the chain's links and every plan part
//! that depends on the model read.

use super::TurnRequest;
use super::env::RunEnv;
use crate::engine::api::Credential;
use crate::engine::failover;
use crate::error::config_error;
use crate::error::{CliError, CliResult, Exit};
use crate::provider::ApiKind;
use crate::settings::ModelRef;

/// The first provider with credentials in the environment (SPEC §11 defaults).
pub(crate) fn default_model(context: &dyn RunEnv) -> CliResult<String> {
    let candidates = [
        ("anthropic", "anthropic/claude-sonnet-4-5"),
        ("openai", "openai/gpt-5"),
        ("google", "google/gemini-2.5-pro"),
    ];
    for (provider, model) in candidates {
        if !credentials(context, provider, None)?.is_empty() {
            return Ok(model.to_owned());
        }
    }
    Err(CliError::new(
        Exit::Auth,
        "no model configured and no provider credentials found",
    )
    .with_hint(format!(
        "{}; or pass -m provider/model (e.g. -m ollama/qwen3)",
        missing_key_hint(
            "ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY",
            "PROVIDER"
        )
    )))
}

/// Exit 3 for a provider with no credential at all, with [`missing_key_hint`] naming its
/// variables: the one error of a turn's chain and of `compact`'s summary model.
pub(crate) fn no_credentials(settings: &crate::settings::Settings, provider: &str) -> CliError {
    let variables = settings.key_env_vars(provider).join(" or ");
    CliError::new(
        Exit::Auth,
        format!("no credentials for provider '{provider}'"),
    )
    .with_hint(missing_key_hint(&variables, provider))
}

/// What to do when no key is found: set one of `variables`, or store the key once with
/// `pincer auth add`. Without a terminal on stdin (cron, CI, systemd: jobs that do not see a
/// login shell's variables) the stored key comes first.
fn missing_key_hint(variables: &str, provider: &str) -> String {
    key_hint(
        variables,
        provider,
        std::io::IsTerminal::is_terminal(&std::io::stdin()),
    )
}

fn key_hint(variables: &str, provider: &str, interactive: bool) -> String {
    let store = format!("printf %s \"$KEY\" | pincer auth add {provider}");
    if interactive {
        format!("set {variables}, or store the key once: {store}")
    } else {
        format!(
            "store the key once (a cron or CI job does not see your shell's variables): {store}; \
             or set {variables}"
        )
    }
}

/// The credentials for `provider`, in the order they are tried: `--auth-profile` alone, else the
/// provider's profiles (round-robin, cooling ones last), then its environment variable.
pub(crate) fn credentials(
    context: &dyn RunEnv,
    provider: &str,
    pinned: Option<&str>,
) -> CliResult<Vec<Credential>> {
    let store = context.auth_store()?;
    let environment = |name: &str| std::env::var(name).ok();
    let now = u64::try_from(crate::conversation::now_millis()).unwrap_or(0);
    let resolution = crate::auth::resolve(
        store,
        provider,
        pinned,
        &environment,
        &context.settings().key_env_vars(provider),
        now,
    );
    for skipped in &resolution.skipped {
        context.detail(&format!(
            "skipped credential {}: {}",
            skipped.source, skipped.reason
        ));
    }
    Ok(resolution
        .candidates
        .into_iter()
        .map(|candidate| Credential {
            profile_id: candidate.profile_id,
            source: candidate.source,
            key: Some(candidate.secret),
            cooling: candidate.cooling_until.is_some(),
        })
        .collect())
}

/// Every key of the chain, as the child-environment filters and redactors match it.
pub(crate) fn chain_keys(chain: &[Candidate]) -> Vec<&str> {
    chain
        .iter()
        .flat_map(|candidate| &candidate.credentials)
        .filter_map(|credential| credential.key.as_ref())
        .map(crate::secret::Secret::redaction_pattern)
        .collect()
}

/// Resolve the model reference into provider, wire id, protocol and endpoint.
pub(crate) struct ResolvedModel {
    pub(crate) reference: ModelRef,
    pub(crate) api: ApiKind,
    pub(crate) base_url: String,
    pub(crate) headers: Vec<(String, String)>,
    /// The CLI backend a `claude-cli/…` or `codex-cli/…` turn is delegated to (then `api`,
    /// `base_url` and `headers` are unused).
    pub(crate) cli: Option<crate::backend::CliBackend>,
}

pub(crate) fn resolve_model(context: &dyn RunEnv, reference: &str) -> CliResult<ResolvedModel> {
    let reference = context
        .settings()
        .resolve_model_ref(reference)
        .map_err(config_error)?;
    if let Some(backend) = crate::backend::CliBackend::from_provider(&reference.provider) {
        return Ok(ResolvedModel {
            reference,
            api: ApiKind::Anthropic,
            base_url: String::new(),
            headers: Vec::new(),
            cli: Some(backend),
        });
    }
    let api = context.settings().provider_api(&reference.provider).ok_or_else(|| {
        CliError::usage(format!("unknown provider '{}'", reference.provider)).with_hint(
            "use anthropic, openai, openai-chat, google or ollama, or add [providers.NAME] with `api` and `base_url` to config.toml",
        )
    })?;
    let base_url = context
        .settings()
        .base_url(&reference.provider)
        .ok_or_else(|| {
            CliError::usage(format!("provider '{}' has no base_url", reference.provider))
                .with_hint("set providers.NAME.base_url in config.toml or with -c")
        })?;
    let headers = context
        .settings()
        .provider_headers(&reference.provider)
        .into_iter()
        .collect();
    Ok(ResolvedModel {
        reference,
        api,
        base_url,
        headers,
        cli: None,
    })
}

/// One model of the failover chain, resolved, with the credentials it would use.
pub(crate) struct Candidate {
    pub(crate) resolved: ResolvedModel,
    /// `provider/model`.
    pub(crate) model_ref: String,
    pub(crate) credentials: Vec<Credential>,
    /// Whether the provider takes a key at all (local servers do not).
    pub(crate) needs_key: bool,
}

impl Candidate {
    pub(crate) fn missing_key(&self) -> bool {
        self.needs_key && self.credentials.is_empty()
    }

    /// What the failover planner knows of it. Every credential in a cooldown (an environment
    /// variable never is) makes it one to pass over while another model remains.
    pub(crate) fn link(&self) -> failover::Link {
        failover::Link {
            model_ref: self.model_ref.clone(),
            provider: self.resolved.reference.provider.clone(),
            missing_key: self.missing_key(),
            all_cooling: !self.credentials.is_empty()
                && self.credentials.iter().all(|credential| credential.cooling),
        }
    }
}

/// The primary model and its fallbacks (`--fallback-model`, else config `fallbacks`), each
/// resolved once, duplicates dropped. A reference that does not resolve is a usage error before
/// anything runs, rather than a surprise when the primary fails at 3 a.m.
pub(crate) fn model_chain(
    context: &dyn RunEnv,
    args: &TurnRequest,
    primary: &str,
) -> CliResult<Vec<Candidate>> {
    let fallbacks = if args.fallback_model.is_empty() {
        &context.settings().fallbacks
    } else {
        &args.fallback_model
    };
    let mut chain: Vec<Candidate> = Vec::new();
    for reference in std::iter::once(primary).chain(fallbacks.iter().map(String::as_str)) {
        let reference = reference.trim();
        if reference.is_empty() {
            continue;
        }
        let resolved = resolve_model(context, reference)?;
        let model_ref = resolved.reference.to_string();
        if chain
            .iter()
            .any(|candidate| candidate.model_ref == model_ref)
        {
            continue;
        }
        let provider = resolved.reference.provider.clone();
        // A pinned profile belongs to the primary's provider; fallbacks resolve their own.
        let pinned = match chain.first() {
            None => args.auth_profile.as_deref(),
            Some(first) if first.resolved.reference.provider == provider => {
                args.auth_profile.as_deref()
            }
            Some(_) => None,
        };
        // A CLI backend uses the CLI's own login: no API credentials.
        let (credentials, needs_key) = if resolved.cli.is_some() {
            (Vec::new(), false)
        } else if super::replay::replaying(&args.cassette) {
            (vec![super::replay::stand_in_credential()], false)
        } else {
            (
                credentials(context, &provider, pinned)?,
                !context.settings().key_env_vars(&provider).is_empty()
                    && !matches!(provider.as_str(), "ollama"),
            )
        };
        chain.push(Candidate {
            resolved,
            model_ref,
            credentials,
            needs_key,
        });
    }
    Ok(chain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_env::TestEnv;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_missing_key_hint_leads_with_the_stored_key_only_without_a_terminal() {
        let at_a_terminal = key_hint("ANTHROPIC_API_KEY", "anthropic", true);
        assert_eq!(
            at_a_terminal,
            "set ANTHROPIC_API_KEY, or store the key once: printf %s \"$KEY\" | pincer auth add anthropic"
        );
        let in_cron = key_hint("ANTHROPIC_API_KEY", "anthropic", false);
        assert!(
            in_cron.starts_with("store the key once (a cron or CI job"),
            "{in_cron}"
        );
        assert!(in_cron.ends_with("; or set ANTHROPIC_API_KEY"), "{in_cron}");
    }

    /// Two custom providers: `local` takes no key variable the test sets, `keyed` reads one no
    /// test environment has.
    const CONFIG: &str = r#"
model = "local/m1"
fallbacks = ["local/m2", "local/m1", "keyed/k1"]

[providers.local]
api = "openai-chat"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "PINCER_PLAN_TEST_LOCAL_KEY_UNSET"

[providers.keyed]
api = "anthropic"
base_url = "http://127.0.0.1:9"
api_key_env = "PINCER_PLAN_TEST_KEYED_KEY_UNSET"
"#;

    fn refs(chain: &[Candidate]) -> Vec<&str> {
        chain
            .iter()
            .map(|candidate| candidate.model_ref.as_str())
            .collect()
    }

    #[test]
    fn the_chain_is_the_primary_then_the_configured_fallbacks_each_once() {
        let env = TestEnv::new(CONFIG);
        let chain = model_chain(&env, &TurnRequest::default(), "local/m1").unwrap();
        assert_eq!(refs(&chain), ["local/m1", "local/m2", "keyed/k1"]);
        assert_eq!(chain[2].resolved.api, ApiKind::Anthropic);
        assert_eq!(chain[2].resolved.base_url, "http://127.0.0.1:9");
    }

    #[test]
    fn fallback_model_flags_replace_the_configured_fallbacks() {
        let env = TestEnv::new(CONFIG);
        let request = TurnRequest {
            fallback_model: vec!["keyed/k2".to_owned(), " ".to_owned()],
            ..TurnRequest::default()
        };
        let chain = model_chain(&env, &request, "local/m1").unwrap();
        assert_eq!(refs(&chain), ["local/m1", "keyed/k2"]);
    }

    #[test]
    fn a_fallback_that_does_not_resolve_is_a_usage_error_before_anything_runs() {
        let env = TestEnv::new(CONFIG);
        let request = TurnRequest {
            fallback_model: vec!["nowhere/x".to_owned()],
            ..TurnRequest::default()
        };
        let error = model_chain(&env, &request, "local/m1").err().unwrap();
        assert_eq!(error.exit, Exit::Usage, "{error:?}");
        assert!(error.message.contains("nowhere"), "{error:?}");
    }

    #[test]
    fn a_model_without_a_key_is_marked_for_the_failover_planner_a_cli_backend_needs_none() {
        let env = TestEnv::new(CONFIG);
        let request = TurnRequest {
            fallback_model: vec!["claude-cli/sonnet".to_owned()],
            ..TurnRequest::default()
        };
        let chain = model_chain(&env, &request, "keyed/k1").unwrap();
        let links: Vec<_> = chain.iter().map(Candidate::link).collect();
        assert!(links[0].missing_key && !links[0].all_cooling, "{links:?}");
        assert!(!links[1].missing_key, "{links:?}");
        assert!(chain[1].resolved.cli.is_some());
    }

    #[test]
    fn a_pinned_profile_is_the_primarys_only_credential_and_fallbacks_use_their_own() {
        let env = TestEnv::new(CONFIG)
            .with_profile("keyed:work", "keyed", "sk-work")
            .with_profile("keyed:home", "keyed", "sk-home")
            .with_profile("local:main", "local", "sk-local");
        let ids = |candidate: &Candidate| -> Vec<Option<String>> {
            candidate
                .credentials
                .iter()
                .map(|credential| credential.profile_id.clone())
                .collect()
        };
        let pinned = TurnRequest {
            auth_profile: Some("keyed:work".to_owned()),
            fallback_model: vec!["local/m2".to_owned()],
            ..TurnRequest::default()
        };
        let chain = model_chain(&env, &pinned, "keyed/k1").unwrap();
        assert_eq!(ids(&chain[0]), [Some("keyed:work".to_owned())]);
        assert_eq!(ids(&chain[1]), [Some("local:main".to_owned())]);
        // A profile the store does not hold leaves the primary with nothing to use.
        let missing = TurnRequest {
            auth_profile: Some("keyed:nope".to_owned()),
            ..TurnRequest::default()
        };
        let chain = model_chain(&env, &missing, "keyed/k1").unwrap();
        assert!(chain[0].credentials.is_empty());
    }
}
