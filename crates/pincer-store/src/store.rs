//! Opening a store from its URL, and the few object operations everything else is built on:
//! read (optionally only if changed), create-only write, compare-and-swap write, list.
//!
//! Each operation turns the object store's "already exists", "precondition failed", "not
//! modified" and "not found" into answers ([`Created`], [`Replaced`], [`Polled`], `None`);
//! everything else becomes a classified [`StoreError`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use futures_util::TryStreamExt;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{
    Attributes, ClientConfigKey, GetOptions, ObjectStore, PutMode, PutOptions, PutPayload,
    RetryConfig, UpdateVersion,
};

use crate::error::{Classifier, StoreError};
use crate::layout::{Layout, SessionId, segment_number};

/// How a store is reached: timeouts, retries, and where its credentials come from.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// Where the `AWS_*`, `GOOGLE_*` and `AZURE_*` variables are read from.
    pub environment: Environment,
    /// The longest wait for a connection.
    pub connect_timeout: Duration,
    /// The longest wait for one request's answer.
    pub request_timeout: Duration,
    /// How often a failed request (connection refused, 5xx) is retried before the operation
    /// fails as unavailable.
    pub max_retries: usize,
    /// The longest time spent retrying one request.
    pub retry_timeout: Duration,
    /// How often a waiter looks at a busy lease (a conditional GET: "304 Not Modified" while
    /// nothing changed).
    pub poll_interval: Duration,
    /// How many segments are downloaded at once.
    pub read_concurrency: usize,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            environment: Environment::Process,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            max_retries: 3,
            retry_timeout: Duration::from_secs(30),
            poll_interval: Duration::from_secs(1),
            read_concurrency: 16,
        }
    }
}

/// Where a store's configuration variables come from.
#[derive(Clone, Default)]
pub enum Environment {
    /// This process's environment.
    #[default]
    Process,
    /// These variables only (tests; a caller that resolved its environment itself).
    Given(Vec<(String, String)>),
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Process => formatter.write_str("Process"),
            // Names only: the values may be credentials.
            Self::Given(variables) => formatter
                .debug_tuple("Given")
                .field(&variables.iter().map(|(name, _)| name).collect::<Vec<_>>())
                .finish(),
        }
    }
}

impl Environment {
    fn variables(&self) -> Vec<(String, String)> {
        match self {
            Self::Process => std::env::vars_os()
                .filter_map(|(name, value)| {
                    Some((name.into_string().ok()?, value.into_string().ok()?))
                })
                .collect(),
            Self::Given(variables) => variables.clone(),
        }
    }
}

/// Whether the variable `name` may hold a credential of a store: the process that opens a
/// store keeps these out of every child's environment, and their values out of every message.
pub fn is_credential_variable(name: &str) -> bool {
    let store_variable = ["AWS_", "GOOGLE_", "AZURE_"]
        .iter()
        .any(|prefix| name.starts_with(prefix))
        || name == "SERVICE_ACCOUNT";
    let upper = name.to_ascii_uppercase();
    store_variable
        && [
            "SECRET",
            "TOKEN",
            "KEY",
            "SAS",
            "PASSWORD",
            "SERVICE_ACCOUNT",
        ]
        .iter()
        .any(|word| upper.contains(word))
}

/// A session store: one object store and a root prefix in it. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    pub(crate) objects: Arc<dyn ObjectStore>,
    pub(crate) layout: Layout,
    pub(crate) errors: Classifier,
    pub(crate) options: StoreOptions,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the object store: its builder's Debug would print the credentials.
        formatter
            .debug_struct("Store")
            .field("url", &self.errors.store)
            .finish_non_exhaustive()
    }
}

/// Every `memory://NAME` store of this process, by NAME, so two opens of one URL share their
/// objects the way two machines share a bucket. A process fact, hence a static.
fn memory_stores() -> &'static Mutex<HashMap<String, Arc<InMemory>>> {
    static STORES: OnceLock<Mutex<HashMap<String, Arc<InMemory>>>> = OnceLock::new();
    STORES.get_or_init(Default::default)
}

