//! The built-in model catalog: context windows, output limits, prices and aliases.
//!
//! The data lives in `models.toml` next to this file, with a `source` note per model citing the
//! public page its numbers came from. It is compiled in and parsed once, on first use. The
//! catalog is what makes context occupancy and cost right without configuration (SPEC §8);
//! `[providers.NAME.models.ID]` in `config.toml` extends or corrects it (see
//! `settings::model_info`).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::conversation::StructuredMode;
use crate::conversation::{Prices, TokenUsage};

/// The catalog's source text.
const MODELS_TOML: &str = include_str!("models.toml");

/// What pincer knows about one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelInfo {
    /// Provider name as used in `provider/model` (`anthropic`, `openai`, `google`, …).
    pub provider: String,
    /// The provider's model id, without a date suffix.
    pub id: String,
    /// Context window in tokens.
    pub context_window: u64,
    /// Maximum output tokens per call.
    pub max_output: u64,
    /// USD per million uncached input tokens.
    pub input_price: f64,
    /// USD per million output tokens (reasoning included).
    pub output_price: f64,
    /// USD per million cache-read tokens.
    pub cache_read_price: f64,
    /// USD per million cache-write tokens (Anthropic: the default 5-minute cache).
    pub cache_write_price: f64,
    /// USD per million tokens written to Anthropic's 1-hour cache; the 5-minute price where a
    /// provider has no such cache.
    pub cache_write_1h_price: f64,
    /// Whether the model takes a reasoning/thinking level.
    pub reasoning: bool,
    /// How `--json-schema` is enforced, when the catalog (or the config) says; otherwise the
    /// provider's default applies (`settings::structured_mode`).
    pub structured_output: Option<StructuredMode>,
    /// Whether the provider's server-side web search can be requested for the model
    /// (`--web-search`): Anthropic's `web_search` server tool, OpenAI Responses' `web_search`
    /// tool, Gemini's `google_search` grounding.
    pub web_search: bool,
    /// Whether that search may go in a request that also offers function tools (Gemini 2.x
    /// refuses `google_search` beside function declarations).
    pub web_search_with_tools: bool,
    /// USD per 1,000 web searches (the unit the providers' price pages use); 0 when unknown or
    /// not billed per search.
    pub web_search_price: f64,
    /// Where the numbers came from, and which ones could not be confirmed.
    pub source: String,
}

pub use crate::conversation::Cost;

impl ModelInfo {
    /// The model's prices, for the engines' accounting.
    pub fn prices(&self) -> Prices {
        Prices {
            input: self.input_price,
            output: self.output_price,
            cache_read: self.cache_read_price,
            cache_write: self.cache_write_price,
            cache_write_1h: self.cache_write_1h_price,
            web_search: self.web_search_price / 1_000.0,
        }
    }

    /// Prices one call's (or a sum of calls') usage. Every cache write is priced at the
    /// 5-minute rate; [`ModelInfo::usage_cost`] knows better when the usage says how much went
    /// to the 1-hour cache.
    pub fn cost(&self, input: u64, output: u64, cache_read: u64, cache_write: u64) -> Cost {
        self.usage_cost(&TokenUsage {
            input,
            output,
            cache_read,
            cache_write,
            ..TokenUsage::default()
        })
    }

    /// Prices a normalized usage, its 1-hour cache writes at the 1-hour rate.
    pub fn usage_cost(&self, usage: &TokenUsage) -> Cost {
        self.prices().cost(usage)
    }
}

/// One `[[models]]` entry of `models.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogEntry {
    provider: String,
    id: String,
    #[serde(default)]
    aliases: Vec<String>,
    context_window: u64,
    max_output: u64,
    input_price: f64,
    output_price: f64,
    cache_read_price: f64,
    cache_write_price: f64,
    /// Anthropic's 1-hour cache write; absent: the 5-minute price.
    #[serde(default)]
    cache_write_1h_price: Option<f64>,
    reasoning: bool,
    /// `native`, `native-without-tools`, `tool` or `instructions`; absent: the provider's
    /// default.
    #[serde(default)]
    structured_output: Option<StructuredMode>,
    /// Server-side web search available; absent: no.
    #[serde(default)]
    web_search: bool,
    /// ... beside function tools; absent: yes.
    #[serde(default)]
    web_search_with_tools: Option<bool>,
    /// USD per 1,000 searches; absent: not priced.
    #[serde(default)]
    web_search_price: Option<f64>,
    source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    models: Vec<CatalogEntry>,
}

/// The parsed catalog.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    models: Vec<ModelInfo>,
    /// alias → index into `models`.
    aliases: BTreeMap<String, usize>,
}

