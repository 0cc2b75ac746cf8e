//! `pincer compact [SESSION|--last]`: compact a session now (SPEC §1.4, §7).

use std::path::Path;
use std::time::{Duration, Instant};

use super::{Context, load_scoped, report_torn, resolve_selector, session_error, stdout_error};
use crate::agent::compact::{self, CompactError, Compacted, SummaryModel};
use crate::agent::compaction;
use crate::cli::CompactArgs;
use crate::error::{CliError, CliResult, ErrorKind, Exit, FailureOutcome as _};
use crate::output::report::{CompactPlan, CompactReport};
use crate::output::schema::{ResultError, ResultSubtype, RunResult, SchemaVersion};
use crate::output::{Format, Stdout};
use crate::plan::models::{ResolvedModel, credentials, default_model, resolve_model};
use crate::provider::classify::classify;
use crate::provider::http::Endpoint;
use crate::provider::retry::RetryNotice;
use crate::session::store;
use crate::session::summary::summarize;
use crate::session::transcript::Transcript;

/// What is known of the session and its model when `compact` fails, for its result object.
#[derive(Debug, Default)]
struct Known {
    session_id: Option<String>,
    session_name: Option<String>,
    model: Option<String>,
    provider: Option<String>,
    /// The classified failure of the summary call, when that is what failed.
    failure: Option<ResultError>,
}

/// Run `compact`. In JSON modes every failure ends with its result object on stdout (SPEC
/// §3.2), whatever failed once the arguments parsed: the configuration, an unknown or busy
/// session, a full disk or a read-only home, the summary call.
pub(crate) fn compact(
    format: Format,
    started: Instant,
    context: &CliResult<Context>,
    args: &CompactArgs,
) -> CliResult<Exit> {
    let mut known = Known::default();
    let error = match context {
        Ok(context) => match compact_session(context, args, &mut known) {
            Ok(exit) => return Ok(exit),
            Err(error) => error,
        },
        Err(error) => error.clone(),
    };
    if format.is_json() {
        let mut result = RunResult::early_error(
            ResultSubtype::ErrorDuringExecution,
            error.kind(),
            &error.message,
            u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        );
        result.session_id = known.session_id;
        result.session_name = known.session_name;
        result.model = known.model;
        result.provider = known.provider;
        result.backend = Some("api".to_owned());
        if let Some(failure) = known.failure {
            result.error = Some(failure);
        }
        // The failure is what the exit code reports, whatever became of stdout.
        let _ = Stdout::new().json_report(&result);
    }
    Err(error)
}

/// [`compact`] once the configuration is read, noting what it learns in `known`.
fn compact_session(context: &Context, args: &CompactArgs, known: &mut Known) -> CliResult<Exit> {
    let path = find_session(context, args, known)?;
    let keep = args
        .keep_recent_tokens
        .unwrap_or(context.settings.compaction.keep_recent_tokens);
    if args.dry_run {
        return print_plan(context, &path, keep);
    }
    let cassette = crate::plan::replay::RunCassette::open(context, &(&args.cassette).into())?;
    let (writer, loaded, torn) =
        store::open_for_append(&path, context.wait).map_err(session_error)?;
    report_torn(context, &path, torn.as_ref());
    let summary = summarize(&loaded.header, &loaded.entries);
    known.session_id = Some(loaded.header.id.clone());
    known.session_name.clone_from(&summary.name);
    let reference = summary_reference(context, args, summary.model_ref(), &cassette)?;
    let resolved = summary_model(context, &reference, known)?;
    let endpoint = summary_endpoint(context, &resolved, cassette.replaying())?;
    let max_output = context
        .settings
        .model_info(&resolved.reference.provider, &resolved.reference.model)
        .map_or(8_192, |info| info.max_output.clamp(1, 16_384));
    let summary_model = SummaryModel {
        api: resolved.api,
        endpoint: &endpoint,
        model: &resolved.reference.model,
        max_output_tokens: max_output,
        idle_timeout: Duration::from_secs(context.settings.timeouts.idle_secs),
    };
    let mut transcript = Transcript::persisted(writer, loaded.entries);
    let (runtime, client) = (super::runtime()?, cassette.transport()?);
    // PreCompact hooks (SPEC §14), before anything changes.
    let key = endpoint
        .api_key
        .as_ref()
        .map(crate::secret::Secret::redaction_pattern);
    super::hooks::pre_compact_manual(
        context,
        &runtime,
        (&loaded.header.id, &path),
        args.instructions.as_deref(),
        &key.into_iter().collect::<Vec<_>>(),
    )?;
    let call = SummaryCall {
        client: &client,
        model: &summary_model,
        keep,
        instructions: args.instructions.as_deref(),
    };
    let outcome = run_summary(context, &runtime, &call, &mut transcript);
    let closed = transcript.close();
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(CompactError::Session(error)) => return Err(session_error(error)),
        Err(failure) => {
            let error = summary_failure(&failure, &resolved.reference.provider);
            let cli_error = CliError::new(error_exit(&failure), error.message.clone())
                .with_hint(failure_hint(&failure));
            known.failure = Some(error);
            return Err(cli_error);
        }
    };
    closed.map_err(session_error)?;
    let _ = crate::session::index::update_one(context.sessions_dir(), &path);
    match outcome {
        Some(compacted) => print_compacted(context, &loaded.header.id, &compacted)?,
        None => print_nothing_to_compact(context, &loaded.header.id)?,
    }
    Ok(Exit::Success)
}

