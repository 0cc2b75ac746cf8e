//! `pincer sessions …`: list, show, export, fork, rename, rm, prune, path, repair (SPEC §1.5).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::ledger::window::parse_duration;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::{Context, ModelFacts, fork_error, report_torn, session_error, stdout_error};
use crate::cli::{
    ExportFormat, SessionsArgs, SessionsCommand, SessionsExportArgs, SessionsForkArgs,
    SessionsListArgs, SessionsPathArgs, SessionsPruneArgs, SessionsRenameArgs, SessionsRepairArgs,
    SessionsRmArgs, SessionsShowArgs,
};
use crate::error::{CliError, CliResult, Exit};
use crate::lenient::Lenient;
use crate::output::Stdout;
use crate::output::report::{
    ListUsage, RebuiltHeaderReport, SessionExport, SessionForked, SessionListItem, SessionPath,
    SessionRenamed, SessionRepaired, SessionShown, SessionTree, SessionTreeShown, SessionsPruned,
    SessionsRemoved, StatusContext, TornTailReport, TreeNode,
};
use crate::session::fork;
use crate::session::index::{self, Index, IndexEntry};
use crate::session::listing::Row;
use crate::session::names::give_name;
use crate::session::ownership::{self, Proof};
use crate::session::record::{
    self, AgentMessage, AssistantContent, ContentBlock, Entry, MessageContent,
};
use crate::session::store::{self, SessionLock, TornRepair};

/// Run a `sessions` subcommand (none = `list`).
pub(crate) fn dispatch(context: &Context, args: SessionsArgs) -> CliResult<Exit> {
    if let Some(store) = crate::remote::open(&context.settings)?
        && let Some(exit) = super::sessions_store::dispatch(
            context,
            &super::sessions_store::Remote::new(store)?,
            &args,
        )?
    {
        return Ok(exit);
    }
    match args.command {
        None => list(context, &args.list),
        Some(SessionsCommand::List(list_args)) => list(context, &list_args),
        Some(SessionsCommand::Show(show_args)) => show(context, &show_args),
        Some(SessionsCommand::Export(export_args)) => export(context, &export_args),
        Some(SessionsCommand::Fork(fork_args)) => fork(context, &fork_args),
        Some(SessionsCommand::Rename(rename_args)) => rename(context, &rename_args),
        Some(SessionsCommand::Rm(rm_args)) => remove(context, &rm_args),
        Some(SessionsCommand::Prune(prune_args)) => prune(context, &prune_args),
        Some(SessionsCommand::Path(path_args)) => path(context, &path_args),
        Some(SessionsCommand::Repair(repair_args)) => repair(context, &repair_args),
        Some(SessionsCommand::Push(_)) => Err(super::sessions_store::needs_store("push")),
        Some(SessionsCommand::Pull(_)) => Err(super::sessions_store::needs_store("pull")),
    }
}

/// The sessions the session arguments `queries` can mean (see [`index::scoped`]).
fn load_for<'a>(context: &Context, queries: impl IntoIterator<Item = &'a str>) -> CliResult<Index> {
    let wanted = index::Wanted {
        queries: queries.into_iter().collect(),
        last: None,
    };
    super::load_scoped(context, &wanted)
}

/// Resolve a session argument (id, unique id prefix, name, or file path) to its file.
fn resolve(context: &Context, index: &Index, query: &str) -> CliResult<PathBuf> {
    super::resolve_selector(context, index, Some(query), false, false)
}

/// `path` as a session file of the sessions directory that may be deleted or rewritten, or a
/// usage error naming it (see `session::ownership`).
fn owned(context: &Context, path: &Path, proof: Proof) -> CliResult<PathBuf> {
    owned_in(
        &ownership::SessionsDir::new(context.sessions_dir()),
        path,
        proof,
    )
}

/// [`owned`] against a sessions directory resolved once.
fn owned_in(dir: &ownership::SessionsDir<'_>, path: &Path, proof: Proof) -> CliResult<PathBuf> {
    dir.prove(path, proof)
        .map_err(|error| CliError::usage(error.to_string()).with_hint(error.hint()))
}

fn load_session(path: &Path) -> CliResult<store::LoadedSession> {
    store::load(path).map_err(session_error)
}

fn output(text: &str) -> CliResult<()> {
    Stdout::new().write(text).map_err(stdout_error)
}

fn output_json(value: &impl serde::Serialize) -> CliResult<()> {
    Stdout::new().json_report(value).map_err(stdout_error)
}

// ---------------------------------------------------------------------------------------- list

fn list(context: &Context, args: &SessionsListArgs) -> CliResult<Exit> {
    let cwd_filter = scope_filter(context, args.cwd.as_deref(), args.all);
    let name_filter = match &args.name {
        Some(pattern) => Some(
            globset::Glob::new(pattern)
                .map_err(|error| CliError::usage(format!("--name: {error}")))?
                .compile_matcher(),
        ),
        None => None,
    };
    let listed = |cwd: &str, name: Option<&str>| {
        cwd_filter.as_deref().is_none_or(|wanted| cwd == wanted)
            && name_filter
                .as_ref()
                .is_none_or(|matcher| name.is_some_and(|name| matcher.is_match(name)))
    };
    let keep = |entry: &IndexEntry| listed(&entry.summary.cwd, entry.summary.name.as_deref());
    let mut listing = index::Listing::open(
        context.sessions_dir(),
        cwd_filter.as_deref(),
        args.limit.is_none(),
    )
    .map_err(session_error)?;
    super::tell_index_report(context, listing.report());
    let facts = ModelFacts::new(context);
    let mut out = Buffered::default();
    if !context.format.is_json() {
        return list_table(
            context,
            cwd_filter.as_deref(),
            &mut listing,
            args.limit,
            &keep,
            &facts,
        );
    }
    // One JSON array written an item at a time: a listing of every session never holds them all
    // (#46). One line through a pipe, indented on a terminal, as every command's result (#47).
    let pretty = crate::output::stdout_is_terminal();
    let mut first = true;
    listing
        .each(args.limit, keep, |entry, short| {
            let item = list_item(context, &facts, entry, short);
            if !pretty {
                out.text.push(if first { '[' } else { ',' });
                first = false;
                out.text
                    .push_str(&serde_json::to_string(&item).map_err(std::io::Error::other)?);
                return out.flush_full();
            }
            let text = serde_json::to_string_pretty(&item).map_err(std::io::Error::other)?;
            out.text.push_str(if first { "[\n" } else { ",\n" });
            first = false;
            for (number, line) in text.lines().enumerate() {
                if number > 0 {
                    out.text.push('\n');
                }
                out.text.push_str("  ");
                out.text.push_str(line);
            }
            out.flush_full()
        })
        .map_err(stdout_error)?;
    out.text.push_str(match (first, pretty) {
        (true, _) => "[]\n",
        (false, true) => "\n]\n",
        (false, false) => "]\n",
    });
    out.flush().map_err(stdout_error)?;
    Ok(Exit::Success)
}