impl Store {
    /// Open the store at `url`: `s3://bucket/prefix` (AWS or any S3-compatible service with
    /// conditional writes; `AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_ALLOW_HTTP=true` for a plain-http
    /// endpoint), `gs://bucket/prefix` (`GOOGLE_*`), `az://container/prefix` (`AZURE_*`), or
    /// `memory://NAME/prefix` (this process only; the same NAME is the same store).
    ///
    /// Nothing is sent: the first operation connects. Run [`Store::check_consistency`] (or
    /// [`Store::ensure_checked`]) before trusting a store with sessions.
    pub fn open(url: &str, options: StoreOptions) -> Result<Self, StoreError> {
        let invalid = |detail: String| StoreError::Invalid {
            what: "store URL".to_owned(),
            detail,
        };
        let parsed = url::Url::parse(url)
            .map_err(|error| invalid(format!("'{}' is not a URL ({error})", label(url))))?;
        let label = label(url);
        let variables = options.environment.variables();
        let secrets = variables
            .iter()
            .filter(|(name, _)| is_credential_variable(name))
            .map(|(_, value)| value.clone())
            .collect();
        let errors = Classifier::new(label.clone(), secrets);
        let root = Path::parse(parsed.path().trim_matches('/'))
            .map_err(|error| invalid(format!("'{label}' has an invalid prefix ({error})")))?;
        let built = match parsed.scheme() {
            "s3" | "s3a" => build_s3(url, &variables, &options),
            "gs" => build_gcs(url, &variables, &options),
            "az" | "azure" | "abfs" | "abfss" => build_azure(url, &variables, &options),
            "memory" => {
                let name = parsed.host_str().unwrap_or_default().to_owned();
                let mut stores = memory_stores()
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let store: Arc<dyn ObjectStore> = stores.entry(name).or_default().clone();
                Ok(store)
            }
            other => {
                return Err(invalid(format!(
                    "'{label}': the scheme '{other}' is not a store (s3://, gs://, az://, memory://)"
                )));
            }
        };
        let objects = built.map_err(|error| StoreError::Invalid {
            what: "store".to_owned(),
            detail: errors.scrub(&format!("cannot open '{label}': {error}")),
        })?;
        Ok(Self {
            objects,
            layout: Layout::new(root),
            errors,
            options,
        })
    }

    /// The same store with its object store wrapped (tests and benchmarks count, delay or
    /// break requests this way).
    pub fn wrap(self, wrapper: impl FnOnce(Arc<dyn ObjectStore>) -> Arc<dyn ObjectStore>) -> Self {
        Self {
            objects: wrapper(self.objects),
            ..self
        }
    }

    /// The store's URL without credentials, for messages.
    pub fn url(&self) -> &str {
        &self.errors.store
    }

    pub(crate) async fn fetch(&self, path: &Path) -> Result<Option<Fetched>, StoreError> {
        match self.objects.get_opts(path, GetOptions::default()).await {
            Ok(result) => self.read_body(path, result).await.map(Some),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(self.errors.classify(&error)),
        }
    }

    /// Read `path` unless it still has the ETag `etag`.
    pub(crate) async fn fetch_if_changed(
        &self,
        path: &Path,
        etag: &str,
    ) -> Result<Polled, StoreError> {
        let options = GetOptions::new().with_if_none_match(Some(etag));
        match self.objects.get_opts(path, options).await {
            Ok(result) => Ok(Polled::Changed(Some(self.read_body(path, result).await?))),
            Err(object_store::Error::NotModified { .. }) => Ok(Polled::Unchanged),
            Err(object_store::Error::NotFound { .. }) => Ok(Polled::Changed(None)),
            Err(error) => Err(self.errors.classify(&error)),
        }
    }