/// The built-in catalog, parsed on first use.
pub fn catalog() -> &'static Catalog {
    static CATALOG: LazyLock<Catalog> =
        // A unit test parses the same text and fails on any error, so the empty fallback can
        // only be reached by a build whose tests were not run.
        LazyLock::new(|| Catalog::parse(MODELS_TOML).unwrap_or_default());
    &CATALOG
}

impl Catalog {
    /// Parses catalog text in the `models.toml` format.
    fn parse(text: &str) -> Result<Self, toml::de::Error> {
        let file: CatalogFile = toml::from_str(text)?;
        let mut catalog = Self::default();
        for entry in file.models {
            let index = catalog.models.len();
            for alias in entry.aliases {
                catalog.aliases.insert(alias, index);
            }
            catalog.models.push(ModelInfo {
                provider: entry.provider,
                id: entry.id,
                context_window: entry.context_window,
                max_output: entry.max_output,
                input_price: entry.input_price,
                output_price: entry.output_price,
                cache_read_price: entry.cache_read_price,
                cache_write_price: entry.cache_write_price,
                cache_write_1h_price: entry
                    .cache_write_1h_price
                    .unwrap_or(entry.cache_write_price),
                reasoning: entry.reasoning,
                structured_output: entry.structured_output,
                web_search: entry.web_search,
                web_search_with_tools: entry.web_search_with_tools.unwrap_or(true),
                web_search_price: entry.web_search_price.unwrap_or(0.0),
                source: entry.source,
            });
        }
        Ok(catalog)
    }

    /// Every model, in file order.
    pub fn models(&self) -> &[ModelInfo] {
        &self.models
    }

    /// Every alias with the `(provider, model)` it names, sorted by alias.
    pub fn aliases(&self) -> impl Iterator<Item = (&str, &str, &str)> + '_ {
        self.aliases.iter().map(|(alias, &index)| {
            let model = &self.models[index];
            (alias.as_str(), model.provider.as_str(), model.id.as_str())
        })
    }

    /// Finds a model. Tolerates what users and APIs actually send: dated snapshots
    /// (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`), `-latest` and `-preview-…` suffixes,
    /// catalog aliases of the same provider (`claude-cli` + `sonnet`), and the CLI backends as
    /// their providers (`claude-cli` prices as `anthropic`, `codex-cli` as `openai`).
    pub fn lookup(&self, provider: &str, model: &str) -> Option<&ModelInfo> {
        let provider = catalog_provider(provider);
        let same_provider = |info: &&ModelInfo| info.provider == provider;
        if let Some(info) = self
            .models
            .iter()
            .filter(same_provider)
            .find(|info| info.id == model)
        {
            return Some(info);
        }
        if let Some(info) = self
            .aliases
            .get(model)
            .map(|&index| &self.models[index])
            .filter(same_provider)
        {
            return Some(info);
        }
        // The longest id that `model` extends with a version suffix, so that
        // `claude-sonnet-4-5-20250929` finds `claude-sonnet-4-5` rather than `claude-sonnet-4`.
        self.models
            .iter()
            .filter(same_provider)
            .filter(|info| {
                model
                    .strip_prefix(info.id.as_str())
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(is_version_suffix)
            })
            .max_by_key(|info| info.id.len())
    }

    /// The models a provider or backend name runs (`openai-chat` and `codex-cli` run OpenAI's,
    /// `claude-cli` Anthropic's).
    pub fn models_of<'a>(&'a self, provider: &str) -> impl Iterator<Item = &'a ModelInfo> {
        let provider = catalog_provider(provider).to_owned();
        self.models
            .iter()
            .filter(move |info| info.provider == provider)
    }

    /// Resolves a bare name to `(provider, model)`: a catalog alias (`sonnet`, `opus`, `haiku`,
    /// `gemini-flash`, …), or a model id that exists under exactly one provider (`gpt-5`,
    /// `gemini-2.5-pro`, `claude-sonnet-4-5`).
    pub fn resolve_alias(&self, name: &str) -> Option<(&str, &str)> {
        if let Some(&index) = self.aliases.get(name) {
            let model = &self.models[index];
            return Some((model.provider.as_str(), model.id.as_str()));
        }
        let mut matches = self.models.iter().filter(|info| info.id == name);
        let first = matches.next()?;
        if matches.next().is_some() {
            return None;
        }
        Some((first.provider.as_str(), first.id.as_str()))
    }
}

