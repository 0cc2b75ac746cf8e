//! Every key a run knows of, whatever provider it uses, and every variable one may be read from
//! (SPEC §10: "every variable any auth profile names is removed from children's environments";
//! §12.2).
//!
//! A run holds more keys than the ones it sends: the auth store keeps profiles of other
//! providers, and the environment has their variables. None of them may reach a child process
//! (exec commands, hooks, MCP stdio servers, CLI backends) or leave through a tool result. So
//! every child's environment loses [`KnownKeys::variables`] by name and any variable holding one
//! of the secrets by value, and every redactor searches for the secrets.
//!
//! Built once per process ([`super::env::RunEnv::known_keys`]) from what the run reads anyway: the
//! settings, the auth store (read once, [`super::env::RunEnv::auth_store`]) and the environment.
//! Key commands are not run here; the key a command gave is known once the run has resolved it,
//! and the callers add the chain's keys.

use crate::auth::Store;
use crate::secret::Secret;
use crate::settings::Settings;

/// The keys and key variables of a run.
#[derive(Debug, Clone, Default)]
pub(crate) struct KnownKeys {
    /// The variables no child inherits: the built-in providers' key variables, every configured
    /// `api_key_env`, every variable an auth profile refers to.
    pub(crate) variables: Vec<String>,
    /// Every key the store holds, and the values of `variables` in pincer's environment.
    secrets: Vec<Secret>,
    /// Of `variables`, those named only as a session store's credentials (`AWS_*`, `GOOGLE_*`,
    /// `AZURE_*` holding a secret), and their values: a CLI backend keeps them when this run
    /// uses no store (claude on Bedrock or Vertex reads its own cloud credentials from them).
    store_only: (Vec<String>, Vec<Secret>),
}