    /// The user metadata of `path` (a HEAD request), or None when it does not exist.
    pub(crate) async fn attributes(&self, path: &Path) -> Result<Option<Attributes>, StoreError> {
        match self
            .objects
            .get_opts(path, GetOptions::new().with_head(true))
            .await
        {
            Ok(result) => Ok(Some(result.attributes)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(self.errors.classify(&error)),
        }
    }

    async fn read_body(
        &self,
        path: &Path,
        result: object_store::GetResult,
    ) -> Result<Fetched, StoreError> {
        let etag = result.meta.e_tag.clone();
        let attributes = result.attributes.clone();
        let bytes = result
            .bytes()
            .await
            .map_err(|error| self.errors.classify(&error))?;
        let etag = etag.ok_or_else(|| self.no_etag(path))?;
        Ok(Fetched {
            bytes,
            etag,
            attributes,
        })
    }

    /// Write `path` only if no object is there.
    pub(crate) async fn create(
        &self,
        path: &Path,
        bytes: Bytes,
        attributes: Attributes,
    ) -> Result<Created, StoreError> {
        let options = PutOptions {
            mode: PutMode::Create,
            attributes,
            ..PutOptions::default()
        };
        match self
            .objects
            .put_opts(path, PutPayload::from_bytes(bytes), options)
            .await
        {
            Ok(result) => Ok(Created::Created {
                etag: result.e_tag.ok_or_else(|| self.no_etag(path))?,
            }),
            Err(
                object_store::Error::AlreadyExists { .. }
                | object_store::Error::Precondition { .. },
            ) => Ok(Created::Exists),
            Err(error) => Err(self.errors.classify(&error)),
        }
    }

    /// Write `path` only if it still has the ETag `etag`.
    pub(crate) async fn replace(
        &self,
        path: &Path,
        bytes: Bytes,
        etag: &str,
    ) -> Result<Replaced, StoreError> {
        let options = PutOptions {
            mode: PutMode::Update(UpdateVersion {
                e_tag: Some(etag.to_owned()),
                version: None,
            }),
            ..PutOptions::default()
        };
        match self
            .objects
            .put_opts(path, PutPayload::from_bytes(bytes), options)
            .await
        {
            Ok(result) => Ok(Replaced::Replaced {
                etag: result.e_tag.ok_or_else(|| self.no_etag(path))?,
            }),
            Err(
                object_store::Error::Precondition { .. }
                | object_store::Error::AlreadyExists { .. }
                | object_store::Error::NotFound { .. },
            ) => Ok(Replaced::Stale),
            Err(error) => Err(self.errors.classify(&error)),
        }
    }

    /// Every object under `prefix`.
    pub(crate) async fn list(&self, prefix: &Path) -> Result<Vec<Path>, StoreError> {
        self.objects
            .list(Some(prefix))
            .map_ok(|meta| meta.location)
            .try_collect()
            .await
            .map_err(|error| self.errors.classify(&error))
    }

    /// The numbers of the session's segments after `after`, in order.
    pub async fn segment_numbers(
        &self,
        session: &SessionId,
        after: u64,
    ) -> Result<Vec<u64>, StoreError> {
        let prefix = self.layout.segments(session);
        let offset = self.layout.segment(session, after);
        let mut numbers: Vec<u64> = self
            .objects
            .list_with_offset(Some(&prefix), &offset)
            .map_ok(|meta| segment_number(&meta.location))
            .try_collect::<Vec<_>>()
            .await
            .map_err(|error| self.errors.classify(&error))?
            .into_iter()
            .flatten()
            .filter(|number| *number > after)
            .collect();
        numbers.sort_unstable();
        Ok(numbers)
    }

    /// Delete the objects at `paths` (missing ones are not an error).
    pub(crate) async fn delete_all(&self, paths: Vec<Path>) -> Result<(), StoreError> {
        let stream = futures_util::stream::iter(paths.into_iter().map(Ok)).boxed_paths();
        let results: Vec<_> =
            futures_util::StreamExt::collect(self.objects.delete_stream(stream)).await;
        for result in results {
            match result {
                Ok(_) | Err(object_store::Error::NotFound { .. }) => {}
                Err(error) => return Err(self.errors.classify(&error)),
            }
        }
        Ok(())
    }

    fn no_etag(&self, path: &Path) -> StoreError {
        StoreError::Inconsistent {
            store: self.errors.store.clone(),
            detail: format!("the store gave no ETag for '{path}' (compare-and-swap needs one)"),
        }
    }

    pub(crate) fn invalid(what: &str, detail: String) -> StoreError {
        StoreError::Invalid {
            what: what.to_owned(),
            detail,
        }
    }
}

/// `stream.boxed()` for a stream of paths (named, so the call above reads as what it does).
trait BoxedPaths {
    fn boxed_paths(self) -> futures_util::stream::BoxStream<'static, object_store::Result<Path>>;
}

impl<S> BoxedPaths for S
where
    S: futures_util::Stream<Item = object_store::Result<Path>> + Send + 'static,
{
    fn boxed_paths(self) -> futures_util::stream::BoxStream<'static, object_store::Result<Path>> {
        futures_util::StreamExt::boxed(self)
    }
}

/// An object read with its ETag and user metadata.
#[derive(Debug, Clone)]
pub(crate) struct Fetched {
    pub(crate) bytes: Bytes,
    pub(crate) etag: String,
    pub(crate) attributes: Attributes,
}

/// The answer of a conditional read.
#[derive(Debug)]
pub(crate) enum Polled {
    /// The object still has the ETag asked about.
    Unchanged,
    /// It changed (None: it is gone).
    Changed(Option<Fetched>),
}

/// The answer of a create-only write.
#[derive(Debug)]
pub(crate) enum Created {
    Created { etag: String },
    Exists,
}