/// The catalog provider whose prices apply to a provider or backend name.
fn catalog_provider(provider: &str) -> &str {
    match provider {
        "claude-cli" => "anthropic",
        // OpenAI's own Chat Completions endpoint bills the same models at the same prices.
        "codex-cli" | "openai-chat" => "openai",
        other => other,
    }
}

/// Whether `suffix` (after the base id and a `-`) is a snapshot marker rather than a different
/// model: `20250929`, `2024-08-06`, `latest`, `preview`, `preview-09-2025`.
fn is_version_suffix(suffix: &str) -> bool {
    let all_digits = |text: &str, length: usize| {
        text.len() == length && text.bytes().all(|byte| byte.is_ascii_digit())
    };
    if all_digits(suffix, 8) || suffix == "latest" {
        return true;
    }
    let parts: Vec<&str> = suffix.split('-').collect();
    if let [year, month, day] = parts.as_slice()
        && all_digits(year, 4)
        && all_digits(month, 2)
        && all_digits(day, 2)
    {
        return true;
    }
    match parts.split_first() {
        Some((&"preview", rest)) => rest
            .iter()
            .all(|part| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit())),
        _ => false,
    }
}

#[cfg(test)]
mod tests {

    /// The catalog's aliases, as a CLI backend's child is given them (a backend test that
    /// needs the catalog, which is the configuration layer's).
    #[test]
    fn pincer_aliases_become_names_the_child_takes() {
        assert_eq!(
            crate::backend::CliBackend::Claude
                .child_model("sonnet", crate::config::catalog().resolve_alias("sonnet")),
            "sonnet"
        );
        assert_eq!(
            crate::backend::CliBackend::Claude
                .child_model("opus", crate::config::catalog().resolve_alias("opus")),
            "opus"
        );
        assert_eq!(
            crate::backend::CliBackend::Claude.child_model(
                "opus-4.1",
                crate::config::catalog().resolve_alias("opus-4.1")
            ),
            "claude-opus-4-1"
        );
        assert_eq!(
            crate::backend::CliBackend::Claude.child_model(
                "claude-sonnet-4-5-20250929",
                crate::config::catalog().resolve_alias("claude-sonnet-4-5-20250929")
            ),
            "claude-sonnet-4-5-20250929"
        );
        assert_eq!(
            crate::backend::CliBackend::Codex.child_model(
                "gpt-5-codex",
                crate::config::catalog().resolve_alias("gpt-5-codex")
            ),
            "gpt-5-codex"
        );
    }

    use super::*;

    const REQUIRED: [(&str, &str); 17] = [
        ("anthropic", "claude-opus-4-5"),
        ("anthropic", "claude-opus-4-1"),
        ("anthropic", "claude-sonnet-4-5"),
        ("anthropic", "claude-sonnet-4"),
        ("anthropic", "claude-haiku-4-5"),
        ("anthropic", "claude-3-5-haiku"),
        ("openai", "gpt-5"),
        ("openai", "gpt-5-mini"),
        ("openai", "gpt-5-nano"),
        ("openai", "gpt-5-codex"),
        ("openai", "gpt-4.1"),
        ("openai", "gpt-4o"),
        ("openai", "o3"),
        ("openai", "o4-mini"),
        ("google", "gemini-2.5-pro"),
        ("google", "gemini-2.5-flash"),
        ("google", "gemini-2.5-flash-lite"),
    ];

    #[test]
    fn the_catalog_file_parses_and_is_not_empty() {
        let parsed = Catalog::parse(MODELS_TOML).unwrap();
        assert!(parsed.models().len() >= REQUIRED.len());
        assert_eq!(catalog().models().len(), parsed.models().len());
    }

    #[test]
    fn every_required_model_is_in_the_catalog() {
        for (provider, id) in REQUIRED {
            let info = catalog().lookup(provider, id);
            assert!(info.is_some(), "{provider}/{id} is missing");
        }
    }

    #[test]
    fn every_entry_has_a_source_a_window_and_sane_prices() {
        for info in catalog().models() {
            let name = format!("{}/{}", info.provider, info.id);
            assert!(info.source.trim().len() > 20, "{name} has no source");
            assert!(info.context_window > 0, "{name} has no context window");
            assert!(info.max_output > 0, "{name} has no output limit");
            assert!(info.max_output <= info.context_window, "{name}");
            assert!(info.input_price > 0.0 && info.output_price > 0.0, "{name}");
            assert!(info.cache_read_price <= info.input_price, "{name}");
        }
    }