/// Text for stdout, written a chunk at a time.
#[derive(Default)]
struct Buffered {
    text: String,
    stdout: Stdout,
}

impl Buffered {
    /// How much text is gathered before it is written.
    const CHUNK: usize = 64 * 1024;

    /// Write the text gathered once there is a chunk of it.
    fn flush_full(&mut self) -> std::io::Result<()> {
        if self.text.len() < Self::CHUNK {
            return Ok(());
        }
        self.flush()
    }

    /// Write the text gathered.
    fn flush(&mut self) -> std::io::Result<()> {
        self.stdout.write(&self.text)?;
        self.text.clear();
        Ok(())
    }
}

/// The table's header.
const LIST_HEADER: [&str; 7] = ["ID", "NAME", "AGE", "MODEL", "CONTEXT", "TURNS", "CWD"];

/// The text listing of what `listing` walks (newest first), in one walk: the table's columns
/// are as wide as their widest cell, so the rows are rendered first and written once every
/// width is known. What is held meanwhile is the rendered cells (about a hundred bytes a
/// session), not the sessions' summaries; a second walk read every row and stat'ed every file
/// again, which made the text form half again as slow as `--json` (#46).
fn list_table(
    context: &Context,
    cwd_filter: Option<&str>,
    listing: &mut index::Listing,
    limit: Option<usize>,
    keep: &dyn Fn(&IndexEntry) -> bool,
    facts: &ModelFacts<'_>,
) -> CliResult<Exit> {
    let now = OffsetDateTime::now_utc();
    // Thousands of sessions ran on a few models: each model's window is looked up once.
    let mut windows: std::collections::HashMap<
        String,
        std::collections::HashMap<String, Option<u64>>,
    > = std::collections::HashMap::new();
    let mut window = |provider: &str, model: &str| {
        *windows
            .entry(provider.to_owned())
            .or_default()
            .entry(model.to_owned())
            .or_insert_with(|| facts.window(provider, model))
    };
    let mut widths = LIST_HEADER.map(|cell| cell.chars().count());
    // Every cell's text one after another, and where each ends.
    let mut cells = String::new();
    let mut ends: Vec<u32> = Vec::new();
    let _ = listing.each(limit, keep, |entry, short| {
        let row = Row::of(entry);
        for (width, cell) in widths
            .iter_mut()
            .zip(list_cells(&row, short, now, &mut window))
        {
            *width = (*width).max(cell.chars().count());
            cells.push_str(&cell);
            ends.push(u32::try_from(cells.len()).unwrap_or(u32::MAX));
        }
        Ok::<(), std::convert::Infallible>(())
    });
    if ends.is_empty() {
        let scope = match cwd_filter {
            Some(cwd) => format!("no sessions in '{cwd}' (pass --all to list every directory)"),
            None => "no sessions".to_owned(),
        };
        context.diagnostics.info(&scope);
        return Ok(Exit::Success);
    }
    let mut out = Buffered::default();
    push_table_line(&mut out.text, &LIST_HEADER, &widths);
    let mut start = 0usize;
    for row in ends.chunks_exact(LIST_HEADER.len()) {
        let row: [&str; 7] = std::array::from_fn(|column| {
            let end = row[column] as usize;
            let cell = cells.get(start..end).unwrap_or_default();
            start = end;
            cell
        });
        push_table_line(&mut out.text, &row, &widths);
        out.flush_full().map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)?;
    Ok(Exit::Success)
}

/// The cells of `row` in the text listing, `window` giving a model's context window.
fn list_cells<'a>(
    row: &'a Row<'a>,
    short_id: &'a str,
    now: OffsetDateTime,
    window: &mut impl FnMut(&str, &str) -> Option<u64>,
) -> [Cow<'a, str>; 7] {
    let context_cell = if row.problem.is_some() {
        Cow::Borrowed("damaged")
    } else {
        let window = match (row.provider.as_deref(), row.model.as_deref()) {
            (Some(provider), Some(model)) => window(provider, model),
            _ => None,
        };
        row.occupancy(window)
            .map_or(Cow::Borrowed("-"), |o| Cow::Owned(o.short()))
    };
    [
        Cow::Borrowed(short_id),
        Cow::Borrowed(row.name.as_deref().unwrap_or("-")),
        Cow::Owned(age(&row.updated, now)),
        row.model_ref().unwrap_or(Cow::Borrowed("-")),
        context_cell,
        Cow::Owned(row.turns.to_string()),
        Cow::Borrowed(&*row.cwd),
    ]
}

/// Which workspace a listing or prune covers: `--all` none, `--cwd DIR` that one, else this one.
fn scope_filter(context: &Context, cwd: Option<&Path>, all: bool) -> Option<String> {
    if all {
        return None;
    }
    let directory = match cwd {
        Some(directory) => {
            std::fs::canonicalize(directory).unwrap_or_else(|_| directory.to_owned())
        }
        None => context.workspace.clone(),
    };
    Some(directory.to_string_lossy().into_owned())
}

/// One line of the table: each cell padded to its column's width, but the last.
fn push_table_line<S: AsRef<str>>(text: &mut String, cells: &[S; 7], widths: &[usize; 7]) {
    // Padded by hand: formatting seven cells a row with `{:<width$}` took as long as reading
    // the index, for 10,000 sessions.
    let start = text.len();
    for (column, cell) in cells.iter().enumerate() {
        let cell = cell.as_ref();
        text.push_str(cell);
        if column + 1 < cells.len() {
            // A session written between the two walks may have a wider cell: it stays whole.
            let pad = widths[column].saturating_sub(cell.chars().count()) + 2;
            text.extend(std::iter::repeat_n(' ', pad));
        }
    }
    let kept = text[start..].trim_end().len();
    text.truncate(start + kept);
    text.push('\n');
}

fn list_item(
    context: &Context,
    facts: &ModelFacts<'_>,
    entry: &IndexEntry,
    short_id: &str,
) -> SessionListItem {
    let summary = &entry.summary;
    let usage = summary.cumulative_usage();
    SessionListItem {
        id: summary.id.clone(),
        name: summary.name.clone(),
        file: context.sessions_dir().join(&entry.file),
        cwd: summary.cwd.clone(),
        created: summary.created.clone(),
        updated: summary.updated.clone(),
        model: summary.model_ref(),
        turns: summary.turns,
        messages: summary.messages,
        context: facts.occupancy(summary).map(|o| StatusContext {
            tokens: Some(o.tokens),
            window: o.window,
            percent: o.percent,
            estimated: summary.context_estimated,
        }),
        usage: ListUsage {
            input_tokens: usage.input,
            output_tokens: usage.output,
            cache_read_input_tokens: usage.cache_read,
            cache_creation_input_tokens: usage.cache_write,
        },
        total_cost_usd: facts.cost(summary),
        compactions: summary.compactions,
        last_run_aborted: summary.last_run_aborted,
        problem: entry.problem.clone(),
        short_id: short_id.to_owned(),
    }
}

