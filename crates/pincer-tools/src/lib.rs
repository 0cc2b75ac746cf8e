//! The built-in tools of the embedded path (SPEC §10): read, write, edit, exec, ls, find, grep,
//! apply_patch, web_fetch.
//!
//! Each tool lives in its own file with a `definition()` (name, description for the model, JSON
//! Schema) and a `run()` that returns `Result<ToolOutput, ToolError>`. [`execute`] is the single
//! entry point: it checks the arguments are an object, dispatches by name and turns every error
//! into an error result the model can read, so a tool call never fails the turn. Path arguments
//! resolve and are confined in one place, [`paths`], under the call's [`Sandbox`]; `exec` adds
//! OS confinement ([`confine`]: a private mount namespace and Landlock on Linux); `web_fetch`
//! reaches only public addresses unless the sandbox allows private ones ([`web_fetch`]).

// The base layer's and the sandbox crate's modules, under the names the tools' modules use.
use pincer_base::{conversation, fs, tls};
use pincer_sandbox::{confine, sandbox};

/// The integration tests' mock HTTP server, for the unit tests that need a real socket
/// (`web_fetch`).
#[cfg(test)]
#[allow(
    dead_code,
    unreachable_pub,
    reason = "each unit test uses only some of the mock server's helpers; the integration tests share the file, where its items are public"
)]
#[path = "../../../tests/common/mock.rs"]
mod mock_server;

pub mod apply_patch;
mod arguments;
mod capture;
mod command_line;
mod edit;
mod environment;
pub mod exec;
mod find;
mod grep;
mod ls;
pub mod paths;
pub mod policy;
pub mod program;
mod read;
pub use read::EMPTY_FILE_NOTE;
#[cfg(test)]
mod sandbox_tests;
mod truncate;
pub mod url_pattern;
mod walk;
mod web_fetch;
mod write;

use std::path::PathBuf;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::conversation::ContentBlock;
use crate::conversation::ToolDefinition;

pub use arguments::Arguments;
pub use capture::shorten_long_text;
pub use confine::PrivateTemp;
pub use confine::{ARG0, launcher_exit};
pub use confine::{
    ExecProtection, ProbeMemory, SetupError, finish_run, spawn_as, spawn_confined,
    spawn_in_session, spawn_network_confined,
};
pub use environment::child_environment;
pub use sandbox::{Egress, EgressHandle, ExecSetup, Notice, Sandbox, SandboxMode, WebAccess};

/// Names of every built-in tool, in the order they are offered.
pub const ALL_TOOLS: [&str; 9] = [
    "read",
    "write",
    "edit",
    "exec",
    "ls",
    "find",
    "grep",
    "apply_patch",
    "web_fetch",
];

/// pincer's tools and Claude Code's equivalents, the main one first (`apply_patch` has none): the
/// names claude's `--tools` takes and that hook matchers and hook input use.
pub const CLAUDE_EQUIVALENTS: [(&str, &[&str]); 9] = [
    ("read", &["Read"]),
    ("write", &["Write"]),
    ("edit", &["Edit", "MultiEdit", "NotebookEdit"]),
    ("apply_patch", &[]),
    ("exec", &["Bash"]),
    ("ls", &["LS"]),
    ("find", &["Glob"]),
    ("grep", &["Grep"]),
    ("web_fetch", &["WebFetch"]),
];

/// Claude Code's main name for a pincer tool (`exec` → `Bash`), or the name itself.
pub fn claude_name(tool: &str) -> &str {
    CLAUDE_EQUIVALENTS
        .iter()
        .find(|(name, _)| *name == tool)
        .and_then(|(_, claude)| claude.first().copied())
        .unwrap_or(tool)
}

/// The tools of the `coding` profile: all but the last, `web_fetch`, which reaches the network.
pub const CODING_TOOLS: &[&str] = ALL_TOOLS.split_at(8).0;