    #[test]
    fn anthropic_cache_prices_follow_the_published_multipliers() {
        for info in catalog()
            .models()
            .iter()
            .filter(|info| info.provider == "anthropic")
        {
            let write = info.input_price * 1.25;
            let write_1h = info.input_price * 2.0;
            let read = info.input_price * 0.1;
            assert!((info.cache_write_price - write).abs() < 1e-9, "{}", info.id);
            assert!(
                (info.cache_write_1h_price - write_1h).abs() < 1e-9,
                "{}",
                info.id
            );
            assert!((info.cache_read_price - read).abs() < 1e-9, "{}", info.id);
        }
    }

    #[test]
    fn ids_and_aliases_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for info in catalog().models() {
            assert!(
                seen.insert((info.provider.clone(), info.id.clone())),
                "{}",
                info.id
            );
        }
        let ids: Vec<&str> = catalog()
            .models()
            .iter()
            .map(|info| info.id.as_str())
            .collect();
        for (alias, _, _) in catalog().aliases() {
            assert!(!ids.contains(&alias), "alias {alias} shadows a model id");
        }
    }

    #[test]
    fn family_aliases_resolve_to_the_latest_anthropic_models() {
        assert_eq!(
            catalog().resolve_alias("sonnet"),
            Some(("anthropic", "claude-sonnet-4-5"))
        );
        assert_eq!(
            catalog().resolve_alias("opus"),
            Some(("anthropic", "claude-opus-4-5"))
        );
        assert_eq!(
            catalog().resolve_alias("haiku"),
            Some(("anthropic", "claude-haiku-4-5"))
        );
    }

    #[test]
    fn a_bare_model_id_resolves_to_its_provider() {
        assert_eq!(catalog().resolve_alias("gpt-5"), Some(("openai", "gpt-5")));
        assert_eq!(
            catalog().resolve_alias("gemini-2.5-pro"),
            Some(("google", "gemini-2.5-pro"))
        );
        assert_eq!(catalog().resolve_alias("no-such-model"), None);
    }

    #[test]
    fn dated_snapshot_ids_find_their_base_model() {
        let cases = [
            (
                "anthropic",
                "claude-sonnet-4-5-20250929",
                "claude-sonnet-4-5",
            ),
            ("anthropic", "claude-sonnet-4-20250514", "claude-sonnet-4"),
            ("anthropic", "claude-3-5-haiku-latest", "claude-3-5-haiku"),
            ("anthropic", "claude-opus-4-1-20250805", "claude-opus-4-1"),
            ("openai", "gpt-4o-2024-08-06", "gpt-4o"),
            ("openai", "gpt-5-mini-2025-08-07", "gpt-5-mini"),
            (
                "google",
                "gemini-2.5-flash-lite-preview-06-17",
                "gemini-2.5-flash-lite",
            ),
        ];
        for (provider, model, expected) in cases {
            let info = catalog().lookup(provider, model);
            assert_eq!(info.map(|info| info.id.as_str()), Some(expected), "{model}");
        }
    }

    #[test]
    fn a_different_model_is_not_mistaken_for_a_snapshot() {
        // `claude-opus-4-6` is not a dated `claude-opus-4`; `gpt-5-pro` is not `gpt-5`.
        assert!(catalog().lookup("anthropic", "claude-opus-4-6").is_none());
        assert!(catalog().lookup("openai", "gpt-5-pro").is_none());
        assert!(catalog().lookup("openai", "claude-sonnet-4-5").is_none());
    }

    #[test]
    fn cli_backends_are_priced_as_their_providers() {
        let info = catalog().lookup("claude-cli", "sonnet").unwrap();
        assert_eq!(info.id, "claude-sonnet-4-5");
        let info = catalog().lookup("codex-cli", "gpt-5-codex").unwrap();
        assert_eq!(info.provider, "openai");
    }

    #[test]
    fn cost_of_a_million_tokens_of_each_kind_on_sonnet_4_5() {
        let sonnet = catalog().lookup("anthropic", "claude-sonnet-4-5").unwrap();
        let cost = sonnet.cost(1_000_000, 0, 0, 0);
        assert!((cost.input - 3.00).abs() < 1e-9);
        assert!((cost.total - 3.00).abs() < 1e-9);
        let cost = sonnet.cost(1_000_000, 1_000_000, 1_000_000, 1_000_000);
        assert!((cost.output - 15.00).abs() < 1e-9);
        assert!((cost.cache_read - 0.30).abs() < 1e-9);
        assert!((cost.cache_write - 3.75).abs() < 1e-9);
        assert!((cost.total - 22.05).abs() < 1e-9);
    }

    #[test]
    fn one_hour_cache_writes_cost_twice_the_input_price_and_five_minute_ones_1_25_times() {
        let sonnet = catalog().lookup("anthropic", "claude-sonnet-4-5").unwrap();
        let usage = crate::conversation::TokenUsage {
            cache_write: 3_000_000,
            cache_write_1h: 1_000_000,
            ..Default::default()
        };
        let cost = sonnet.usage_cost(&usage);
        // 2M at $3.75 (5 minutes) + 1M at $6.00 (1 hour).
        assert!((cost.cache_write - 13.50).abs() < 1e-9, "{cost:?}");
        assert!((cost.total - 13.50).abs() < 1e-9, "{cost:?}");
        // Without the split every write is a 5-minute one; OpenAI has a single write price.
        let plain = crate::conversation::TokenUsage {
            cache_write: 1_000_000,
            ..Default::default()
        };
        assert!((sonnet.usage_cost(&plain).total - 3.75).abs() < 1e-9);
        let gpt = catalog().lookup("openai", "gpt-5").unwrap();
        assert!((gpt.cache_write_1h_price - gpt.cache_write_price).abs() < 1e-12);
    }

    #[test]
    fn cost_of_the_spec_usage_example_on_sonnet_4_5() {
        // SPEC §8's call: input 1, cache write 500, cache read 85,000, output 100.
        let sonnet = catalog().lookup("anthropic", "claude-sonnet-4-5").unwrap();
        let cost = sonnet.cost(1, 100, 85_000, 500);
        let expected = (3.0 + 100.0 * 15.0 + 85_000.0 * 0.30 + 500.0 * 3.75) / 1_000_000.0;
        assert!((cost.total - expected).abs() < 1e-12, "{cost:?}");
        assert!((cost.total - 0.028_878).abs() < 1e-9, "{cost:?}");
    }

    #[test]
    fn costs_add_up() {
        let sonnet = catalog().lookup("anthropic", "claude-sonnet-4-5").unwrap();
        let mut sum = Cost::default();
        sum += sonnet.cost(500_000, 0, 0, 0);
        sum += sonnet.cost(500_000, 0, 0, 0);
        assert!((sum.total - 3.0).abs() < 1e-9);
        assert!((sum.input - 3.0).abs() < 1e-9);
    }

    #[test]
    fn version_suffixes_are_recognized() {
        for suffix in [
            "20250929",
            "2024-08-06",
            "latest",
            "preview",
            "preview-06-17",
        ] {
            assert!(is_version_suffix(suffix), "{suffix}");
        }
        for suffix in ["5", "mini", "6", "2025", "preview-x", "pro"] {
            assert!(!is_version_suffix(suffix), "{suffix}");
        }
    }
}

