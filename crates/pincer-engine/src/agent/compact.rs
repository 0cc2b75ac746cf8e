//! Running a compaction: plan the cut, ask the model for the summary (or fall back to the lists
//! when that call fails), append the `compaction` entry, and rebuild the context from it.
//! Used by the turn loop (threshold and overflow, with the fallback) and by `pincer compact`
//! (which compacts only with a model-written summary and otherwise changes nothing).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::compaction::{self, cut::CutPlan};
use crate::conversation::Message;
use crate::conversation::TokenUsage;
use crate::provider::http::{CallOutcome, Endpoint, Transport};
use crate::provider::retry::{self, RetryNotice, RetryPolicy};
use crate::provider::{self, ApiKind, ModelRequest, ProviderError, ThinkingLevel};
use crate::session::context::build_context;
use crate::session::record::AgentMessage;
use crate::session::record::NewEntry;
use crate::session::store::SessionError;
use crate::session::summary::estimate_tokens;
use crate::session::transcript::Transcript;

/// What a compaction did.
#[derive(Debug, Clone, PartialEq)]
pub struct Compacted {
    /// Context tokens before (usage of the last call plus estimates of later messages).
    pub tokens_before: u64,
    /// Estimated context tokens after.
    pub tokens_after: u64,
    /// The id of the first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// The summary written into the entry.
    pub summary: String,
    /// Whether the model wrote the summary (false: the fallback lists were used).
    pub summarized_by_model: bool,
    /// Usage of the summary call.
    pub usage: TokenUsage,
}

/// How to reach the model that writes summaries.
#[derive(Debug, Clone)]
pub struct SummaryModel<'a> {
    /// Protocol.
    pub api: ApiKind,
    /// Where and with which key.
    pub endpoint: &'a Endpoint,
    /// Model id.
    pub model: &'a str,
    /// Output limit for the summary.
    pub max_output_tokens: u64,
    /// Silence limit.
    pub idle_timeout: Duration,
}

/// The plan for compacting the transcript's current branch now, if there is anything to do
/// (of a transcript whose entries are whole: see [`Transcript::load_full`]).
pub fn plan(transcript: &Transcript, keep_recent_tokens: u64) -> Option<CutPlan> {
    compaction::cut::plan(transcript.entries(), None, keep_recent_tokens)
}

/// Compact the transcript's branch: one summary call, then a `compaction` entry. Returns `None`
/// when there is nothing to compact, or when `cancel` fired during the summary call (nothing is
/// written then: the next run compacts again). The history is cut even when the summary call
/// fails: the fallback summary (file lists and tool failures) takes its place, so a run never dies
/// of its own size (SPEC §7). The call is made once; a run cannot wait out a long outage here.
#[expect(
    clippy::too_many_arguments,
    reason = "one call site per trigger; a struct adds nothing"
)]
pub async fn run(
    client: &Transport,
    summary_model: &SummaryModel<'_>,
    transcript: &mut Transcript,
    keep_recent_tokens: u64,
    instructions: Option<&str>,
    cancel: &CancellationToken,
    messages_out: &mut Vec<Message>,
    plan_in: Option<CutPlan>,
) -> Result<Option<Compacted>, SessionError> {
    transcript.load_full()?;
    let Some(plan) = plan_in.or_else(|| plan(transcript, keep_recent_tokens)) else {
        return Ok(None);
    };
    let once = RetryPolicy {
        max_retries: 0,
        ..RetryPolicy::default()
    };
    let (written, usage) = request_summary(
        client,
        summary_model,
        &plan,
        instructions,
        cancel,
        (&once, &mut |_| {}),
    )
    .await;
    if let Err(CompactError::Cancelled) = written {
        // A signal or the timeout: leave the history as it is rather than cut it with the
        // fallback summary.
        return Ok(None);
    }
    append_compaction(
        transcript,
        plan,
        written.ok().as_deref(),
        usage,
        messages_out,
    )
    .map(Some)
}

