# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_pincer_global_optspecs
    string join \n C/cd= home= c/config= output-format= json q/quiet v/verbose d/debug= color= wait= store= h/help V/version
end

function __fish_pincer_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_pincer_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_pincer_using_subcommand
    set -l cmd (__fish_pincer_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c pincer -n "__fish_pincer_needs_command" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_needs_command" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_needs_command" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_needs_command" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_needs_command" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_needs_command" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_needs_command" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_needs_command" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_needs_command" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_needs_command" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_needs_command" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_needs_command" -s V -l version -d 'Print version'
complete -c pincer -n "__fish_pincer_needs_command" -f -a "run" -d 'Start a new session and run one turn'
complete -c pincer -n "__fish_pincer_needs_command" -f -a "resume" -d 'Continue a session (by id, prefix, name, file or --last) and run one turn'
complete -c pincer -n "__fish_pincer_needs_command" -f -a "exec" -d 'Run one turn as `codex exec` does, for the Codex SDK (--json prints codex\'s events)'
complete -c pincer -n "__fish_pincer_needs_command" -f -a "compact" -d 'Summarize the older part of a session now to free context'
complete -c pincer -n "__fish_pincer_needs_command" -f -a "sessions" -d 'List, inspect, export, fork, rename, remove and repair sessions (default: list)'
complete -c pincer -n "__fish_pincer_needs_command" -f -a "status" -d 'Show one session\'s state, or defaults, credentials and backends without one'
complete -c pincer -n "__fish_pincer_needs_command" -f -a "auth" -d 'Manage credential profiles (default: list); secrets are never printed'
complete -c pincer -n "__fish_pincer_needs_command" -f -a "usage" -d 'Report what runs spent, from the usage ledger: totals, by day, model, session or tag'
complete -c pincer -n "__fish_pincer_needs_command" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c pincer -n "__fish_pincer_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l session-id -d 'Give the new session this id instead of a generated one (with -r/--continue, the forked session\'s; needs --fork-session)' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -s n -l name -d 'Give the new session a unique NAME, for `pincer resume NAME`' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l idempotency-key -d 'A retried step\'s key: the session is named KEY (created, or continued if it exists), and a retry whose turn for KEY was already saved prints that turn\'s result again without calling the model' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -s r -l resume -d 'Continue SESSION instead of starting one, like `pincer resume SESSION` (claude\'s -r/--resume)' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -s m -l model -d 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l fallback-model -d 'Models to try in order when the primary one fails over; repeatable or comma-separated' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l thinking -l effort -d 'Reasoning level, mapped to each provider\'s setting (claude\'s `--effort max` is xhigh)' -r -f -a "off\t'No reasoning'
minimal\t'The least reasoning the model supports'
low\t'Little reasoning'
medium\t'Moderate reasoning'
high\t'Much reasoning'
xhigh\t'The most reasoning the model supports'"
complete -c pincer -n "__fish_pincer_using_subcommand run" -l max-thinking-tokens -d 'Thinking budget in tokens (claude\'s spelling): sent as is to Anthropic (at least 1024) and Gemini (within the model\'s range), as the nearest --thinking level elsewhere; 0 is off' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l system-prompt -d 'Replace the whole built system prompt with TEXT' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l system-prompt-file -d 'Replace the whole built system prompt with the contents of FILE' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand run" -l append-system-prompt -d 'Append TEXT to the system prompt for this turn; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l append-system-prompt-file -d 'Append the contents of FILE to the system prompt for this turn; repeatable' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand run" -l prompt-mode -d 'How much of the built system prompt to send' -r -f -a "full\t'Every section and the workspace files'
minimal\t'Tools, safety rules and runtime facts only'
none\t'Only text the user supplies'"
complete -c pincer -n "__fish_pincer_using_subcommand run" -l skill -d 'List the skill at PATH (a skill directory, its SKILL.md, or a directory of skills) in the prompt, after the discovered ones (a later name shadows an earlier one); repeatable' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand run" -l tools -d 'Offer exactly these tools, comma-separated ("" offers none)' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l allowed-tools -d 'Allow tool calls matching PATTERN, e.g. group:fs or "exec(git *)" (plain commands only); repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l disallowed-tools -d 'Deny tool calls matching PATTERN (deny wins over allow); repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l mcp-config -d 'Use the MCP servers of FILE, or of the JSON given inline (claude\'s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l settings -d 'Run the hooks of FILE, or of the JSON given inline (Claude Code\'s settings format, {"hooks": {"PreToolUse": […]}}, e.g. .claude/settings.json); repeatable, added to config.toml\'s [[hooks.EVENT]]' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -s s -l sandbox -d 'What tools may touch on disk (default from config, else workspace-write)' -r -f -a "read-only\t'No writes; exec only under OS read-only enforcement'
workspace-write\t'Writes confined to the workspace and the run\'s private temp directory'
danger-full-access\t'No confinement'"
complete -c pincer -n "__fish_pincer_using_subcommand run" -l permission-mode -d 'Claude-style permission mode, mapped to a sandbox mode' -r -f -a "plan\t'Read-only: plan without changing anything'
acceptEdits\t'Edits allowed inside the workspace'
bypassPermissions\t'No confinement, like --dangerously-skip-permissions'
dontAsk\t'Deny what is not explicitly allowed'
auto\t'Work in the workspace without asking (claude\'s classifier mode; nothing asks headless)'
default\t'The configured default sandbox'"
complete -c pincer -n "__fish_pincer_using_subcommand run" -l allow-host -d 'Let commands reach the hosts PATTERN names, and nothing else, through pincer\'s egress proxy: a name (registry.npmjs.org), *.domain, host:port, localhost:PORT, an address or network, or a preset (@npm, @pypi, @crates, @go, @debian); repeatable, adds to config [sandbox.network] allow. --allow-network opens the whole network instead' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l add-dir -d 'Give the tools DIR as an extra root, confined and protected like the workspace (writable by commands in workspace-write); repeatable, adds to config tools.add_dirs, this turn only' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand run" -l max-turns -d 'Stop after N model round-trips (exit 5)' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l max-budget-usd -d 'Stop once this run has spent more than X US dollars (exit 5)' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l timeout -d 'Give up SECS after the start, whatever the run is doing — reading stdin, waiting for any lock, the model, tools (exit 124)' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l idle-timeout -d 'Give up when the provider or child process stays silent for SECS' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -s i -l image -d 'Attach an image file to the prompt; repeatable' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand run" -s o -l output-last-message -d 'Also write the final answer to FILE' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand run" -l events-file -d 'Also write stream-json events to FILE, whatever stdout\'s format' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand run" -l json-schema -d 'Hold the final answer to a JSON Schema (inline JSON or @FILE): validated, sent back with the errors when invalid, printed as `structured_output`' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l output-schema -d 'Hold the final answer to the JSON Schema in FILE (codex\'s spelling of --json-schema @FILE)' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand run" -l auth-profile -d 'Use only the credential profile ID' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l tag -d 'Label this run\'s line in the usage ledger, for `pincer usage --by tag`' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l stdin-timeout -d 'Wait at most SECS for stdin\'s first byte (default 0.5 with a prompt, 5 without; 0 = no limit). A file, or a pipe written by another command of the pipeline, is always read whole' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l record -d 'Append every model exchange of this run (HTTP request and response, or a CLI child\'s output) to the cassette FILE, created when missing; keys are never written' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand run" -l replay -d 'Answer every model request from the cassette FILE: no network, no CLI child, no key; a request the cassette has no answer for ends the run (exit 2) with a diff on stderr' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand run" -l replay-mode -d 'With --replay: pair requests by content with dates, ids and paths masked (strict), or take the recorded interactions in order (lenient)' -r -f -a "strict\t'The first unused interaction whose request is the same once dates, ids, temporary paths, the workspace path and the runtime facts are masked'
lenient\t'The next unused interaction in the file, whatever was asked'"
complete -c pincer -n "__fish_pincer_using_subcommand run" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand run" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand run" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand run" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand run" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand run" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand run" -l continue -d 'Continue the newest session of this workspace, like `pincer resume --last` (claude\'s --continue; long only: -c is --config)'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l fork-session -d 'With -r or --continue: continue in a new session holding a copy, like `resume --fork`'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l no-context-files -d 'Leave out workspace files such as AGENTS.md and MEMORY.md'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l no-skills -d 'Do not discover skills in <config>/skills, .pincer/skills, .agents/skills or skills.paths (--skill paths still load)'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l strict-mcp-config -d 'Use only the servers of --mcp-config, not those of config.toml or the workspace'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l approve-workspace-mcp -d 'Approve the servers of the workspace\'s .mcp.json as they are now ([mcp] load_workspace = true starts only approved ones; a new or changed server waits for this flag)'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l include-hook-events -d 'With stream-json, also emit system/hook_started and system/hook_response lines for every hook run'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l dangerously-skip-permissions -l dangerously-bypass-approvals-and-sandbox -d 'Same as --sandbox danger-full-access: no confinement at all'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l full-auto -d 'Same as --sandbox workspace-write (codex\'s spelling): edits in the workspace, never asks'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l allow-network -d 'Let commands reach the network (default: off in read-only and workspace-write, only a loopback of their own; config [sandbox] network = true)'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l web-search -d 'Let the model search the web with the provider\'s own search tool (Anthropic, OpenAI Responses, Gemini grounding; claude\'s WebSearch, codex\'s web_search); like config tools.web_search. Exit 2 when the model cannot search. With the network closed an API model\'s search is off, with a warning: --allow-host the provider\'s host, or --allow-network'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l no-session-persistence -l ephemeral -d 'Keep nothing on disk: no session file, no index entry'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l include-partial-messages -d 'With stream-json, also emit stream_event lines: Anthropic\'s raw stream events (message_start, content_block_delta with text_delta, …) as claude does, for every model'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l heartbeat -d 'Run a cron heartbeat turn: act on HEARTBEAT.md, print nothing when all is well'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l approve-workspace-files -d 'Read the context files, skills and .mcp.json that an earlier run\'s commands or tools created or changed here (held back until approved, or changed by you)'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l dry-run -d 'Print what would be sent (model, prompt, tools, messages) and exit 0 without calling it'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l skip-git-repo-check -d 'Accepted for codex compatibility and ignored: pincer never requires a git repository'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l strict-config -d 'Accepted for codex compatibility and ignored: unknown config keys are always an error'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l no-stdin -d 'Never read stdin, even when it is a pipe'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l lossy-stdin -d 'Replace invalid UTF-8 on stdin with U+FFFD and warn, instead of exiting 2'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l replay-pace -d 'With --replay: stream at the recorded pace instead of as fast as possible'
complete -c pincer -n "__fish_pincer_using_subcommand run" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand run" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand run" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s n -l name -d 'Rename the session to NAME' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l session-id -d 'With --fork or --create: the id (a UUID) of the session made' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s m -l model -d 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l fallback-model -d 'Models to try in order when the primary one fails over; repeatable or comma-separated' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l thinking -l effort -d 'Reasoning level, mapped to each provider\'s setting (claude\'s `--effort max` is xhigh)' -r -f -a "off\t'No reasoning'
minimal\t'The least reasoning the model supports'
low\t'Little reasoning'
medium\t'Moderate reasoning'
high\t'Much reasoning'
xhigh\t'The most reasoning the model supports'"
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l max-thinking-tokens -d 'Thinking budget in tokens (claude\'s spelling): sent as is to Anthropic (at least 1024) and Gemini (within the model\'s range), as the nearest --thinking level elsewhere; 0 is off' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l system-prompt -d 'Replace the whole built system prompt with TEXT' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l system-prompt-file -d 'Replace the whole built system prompt with the contents of FILE' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l append-system-prompt -d 'Append TEXT to the system prompt for this turn; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l append-system-prompt-file -d 'Append the contents of FILE to the system prompt for this turn; repeatable' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l prompt-mode -d 'How much of the built system prompt to send' -r -f -a "full\t'Every section and the workspace files'
minimal\t'Tools, safety rules and runtime facts only'
none\t'Only text the user supplies'"
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l skill -d 'List the skill at PATH (a skill directory, its SKILL.md, or a directory of skills) in the prompt, after the discovered ones (a later name shadows an earlier one); repeatable' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l tools -d 'Offer exactly these tools, comma-separated ("" offers none)' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l allowed-tools -d 'Allow tool calls matching PATTERN, e.g. group:fs or "exec(git *)" (plain commands only); repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l disallowed-tools -d 'Deny tool calls matching PATTERN (deny wins over allow); repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l mcp-config -d 'Use the MCP servers of FILE, or of the JSON given inline (claude\'s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l settings -d 'Run the hooks of FILE, or of the JSON given inline (Claude Code\'s settings format, {"hooks": {"PreToolUse": […]}}, e.g. .claude/settings.json); repeatable, added to config.toml\'s [[hooks.EVENT]]' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s s -l sandbox -d 'What tools may touch on disk (default from config, else workspace-write)' -r -f -a "read-only\t'No writes; exec only under OS read-only enforcement'
workspace-write\t'Writes confined to the workspace and the run\'s private temp directory'
danger-full-access\t'No confinement'"
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l permission-mode -d 'Claude-style permission mode, mapped to a sandbox mode' -r -f -a "plan\t'Read-only: plan without changing anything'
acceptEdits\t'Edits allowed inside the workspace'
bypassPermissions\t'No confinement, like --dangerously-skip-permissions'
dontAsk\t'Deny what is not explicitly allowed'
auto\t'Work in the workspace without asking (claude\'s classifier mode; nothing asks headless)'
default\t'The configured default sandbox'"
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l allow-host -d 'Let commands reach the hosts PATTERN names, and nothing else, through pincer\'s egress proxy: a name (registry.npmjs.org), *.domain, host:port, localhost:PORT, an address or network, or a preset (@npm, @pypi, @crates, @go, @debian); repeatable, adds to config [sandbox.network] allow. --allow-network opens the whole network instead' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l add-dir -d 'Give the tools DIR as an extra root, confined and protected like the workspace (writable by commands in workspace-write); repeatable, adds to config tools.add_dirs, this turn only' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l max-turns -d 'Stop after N model round-trips (exit 5)' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l max-budget-usd -d 'Stop once this run has spent more than X US dollars (exit 5)' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l timeout -d 'Give up SECS after the start, whatever the run is doing — reading stdin, waiting for any lock, the model, tools (exit 124)' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l idle-timeout -d 'Give up when the provider or child process stays silent for SECS' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s i -l image -d 'Attach an image file to the prompt; repeatable' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s o -l output-last-message -d 'Also write the final answer to FILE' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l events-file -d 'Also write stream-json events to FILE, whatever stdout\'s format' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l json-schema -d 'Hold the final answer to a JSON Schema (inline JSON or @FILE): validated, sent back with the errors when invalid, printed as `structured_output`' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l output-schema -d 'Hold the final answer to the JSON Schema in FILE (codex\'s spelling of --json-schema @FILE)' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l auth-profile -d 'Use only the credential profile ID' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l tag -d 'Label this run\'s line in the usage ledger, for `pincer usage --by tag`' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l stdin-timeout -d 'Wait at most SECS for stdin\'s first byte (default 0.5 with a prompt, 5 without; 0 = no limit). A file, or a pipe written by another command of the pipeline, is always read whole' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l record -d 'Append every model exchange of this run (HTTP request and response, or a CLI child\'s output) to the cassette FILE, created when missing; keys are never written' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l replay -d 'Answer every model request from the cassette FILE: no network, no CLI child, no key; a request the cassette has no answer for ends the run (exit 2) with a diff on stderr' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l replay-mode -d 'With --replay: pair requests by content with dates, ids and paths masked (strict), or take the recorded interactions in order (lenient)' -r -f -a "strict\t'The first unused interaction whose request is the same once dates, ids, temporary paths, the workspace path and the runtime facts are masked'
lenient\t'The next unused interaction in the file, whatever was asked'"
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l last -l continue -d 'Continue the most recently updated session of this workspace; the only argument is then the prompt'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l all -d 'With --last, consider sessions of every directory'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l fork -l fork-session -d 'Continue in a new session file holding a copy of the current branch'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l create -d 'Create the session named SESSION when none has that name yet; of overlapping creators one creates it and the others continue it (waiting under --wait, else exit 75)'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l no-context-files -d 'Leave out workspace files such as AGENTS.md and MEMORY.md'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l no-skills -d 'Do not discover skills in <config>/skills, .pincer/skills, .agents/skills or skills.paths (--skill paths still load)'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l strict-mcp-config -d 'Use only the servers of --mcp-config, not those of config.toml or the workspace'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l approve-workspace-mcp -d 'Approve the servers of the workspace\'s .mcp.json as they are now ([mcp] load_workspace = true starts only approved ones; a new or changed server waits for this flag)'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l include-hook-events -d 'With stream-json, also emit system/hook_started and system/hook_response lines for every hook run'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l dangerously-skip-permissions -l dangerously-bypass-approvals-and-sandbox -d 'Same as --sandbox danger-full-access: no confinement at all'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l full-auto -d 'Same as --sandbox workspace-write (codex\'s spelling): edits in the workspace, never asks'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l allow-network -d 'Let commands reach the network (default: off in read-only and workspace-write, only a loopback of their own; config [sandbox] network = true)'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l web-search -d 'Let the model search the web with the provider\'s own search tool (Anthropic, OpenAI Responses, Gemini grounding; claude\'s WebSearch, codex\'s web_search); like config tools.web_search. Exit 2 when the model cannot search. With the network closed an API model\'s search is off, with a warning: --allow-host the provider\'s host, or --allow-network'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l no-session-persistence -l ephemeral -d 'Keep nothing on disk: no session file, no index entry'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l include-partial-messages -d 'With stream-json, also emit stream_event lines: Anthropic\'s raw stream events (message_start, content_block_delta with text_delta, …) as claude does, for every model'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l heartbeat -d 'Run a cron heartbeat turn: act on HEARTBEAT.md, print nothing when all is well'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l approve-workspace-files -d 'Read the context files, skills and .mcp.json that an earlier run\'s commands or tools created or changed here (held back until approved, or changed by you)'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l dry-run -d 'Print what would be sent (model, prompt, tools, messages) and exit 0 without calling it'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l skip-git-repo-check -d 'Accepted for codex compatibility and ignored: pincer never requires a git repository'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l strict-config -d 'Accepted for codex compatibility and ignored: unknown config keys are always an error'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l no-stdin -d 'Never read stdin, even when it is a pipe'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l lossy-stdin -d 'Replace invalid UTF-8 on stdin with U+FFFD and warn, instead of exiting 2'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l replay-pace -d 'With --replay: stream at the recorded pace instead of as fast as possible'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand resume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l thread-source -d 'Accepted for the Codex SDK and ignored with a warning (codex\'s thread classification)' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l cyber-access-program -d 'Accepted for the Codex SDK and ignored with a warning (an OpenAI account program)' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -s m -l model -d 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l fallback-model -d 'Models to try in order when the primary one fails over; repeatable or comma-separated' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l thinking -l effort -d 'Reasoning level, mapped to each provider\'s setting (claude\'s `--effort max` is xhigh)' -r -f -a "off\t'No reasoning'
minimal\t'The least reasoning the model supports'
low\t'Little reasoning'
medium\t'Moderate reasoning'
high\t'Much reasoning'
xhigh\t'The most reasoning the model supports'"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l max-thinking-tokens -d 'Thinking budget in tokens (claude\'s spelling): sent as is to Anthropic (at least 1024) and Gemini (within the model\'s range), as the nearest --thinking level elsewhere; 0 is off' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l system-prompt -d 'Replace the whole built system prompt with TEXT' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l system-prompt-file -d 'Replace the whole built system prompt with the contents of FILE' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l append-system-prompt -d 'Append TEXT to the system prompt for this turn; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l append-system-prompt-file -d 'Append the contents of FILE to the system prompt for this turn; repeatable' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l prompt-mode -d 'How much of the built system prompt to send' -r -f -a "full\t'Every section and the workspace files'
minimal\t'Tools, safety rules and runtime facts only'
none\t'Only text the user supplies'"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l skill -d 'List the skill at PATH (a skill directory, its SKILL.md, or a directory of skills) in the prompt, after the discovered ones (a later name shadows an earlier one); repeatable' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l tools -d 'Offer exactly these tools, comma-separated ("" offers none)' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l allowed-tools -d 'Allow tool calls matching PATTERN, e.g. group:fs or "exec(git *)" (plain commands only); repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l disallowed-tools -d 'Deny tool calls matching PATTERN (deny wins over allow); repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l mcp-config -d 'Use the MCP servers of FILE, or of the JSON given inline (claude\'s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l settings -d 'Run the hooks of FILE, or of the JSON given inline (Claude Code\'s settings format, {"hooks": {"PreToolUse": […]}}, e.g. .claude/settings.json); repeatable, added to config.toml\'s [[hooks.EVENT]]' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -s s -l sandbox -d 'What tools may touch on disk (default from config, else workspace-write)' -r -f -a "read-only\t'No writes; exec only under OS read-only enforcement'
workspace-write\t'Writes confined to the workspace and the run\'s private temp directory'
danger-full-access\t'No confinement'"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l permission-mode -d 'Claude-style permission mode, mapped to a sandbox mode' -r -f -a "plan\t'Read-only: plan without changing anything'
acceptEdits\t'Edits allowed inside the workspace'
bypassPermissions\t'No confinement, like --dangerously-skip-permissions'
dontAsk\t'Deny what is not explicitly allowed'
auto\t'Work in the workspace without asking (claude\'s classifier mode; nothing asks headless)'
default\t'The configured default sandbox'"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l allow-host -d 'Let commands reach the hosts PATTERN names, and nothing else, through pincer\'s egress proxy: a name (registry.npmjs.org), *.domain, host:port, localhost:PORT, an address or network, or a preset (@npm, @pypi, @crates, @go, @debian); repeatable, adds to config [sandbox.network] allow. --allow-network opens the whole network instead' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l add-dir -d 'Give the tools DIR as an extra root, confined and protected like the workspace (writable by commands in workspace-write); repeatable, adds to config tools.add_dirs, this turn only' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l max-turns -d 'Stop after N model round-trips (exit 5)' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l max-budget-usd -d 'Stop once this run has spent more than X US dollars (exit 5)' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l timeout -d 'Give up SECS after the start, whatever the run is doing — reading stdin, waiting for any lock, the model, tools (exit 124)' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l idle-timeout -d 'Give up when the provider or child process stays silent for SECS' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -s i -l image -d 'Attach an image file to the prompt; repeatable' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -s o -l output-last-message -d 'Also write the final answer to FILE' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l events-file -d 'Also write stream-json events to FILE, whatever stdout\'s format' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l json-schema -d 'Hold the final answer to a JSON Schema (inline JSON or @FILE): validated, sent back with the errors when invalid, printed as `structured_output`' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l output-schema -d 'Hold the final answer to the JSON Schema in FILE (codex\'s spelling of --json-schema @FILE)' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l auth-profile -d 'Use only the credential profile ID' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l tag -d 'Label this run\'s line in the usage ledger, for `pincer usage --by tag`' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l stdin-timeout -d 'Wait at most SECS for stdin\'s first byte (default 0.5 with a prompt, 5 without; 0 = no limit). A file, or a pipe written by another command of the pipeline, is always read whole' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l record -d 'Append every model exchange of this run (HTTP request and response, or a CLI child\'s output) to the cassette FILE, created when missing; keys are never written' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l replay -d 'Answer every model request from the cassette FILE: no network, no CLI child, no key; a request the cassette has no answer for ends the run (exit 2) with a diff on stderr' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l replay-mode -d 'With --replay: pair requests by content with dates, ids and paths masked (strict), or take the recorded interactions in order (lenient)' -r -f -a "strict\t'The first unused interaction whose request is the same once dates, ids, temporary paths, the workspace path and the runtime facts are masked'
lenient\t'The next unused interaction in the file, whatever was asked'"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l experimental-json -d 'Print codex\'s JSONL events (thread.started, item.*, turn.completed or turn.failed), as --json does under exec'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l no-context-files -d 'Leave out workspace files such as AGENTS.md and MEMORY.md'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l no-skills -d 'Do not discover skills in <config>/skills, .pincer/skills, .agents/skills or skills.paths (--skill paths still load)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l strict-mcp-config -d 'Use only the servers of --mcp-config, not those of config.toml or the workspace'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l approve-workspace-mcp -d 'Approve the servers of the workspace\'s .mcp.json as they are now ([mcp] load_workspace = true starts only approved ones; a new or changed server waits for this flag)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l include-hook-events -d 'With stream-json, also emit system/hook_started and system/hook_response lines for every hook run'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l dangerously-skip-permissions -l dangerously-bypass-approvals-and-sandbox -d 'Same as --sandbox danger-full-access: no confinement at all'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l full-auto -d 'Same as --sandbox workspace-write (codex\'s spelling): edits in the workspace, never asks'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l allow-network -d 'Let commands reach the network (default: off in read-only and workspace-write, only a loopback of their own; config [sandbox] network = true)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l web-search -d 'Let the model search the web with the provider\'s own search tool (Anthropic, OpenAI Responses, Gemini grounding; claude\'s WebSearch, codex\'s web_search); like config tools.web_search. Exit 2 when the model cannot search. With the network closed an API model\'s search is off, with a warning: --allow-host the provider\'s host, or --allow-network'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l no-session-persistence -l ephemeral -d 'Keep nothing on disk: no session file, no index entry'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l include-partial-messages -d 'With stream-json, also emit stream_event lines: Anthropic\'s raw stream events (message_start, content_block_delta with text_delta, …) as claude does, for every model'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l heartbeat -d 'Run a cron heartbeat turn: act on HEARTBEAT.md, print nothing when all is well'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l approve-workspace-files -d 'Read the context files, skills and .mcp.json that an earlier run\'s commands or tools created or changed here (held back until approved, or changed by you)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l dry-run -d 'Print what would be sent (model, prompt, tools, messages) and exit 0 without calling it'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l skip-git-repo-check -d 'Accepted for codex compatibility and ignored: pincer never requires a git repository'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l strict-config -d 'Accepted for codex compatibility and ignored: unknown config keys are always an error'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l no-stdin -d 'Never read stdin, even when it is a pipe'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l lossy-stdin -d 'Replace invalid UTF-8 on stdin with U+FFFD and warn, instead of exiting 2'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l replay-pace -d 'With --replay: stream at the recorded pace instead of as fast as possible'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -a "resume" -d 'Continue a thread (the session id thread.started printed, or a prefix, name or file)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and not __fish_seen_subcommand_from resume help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -s i -l image -d 'Attach an image file to the prompt; repeatable (the Codex SDK puts it after the id)' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -l last -d 'Continue the most recently updated session of this workspace; the only argument is then the prompt'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from resume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from help" -f -a "resume" -d 'Continue a thread (the session id thread.started printed, or a prefix, name or file)'
complete -c pincer -n "__fish_pincer_using_subcommand exec; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l instructions -d 'Tell the summarizer what to focus on' -r
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l keep-recent-tokens -d 'Keep at least N tokens of the newest messages verbatim' -r
complete -c pincer -n "__fish_pincer_using_subcommand compact" -s m -l model -d 'Model that writes the summary (default: the session\'s model)' -r
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l record -d 'Append every model exchange of this run (HTTP request and response, or a CLI child\'s output) to the cassette FILE, created when missing; keys are never written' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l replay -d 'Answer every model request from the cassette FILE: no network, no CLI child, no key; a request the cassette has no answer for ends the run (exit 2) with a diff on stderr' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l replay-mode -d 'With --replay: pair requests by content with dates, ids and paths masked (strict), or take the recorded interactions in order (lenient)' -r -f -a "strict\t'The first unused interaction whose request is the same once dates, ids, temporary paths, the workspace path and the runtime facts are masked'
lenient\t'The next unused interaction in the file, whatever was asked'"
complete -c pincer -n "__fish_pincer_using_subcommand compact" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand compact" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand compact" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l last -l continue -d 'Compact the most recently updated session of this workspace'
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l all -d 'With --last, consider sessions of every directory'
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l dry-run -d 'Show the cut point and token estimates; change nothing'
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l replay-pace -d 'With --replay: stream at the recorded pace instead of as fast as possible'
complete -c pincer -n "__fish_pincer_using_subcommand compact" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand compact" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand compact" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand compact" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -l cwd -d 'List the sessions of DIR instead of this workspace' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -l limit -d 'Show at most N sessions' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -l name -d 'Only sessions whose name matches GLOB, e.g. \'ci-*\'' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -l all -d 'Include sessions of every directory, not only this workspace'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "list" -d 'List sessions, newest first (the default); with --store, the store\'s'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "show" -d 'Print a session\'s transcript; with --store, the store\'s copy'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "export" -d 'Write a session out as markdown, JSON or the raw JSONL; with --store, the store\'s copy'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "fork" -d 'Copy a session (up to an entry) into a new session'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "rename" -d 'Give a session a new unique name'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "rm" -d 'Delete sessions; with --store, from the store, under each one\'s lease'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "prune" -d 'Delete sessions not updated for a while; with --store, the store\'s'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "path" -d 'Print the path of a session\'s file'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "push" -d 'Copy local sessions into the session store (--store); one already there is skipped'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "pull" -d 'Write the local copy of a session of the session store (--store) and print its path'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "repair" -d 'Fix a corrupt session file, moving unreadable lines to a side file'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and not __fish_seen_subcommand_from list show export fork rename rm prune path push pull repair help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -l cwd -d 'List the sessions of DIR instead of this workspace' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -l limit -d 'Show at most N sessions' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -l name -d 'Only sessions whose name matches GLOB, e.g. \'ci-*\'' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -l all -d 'Include sessions of every directory, not only this workspace'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -l tree -d 'Show every branch of the session tree, not only the current one'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -l format -d 'Export format' -r -f -a "markdown\t'A readable transcript'
json\t'One JSON document with the header and all entries'
jsonl\t'The session file\'s own lines'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -s o -l output -d 'Write to FILE instead of stdout' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l at -d 'Fork at entry ID instead of the current leaf' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l name -d 'Name the new session' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from fork" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rename" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -s f -l force -d 'Delete even when a run holds the session\'s lock'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from rm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -l older-than -d 'Delete sessions not updated for DURATION, e.g. 30d, 12h, 90m' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -l cwd -d 'Prune the sessions of DIR instead of this workspace' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -l dry-run -d 'List what would be deleted; delete nothing'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -l all -d 'Prune sessions of every directory, not only this workspace'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from prune" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -l all -d 'Copy every local session'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from push" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from pull" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -l dry-run -d 'Report what would be fixed; change nothing'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from repair" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "list" -d 'List sessions, newest first (the default); with --store, the store\'s'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print a session\'s transcript; with --store, the store\'s copy'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write a session out as markdown, JSON or the raw JSONL; with --store, the store\'s copy'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "fork" -d 'Copy a session (up to an entry) into a new session'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "rename" -d 'Give a session a new unique name'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "rm" -d 'Delete sessions; with --store, from the store, under each one\'s lease'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "prune" -d 'Delete sessions not updated for a while; with --store, the store\'s'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the path of a session\'s file'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "push" -d 'Copy local sessions into the session store (--store); one already there is skipped'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "pull" -d 'Write the local copy of a session of the session store (--store) and print its path'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "repair" -d 'Fix a corrupt session file, moving unreadable lines to a side file'
complete -c pincer -n "__fish_pincer_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pincer -n "__fish_pincer_using_subcommand status" -l mcp-config -d 'Use the MCP servers of FILE, or of the JSON given inline (claude\'s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win' -r
complete -c pincer -n "__fish_pincer_using_subcommand status" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand status" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand status" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand status" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand status" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand status" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand status" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand status" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand status" -l mcp -d 'Start each configured MCP server, list its tools and report failures with the server\'s stderr'
complete -c pincer -n "__fish_pincer_using_subcommand status" -l strict-mcp-config -d 'Use only the servers of --mcp-config, not those of config.toml or the workspace'
complete -c pincer -n "__fish_pincer_using_subcommand status" -l approve-workspace-mcp -d 'Approve the servers of the workspace\'s .mcp.json as they are now ([mcp] load_workspace = true starts only approved ones; a new or changed server waits for this flag)'
complete -c pincer -n "__fish_pincer_using_subcommand status" -l last -l continue -d 'Show the most recently updated session of this workspace'
complete -c pincer -n "__fish_pincer_using_subcommand status" -l all -d 'With --last, consider sessions of every directory'
complete -c pincer -n "__fish_pincer_using_subcommand status" -l fresh-probe -d 'Probe the exec sandbox now, rather than reuse what a probe found earlier this boot while nothing it depends on has changed'
complete -c pincer -n "__fish_pincer_using_subcommand status" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand status" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand status" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -f -a "list" -d 'List credential profiles (the default)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -f -a "add" -d 'Store a credential; the secret is read from stdin or a hidden prompt, never from argv'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -f -a "remove" -d 'Delete a credential profile'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -f -a "order" -d 'Show or set the order in which a provider\'s profiles are tried'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -f -a "status" -d 'Show each profile\'s type, source, last use, cooldown and failure counts'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -f -a "reset" -d 'Clear cooldowns and failure counts, of one profile or all'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -f -a "test" -d 'Send one minimal request and print the classified outcome'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and not __fish_seen_subcommand_from list add remove order status reset test help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -l name -d 'Profile name (default: derived from the provider)' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -l type -d 'Kind of credential' -r -f -a "api_key\t'A provider API key'
token\t'A bearer or OAuth token'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -l from-env -d 'Store a reference to environment variable VAR instead of a secret' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -l command -d 'Store a command whose stdout is the secret, run when the secret is needed' -r -f -a "(__fish_complete_command)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from order" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from reset" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -s m -l model -d 'Model to send the test request to (default: the configured model when its provider matches, else the provider\'s smallest catalog model)' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -l record -d 'Append every model exchange of this run (HTTP request and response, or a CLI child\'s output) to the cassette FILE, created when missing; keys are never written' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -l replay -d 'Answer every model request from the cassette FILE: no network, no CLI child, no key; a request the cassette has no answer for ends the run (exit 2) with a diff on stderr' -r -F
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -l replay-mode -d 'With --replay: pair requests by content with dates, ids and paths masked (strict), or take the recorded interactions in order (lenient)' -r -f -a "strict\t'The first unused interaction whose request is the same once dates, ids, temporary paths, the workspace path and the runtime facts are masked'
lenient\t'The next unused interaction in the file, whatever was asked'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -l replay-pace -d 'With --replay: stream at the recorded pace instead of as fast as possible'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from test" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "list" -d 'List credential profiles (the default)'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "add" -d 'Store a credential; the secret is read from stdin or a hidden prompt, never from argv'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Delete a credential profile'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "order" -d 'Show or set the order in which a provider\'s profiles are tried'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show each profile\'s type, source, last use, cooldown and failure counts'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "reset" -d 'Clear cooldowns and failure counts, of one profile or all'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "test" -d 'Send one minimal request and print the classified outcome'
complete -c pincer -n "__fish_pincer_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pincer -n "__fish_pincer_using_subcommand usage" -l since -d 'Only runs that ended since WHEN: a duration back from now (7d, 24h, 2w, 90m) or an RFC 3339 date or time (2026-06-01 is its 00:00 UTC). Default: every run' -r
complete -c pincer -n "__fish_pincer_using_subcommand usage" -l by -d 'Add a row per UTC day, per provider/model, per session (name, else id) or per --tag' -r -f -a "day\t'The UTC day the run ended'
model\t'provider/model'
session\t'The session\'s name, else its id'
tag\t'The run\'s --tag'"
complete -c pincer -n "__fish_pincer_using_subcommand usage" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand usage" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand usage" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand usage" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand usage" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand usage" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand usage" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand usage" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand usage" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand usage" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand usage" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand usage" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand completions" -s C -l cd -d 'Use DIR as the workspace instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand completions" -l home -d 'Keep config, credentials and sessions in DIR instead of the XDG directories' -r -f -a "(__fish_complete_directories)"
complete -c pincer -n "__fish_pincer_using_subcommand completions" -s c -l config -d 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable' -r
complete -c pincer -n "__fish_pincer_using_subcommand completions" -l output-format -d 'Choose what stdout carries: final text, one result object, or JSONL events' -r -f -a "text\t'The final answer as plain text'
json\t'One result object at the end, also on errors'
stream-json\t'One JSON event per line as the run progresses, the result object last'"
complete -c pincer -n "__fish_pincer_using_subcommand completions" -s d -l debug -d 'Same as -vv (claude\'s spelling); a category filter given with = is accepted and ignored' -r
complete -c pincer -n "__fish_pincer_using_subcommand completions" -l color -d 'Style stderr output; NO_COLOR in the environment also turns colors off' -r -f -a "auto\t'Color when stderr is a terminal and NO_COLOR is unset'
always\t'Always color'
never\t'Never color'"
complete -c pincer -n "__fish_pincer_using_subcommand completions" -l wait -d 'Wait up to SECS for a busy session\'s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75' -r
complete -c pincer -n "__fish_pincer_using_subcommand completions" -l store -d 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store \'\') turns it off' -r -f
complete -c pincer -n "__fish_pincer_using_subcommand completions" -l json -d 'Print one JSON result object; same as --output-format json'
complete -c pincer -n "__fish_pincer_using_subcommand completions" -s q -l quiet -d 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
complete -c pincer -n "__fish_pincer_using_subcommand completions" -s v -l verbose -d 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
complete -c pincer -n "__fish_pincer_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pincer -n "__fish_pincer_using_subcommand help; and not __fish_seen_subcommand_from run resume exec compact sessions status auth usage completions help" -f -a "run" -d 'Start a new session and run one turn'
complete -c pincer -n "__fish_pincer_using_subcommand help; and not __fish_seen_subcommand_from run resume exec compact sessions status auth usage completions help" -f -a "resume" -d 'Continue a session (by id, prefix, name, file or --last) and run one turn'
complete -c pincer -n "__fish_pincer_using_subcommand help; and not __fish_seen_subcommand_from run resume exec compact sessions status auth usage completions help" -f -a "exec" -d 'Run one turn as `codex exec` does, for the Codex SDK (--json prints codex\'s events)'
complete -c pincer -n "__fish_pincer_using_subcommand help; and not __fish_seen_subcommand_from run resume exec compact sessions status auth usage completions help" -f -a "compact" -d 'Summarize the older part of a session now to free context'
complete -c pincer -n "__fish_pincer_using_subcommand help; and not __fish_seen_subcommand_from run resume exec compact sessions status auth usage completions help" -f -a "sessions" -d 'List, inspect, export, fork, rename, remove and repair sessions (default: list)'
complete -c pincer -n "__fish_pincer_using_subcommand help; and not __fish_seen_subcommand_from run resume exec compact sessions status auth usage completions help" -f -a "status" -d 'Show one session\'s state, or defaults, credentials and backends without one'
complete -c pincer -n "__fish_pincer_using_subcommand help; and not __fish_seen_subcommand_from run resume exec compact sessions status auth usage completions help" -f -a "auth" -d 'Manage credential profiles (default: list); secrets are never printed'
complete -c pincer -n "__fish_pincer_using_subcommand help; and not __fish_seen_subcommand_from run resume exec compact sessions status auth usage completions help" -f -a "usage" -d 'Report what runs spent, from the usage ledger: totals, by day, model, session or tag'
complete -c pincer -n "__fish_pincer_using_subcommand help; and not __fish_seen_subcommand_from run resume exec compact sessions status auth usage completions help" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c pincer -n "__fish_pincer_using_subcommand help; and not __fish_seen_subcommand_from run resume exec compact sessions status auth usage completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from exec" -f -a "resume" -d 'Continue a thread (the session id thread.started printed, or a prefix, name or file)'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "list" -d 'List sessions, newest first (the default); with --store, the store\'s'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "show" -d 'Print a session\'s transcript; with --store, the store\'s copy'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "export" -d 'Write a session out as markdown, JSON or the raw JSONL; with --store, the store\'s copy'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "fork" -d 'Copy a session (up to an entry) into a new session'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "rename" -d 'Give a session a new unique name'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "rm" -d 'Delete sessions; with --store, from the store, under each one\'s lease'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "prune" -d 'Delete sessions not updated for a while; with --store, the store\'s'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "path" -d 'Print the path of a session\'s file'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "push" -d 'Copy local sessions into the session store (--store); one already there is skipped'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "pull" -d 'Write the local copy of a session of the session store (--store) and print its path'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "repair" -d 'Fix a corrupt session file, moving unreadable lines to a side file'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "list" -d 'List credential profiles (the default)'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "add" -d 'Store a credential; the secret is read from stdin or a hidden prompt, never from argv'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "remove" -d 'Delete a credential profile'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "order" -d 'Show or set the order in which a provider\'s profiles are tried'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "status" -d 'Show each profile\'s type, source, last use, cooldown and failure counts'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "reset" -d 'Clear cooldowns and failure counts, of one profile or all'
complete -c pincer -n "__fish_pincer_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "test" -d 'Send one minimal request and print the classified outcome'