/// The session `compact` names (a selector, or `--last`), noting what the index knows of it in
/// `known`: the result names the session even when it cannot be opened.
fn find_session(
    context: &Context,
    args: &CompactArgs,
    known: &mut Known,
) -> CliResult<std::path::PathBuf> {
    let wanted = crate::session::index::Wanted {
        queries: args.session.as_deref().into_iter().collect(),
        last: (args.last && args.session.is_none())
            .then_some((context.workspace.as_path(), args.all)),
    };
    let index = load_scoped(context, &wanted)?;
    let path = resolve_selector(
        context,
        &index,
        args.session.as_deref(),
        args.last,
        args.all,
    )?;
    if let Some(entry) = path
        .file_name()
        .and_then(|name| index.sessions.get(&*name.to_string_lossy()))
    {
        known.session_id = Some(entry.summary.id.clone()).filter(|id| !id.is_empty());
        known.session_name.clone_from(&entry.summary.name);
    }
    Ok(path)
}

/// The model `reference` resolved for the summary call, noted in `known`: an API model (a CLI
/// backend compacts its own session by itself).
fn summary_model(
    context: &Context,
    reference: &str,
    known: &mut Known,
) -> CliResult<ResolvedModel> {
    let resolved = resolve_model(context, reference)?;
    known.model = Some(resolved.reference.model.clone());
    known.provider = Some(resolved.reference.provider.clone());
    if resolved.cli.is_some() {
        // The summary is one API call; a CLI backend compacts its own session by itself.
        return Err(CliError::usage(format!(
            "cannot compact with the {} backend: its CLI compacts its own session",
            resolved.reference.provider
        ))
        .with_hint("pass -m with an API model to summarize this session; nothing was changed"));
    }
    Ok(resolved)
}

/// The summary call of a compaction: where it goes and what it keeps.
struct SummaryCall<'a> {
    client: &'a crate::provider::http::Transport,
    model: &'a SummaryModel<'a>,
    keep: u64,
    instructions: Option<&'a str>,
}

/// Make the summary call and append the compaction through `transcript`, with `-v`'s line for
/// each retry. `None`: nothing to compact.
fn run_summary(
    context: &Context,
    runtime: &tokio::runtime::Runtime,
    call: &SummaryCall<'_>,
    transcript: &mut Transcript,
) -> Result<Option<Compacted>, CompactError> {
    let cancel = tokio_util::sync::CancellationToken::new();
    let mut messages = Vec::new();
    let retry = super::retry_policy(context);
    let mut on_retry = |notice: RetryNotice| {
        context.diagnostics.detail(&format!(
            "retrying the summary call in {} ms (retry {}): {}",
            notice.delay.as_millis(),
            notice.attempt,
            notice.error
        ));
    };
    runtime.block_on(compact::run_requiring_summary(
        call.client,
        call.model,
        (&retry, &mut on_retry),
        transcript,
        call.keep,
        call.instructions,
        &cancel,
        &mut messages,
    ))
}

/// A compaction that found nothing to summarize: the report says so (or a line on stderr).
fn print_nothing_to_compact(context: &Context, session_id: &str) -> CliResult<()> {
    if context.format.is_json() {
        Stdout::new()
            .json_report(&CompactReport {
                schema_version: SchemaVersion,
                kind: "compact".to_owned(),
                session_id: session_id.to_owned(),
                is_error: false,
                compacted: false,
                tokens_before: None,
                tokens_after: None,
                first_kept_entry_id: None,
                summarized_by_model: None,
                summary: None,
            })
            .map_err(stdout_error)?;
    } else {
        context.diagnostics.info("nothing to compact");
    }
    Ok(())
}

/// The model that writes the summary: `-m`, else the session's own, else the replayed one or the
/// configured default.
fn summary_reference(
    context: &Context,
    args: &CompactArgs,
    recorded: Option<String>,
    cassette: &crate::plan::replay::RunCassette,
) -> CliResult<String> {
    Ok(match (&args.model, recorded, &context.settings.model) {
        (Some(model), _, _) => model.clone(),
        (None, Some(recorded), _) => recorded,
        (None, None, configured) => match (cassette.default_model(), configured) {
            (Some(replayed), _) => replayed,
            (None, Some(configured)) => configured.clone(),
            (None, None) => default_model(context)?,
        },
    })
}