/// The tools that only exist to change files; refused outright in `read-only`.
pub const WRITING_TOOLS: [&str; 3] = ["write", "edit", "apply_patch"];

/// What a tool call runs against.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The workspace directory (absolute, canonical). Relative paths resolve against it.
    pub workspace: PathBuf,
    /// Cancelled on SIGINT/SIGTERM/timeout: long tools (exec) stop and report it.
    pub cancel: CancellationToken,
    /// What the tools may touch: confinement mode, roots and protected directories.
    pub sandbox: Sandbox,
    /// The trace context a command continues (`TRACEPARENT`), read as it starts.
    pub trace: pincer_base::trace::ChildTrace,
}

/// A tool's result, as sent back to the model and stored in the session.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// Text and image blocks.
    pub content: Vec<ContentBlock>,
    /// Whether the call failed (the model sees the content either way).
    pub is_error: bool,
    /// Structured details for the session file (diffs, exit codes, truncation), not sent.
    pub details: Option<Value>,
    /// Set when the call was refused rather than failed: the turn lists it in the result's
    /// `permission_denials` (SPEC §10 "every refusal … is listed").
    pub refusal: Option<Refusal>,
}

/// What refused a tool call before it could act.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A rule of the tool policy: the profile, `--tools`, an allow or a deny rule.
    Policy,
    /// The sandbox mode: a write in `read-only`, or `exec` there without Landlock.
    SandboxMode,
    /// A path outside the sandbox's roots (symbolic links resolved), or a write through a link.
    Confinement,
    /// A write inside a protected directory (`.git`, pincer's own directories).
    ProtectedPath,
    /// A web address on a loopback, private, link-local or otherwise non-public network
    /// (`web_fetch`'s guard against server-side request forgery).
    Network,
    /// A `PreToolUse` hook (SPEC §14): exit code 2, or a `deny` decision.
    Hook,
}

impl ToolOutput {
    /// A successful result holding one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![ContentBlock::text(text)],
            is_error: false,
            details: None,
            refusal: None,
        }
    }

    /// A failed result holding one text block.
    pub fn error(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![ContentBlock::text(text)],
            is_error: true,
            details: None,
            refusal: None,
        }
    }

    /// A refusal holding one text block: an error result the turn also lists as a denial.
    pub fn refused(refusal: Refusal, text: impl Into<String>) -> Self {
        ToolOutput {
            refusal: Some(refusal),
            ..ToolOutput::error(text)
        }
    }

    /// The same result with `details` set.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// The text blocks joined with newlines (images left out); what tests and logs look at.
    pub fn text_content(&self) -> String {
        crate::conversation::blocks_text(&self.content)
    }
}