#[cfg(test)]
mod web_search_tests {
    //! Which models the catalog marks as having the provider's web search: the provider crate
    //! decides from the marks, the catalog (here) sets them.
    use super::catalog;
    use crate::conversation::ApiKind;
    use crate::provider::web_search::{Availability, ModelSearch, availability};

    #[test]
    fn search_needs_a_protocol_with_server_tools_and_a_model_the_catalog_marks() {
        let marked = |provider: &str, model: &str| {
            catalog()
                .lookup(provider, model)
                .map_or(ModelSearch::default(), |info| ModelSearch {
                    has_it: info.web_search,
                    with_tools: info.web_search_with_tools,
                })
        };
        let sonnet = marked("anthropic", "claude-sonnet-4-5");
        assert_eq!(
            availability(ApiKind::Anthropic, sonnet, true),
            Availability::Available
        );
        assert_eq!(
            availability(ApiKind::OpenAi, marked("openai", "gpt-5"), true),
            Availability::Available
        );
        assert_eq!(
            availability(ApiKind::OpenAiChat, marked("openai", "gpt-5"), false),
            Availability::NoServerTools
        );
        let flash = marked("google", "gemini-2.5-flash");
        assert_eq!(
            availability(ApiKind::Google, flash, false),
            Availability::Available
        );
        assert_eq!(
            availability(ApiKind::Google, flash, true),
            Availability::NotWithTools
        );
        assert_eq!(
            availability(
                ApiKind::Anthropic,
                marked("anthropic", "claude-next"),
                false
            ),
            Availability::ModelLacksIt
        );
        let (message, hint) = Availability::ModelLacksIt
            .refusal("anthropic/claude-next")
            .unwrap();
        assert!(message.contains("'anthropic/claude-next'"), "{message}");
        assert!(
            hint.contains("[providers.anthropic.models.\"claude-next\"]"),
            "{hint}"
        );
        assert_eq!(Availability::Available.refusal("a/b"), None);
    }
}