/// The answer of a compare-and-swap write.
#[derive(Debug)]
pub(crate) enum Replaced {
    Replaced {
        etag: String,
    },
    /// The object changed (or vanished) since the ETag was read.
    Stale,
}

/// `url` without user, password, query or fragment.
fn label(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        // Not a URL: keep the scheme at most, the rest may hold anything.
        Err(_) => match url.split_once("://") {
            Some((scheme, _)) => format!("{scheme}://…"),
            None => "(not a URL)".to_owned(),
        },
    }
}

fn retry(options: &StoreOptions) -> RetryConfig {
    RetryConfig {
        max_retries: options.max_retries,
        retry_timeout: options.retry_timeout,
        ..RetryConfig::default()
    }
}

/// A duration as the object stores' configuration values write it.
fn duration(value: Duration) -> String {
    format!("{}ms", value.as_millis())
}

/// The variables a builder reads: its prefix, lowercased into its configuration keys.
fn configured<'a>(
    variables: &'a [(String, String)],
    prefixes: &'a [&str],
) -> impl Iterator<Item = (String, &'a str)> + 'a {
    variables
        .iter()
        .filter(move |(name, _)| prefixes.iter().any(|prefix| name.starts_with(prefix)))
        .map(|(name, value)| (name.to_ascii_lowercase(), value.as_str()))
}

fn build_s3(
    url: &str,
    variables: &[(String, String)],
    options: &StoreOptions,
) -> object_store::Result<Arc<dyn ObjectStore>> {
    install_crypto_provider();
    let mut builder = AmazonS3Builder::new();
    for (key, value) in configured(variables, &["AWS_"]) {
        if let Ok(key) = key.parse::<AmazonS3ConfigKey>() {
            builder = builder.with_config(key, value);
        }
    }
    let client = |key| AmazonS3ConfigKey::Client(key);
    let store = builder
        .with_config(
            client(ClientConfigKey::ConnectTimeout),
            duration(options.connect_timeout),
        )
        .with_config(
            client(ClientConfigKey::Timeout),
            duration(options.request_timeout),
        )
        .with_retry(retry(options))
        .with_url(url)
        .build()?;
    Ok(Arc::new(store))
}

fn build_gcs(
    url: &str,
    variables: &[(String, String)],
    options: &StoreOptions,
) -> object_store::Result<Arc<dyn ObjectStore>> {
    install_crypto_provider();
    let mut builder = GoogleCloudStorageBuilder::new();
    for (key, value) in configured(variables, &["GOOGLE_", "SERVICE_ACCOUNT"]) {
        if let Ok(key) = key.parse::<GoogleConfigKey>() {
            builder = builder.with_config(key, value);
        }
    }
    let client = |key| GoogleConfigKey::Client(key);
    let store = builder
        .with_config(
            client(ClientConfigKey::ConnectTimeout),
            duration(options.connect_timeout),
        )
        .with_config(
            client(ClientConfigKey::Timeout),
            duration(options.request_timeout),
        )
        .with_retry(retry(options))
        .with_url(url)
        .build()?;
    Ok(Arc::new(store))
}

fn build_azure(
    url: &str,
    variables: &[(String, String)],
    options: &StoreOptions,
) -> object_store::Result<Arc<dyn ObjectStore>> {
    install_crypto_provider();
    let mut builder = MicrosoftAzureBuilder::new();
    let mut emulator = false;
    for (key, value) in configured(variables, &["AZURE_"]) {
        match key.parse::<AzureConfigKey>() {
            Ok(AzureConfigKey::UseEmulator) => {
                emulator = ["true", "1", "yes", "on"]
                    .iter()
                    .any(|truthy| value.trim().eq_ignore_ascii_case(truthy));
            }
            Ok(key) => builder = builder.with_config(key, value),
            Err(_) => {}
        }
    }
    if emulator {
        builder = azure_emulator(builder, variables);
    }
    let client = |key| AzureConfigKey::Client(key);
    let store = builder
        .with_config(
            client(ClientConfigKey::ConnectTimeout),
            duration(options.connect_timeout),
        )
        .with_config(
            client(ClientConfigKey::Timeout),
            duration(options.request_timeout),
        )
        .with_retry(retry(options))
        .with_url(url)
        .build()?;
    Ok(Arc::new(store))
}

/// Azurite's well-known account, and the key it publishes for it (not a secret).
const AZURITE_ACCOUNT: &str = "devstoreaccount1";
const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// The Azure Storage emulator (Azurite), as the Azure tools name it:
/// `AZURE_STORAGE_USE_EMULATOR=true`, its blob service at `AZURITE_BLOB_STORAGE_URL` (default
/// `http://127.0.0.1:10000`), its well-known account and key unless `AZURE_STORAGE_ACCOUNT_NAME`
/// or a credential is given. object_store's own emulator mode reads `AZURITE_BLOB_STORAGE_URL`
/// from the process, not from the environment the store was given: the same settings are made
/// here from the given variables instead (the account in the path, as Azurite serves it; the
/// requests are the same, and so is the signature).
fn azure_emulator(
    mut builder: MicrosoftAzureBuilder,
    variables: &[(String, String)],
) -> MicrosoftAzureBuilder {
    let service = variables
        .iter()
        .find(|(name, _)| name == "AZURITE_BLOB_STORAGE_URL")
        .map_or("http://127.0.0.1:10000", |(_, value)| value.as_str());
    let account = builder
        .get_config_value(&AzureConfigKey::AccountName)
        .unwrap_or_else(|| AZURITE_ACCOUNT.to_owned());
    let credential_given = [
        AzureConfigKey::AccessKey,
        AzureConfigKey::SasKey,
        AzureConfigKey::Token,
        AzureConfigKey::ClientSecret,
    ]
    .iter()
    .any(|key| builder.get_config_value(key).is_some());
    if !credential_given {
        builder = builder.with_access_key(AZURITE_KEY);
    }
    builder
        .with_account(&account)
        .with_endpoint(format!("{}/{account}", service.trim_end_matches('/')))
        .with_allow_http(true)
}

/// reqwest is built with rustls and no provider of its own (pincer's configuration): ring
/// becomes the process's provider before the first client is built, as pincer's own TLS
/// module does. Installing twice is harmless.
fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_with_credentials_in_it_is_shown_without_them() {
        assert_eq!(
            label("s3://AKIDEXAMPLE:wJalrXUtnFEMI@bucket/prefix?token=abc"),
            "s3://bucket/prefix"
        );
        assert_eq!(label("not a url with secret"), "(not a URL)");
        assert_eq!(label("s3 ://key@bucket"), "s3 ://…");
    }

    #[test]
    fn credential_variables_are_recognised_and_the_rest_not() {
        for name in [
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_ACCESS_KEY_ID",
            "AZURE_STORAGE_ACCOUNT_KEY",
            "AZURE_CLIENT_SECRET",
            "GOOGLE_SERVICE_ACCOUNT_KEY",
            "SERVICE_ACCOUNT",
        ] {
            assert!(is_credential_variable(name), "{name}");
        }
        for name in [
            "AWS_REGION",
            "AWS_ENDPOINT_URL",
            "AWS_ALLOW_HTTP",
            "HOME",
            "SECRET",
        ] {
            assert!(!is_credential_variable(name), "{name}");
        }
    }

    #[test]
    fn an_unknown_scheme_is_refused_with_the_schemes_that_work() {
        let error = Store::open("ftp://host/x", StoreOptions::default()).unwrap_err();
        assert_eq!(error.kind(), crate::ErrorKind::Invalid);
        assert!(
            error.to_string().contains("s3://, gs://, az://, memory://"),
            "{error}"
        );
    }

    #[test]
    fn two_opens_of_one_memory_url_share_their_objects() {
        let first = Store::open("memory://shared-test/a", StoreOptions::default()).unwrap();
        let second = Store::open("memory://shared-test/a", StoreOptions::default()).unwrap();
        assert!(Arc::ptr_eq(&first.objects, &second.objects));
        let other = Store::open("memory://other-test/a", StoreOptions::default()).unwrap();
        assert!(!Arc::ptr_eq(&first.objects, &other.objects));
    }

    #[test]
    fn an_s3_store_reads_its_endpoint_from_the_given_environment_not_the_process() {
        let options = StoreOptions {
            environment: Environment::Given(vec![
                (
                    "AWS_ENDPOINT_URL".to_owned(),
                    "http://127.0.0.1:9".to_owned(),
                ),
                ("AWS_ALLOW_HTTP".to_owned(), "true".to_owned()),
                ("AWS_ACCESS_KEY_ID".to_owned(), "testing".to_owned()),
                (
                    "AWS_SECRET_ACCESS_KEY".to_owned(),
                    "secret-value".to_owned(),
                ),
            ]),
            ..StoreOptions::default()
        };
        let store = Store::open("s3://bucket/team", options).unwrap();
        assert_eq!(store.url(), "s3://bucket/team");
        assert!(!format!("{store:?}").contains("secret-value"));
    }
}