impl KnownKeys {
    /// Gather them from the settings, the store and the environment: `names` are its
    /// variables' names, `env` reads one.
    pub(crate) fn gather(
        settings: &Settings,
        store: &Store,
        names: &[String],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> KnownKeys {
        let mut variables = settings.key_variables();
        for name in store.referenced_variables() {
            if !variables.iter().any(|known| known == name) {
                variables.push(name.to_owned());
            }
        }
        // The session store's credentials (SPEC §19), whether or not this run uses a store:
        // every variable of the environment the store would read one from.
        let mut store_only = (Vec::new(), Vec::new());
        for name in names {
            if pincer_store::is_credential_variable(name)
                && !variables.iter().any(|known| known == name)
            {
                variables.push(name.to_owned());
                store_only.0.push(name.to_owned());
                if let Some(value) = env(name).map(|value| Secret::new(value.trim()))
                    && !value.is_blank()
                {
                    store_only.1.push(value);
                }
            }
        }
        // The store's own values; those of the variables it refers to come below.
        let mut secrets = store.known_secrets(&|_| None);
        secrets.extend(
            variables
                .iter()
                .filter_map(|name| env(name))
                .map(|value| Secret::new(value.trim()))
                .filter(|secret| !secret.is_blank()),
        );
        secrets.dedup();
        KnownKeys {
            variables,
            secrets,
            store_only,
        }
    }

    /// What a CLI backend's child loses, by name and by value: all of it when the run uses a
    /// session store (`store_in_use`), else all but the store-only credentials, which are the
    /// cloud's own and may be the backend's (claude on Bedrock).
    pub(crate) fn for_backend(&self, store_in_use: bool) -> (Vec<String>, Vec<&str>) {
        let (names, values) = &self.store_only;
        let variables = self
            .variables
            .iter()
            .filter(|name| store_in_use || !names.contains(name))
            .cloned()
            .collect();
        let patterns = self
            .patterns(&[])
            .into_iter()
            .filter(|pattern| {
                store_in_use
                    || !values
                        .iter()
                        .any(|value| value.redaction_pattern() == *pattern)
            })
            .collect();
        (variables, patterns)
    }

    /// The secrets as the child-environment filters and the redactors match them, after
    /// `resolved` (the run's own keys, a key command's among them).
    pub(crate) fn patterns<'a>(&'a self, resolved: &[&'a str]) -> Vec<&'a str> {
        let mut patterns: Vec<&str> = resolved.to_vec();
        for secret in &self.secrets {
            let pattern = secret.redaction_pattern();
            if !patterns.contains(&pattern) {
                patterns.push(pattern);
            }
        }
        patterns
    }

    /// The names a child's environment loses: `clear` (a configured list) and the key variables.
    pub(crate) fn clear_list(&self, clear: &[String]) -> Vec<String> {
        let mut names = clear.to_vec();
        for name in &self.variables {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{Profile, ProfileType, SecretRef};

    fn settings(config: &str) -> Settings {
        let paths = crate::config::Paths::under_home(std::path::Path::new("/tmp/pincer-test-home"));
        Settings::from_text(paths, config, true, &[], &|_| None).unwrap()
    }

    #[test]
    fn the_variables_of_every_provider_and_profile_and_the_keys_they_hold_are_known() {
        let settings = settings(
            "[providers.corp]\napi = \"openai-chat\"\nbase_url = \"http://x\"\n\
             api_key_env = \"CORP_KEY\"\n",
        );
        let mut store = Store::default();
        store.profiles.insert(
            "openai:ref".to_owned(),
            Profile::with_reference(
                ProfileType::ApiKey,
                "openai",
                SecretRef::Env {
                    name: "MY_OPENAI_KEY".to_owned(),
                },
            ),
        );
        store.profiles.insert(
            "google:stored".to_owned(),
            Profile::with_value(ProfileType::ApiKey, "google", Secret::new("AIza-stored-1")),
        );
        let env = |name: &str| match name {
            "MY_OPENAI_KEY" => Some("sk-referenced\n".to_owned()),
            "CORP_KEY" => Some("corp-key".to_owned()),
            "ANTHROPIC_API_KEY" => Some("  ".to_owned()),
            _ => None,
        };
        let keys = KnownKeys::gather(&settings, &store, &[], &env);
        let mut expected: Vec<String> = crate::redact::KEY_VARIABLES
            .iter()
            .map(|name| (*name).to_owned())
            .collect();
        expected.extend(["CORP_KEY".to_owned(), "MY_OPENAI_KEY".to_owned()]);
        assert_eq!(keys.variables, expected);
        assert_eq!(
            keys.patterns(&["sk-resolved", "corp-key"]),
            ["sk-resolved", "corp-key", "AIza-stored-1", "sk-referenced"]
        );
        assert_eq!(
            keys.clear_list(&["ONLY_THIS".to_owned(), "CORP_KEY".to_owned()])[..3],
            ["ONLY_THIS", "CORP_KEY", "ANTHROPIC_API_KEY"]
        );
        // Without profiles, the configured variables are still known.
        let keys = KnownKeys::gather(&settings, &Store::default(), &[], &env);
        assert!(!keys.variables.contains(&"MY_OPENAI_KEY".to_owned()));
        assert_eq!(keys.patterns(&[]), ["corp-key"]);
    }

    /// The session store's credential variables (issue #49) are known by the names the
    /// environment has, as given (never the test machine's own); a CLI backend loses them, by
    /// name and by value, only when the run uses a store.
    #[test]
    fn store_credentials_are_kept_from_a_cli_backend_only_when_a_store_is_used() {
        let settings = settings("");
        let names = [
            "AWS_SECRET_ACCESS_KEY".to_owned(),
            "AWS_REGION".to_owned(),
            "PATH".to_owned(),
        ];
        let env = |name: &str| match name {
            "AWS_SECRET_ACCESS_KEY" => Some("aws-secret-value".to_owned()),
            "AWS_REGION" => Some("eu-west-3".to_owned()),
            _ => None,
        };
        let keys = KnownKeys::gather(&settings, &Store::default(), &names, &env);
        assert!(keys.variables.contains(&"AWS_SECRET_ACCESS_KEY".to_owned()));
        assert!(!keys.variables.contains(&"AWS_REGION".to_owned()));
        assert!(keys.patterns(&[]).contains(&"aws-secret-value"));
        let (variables, patterns) = keys.for_backend(false);
        assert!(!variables.contains(&"AWS_SECRET_ACCESS_KEY".to_owned()));
        assert!(!patterns.contains(&"aws-secret-value"));
        let (variables, patterns) = keys.for_backend(true);
        assert!(variables.contains(&"AWS_SECRET_ACCESS_KEY".to_owned()));
        assert!(patterns.contains(&"aws-secret-value"));
    }
}