/// Parse an ISO timestamp.
pub(crate) fn parse_time(text: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(text, &Rfc3339).ok()
}

/// `3m`, `5h`, `2d` since `timestamp`.
pub(crate) fn age(timestamp: &str, now: OffsetDateTime) -> String {
    let Some(then) = parse_time(timestamp) else {
        return "-".to_owned();
    };
    let seconds = (now - then).whole_seconds().max(0);
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3_600 => format!("{}m", seconds / 60),
        3_600..86_400 => format!("{}h", seconds / 3_600),
        _ => format!("{}d", seconds / 86_400),
    }
}

// ---------------------------------------------------------------------------------------- show

fn show(context: &Context, args: &SessionsShowArgs) -> CliResult<Exit> {
    let index = load_for(context, [args.session.as_str()])?;
    let path = resolve(context, &index, &args.session)?;
    show_file(context, &path, args.tree)
}

/// `show` of the session file at `path` (`tree`: every branch).
pub(super) fn show_file(context: &Context, path: &Path, tree: bool) -> CliResult<Exit> {
    let path = path.to_owned();
    let loaded = load_session(&path)?;
    let leaf = loaded.leaf_id().map(str::to_owned);
    if context.format.is_json() {
        if tree {
            output_json(&SessionTreeShown {
                id: loaded.header.id.clone(),
                file: path,
                tree: tree_of(&loaded.entries),
                leaf,
            })?;
        } else {
            let branch = crate::session::context::branch_path(&loaded.entries, leaf.as_deref());
            output_json(&SessionShown {
                id: loaded.header.id.clone(),
                file: path,
                header: loaded.header.clone(),
                entries: branch.into_iter().cloned().collect(),
            })?;
        }
        return Ok(Exit::Success);
    }
    let text = if tree {
        render_tree(&loaded.entries, leaf.as_deref())
    } else {
        let branch = crate::session::context::branch_path(&loaded.entries, leaf.as_deref());
        render_transcript(&branch, context.diagnostics.verbosity() > 0)
    };
    output(&text)?;
    Ok(Exit::Success)
}