/// `compact --dry-run`: what a compaction would do, changing nothing.
fn print_plan(context: &Context, path: &Path, keep: u64) -> CliResult<Exit> {
    let mut stdout = Stdout::new();
    let loaded = store::load(path).map_err(session_error)?;
    let plan = compaction::cut::plan(&loaded.entries, None, keep);
    let value = CompactPlan {
        schema_version: SchemaVersion,
        kind: "compact_plan".to_owned(),
        session_id: loaded.header.id.clone(),
        would_compact: plan.is_some(),
        first_kept_entry_id: plan.as_ref().map(|plan| plan.first_kept_entry_id.clone()),
        tokens_before: plan.as_ref().map(|plan| plan.tokens_before),
        kept_tokens_estimate: plan.as_ref().map(|plan| plan.kept_tokens),
        messages_to_summarize: plan.as_ref().map(|plan| plan.to_summarize.len()),
        turn_prefix_messages: plan.as_ref().map(|plan| plan.turn_prefix.len()),
        updates_previous_summary: plan.as_ref().map(|plan| plan.previous_summary.is_some()),
    };
    if context.format.is_json() {
        stdout.json_report(&value).map_err(stdout_error)?;
    } else {
        let text = match &plan {
            Some(plan) => format!(
                "would compact {}: {} tokens now; keep from entry {} (~{} tokens); summarize {} message(s){}\n",
                loaded.header.id,
                plan.tokens_before,
                plan.first_kept_entry_id,
                plan.kept_tokens,
                plan.to_summarize.len(),
                if plan.turn_prefix.is_empty() {
                    String::new()
                } else {
                    format!(" and a split turn of {}", plan.turn_prefix.len())
                }
            ),
            None => format!("nothing to compact in {}\n", loaded.header.id),
        };
        stdout.write(&text).map_err(stdout_error)?;
    }
    Ok(Exit::Success)
}

/// Where the summary call goes, with the provider's first key (none when replaying).
fn summary_endpoint(
    context: &Context,
    resolved: &ResolvedModel,
    replaying: bool,
) -> CliResult<Endpoint> {
    let api_key = if replaying {
        None
    } else {
        credentials(context, &resolved.reference.provider, None)?
            .into_iter()
            .find_map(|credential| credential.key)
    };
    if api_key.is_none()
        && !replaying
        && !context
            .settings
            .key_env_vars(&resolved.reference.provider)
            .is_empty()
        && resolved.reference.provider != "ollama"
    {
        return Err(crate::plan::models::no_credentials(
            &context.settings,
            &resolved.reference.provider,
        ));
    }
    Ok(Endpoint {
        provider: resolved.reference.provider.clone(),
        base_url: resolved.base_url.clone(),
        api_key,
        headers: resolved.headers.clone(),
    })
}

/// The report of a done compaction.
fn print_compacted(context: &Context, id: &str, compacted: &Compacted) -> CliResult<()> {
    let mut stdout = Stdout::new();
    if context.format.is_json() {
        stdout
            .json_report(&CompactReport {
                schema_version: SchemaVersion,
                kind: "compact".to_owned(),
                session_id: id.to_owned(),
                is_error: false,
                compacted: true,
                tokens_before: Some(compacted.tokens_before),
                tokens_after: Some(compacted.tokens_after),
                first_kept_entry_id: Some(compacted.first_kept_entry_id.clone()),
                summarized_by_model: Some(compacted.summarized_by_model),
                summary: Some(compacted.summary.clone()),
            })
            .map_err(stdout_error)?;
    } else {
        stdout
            .write(&format!(
                "compacted {}: {} → {} tokens\n\n{}\n",
                id, compacted.tokens_before, compacted.tokens_after, compacted.summary
            ))
            .map_err(stdout_error)?;
    }
    Ok(())
}

/// The result object's error for a summary that could not be had (nothing was changed).
fn summary_failure(failure: &CompactError, provider: &str) -> ResultError {
    let (kind, status, retryable) = match failure {
        CompactError::Summary(error) => {
            let class = classify(error);
            let retryable = match error {
                crate::provider::ProviderError::Connect(failure) => failure.cause.may_heal(),
                _ => class.error_kind().retryable(),
            };
            (class.error_kind(), error.status(), retryable)
        }
        CompactError::EmptySummary => (ErrorKind::EmptySummary, None, true),
        CompactError::Cancelled | CompactError::Session(_) => (ErrorKind::Interrupted, None, false),
    };
    ResultError {
        kind,
        message: format!("{failure}; the session was not changed"),
        provider: Some(provider.to_owned()),
        status,
        retryable,
        retry_after_s: None,
    }
}

/// The exit code of a compaction that could not get its summary: the failure's class (SPEC §3.5).
fn error_exit(failure: &CompactError) -> Exit {
    match failure {
        CompactError::Summary(error) => classify(error).exit(),
        CompactError::EmptySummary | CompactError::Session(_) => Exit::RunFailed,
        CompactError::Cancelled => Exit::Interrupted,
    }
}

fn failure_hint(failure: &CompactError) -> &'static str {
    match failure {
        CompactError::Summary(error) => match classify(error).exit() {
            Exit::Auth => "check the provider's API key, then run `pincer compact` again",
            Exit::Unavailable => "the provider is unavailable; run `pincer compact` again later",
            _ => "run `pincer compact` again, or pass -m with another model for the summary",
        },
        _ => "run `pincer compact` again, or pass -m with another model for the summary",
    }
}