/// Why a tool call failed. Every variant becomes an error result whose text is the `Display`
/// form; none of them stops the turn.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// A required argument is absent (after trying its Claude-style alias).
    #[error("Missing required argument '{name}'")]
    MissingArgument { name: String },
    /// An argument has the wrong JSON type or an unusable value.
    #[error("Invalid argument '{name}': expected {expected}")]
    InvalidArgument { name: String, expected: String },
    /// The arguments are not a JSON object.
    #[error("Tool arguments must be a JSON object, got {found}")]
    ArgumentsNotObject { found: String },
    /// A path that must exist does not.
    #[error("File not found: {path}")]
    FileNotFound { path: String },
    /// A path that must exist (directory or file) does not.
    #[error("Path not found: {path}")]
    PathNotFound { path: String },
    /// The path is a FIFO, socket, device or directory where a regular file is needed (SPEC
    /// §10): refused before anything could block on it.
    #[error("{path} is {}, not a regular file; the file tools read and write regular files only.", .kind.described())]
    NotRegularFile {
        path: String,
        kind: crate::fs::FileKind,
    },
    /// A file operation failed.
    #[error("Could not {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: String,
        source: std::io::Error,
    },
    /// The tool refused the request for a reason it explains (wrong kind of file, offset past
    /// the end, invalid pattern, …).
    #[error("{0}")]
    Rejected(String),
    /// The sandbox refused the call (mode, confinement, protected path): an error result that
    /// is also listed in `permission_denials`.
    #[error("{message}")]
    Refused { refusal: Refusal, message: String },
    /// `edit` could not apply its replacements.
    #[error(transparent)]
    Edit(#[from] edit::EditError),
    /// `apply_patch` could not parse or apply its patch.
    #[error(transparent)]
    Patch(#[from] apply_patch::PatchError),
}

impl ToolError {
    /// An I/O failure on `path`, phrased as "Could not {action} {path}".
    pub fn io(action: &'static str, path: &str, source: std::io::Error) -> Self {
        ToolError::Io {
            action,
            path: path.to_owned(),
            source,
        }
    }

    /// [`ToolError::io`], or [`ToolError::NotRegularFile`] when `source` refused a file that is
    /// not a regular one.
    pub fn file(action: &'static str, path: &str, source: std::io::Error) -> Self {
        match crate::fs::NotRegular::of(&source) {
            Some(kind) => ToolError::NotRegularFile {
                path: path.to_owned(),
                kind,
            },
            None => ToolError::io(action, path, source),
        }
    }

    /// A refusal by the sandbox, explained by `message`.
    pub fn refused(refusal: Refusal, message: impl Into<String>) -> Self {
        ToolError::Refused {
            refusal,
            message: message.into(),
        }
    }
}

/// The built-in tools to offer a model, from those the policy offers: one editing vocabulary per
/// request. On the OpenAI Responses API (`responses`) that is `apply_patch`, the format OpenAI
/// models are trained on, *instead of* `write` and `edit` (as codex offers it): its `Add File`
/// creates or replaces a whole file, and two vocabularies for one job cost every request about
/// 250 tokens. Everywhere else `write` and `edit`, without `apply_patch`. When the policy leaves
/// `apply_patch` out (`--disallowed-tools apply_patch`, `--tools read,write,edit`), a Responses
/// model keeps `write` and `edit`. The policy still lets every offered name run: a model that
/// calls `edit` out of habit is served.
pub fn for_model(offered: &[&'static str], responses: bool) -> Vec<&'static str> {
    let patching = responses && offered.contains(&"apply_patch");
    offered
        .iter()
        .copied()
        .filter(|name| match *name {
            "apply_patch" => responses,
            "write" | "edit" => !patching,
            _ => true,
        })
        .collect()
}

/// The definitions (name, description, JSON Schema) of the named tools, in `names` order;
/// unknown names are skipped.
pub fn definitions(names: &[&str]) -> Vec<ToolDefinition> {
    names.iter().filter_map(|name| definition(name)).collect()
}

fn definition(name: &str) -> Option<ToolDefinition> {
    Some(match name {
        "read" => read::definition(),
        "write" => write::definition(),
        "edit" => edit::definition(),
        "exec" => exec::definition(),
        "ls" => ls::definition(),
        "find" => find::definition(),
        "grep" => grep::definition(),
        "apply_patch" => apply_patch::definition(),
        "web_fetch" => web_fetch::definition(),
        _ => return None,
    })
}

/// Build a definition from its parts; every schema is a closed object.
fn make_definition(
    name: &str,
    description: &str,
    properties: Value,
    required: &[&str],
) -> ToolDefinition {
    ToolDefinition {
        name: name.to_owned(),
        description: description.to_owned(),
        // No `additionalProperties: false`: the tools are not strict (the arguments take
        // aliases such as `file_path`), and every request would pay for it once per tool.
        parameters: if required.is_empty() {
            serde_json::json!({"type": "object", "properties": properties})
        } else {
            serde_json::json!({"type": "object", "properties": properties, "required": required})
        },
    }
}

/// Run one tool call. Never panics and never returns `Err`: failures are error results that the
/// model can read and act on.
pub async fn execute(name: &str, arguments: &Value, context: &ToolContext) -> ToolOutput {
    if !ALL_TOOLS.contains(&name) {
        return ToolOutput::error(format!("Unknown tool: {name}"));
    }
    if context.sandbox.mode == crate::conversation::SandboxMode::ReadOnly
        && WRITING_TOOLS.contains(&name)
    {
        return ToolOutput::refused(
            Refusal::SandboxMode,
            format!(
                "The {name} tool is disabled: the sandbox is read-only, so no file may be \
                 created, changed or deleted."
            ),
        );
    }
    let result = match Arguments::new(arguments) {
        Ok(parsed) => dispatch(name, arguments, &parsed, context).await,
        Err(error) => Err(error),
    };
    result.unwrap_or_else(|error| match error {
        ToolError::Refused { refusal, message } => ToolOutput::refused(refusal, message),
        other => ToolOutput::error(other.to_string()),
    })
}

/// A file tool's `run`: synchronous file system work.
type FileTool = fn(&Arguments<'_>, &ToolContext) -> Result<ToolOutput, ToolError>;

async fn dispatch(
    name: &str,
    raw: &Value,
    arguments: &Arguments<'_>,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let file_tool: FileTool = match name {
        "exec" => return exec::run(arguments, context).await,
        "web_fetch" => return web_fetch::run(arguments, context).await,
        "read" => read::run,
        "write" => write::run,
        "edit" => edit::run,
        "ls" => ls::run,
        "find" => find::run,
        "grep" => grep::run,
        "apply_patch" => apply_patch::run,
        _ => return Ok(ToolOutput::error(format!("Unknown tool: {name}"))),
    };
    off_the_runtime(name, file_tool, raw, context).await
}

/// Run a file tool on a thread of its own and wait for it, or for the run's cancellation.
///
/// The file tools refuse FIFOs, sockets and devices before they could block on one, but a
/// system call can still hang (a file swapped for a FIFO inside a directory the ignore rules
/// lead to, a dead network file system). On the runtime's only thread that hang used to stop
/// everything: SIGTERM and `--timeout` were never seen and the session lock stayed held. Here
/// it only holds this thread: a cancelled run gets an error result at once and ends as it
/// should, and the thread dies with the process.
async fn off_the_runtime(
    name: &str,
    tool: FileTool,
    raw: &Value,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let (arguments, thread_context) = (raw.clone(), context.clone());
    let spawned = std::thread::Builder::new()
        .name(format!("pincer-{name}"))
        .spawn(move || {
            let result =
                Arguments::new(&arguments).and_then(|arguments| tool(&arguments, &thread_context));
            let _ = sender.send(result);
        });
    if spawned.is_err() {
        // No thread to be had (a process limit): run it here rather than not at all.
        return Arguments::new(raw).and_then(|arguments| tool(&arguments, context));
    }
    tokio::select! {
        biased;
        received = receiver => received.unwrap_or_else(|_| {
            Err(ToolError::Rejected(format!("The {name} call failed without a result.")))
        }),
        () = context.cancel.cancelled() => Err(ToolError::Rejected(format!(
            "Interrupted: the {name} call had not finished when the run was cancelled."
        ))),
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    //! A temporary workspace and a one-line way to call a tool in it.

    use super::*;
    use crate::conversation::SandboxMode;

    pub struct Workspace {
        /// Held for its `Drop`, which deletes the directory.
        _directory: tempfile::TempDir,
        pub context: ToolContext,
    }

    impl Workspace {
        /// A `workspace-write` workspace whose only root is itself (not the temp dir, which
        /// holds it), so that other temporary directories count as outside.
        pub fn new() -> Self {
            Self::with_mode(SandboxMode::WorkspaceWrite)
        }

        pub fn with_mode(mode: SandboxMode) -> Self {
            let directory = tempfile::tempdir().unwrap();
            let workspace = directory.path().canonicalize().unwrap();
            let sandbox = Sandbox {
                mode,
                writable_roots: vec![workspace.clone()],
                added_dirs: Vec::new(),
                protected: vec![workspace.join(".git")],
                read_only_roots: Vec::new(),
                exec: ExecSetup::default(),
                web: WebAccess::default(),
            };
            Workspace {
                _directory: directory,
                context: ToolContext {
                    workspace,
                    cancel: CancellationToken::new(),
                    sandbox,
                    trace: Default::default(),
                },
            }
        }

        pub fn path(&self, relative: &str) -> PathBuf {
            self.context.workspace.join(relative)
        }

        pub fn write(&self, relative: &str, contents: impl AsRef<[u8]>) {
            let path = self.path(relative);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap();
            }
            std::fs::write(path, contents).unwrap();
        }

        /// Make a FIFO at `relative`: opening it to read or write blocks until the other end
        /// is opened.
        pub fn fifo(&self, relative: &str) -> PathBuf {
            let path = self.path(relative);
            nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
            path
        }

        pub fn read(&self, relative: &str) -> String {
            std::fs::read_to_string(self.path(relative)).unwrap()
        }

        pub async fn call(&self, tool: &str, arguments: Value) -> ToolOutput {
            execute(tool, &arguments, &self.context).await
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::test_support::Workspace;
    use super::*;

    /// A file tool that blocks in `open` (of the FIFO named by `path`) as a hung one would.
    fn blocked(arguments: &Arguments<'_>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = arguments.required_string(&["path"])?;
        let _ = std::fs::File::open(path);
        Ok(ToolOutput::text("opened"))
    }

    #[tokio::test]
    async fn a_file_tool_blocked_in_a_system_call_gives_way_to_the_cancellation() {
        let workspace = Workspace::new();
        let fifo = workspace.fifo("pipe");
        let arguments = json!({"path": fifo});
        let cancel = workspace.context.cancel.clone();
        let canceller = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            cancel.cancel();
        });
        let result = off_the_runtime("read", blocked, &arguments, &workspace.context).await;
        canceller.await.unwrap();
        let error = result.unwrap_err().to_string();
        assert_eq!(
            error,
            "Interrupted: the read call had not finished when the run was cancelled."
        );
        // Let the abandoned thread go.
        drop(std::fs::OpenOptions::new().write(true).open(&fifo).unwrap());
    }

    #[tokio::test]
    async fn an_unknown_tool_name_is_an_error_result_naming_it() {
        let workspace = Workspace::new();
        let output = workspace.call("teleport", json!({})).await;
        assert!(output.is_error);
        assert_eq!(output.text_content(), "Unknown tool: teleport");
    }

    #[tokio::test]
    async fn arguments_that_are_not_an_object_are_an_error_result() {
        let workspace = Workspace::new();
        let output = workspace.call("read", json!(["a.txt"])).await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Tool arguments must be a JSON object, got an array"
        );
    }

    #[tokio::test]
    async fn a_missing_required_argument_is_named_in_the_error() {
        let workspace = Workspace::new();
        let output = workspace.call("write", json!({"path": "a.txt"})).await;
        assert!(output.is_error);
        assert_eq!(output.text_content(), "Missing required argument 'content'");
    }

    #[tokio::test]
    async fn a_wrongly_typed_argument_is_named_in_the_error() {
        let workspace = Workspace::new();
        let output = workspace.call("read", json!({"path": 7})).await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            "Invalid argument 'path': expected a string"
        );
    }

    #[tokio::test]
    async fn unknown_extra_argument_keys_are_ignored() {
        let workspace = Workspace::new();
        workspace.write("a.txt", "hello\n");
        let output = workspace
            .call("read", json!({"path": "a.txt", "verbose": true}))
            .await;
        assert!(!output.is_error);
        assert_eq!(output.text_content(), "hello\n");
    }

    #[tokio::test]
    async fn refusals_by_the_sandbox_are_typed_and_other_failures_are_not() {
        let workspace = Workspace::new();
        workspace.write(".git/config", "[core]\n");
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path(), workspace.path("escape")).unwrap();
        let outside_file = outside.path().join("secret.txt");
        let cases: [(&str, Value, Option<Refusal>); 8] = [
            (
                "read",
                json!({"path": outside_file.to_str().unwrap()}),
                Some(Refusal::Confinement),
            ),
            (
                "read",
                json!({"path": "escape/secret.txt"}),
                Some(Refusal::Confinement),
            ),
            (
                "write",
                json!({"path": ".git/config", "content": "x"}),
                Some(Refusal::ProtectedPath),
            ),
            (
                "apply_patch",
                json!({"input": "*** Begin Patch\n*** Add File: .git/hooks/x\n+x\n*** End Patch\n"}),
                Some(Refusal::ProtectedPath),
            ),
            (
                "exec",
                json!({"command": "true", "workdir": outside.path().to_str().unwrap()}),
                Some(Refusal::Confinement),
            ),
            ("read", json!({"path": "missing.txt"}), None),
            ("read", json!({}), None),
            ("ls", json!({"path": "."}), None),
        ];
        for (tool, arguments, expected) in cases {
            let output = workspace.call(tool, arguments.clone()).await;
            assert_eq!(output.refusal, expected, "{tool} {arguments}");
            if expected.is_some() {
                assert!(output.is_error, "{tool} {arguments}");
            }
        }
        assert_eq!(workspace.read(".git/config"), "[core]\n");

        let read_only = Workspace::with_mode(crate::conversation::SandboxMode::ReadOnly);
        let output = read_only
            .call("write", json!({"path": "a.txt", "content": "x"}))
            .await;
        assert_eq!(output.refusal, Some(Refusal::SandboxMode));
        assert!(!read_only.path("a.txt").exists());
    }

    #[test]
    fn a_responses_model_gets_apply_patch_instead_of_write_and_edit() {
        assert_eq!(
            for_model(CODING_TOOLS, true),
            ["read", "exec", "ls", "find", "grep", "apply_patch"]
        );
        assert_eq!(
            for_model(&ALL_TOOLS, true),
            [
                "read",
                "exec",
                "ls",
                "find",
                "grep",
                "apply_patch",
                "web_fetch"
            ]
        );
    }

    #[test]
    fn other_protocols_get_write_and_edit_without_apply_patch() {
        assert_eq!(
            for_model(CODING_TOOLS, false),
            ["read", "write", "edit", "exec", "ls", "find", "grep"]
        );
        assert_eq!(for_model(&["read", "apply_patch"], false), ["read"]);
    }

    #[test]
    fn a_responses_model_keeps_write_and_edit_when_the_policy_leaves_apply_patch_out() {
        assert_eq!(
            for_model(&["read", "write", "edit", "exec"], true),
            ["read", "write", "edit", "exec"]
        );
        // Read-only: nothing to edit with on any protocol.
        assert_eq!(for_model(&["read", "ls"], true), ["read", "ls"]);
    }

    #[test]
    fn definitions_follow_the_requested_order_and_skip_unknown_names() {
        let definitions = definitions(&["grep", "nope", "read"]);
        let names: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["grep", "read"]);
    }

    #[test]
    fn every_definition_is_an_object_schema_whose_required_keys_are_properties() {
        for definition in definitions(&ALL_TOOLS) {
            let schema = &definition.parameters;
            assert_eq!(schema["type"], "object", "{}", definition.name);
            assert!(!definition.description.is_empty(), "{}", definition.name);
            let properties = schema["properties"].as_object().unwrap();
            let required = schema
                .get("required")
                .map_or(&[][..], |list| list.as_array().unwrap().as_slice());
            for required in required {
                assert!(
                    properties.contains_key(required.as_str().unwrap()),
                    "{} requires {required}",
                    definition.name
                );
            }
        }
        assert_eq!(definitions(&ALL_TOOLS).len(), 9);
    }
}