/// The text of a message: its text blocks, and `[image]` for each image.
fn message_text(message: &AgentMessage) -> String {
    match message {
        AgentMessage::User(user) => content_text(&user.content),
        AgentMessage::Assistant(assistant) => assistant
            .content
            .iter()
            .filter_map(|block| match block {
                AssistantContent::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        AgentMessage::ToolResult(result) => blocks_text(&result.content),
        AgentMessage::Other(value) => Unmodeled::of(value).text(),
    }
}

fn content_text(content: &MessageContent) -> String {
    match content {
        MessageContent::Text(text) => text.clone(),
        MessageContent::Blocks(blocks) => blocks_text(blocks),
    }
}

fn blocks_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            ContentBlock::Image(_) => Some("[image]"),
            ContentBlock::Unknown(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a listing shows of a message whose role pincer does not model (pi's `bashExecution`,
/// `custom`, … kept verbatim): its role and, when it has one in the usual shape, its content;
/// of a block of a type pincer does not model, its name.
#[derive(serde::Deserialize, Default)]
struct Unmodeled {
    #[serde(default)]
    role: Lenient<String>,
    #[serde(default)]
    name: Lenient<String>,
    #[serde(default)]
    content: Lenient<MessageContent>,
}

impl Unmodeled {
    fn of(value: &Value) -> Self {
        serde::Deserialize::deserialize(value).unwrap_or_default()
    }

    fn role(&self) -> Option<&str> {
        self.role.0.as_deref()
    }

    fn text(&self) -> String {
        self.content
            .0
            .as_ref()
            .map(content_text)
            .unwrap_or_default()
    }
}

fn one_line(text: &str, limit: usize) -> String {
    let flat: String = text
        .chars()
        .map(|character| {
            if character.is_control() {
                ' '
            } else {
                character
            }
        })
        .collect();
    let flat = flat.trim();
    if flat.chars().count() > limit {
        let cut: String = flat.chars().take(limit).collect();
        format!("{cut}…")
    } else {
        flat.to_owned()
    }
}

fn render_transcript(branch: &[&Entry], verbose: bool) -> String {
    let mut text = String::new();
    for entry in branch {
        match entry {
            Entry::Message(message_entry) => match &message_entry.message {
                AgentMessage::User(_) => {
                    let _ = writeln!(text, "user: {}\n", message_text(&message_entry.message));
                }
                AgentMessage::Assistant(assistant) => {
                    let mut body = String::new();
                    for block in &assistant.content {
                        match block {
                            AssistantContent::Text(text) => {
                                let _ = writeln!(body, "{}", text.text);
                            }
                            AssistantContent::Thinking(thinking) if verbose => {
                                let _ = writeln!(
                                    body,
                                    "  [thinking] {}",
                                    one_line(&thinking.thinking, 200)
                                );
                            }
                            AssistantContent::ToolCall(call) => {
                                let _ = writeln!(
                                    body,
                                    "  → {} {}",
                                    call.name,
                                    arguments_line(&call.arguments)
                                );
                            }
                            AssistantContent::ServerToolCall(search) => {
                                let _ = writeln!(body, "  {}", web_search_line(search));
                            }
                            _ => {}
                        }
                    }
                    let status = match assistant.stop_reason {
                        record::StopReason::Aborted => " [aborted]",
                        record::StopReason::Error => " [error]",
                        _ => "",
                    };
                    let _ = writeln!(
                        text,
                        "assistant ({}/{}){status}: {}",
                        assistant.provider,
                        assistant.model,
                        body.trim_end()
                    );
                    if let Some(error) = &assistant.error_message {
                        let _ = writeln!(text, "  error: {}", one_line(error, 300));
                    }
                    text.push('\n');
                }
                AgentMessage::ToolResult(result) => {
                    let _ = writeln!(
                        text,
                        "  ← {}{}: {}\n",
                        result.tool_name,
                        if result.is_error { " (error)" } else { "" },
                        one_line(&blocks_text(&result.content), 200)
                    );
                }
                AgentMessage::Other(value) => {
                    let other = Unmodeled::of(value);
                    let _ = writeln!(
                        text,
                        "{}: {}\n",
                        other.role().unwrap_or("?"),
                        one_line(&other.text(), 300)
                    );
                }
            },
            Entry::Compaction(compaction) => {
                let _ = writeln!(
                    text,
                    "── compacted: {} tokens summarized ──\n{}\n",
                    compaction.tokens_before, compaction.summary
                );
            }
            Entry::BranchSummary(summary) => {
                let _ = writeln!(text, "[{}] {}\n", entry.kind(), summary.summary);
            }
            Entry::CustomMessage(custom) => {
                let _ = writeln!(
                    text,
                    "[{}] {}\n",
                    entry.kind(),
                    content_text(&custom.content)
                );
            }
            Entry::ModelChange(change) if verbose => {
                let _ = writeln!(text, "[model: {}/{}]\n", change.provider, change.model_id);
            }
            _ => {}
        }
    }
    text
}

fn entry_label(entry: &Entry) -> String {
    match entry {
        Entry::Message(message_entry) => {
            let role: Cow<str> = match &message_entry.message {
                AgentMessage::User(_) => "user".into(),
                AgentMessage::Assistant(_) => "assistant".into(),
                AgentMessage::ToolResult(_) => "toolResult".into(),
                AgentMessage::Other(value) => Unmodeled::of(value)
                    .role()
                    .unwrap_or("message")
                    .to_owned()
                    .into(),
            };
            let mut text = message_text(&message_entry.message);
            if text.is_empty()
                && let AgentMessage::Assistant(assistant) = &message_entry.message
            {
                text = assistant
                    .content
                    .iter()
                    .filter_map(|block| match block {
                        AssistantContent::ToolCall(call) => Some(call.name.clone()),
                        AssistantContent::ServerToolCall(search) => Some(search.name.clone()),
                        AssistantContent::Unknown(value) => Unmodeled::of(value).name.0,
                        _ => None,
                    })
                    .map(|name| format!("→ {name}"))
                    .collect::<Vec<_>>()
                    .join(" ");
            }
            if let AgentMessage::Assistant(assistant) = &message_entry.message {
                match assistant.stop_reason {
                    record::StopReason::Aborted => text.insert_str(0, "[aborted] "),
                    record::StopReason::Error => text.insert_str(0, "[error] "),
                    _ => {}
                }
            }
            format!("{role}: {}", one_line(&text, 60))
        }
        Entry::Compaction(compaction) => {
            format!("compaction ({} tokens before)", compaction.tokens_before)
        }
        Entry::ModelChange(change) => {
            format!("model_change {}/{}", change.provider, change.model_id)
        }
        Entry::SessionInfo(info) => format!(
            "session_info {}",
            info.name.as_deref().unwrap_or("(cleared)")
        ),
        other => other.kind().to_owned(),
    }
}

/// Children of each entry in file order, and the roots (no parent, or a parent that is missing).
fn children_map(entries: &[Entry]) -> (Vec<usize>, BTreeMap<usize, Vec<usize>>) {
    let position: std::collections::HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(index, entry)| (entry.id(), index))
        .collect();
    let mut roots = Vec::new();
    let mut children: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (index, entry) in entries.iter().enumerate() {
        match entry.parent_id().and_then(|parent| position.get(parent)) {
            Some(parent) if *parent != index => children.entry(*parent).or_default().push(index),
            _ => roots.push(index),
        }
    }
    (roots, children)
}

fn render_tree(entries: &[Entry], leaf: Option<&str>) -> String {
    let on_branch: std::collections::HashSet<&str> =
        crate::session::context::branch_path(entries, leaf)
            .iter()
            .map(|entry| entry.id())
            .collect();
    let (roots, children) = children_map(entries);
    let mut text = String::new();
    let mut seen = vec![false; entries.len()];
    // (entry, prefix of its own line, prefix of its descendants' lines). The prefix grows only
    // where the tree forks, so a long linear session stays flat.
    let mut stack: Vec<(usize, String, String)> = roots
        .iter()
        .rev()
        .map(|root| (*root, String::new(), String::new()))
        .collect();
    while let Some((index, line_prefix, child_prefix)) = stack.pop() {
        if std::mem::replace(&mut seen[index], true) {
            continue;
        }
        let entry = &entries[index];
        let marker = if Some(entry.id()) == leaf {
            '@'
        } else if on_branch.contains(entry.id()) {
            '*'
        } else {
            ' '
        };
        let _ = writeln!(
            text,
            "{line_prefix}{marker} {} {}",
            entry.id(),
            entry_label(entry)
        );
        let kids = children.get(&index).cloned().unwrap_or_default();
        if kids.len() == 1 {
            stack.push((kids[0], child_prefix.clone(), child_prefix));
            continue;
        }
        for (position, kid) in kids.iter().enumerate().rev() {
            let last = position + 1 == kids.len();
            let (branch, continuation) = if last {
                ("└─", "  ")
            } else {
                ("├─", "│ ")
            };
            stack.push((
                *kid,
                format!("{child_prefix}{branch}"),
                format!("{child_prefix}{continuation}"),
            ));
        }
    }
    text
}

fn tree_of(entries: &[Entry]) -> SessionTree {
    let (roots, children) = children_map(entries);
    let nodes = entries
        .iter()
        .enumerate()
        .map(|(index, entry)| TreeNode {
            id: entry.id().to_owned(),
            parent_id: entry.parent_id().map(str::to_owned),
            kind: entry.kind().to_owned(),
            label: entry_label(entry),
            children: children
                .get(&index)
                .map(|kids| {
                    kids.iter()
                        .map(|kid| entries[*kid].id().to_owned())
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    SessionTree {
        roots: roots
            .iter()
            .map(|root| entries[*root].id().to_owned())
            .collect(),
        nodes,
    }
}

// -------------------------------------------------------------------------------------- export

fn export(context: &Context, args: &SessionsExportArgs) -> CliResult<Exit> {
    let index = load_for(context, [args.session.as_str()])?;
    let path = resolve(context, &index, &args.session)?;
    export_file(&path, args)
}

/// `export` of the session file at `path`.
pub(super) fn export_file(path: &Path, args: &SessionsExportArgs) -> CliResult<Exit> {
    let loaded = load_session(path)?;
    let bytes: Vec<u8> = match args.format {
        ExportFormat::Jsonl => {
            let mut text = record::to_line(&loaded.header)
                .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?;
            for entry in &loaded.entries {
                text.push_str(
                    &record::to_line(entry)
                        .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?,
                );
            }
            text.into_bytes()
        }
        ExportFormat::Json => {
            let mut text = serde_json::to_string_pretty(&SessionExport {
                header: Cow::Borrowed(&loaded.header),
                entries: Cow::Borrowed(&loaded.entries),
            })
            .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?;
            text.push('\n');
            text.into_bytes()
        }
        ExportFormat::Markdown => render_markdown(&loaded).into_bytes(),
    };
    match &args.output {
        Some(file) => {
            crate::fs::check_for_user(file)
                .map_err(|error| super::user_file_error("export", file, &error))?;
            // A rename: whatever appeared at the path since the check is replaced, not
            // followed or written into.
            crate::fs::write_atomic(file, &bytes).map_err(|error| {
                CliError::new(
                    Exit::RunFailed,
                    format!("cannot write '{}': {error}", file.display()),
                )
            })?;
        }
        None => output(&String::from_utf8_lossy(&bytes))?,
    }
    Ok(Exit::Success)
}

fn render_markdown(loaded: &store::LoadedSession) -> String {
    let mut text = format!("# Session {}\n\n", loaded.header.id);
    let _ = writeln!(text, "- workspace: `{}`", loaded.header.cwd);
    let _ = writeln!(text, "- created: {}\n", loaded.header.timestamp);
    let branch = crate::session::context::branch_path(&loaded.entries, loaded.leaf_id());
    for entry in branch {
        match entry {
            Entry::Message(message_entry) => match &message_entry.message {
                AgentMessage::User(_) => {
                    let _ = writeln!(
                        text,
                        "## User\n\n{}\n",
                        message_text(&message_entry.message)
                    );
                }
                AgentMessage::Assistant(assistant) => {
                    let _ = writeln!(
                        text,
                        "## Assistant ({}/{})\n",
                        assistant.provider, assistant.model
                    );
                    for block in &assistant.content {
                        match block {
                            AssistantContent::Text(block) => {
                                let _ = writeln!(text, "{}\n", block.text);
                            }
                            AssistantContent::Thinking(thinking) => {
                                let quoted: Vec<String> = thinking
                                    .thinking
                                    .lines()
                                    .map(|line| format!("> {line}"))
                                    .collect();
                                let _ = writeln!(text, "{}\n", quoted.join("\n"));
                            }
                            AssistantContent::ToolCall(call) => {
                                let arguments = serde_json::to_string_pretty(&call.arguments)
                                    .unwrap_or_default();
                                let _ = writeln!(
                                    text,
                                    "**Tool call** `{}`\n\n```json\n{arguments}\n```\n",
                                    call.name
                                );
                            }
                            AssistantContent::ServerToolCall(search) => {
                                let _ = writeln!(text, "**{}**\n", web_search_line(search));
                            }
                            AssistantContent::Unknown(_) => {}
                        }
                    }
                }
                AgentMessage::ToolResult(result) => {
                    let _ = writeln!(
                        text,
                        "**Tool result** `{}`{}\n\n```\n{}\n```\n",
                        result.tool_name,
                        if result.is_error { " (error)" } else { "" },
                        blocks_text(&result.content)
                    );
                }
                AgentMessage::Other(value) => {
                    let other = Unmodeled::of(value);
                    let _ = writeln!(
                        text,
                        "## {}\n\n{}\n",
                        other.role().unwrap_or("message"),
                        other.text()
                    );
                }
            },
            Entry::Compaction(compaction) => {
                let _ = writeln!(text, "## Compaction summary\n\n{}\n", compaction.summary);
            }
            _ => {}
        }
    }
    text
}

// ---------------------------------------------------------------------------------------- fork

fn fork(context: &Context, args: &SessionsForkArgs) -> CliResult<Exit> {
    let index = load_for(context, [args.session.as_str()])?;
    let path = resolve(context, &index, &args.session)?;
    let loaded = load_session(&path)?;
    let forked = match &args.name {
        Some(name) => give_name(context.sessions_dir(), context.wait, name, None, || {
            fork::fork(
                context.sessions_dir(),
                &loaded,
                args.at.as_deref(),
                Some(name),
                None,
            )
            .map_err(fork_error)
        })?,
        None => fork::fork(
            context.sessions_dir(),
            &loaded,
            args.at.as_deref(),
            None,
            None,
        )
        .map_err(fork_error)?,
    };
    let (id, new_path, at) = (forked.id, forked.path, forked.at);
    let _ = index::update_one(context.sessions_dir(), &new_path);
    if context.format.is_json() {
        output_json(&SessionForked {
            id,
            file: new_path,
            forked_from: loaded.header.id.clone(),
            at,
            name: args.name.clone(),
        })?;
    } else {
        output(&format!("{id}\n"))?;
        context
            .diagnostics
            .detail(&format!("forked into {}", new_path.display()));
    }
    Ok(Exit::Success)
}

// -------------------------------------------------------------------------------------- rename

fn rename(context: &Context, args: &SessionsRenameArgs) -> CliResult<Exit> {
    let index = load_for(context, [args.session.as_str()])?;
    let path = resolve(context, &index, &args.session)?;
    let (mut writer, loaded, torn) = store::open_for_append(&path, context.wait)
        .map_err(|error| session_error(error.naming(index.name_of(&path))))?;
    report_torn(context, &path, torn.as_ref());
    give_name(
        context.sessions_dir(),
        context.wait,
        &args.name,
        Some(&loaded.header.id),
        || {
            let entry = store::new_entry(
                &writer,
                crate::session::record::NewEntry::SessionInfo {
                    name: Some(&args.name),
                },
            )
            .map_err(session_error)?;
            writer.append(&entry).map_err(session_error)?;
            writer.sync().map_err(session_error)
        },
    )?;
    drop(writer);
    let _ = index::update_one(context.sessions_dir(), &path);
    if context.format.is_json() {
        output_json(&SessionRenamed {
            id: loaded.header.id.clone(),
            name: args.name.clone(),
            file: path,
        })?;
    } else {
        let short_ids = index.short_ids();
        context.diagnostics.info(&format!(
            "renamed {} to '{}'",
            short_ids
                .get(loaded.header.id.as_str())
                .copied()
                .unwrap_or(&loaded.header.id),
            args.name
        ));
    }
    Ok(Exit::Success)
}

// ------------------------------------------------------------------------------------------ rm

/// Side files a repair or migration left next to a session.
fn side_files(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let name = name.to_string_lossy();
    let prefixes =
        [".torn-", ".corrupt-", ".pre-migration-"].map(|suffix| format!("{name}{suffix}"));
    std::fs::read_dir(dir)
        .map(|reader| {
            reader
                .flatten()
                .filter(|entry| {
                    let file = entry.file_name().to_string_lossy().into_owned();
                    prefixes
                        .iter()
                        .any(|prefix| file.starts_with(prefix.as_str()))
                })
                .map(|entry| entry.path())
                .collect()
        })
        .unwrap_or_default()
}

fn delete_session(
    context: &Context,
    path: &Path,
    name: Option<&str>,
    with_side_files: bool,
) -> CliResult<()> {
    let lock = SessionLock::acquire(path, context.wait)
        .map_err(|error| session_error(error.naming(name)))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    // In the index's transaction, so that the next command need not list the directory for
    // this removal (`session::index`).
    index::changing(dir, |touched| remove_files(&lock, with_side_files, touched))
}

/// Remove the session file `lock` guards (with the side files of its repairs when asked), then
/// its lock file, while the lock is held; the session's path goes to `touched` for the index.
fn remove_files(
    lock: &SessionLock,
    with_side_files: bool,
    touched: &mut Vec<PathBuf>,
) -> CliResult<()> {
    let path = lock.session_path();
    std::fs::remove_file(path).map_err(|error| {
        CliError::new(
            Exit::RunFailed,
            format!("cannot remove '{}': {error}", path.display()),
        )
    })?;
    touched.push(path.to_owned());
    if with_side_files {
        for side in side_files(path) {
            let _ = std::fs::remove_file(side);
        }
    }
    lock.remove_files();
    Ok(())
}

fn remove(context: &Context, args: &SessionsRmArgs) -> CliResult<Exit> {
    let index = load_for(context, args.sessions.iter().map(String::as_str))?;
    let mut targets = Vec::new();
    for query in &args.sessions {
        match resolve(context, &index, query) {
            Ok(path) => targets.push((owned(context, &path, Proof::Header)?, path)),
            Err(error) if args.force && error.message.starts_with("no session") => {
                context
                    .diagnostics
                    .detail(&format!("skipping '{query}': {}", error.message));
            }
            Err(error) => return Err(error),
        }
    }
    targets.dedup_by(|later, earlier| later.0 == earlier.0);
    let mut removed = Vec::new();
    let mut first_error: Option<CliError> = None;
    for (file, path) in &targets {
        match delete_session(context, file, index.name_of(file), args.force) {
            Ok(()) => removed.push(path.clone()),
            Err(error) => {
                context.diagnostics.error(&error);
                first_error.get_or_insert(error);
            }
        }
    }
    for path in &removed {
        let _ = index::update_one(context.sessions_dir(), path);
    }
    if context.format.is_json() {
        output_json(&SessionsRemoved {
            removed: removed.clone(),
        })?;
    } else {
        for path in &removed {
            context
                .diagnostics
                .info(&format!("removed {}", path.display()));
        }
    }
    match first_error {
        Some(error) => Ok(error.exit),
        None => Ok(Exit::Success),
    }
}

// --------------------------------------------------------------------------------------- prune

fn prune(context: &Context, args: &SessionsPruneArgs) -> CliResult<Exit> {
    let age_limit = parse_duration(&args.older_than).ok_or_else(|| {
        CliError::usage(format!(
            "--older-than '{}' is not a duration",
            args.older_than
        ))
        .with_hint("use a number with a unit: 30d, 12h, 90m, 2w, or sums like 1d12h")
    })?;
    let cutoff = OffsetDateTime::now_utc() - age_limit;
    let cwd_filter = scope_filter(context, args.cwd.as_deref(), args.all);
    let cutoff_ms = i64::try_from(cutoff.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MIN);
    let (candidates, report) =
        index::older_than(context.sessions_dir(), cutoff_ms, cwd_filter.as_deref())
            .map_err(session_error)?;
    super::tell_index_report(context, &report);
    let candidates: Vec<&index::OldRow> = candidates
        .iter()
        .filter(|entry| last_used_before(&entry.updated, cutoff))
        .collect();
    let mut removed = Vec::new();
    let mut skipped = Vec::new();
    let mut proven = Vec::new();
    let sessions = ownership::SessionsDir::new(context.sessions_dir());
    for entry in candidates {
        let path = context.sessions_dir().join(&entry.file);
        // The index is a cache: what it names is checked before anything is deleted. Its
        // header was read when the index last saw the file; a file changed since is read again.
        let proof = if entry.damaged {
            Proof::Header
        } else {
            Proof::Indexed {
                size: entry.size,
                mtime_ns: entry.mtime_ns,
            }
        };
        match owned_in(&sessions, &path, proof) {
            Ok(_) if args.dry_run => removed.push(path),
            Ok(file) => proven.push((file, path, entry)),
            Err(error) => {
                context
                    .diagnostics
                    .warn(&format!("kept {}: {}", path.display(), error.message));
                skipped.push(path);
            }
        }
    }
    // One connection for every removal. Sessions nobody holds are removed in batches, each in
    // one index transaction; a busy one is waited for (`--wait`) after its batch, outside any
    // transaction, so that the index is never held while a run holds that session.
    let mut db = index::db::Db::open(context.sessions_dir());
    let mut report =
        |path: &PathBuf, outcome: CliResult<Pruned>, skipped: &mut Vec<PathBuf>| match outcome {
            Ok(Pruned::Removed) => removed.push(path.clone()),
            Ok(Pruned::UsedSince(updated)) => context.diagnostics.detail(&format!(
                "kept {}: it was used at {updated}, while the prune ran",
                path.display()
            )),
            Ok(Pruned::Busy) => {}
            Err(error) => {
                context
                    .diagnostics
                    .warn(&format!("kept {}: {}", path.display(), error.message));
                skipped.push(path.clone());
            }
        };
    if let Some(db) = db.as_mut() {
        db.set_synced(false);
    }
    for batch in proven.chunks(PRUNE_BATCH) {
        let outcomes = prune_batch(batch, cutoff, db.as_mut(), context.sessions_dir());
        for ((file, path, entry), outcome) in batch.iter().zip(outcomes) {
            let outcome = match outcome {
                Ok(Pruned::Busy) => prune_one(file, entry, cutoff, context.wait, db.as_mut()),
                outcome => outcome,
            };
            report(path, outcome, &mut skipped);
        }
    }
    if let Some(db) = db.as_mut() {
        db.set_synced(true);
    }
    print_pruned(context, args.dry_run, removed, skipped)
}

/// What a prune removed (or would) and kept, as the report or as lines.
fn print_pruned(
    context: &Context,
    dry_run: bool,
    removed: Vec<PathBuf>,
    skipped: Vec<PathBuf>,
) -> CliResult<Exit> {
    if context.format.is_json() {
        let (would_remove, removed) = if dry_run {
            (Some(removed), None)
        } else {
            (None, Some(removed))
        };
        output_json(&SessionsPruned {
            dry_run,
            removed,
            would_remove,
            skipped,
        })?;
    } else {
        let verb = if dry_run { "would remove" } else { "removed" };
        let mut text = String::new();
        for path in &removed {
            let _ = writeln!(text, "{verb} {}", path.display());
        }
        output(&text)?;
        context.diagnostics.info(&format!(
            "{verb} {} session(s), kept {} (busy, or not a session file)",
            removed.len(),
            skipped.len()
        ));
    }
    Ok(Exit::Success)
}

/// Whether a session last written at `updated` (an ISO time) is older than `cutoff`; an
/// unreadable time is never old.
pub(super) fn last_used_before(updated: &str, cutoff: OffsetDateTime) -> bool {
    parse_time(updated).is_some_and(|updated| updated < cutoff)
}

/// How many sessions one index transaction of a prune removes: enough that the commits cost
/// little, few enough that another command waits for the index only a moment.
const PRUNE_BATCH: usize = 256;

/// What pruning one session the index found old did.
#[derive(Debug, PartialEq, Eq)]
enum Pruned {
    /// The session was old, and is gone.
    Removed,
    /// The session was written to at this time, after the index was read (a run held it while
    /// the prune waited for its lock): it stays.
    UsedSince(String),
    /// A run holds the session: it is left to a wait outside the batch.
    Busy,
}

/// Prune the sessions of `batch` (each file with the index entry that called it old) that no
/// run holds, inside one index transaction; a busy one comes back as [`Pruned::Busy`] without
/// a wait, since a wait here would hold the index while its holder may want it.
fn prune_batch(
    batch: &[(PathBuf, PathBuf, &index::OldRow)],
    cutoff: OffsetDateTime,
    db: Option<&mut index::db::Db>,
    dir: &Path,
) -> Vec<CliResult<Pruned>> {
    let change = |touched: &mut Vec<PathBuf>| {
        batch
            .iter()
            .map(|(file, _, entry)| {
                let lock = match SessionLock::acquire_to_remove(file) {
                    Ok(lock) => lock,
                    Err(crate::session::store::SessionError::Busy { .. }) => {
                        return Ok(Pruned::Busy);
                    }
                    Err(error) => return Err(session_error(error)),
                };
                prune_locked(&lock, entry, cutoff, touched)
            })
            .collect()
    };
    match db {
        Some(db) => db.changing(change),
        None => index::changing(dir, change),
    }
}

/// Prune the session at `file`, which the index says was last used before `cutoff`, waiting for
/// its lock up to `wait` (`--wait`).
fn prune_one(
    file: &Path,
    entry: &index::OldRow,
    cutoff: OffsetDateTime,
    wait: Option<std::time::Duration>,
    db: Option<&mut index::db::Db>,
) -> CliResult<Pruned> {
    let lock = SessionLock::acquire(file, wait)
        .map_err(|error| session_error(error.naming(entry.name.as_deref())))?;
    let dir = file.parent().unwrap_or(Path::new("."));
    let change = |touched: &mut Vec<PathBuf>| prune_locked(&lock, entry, cutoff, touched);
    match db {
        Some(db) => db.changing(change),
        None => index::changing(dir, change),
    }
}

/// Under the session's lock, remove it when it is still old. The index was read before the lock
/// was held, and a run holding the lock may have written a turn since: a file that no longer
/// has the size and time `entry` recorded is read again, and its own age decides.
fn prune_locked(
    lock: &SessionLock,
    entry: &index::OldRow,
    cutoff: OffsetDateTime,
    touched: &mut Vec<PathBuf>,
) -> CliResult<Pruned> {
    let file = lock.session_path();
    if !entry.describes(file) {
        let now = index::summarize_file(file).map_err(session_error)?;
        if !last_used_before(&now.summary.updated, cutoff) {
            return Ok(Pruned::UsedSince(now.summary.updated));
        }
    }
    remove_files(lock, false, touched)?;
    Ok(Pruned::Removed)
}

// ---------------------------------------------------------------------------------- path, repair

fn path(context: &Context, args: &SessionsPathArgs) -> CliResult<Exit> {
    let index = load_for(context, [args.session.as_str()])?;
    let path = resolve(context, &index, &args.session)?;
    if context.format.is_json() {
        output_json(&SessionPath { file: path })?;
    } else {
        output(&format!("{}\n", path.display()))?;
    }
    Ok(Exit::Success)
}

fn repair(context: &Context, args: &SessionsRepairArgs) -> CliResult<Exit> {
    let index = load_for(context, [args.session.as_str()])?;
    let path = resolve(context, &index, &args.session)?;
    // Its header may be the damage; the store's scan refuses a file that is no session at all.
    let file = owned(context, &path, Proof::Place)?;
    let lock = SessionLock::acquire(&file, context.wait)
        .map_err(|error| session_error(error.naming(index.name_of(&path))))?;
    let report = store::repair(&file, args.dry_run, &context.workspace.to_string_lossy())
        .map_err(session_error)?;
    drop(lock);
    if !args.dry_run {
        let _ = index::update_one(context.sessions_dir(), &path);
    }
    if context.format.is_json() {
        output_json(&SessionRepaired {
            file: path,
            dry_run: args.dry_run,
            clean: report.is_clean(),
            dropped_lines: report.dropped_lines,
            rebuilt_header: report.rebuilt_header.map(|header| RebuiltHeaderReport {
                id: header.id,
                cwd: header.cwd,
                cwd_recovered: header.cwd_recovered,
                replaced_line_1: header.replaced,
            }),
            side_file: report.side_file,
            torn_tail: report.torn.map(|torn| match torn {
                TornRepair::Completed => TornTailReport::Completed("completed".to_owned()),
                TornRepair::MovedTo(moved_to) => TornTailReport::Moved { moved_to },
            }),
            migrated_from: report.migrated_from,
        })?;
        return Ok(Exit::Success);
    }
    let would = if args.dry_run { "would " } else { "" };
    let mut text = String::new();
    if report.is_clean() {
        text.push_str("nothing to repair\n");
    }
    if !report.dropped_lines.is_empty() {
        let lines: Vec<String> = report.dropped_lines.iter().map(usize::to_string).collect();
        let _ = writeln!(
            text,
            "{would}move corrupt line(s) {} to {}",
            lines.join(", "),
            report
                .side_file
                .as_ref()
                .map_or_else(String::new, |side| side.display().to_string())
        );
    }
    if let Some(header) = &report.rebuilt_header {
        let _ = writeln!(
            text,
            "{would}{} from the file name: id {}, cwd {}{}",
            if header.replaced {
                "rebuild the damaged header (line 1)"
            } else {
                "add the missing header"
            },
            header.id,
            header.cwd,
            if header.cwd_recovered {
                ""
            } else {
                " (unreadable in the damaged line: this workspace)"
            }
        );
    }
    match &report.torn {
        Some(TornRepair::Completed) => {
            let _ = writeln!(text, "{would}complete the final line (it lacked a newline)");
        }
        Some(TornRepair::MovedTo(side)) => {
            let _ = writeln!(
                text,
                "{would}move the torn final line to {}",
                side.display()
            );
        }
        None => {}
    }
    if let Some(version) = report.migrated_from {
        let _ = writeln!(
            text,
            "{would}migrate the file from version {version} to {}",
            store::CURRENT_VERSION
        );
    }
    output(&text)?;
    Ok(Exit::Success)
}

/// A provider's web search as one line: `web_search {"query":…} (3 results)`.
fn web_search_line(search: &record::ServerToolCallContent) -> String {
    let results = search.results.len();
    let outcome = match &search.error {
        Some(error) => format!("failed: {error}"),
        None if results == 1 => "1 result".to_owned(),
        None => format!("{results} results"),
    };
    format!(
        "⌕ {} {} ({outcome})",
        search.name,
        arguments_line(&search.arguments)
    )
}

/// A call's `arguments` on one line, cut at 200 characters.
fn arguments_line(arguments: &Value) -> String {
    one_line(&arguments.to_string(), 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(line: serde_json::Value) -> Entry {
        match crate::session::parse::parse_line(&line.to_string()).unwrap() {
            record::Line::Entry(entry) => entry,
            record::Line::Header(_) => panic!("a header"),
        }
    }

    #[test]
    fn what_pincer_does_not_model_is_shown_by_its_role_name_and_usual_content() {
        let message = |message: serde_json::Value| {
            entry(
                serde_json::json!({"type": "message", "id": "e1", "parentId": null,
                "timestamp": "2026-11-30T13:49:09.738Z", "message": message}),
            )
        };
        let bash = message(serde_json::json!({"role": "bashExecution", "command": "ls",
            "content": [{"type": "text", "text": "a.txt"}], "timestamp": 1}));
        let odd = message(serde_json::json!({"role": "custom", "content": {"odd": 1}}));
        let nameless = message(serde_json::json!({"role": 7, "content": "plain"}));
        assert_eq!(
            render_transcript(&[&bash, &odd, &nameless], false),
            "bashExecution: a.txt\n\ncustom: \n\n?: plain\n\n"
        );
        assert_eq!(entry_label(&nameless), "message: plain");
        let tool = message(serde_json::json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "t1", "name": "read", "arguments": {}},
                {"type": "futureBlock", "name": "fancy"}, {"type": "futureBlock", "name": 3}],
            "api": "anthropic-messages", "provider": "anthropic", "model": "m",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "toolUse", "timestamp": 2}));
        assert_eq!(entry_label(&tool), "assistant: → read → fancy");
    }

    #[test]
    fn durations_accept_units_and_sums() {
        assert_eq!(parse_duration("30d"), Some(time::Duration::days(30)));
        assert_eq!(parse_duration("1d12h"), Some(time::Duration::hours(36)));
        assert_eq!(parse_duration("90m"), Some(time::Duration::minutes(90)));
        assert_eq!(parse_duration("2w"), Some(time::Duration::weeks(2)));
        assert_eq!(parse_duration("30"), None);
        assert_eq!(parse_duration("d"), None);
        assert_eq!(parse_duration("3y"), None);
        // Too large to count is no duration, not a panic.
        assert_eq!(parse_duration("99999999999999w"), None);
    }

    #[test]
    fn a_session_is_old_only_when_its_last_use_reads_as_a_time_before_the_cutoff() {
        let cutoff = parse_time("2026-11-01T00:00:00.000Z").unwrap();
        assert!(last_used_before("2026-10-31T23:59:59.999Z", cutoff));
        assert!(!last_used_before("2026-11-01T00:00:00.000Z", cutoff));
        assert!(!last_used_before("2026-11-30T12:00:00.000Z", cutoff));
        assert!(!last_used_before("", cutoff));
        assert!(!last_used_before("yesterday", cutoff));
    }

    #[test]
    fn prune_keeps_a_session_written_to_after_the_index_called_it_old() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir
            .path()
            .join("2020-01-01T00-00-00-000Z_7f3e9a10-1111-4222-8333-444455556666.jsonl");
        let header = r#"{"type":"session","version":3,"id":"7f3e9a10-1111-4222-8333-444455556666","timestamp":"2020-01-01T00:00:00.000Z","cwd":"/w"}"#;
        let cutoff = parse_time("2026-01-01T00:00:00.000Z").unwrap();
        let recent = r#"{"type":"session_info","id":"a0000001","parentId":null,"timestamp":"2026-11-30T10:00:00.000Z","name":"x"}"#;
        std::fs::write(&path, format!("{header}\n")).unwrap();
        let old = index::OldRow::of(&index::summarize_file(&path).unwrap());
        std::fs::write(&path, format!("{header}\n{recent}\n")).unwrap();
        assert_eq!(
            prune_one(&path, &old, cutoff, None, None).unwrap(),
            Pruned::UsedSince("2026-11-30T10:00:00.000Z".to_owned())
        );
        assert!(path.exists());
        std::fs::write(&path, format!("{header}\n")).unwrap();
        let current = index::OldRow::of(&index::summarize_file(&path).unwrap());
        assert_eq!(
            prune_one(&path, &current, cutoff, None, None).unwrap(),
            Pruned::Removed
        );
        assert!(!path.exists());
    }

    #[test]
    fn a_prune_batch_removes_the_old_sessions_nobody_holds_and_hands_back_the_busy_one() {
        let dir = tempfile::tempdir().unwrap();
        let cutoff = parse_time("2026-01-01T00:00:00.000Z").unwrap();
        let files: Vec<PathBuf> = (1..=3)
            .map(|number| {
                let id = format!("7f3e9a10-1111-4222-8333-44445555666{number}");
                let path = dir
                    .path()
                    .join(format!("2020-01-01T00-00-00-000Z_{id}.jsonl"));
                let header = format!(
                    r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2020-01-01T00:00:00.000Z","cwd":"/w"}}"#
                );
                std::fs::write(&path, format!("{header}\n")).unwrap();
                path
            })
            .collect();
        let entries: Vec<index::OldRow> = files
            .iter()
            .map(|path| index::OldRow::of(&index::summarize_file(path).unwrap()))
            .collect();
        let held = SessionLock::acquire(&files[1], None).unwrap();
        let batch: Vec<(PathBuf, PathBuf, &index::OldRow)> = files
            .iter()
            .zip(&entries)
            .map(|(path, entry)| (path.clone(), path.clone(), entry))
            .collect();
        let outcomes: Vec<Pruned> = prune_batch(&batch, cutoff, None, dir.path())
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(outcomes, [Pruned::Removed, Pruned::Busy, Pruned::Removed]);
        assert!(!files[0].exists() && files[1].exists() && !files[2].exists());
        drop(held);
    }

    #[test]
    fn ages_read_in_the_largest_whole_unit() {
        let now = parse_time("2026-11-30T12:00:00.000Z").unwrap();
        assert_eq!(age("2026-11-30T11:59:30.000Z", now), "30s");
        assert_eq!(age("2026-11-30T11:00:00.000Z", now), "1h");
        assert_eq!(age("2026-11-27T12:00:00.000Z", now), "3d");
        assert_eq!(age("garbage", now), "-");
    }
}
