//! The hint under a failed model call: what to do about it, from what the failure says and
//! where the settings it used came from. A connection that cannot be made points at the URL's
//! setting (`ANTHROPIC_BASE_URL`, `OLLAMA_HOST`, `providers.NAME.base_url`) with the cause's own
//! advice; a model the provider does not know gets the nearest model pincer knows for it.

use crate::provider::classify::FailureKind;
use crate::provider::{ConnectCause, ConnectFailure, ProviderError};
use crate::settings::{BaseUrlOrigin, Settings};

/// The hint for `error` (of class `kind`) from a call to `provider`'s `model`, when there is a
/// better one than the exit code's.
pub(crate) fn for_failure(
    settings: &Settings,
    error: &ProviderError,
    kind: FailureKind,
    (provider, model): (&str, &str),
) -> Option<String> {
    match error {
        ProviderError::Connect(failure) => Some(connect_hint(settings, failure)),
        ProviderError::NoResponse { url, .. } => {
            let setting = setting_of(settings, provider);
            Some(format!(
                "the server at {url} accepted the connection but sent no response: check that \
                 {setting} points at the provider's API, or raise --idle-timeout for a slow \
                 server"
            ))
        }
        _ if kind == FailureKind::ModelNotFound => Some(model_hint(settings, provider, model)),
        _ => None,
    }
}

/// The setting that names `provider`'s URL, in words.
fn setting_of(settings: &Settings, provider: &str) -> String {
    settings
        .base_url_origin(provider)
        .and_then(|origin| origin.setting(provider))
        .unwrap_or_else(|| format!("providers.{provider}.base_url"))
}

fn connect_hint(settings: &Settings, failure: &ConnectFailure) -> String {
    let provider = failure.provider.as_str();
    let origin = settings.base_url_origin(provider);
    let builtin = matches!(origin, Some(BaseUrlOrigin::Builtin) | None);
    let setting = setting_of(settings, provider);
    let address = failure.address();
    match failure.cause {
        ConnectCause::Refused if provider == "ollama" => format!(
            "is ollama running? start it with `ollama serve`, or point OLLAMA_HOST at the \
             server (pincer tried {address})"
        ),
        ConnectCause::Refused if builtin => format!(
            "nothing accepts connections at {address}: check the network, or HTTPS_PROXY if \
             you use a proxy"
        ),
        ConnectCause::Refused => format!(
            "nothing is listening at {address}: start the server, or correct the port in \
             {setting}"
        ),
        ConnectCause::Dns if builtin => format!(
            "the name '{}' did not resolve: check the network and DNS",
            failure.host()
        ),
        ConnectCause::Dns => format!(
            "the host '{}' is unknown: look for a typo in {setting}",
            failure.host()
        ),
        ConnectCause::Tls => format!(
            "if the server speaks plain HTTP, use an http:// URL in {setting}; if its \
             certificate comes from a private CA, name the CA bundle in SSL_CERT_FILE"
        ),
        ConnectCause::Closed => format!(
            "if the server speaks HTTPS, use an https:// URL in {setting}; else check that it \
             is the provider's API"
        ),
        ConnectCause::Timeout | ConnectCause::Unreachable if builtin => format!(
            "{address} cannot be reached from here: check the network, a firewall, or \
             HTTPS_PROXY"
        ),
        ConnectCause::Timeout | ConnectCause::Unreachable => format!(
            "{address} cannot be reached from here: check the host in {setting}, the \
             network and a firewall"
        ),
        ConnectCause::Other => format!("check {setting} and the network"),
    }
}

/// A model `provider` does not know: the nearest model id pincer knows for that provider
/// (the catalog and `[providers.NAME.models]`), else where the list is.
fn model_hint(settings: &Settings, provider: &str, model: &str) -> String {
    let catalog = crate::config::catalog::catalog();
    let configured = settings
        .config
        .providers
        .get(provider)
        .map(|config| config.models.keys().cloned().collect::<Vec<_>>())
        .unwrap_or_default();
    let known: Vec<&str> = catalog
        .models_of(provider)
        .map(|info| info.id.as_str())
        .chain(configured.iter().map(String::as_str))
        .filter(|id| *id != model)
        .collect();
    let not_known = format!("{provider} does not know the model '{model}'");
    if let Some(meant) = crate::suggest::closest(model, known.iter().copied()) {
        return format!("{not_known}: did you mean `-m {provider}/{meant}`?");
    }
    if provider == "ollama" {
        return format!("{not_known}: pull it first with `ollama pull {model}`");
    }
    format!(
        "{not_known}: check the id in the provider's model list; `pincer status` shows the \
         default model"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(env: &[(&str, &str)], overrides: &[&str]) -> Settings {
        let home = tempfile::tempdir().unwrap();
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        let overrides: Vec<String> = overrides.iter().map(|item| (*item).to_owned()).collect();
        Settings::load(Some(home.path()), &overrides, &|name| {
            env.iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        })
        .unwrap()
    }

    fn failure(provider: &str, url: &str, cause: ConnectCause) -> ProviderError {
        ProviderError::Connect(Box::new(ConnectFailure {
            provider: provider.to_owned(),
            url: url.to_owned(),
            cause,
            detail: String::new(),
        }))
    }

    fn hint(settings: &Settings, error: &ProviderError) -> String {
        for_failure(
            settings,
            error,
            crate::provider::classify::classify(error),
            ("anthropic", "x"),
        )
        .unwrap()
    }

    #[test]
    fn a_connection_hint_names_the_setting_the_url_came_from() {
        let from_env = settings(&[("ANTHROPIC_BASE_URL", "http://localhst:8080")], &[]);
        let dns = failure("anthropic", "http://localhst:8080", ConnectCause::Dns);
        assert_eq!(
            hint(&from_env, &dns),
            "the host 'localhst' is unknown: look for a typo in ANTHROPIC_BASE_URL"
        );
        let overridden = settings(
            &[],
            &["providers.anthropic.base_url=\"http://127.0.0.1:9\""],
        );
        let refused = failure("anthropic", "http://127.0.0.1:9", ConnectCause::Refused);
        assert!(
            hint(&overridden, &refused).contains("-c providers.anthropic.base_url"),
            "{}",
            hint(&overridden, &refused)
        );
        let builtin = settings(&[], &[]);
        assert!(hint(&builtin, &dns).contains("check the network and DNS"));
        let ollama = failure("ollama", "http://127.0.0.1:11434/v1", ConnectCause::Refused);
        assert!(
            hint(&builtin, &ollama).starts_with("is ollama running?"),
            "{}",
            hint(&builtin, &ollama)
        );
    }

    #[test]
    fn a_model_the_provider_does_not_know_gets_the_nearest_known_one() {
        let settings = settings(&[], &[]);
        assert_eq!(
            model_hint(&settings, "anthropic", "claude-sonet-4-5"),
            "anthropic does not know the model 'claude-sonet-4-5': did you mean \
             `-m anthropic/claude-sonnet-4-5`?"
        );
        assert!(model_hint(&settings, "ollama", "qwen9").contains("ollama pull qwen9"));
    }
}
