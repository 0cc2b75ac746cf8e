//! A [`RunEnv`] for the plan's unit tests: settings from a config text, an empty auth store, no
//! keys, and what the plan says kept for the test to read.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::env::{RunEnv, Say};
use super::keys::KnownKeys;
use crate::error::CliResult;
use crate::settings::Settings;

pub(crate) struct TestEnv {
    settings: Settings,
    workspace: PathBuf,
    store: crate::auth::Store,
    keys: KnownKeys,
    /// Every warning, detail and note, in order.
    pub(crate) said: Arc<Mutex<Vec<String>>>,
}

impl TestEnv {
    /// Settings from `config` (a config.toml's text), nothing from the environment.
    pub(crate) fn new(config: &str) -> TestEnv {
        let paths = crate::config::paths::Paths::under_home(Path::new("/tmp/pincer-plan-test"));
        let settings = Settings::from_text(paths, config, true, &[], &|_| None)
            .expect("the test config parses");
        TestEnv {
            settings,
            workspace: PathBuf::from("/tmp/pincer-plan-test/workspace"),
            store: crate::auth::Store::default(),
            keys: KnownKeys::default(),
            said: Arc::default(),
        }
    }

    /// With an `api_key` profile `id` (`provider:name`) for `provider` in the auth store.
    pub(crate) fn with_profile(mut self, id: &str, provider: &str, key: &str) -> TestEnv {
        self.store.profiles.insert(
            id.to_owned(),
            crate::auth::store::Profile::with_value(
                crate::auth::store::ProfileType::ApiKey,
                provider,
                crate::secret::Secret::new(key),
            ),
        );
        self
    }

    fn say(&self, message: &str) {
        self.said
            .lock()
            .expect("not poisoned")
            .push(message.to_owned());
    }
}

impl RunEnv for TestEnv {
    fn settings(&self) -> &Settings {
        &self.settings
    }
    fn workspace(&self) -> &Path {
        &self.workspace
    }
    fn warn(&self, message: &str) {
        self.say(message);
    }
    fn note(&self, message: &str) {
        self.say(message);
    }
    fn detail(&self, message: &str) {
        self.say(message);
    }
    fn warner(&self) -> Say {
        let said = Arc::clone(&self.said);
        Arc::new(move |message: &str| {
            said.lock().expect("not poisoned").push(message.to_owned());
        })
    }
    fn detailer(&self) -> Option<Say> {
        Some(self.warner())
    }
    fn auth_store(&self) -> CliResult<&crate::auth::Store> {
        Ok(&self.store)
    }
    fn known_keys(&self) -> CliResult<&KnownKeys> {
        Ok(&self.keys)
    }
}