/// Why [`run_requiring_summary`] compacted nothing.
#[derive(Debug, thiserror::Error)]
pub enum CompactError {
    /// The summary call failed after its retries. Nothing was written.
    #[error("the summary call failed: {0}")]
    Summary(ProviderError),
    /// The model answered without any summary text. Nothing was written.
    #[error("the model answered with an empty summary")]
    EmptySummary,
    /// The wait for the summary was cancelled. Nothing was written.
    #[error("cancelled while waiting for the summary")]
    Cancelled,
    /// Writing the `compaction` entry failed.
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// Compact on request (`pincer compact`): like [`run`], with the summary call retried per
/// `retry`, but nothing is cut unless the model wrote a summary. A failed call leaves the
/// session file exactly as it was: the user asked for a summary, not for the fallback lists,
/// and can try again once the provider answers (SPEC §7).
#[expect(
    clippy::too_many_arguments,
    reason = "run's arguments plus the retry policy and its notices"
)]
pub async fn run_requiring_summary(
    client: &Transport,
    summary_model: &SummaryModel<'_>,
    (retry, on_retry): (&RetryPolicy, &mut dyn FnMut(RetryNotice)),
    transcript: &mut Transcript,
    keep_recent_tokens: u64,
    instructions: Option<&str>,
    cancel: &CancellationToken,
    messages_out: &mut Vec<Message>,
) -> Result<Option<Compacted>, CompactError> {
    transcript.load_full()?;
    let Some(plan) = plan(transcript, keep_recent_tokens) else {
        return Ok(None);
    };
    let (written, usage) = request_summary(
        client,
        summary_model,
        &plan,
        instructions,
        cancel,
        (retry, on_retry),
    )
    .await;
    let summary = written?;
    Ok(Some(append_compaction(
        transcript,
        plan,
        Some(&summary),
        usage,
        messages_out,
    )?))
}

/// The summary call for `plan`: the model's non-empty text, or why there is none; with the
/// usage of the call either way.
async fn request_summary(
    client: &Transport,
    summary_model: &SummaryModel<'_>,
    plan: &CutPlan,
    instructions: Option<&str>,
    cancel: &CancellationToken,
    (retry, on_retry): (&RetryPolicy, &mut dyn FnMut(RetryNotice)),
) -> (Result<String, CompactError>, TokenUsage) {
    let request = compaction::summary::summary_request(plan, instructions);
    let model_request = ModelRequest {
        cache_key: None,
        // The summary prompt is never sent again: a cache write would be paid for nothing.
        cache_writes: None,
        model: summary_model.model.to_owned(),
        system_prompt: request.system_prompt,
        messages: request.messages.into(),
        tools: Vec::new(),
        thinking: ThinkingLevel::Off,
        thinking_budget: None,
        max_output_tokens: summary_model.max_output_tokens,
        reasoning_model: false,
        output_format: None,
        web_search: None,
    };
    let build = || provider::protocol(summary_model.api, &model_request);
    let (outcome, _) = retry::call_with_retries(
        client,
        summary_model.endpoint,
        &build,
        summary_model.idle_timeout,
        cancel,
        &mut |_| {},
        on_retry,
        retry,
    )
    .await;
    match outcome {
        CallOutcome::Complete(accumulator) => {
            let text = accumulator.text();
            let written = if text.trim().is_empty() {
                Err(CompactError::EmptySummary)
            } else {
                Ok(text)
            };
            (written, accumulator.usage())
        }
        CallOutcome::Failed { error, partial } => {
            (Err(CompactError::Summary(error)), partial.usage())
        }
        CallOutcome::Cancelled { partial } => (Err(CompactError::Cancelled), partial.usage()),
    }
}

/// Append the `compaction` entry for `plan` — the model's summary, or the fallback lists when
/// `model_summary` is `None` — and rebuild `messages_out` from the compacted branch.
fn append_compaction(
    transcript: &mut Transcript,
    plan: CutPlan,
    model_summary: Option<&str>,
    usage: TokenUsage,
    messages_out: &mut Vec<Message>,
) -> Result<Compacted, SessionError> {
    let mut summarized: Vec<AgentMessage> = plan.to_summarize.clone();
    summarized.extend(plan.turn_prefix.iter().cloned());
    let files = compaction::summary::file_operations(&summarized, plan.previous_details.as_ref());
    let failures = compaction::summary::tool_failures(&summarized);
    let summary = compaction::summary::finish_summary(model_summary, &files, &failures);
    transcript.append(NewEntry::Compaction {
        summary: &summary,
        first_kept_entry_id: &plan.first_kept_entry_id,
        tokens_before: plan.tokens_before,
        details: &compaction::summary::details(&files),
    })?;
    transcript.sync()?;
    let rebuilt = build_context(transcript.entries(), None);
    let tokens_after = estimate_tokens(&rebuilt.messages);
    *messages_out = rebuilt.into_conversation();
    Ok(Compacted {
        tokens_before: plan.tokens_before,
        tokens_after,
        first_kept_entry_id: plan.first_kept_entry_id,
        summary,
        summarized_by_model: model_summary.is_some(),
        usage,
    })
}
