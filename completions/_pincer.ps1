
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'pincer' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'pincer'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'pincer' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Start a new session and run one turn')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Continue a session (by id, prefix, name, file or --last) and run one turn')
            [CompletionResult]::new('exec', 'exec', [CompletionResultType]::ParameterValue, 'Run one turn as `codex exec` does, for the Codex SDK (--json prints codex''s events)')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Summarize the older part of a session now to free context')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List, inspect, export, fork, rename, remove and repair sessions (default: list)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show one session''s state, or defaults, credentials and backends without one')
            [CompletionResult]::new('auth', 'auth', [CompletionResultType]::ParameterValue, 'Manage credential profiles (default: list); secrets are never printed')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Report what runs spent, from the usage ledger: totals, by day, model, session or tag')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to stdout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pincer;run' {
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'Give the new session this id instead of a generated one (with -r/--continue, the forked session''s; needs --fork-session)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Give the new session a unique NAME, for `pincer resume NAME`')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Give the new session a unique NAME, for `pincer resume NAME`')
            [CompletionResult]::new('--idempotency-key', '--idempotency-key', [CompletionResultType]::ParameterName, 'A retried step''s key: the session is named KEY (created, or continued if it exists), and a retry whose turn for KEY was already saved prints that turn''s result again without calling the model')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Continue SESSION instead of starting one, like `pincer resume SESSION` (claude''s -r/--resume)')
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'Continue SESSION instead of starting one, like `pincer resume SESSION` (claude''s -r/--resume)')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias')
            [CompletionResult]::new('--fallback-model', '--fallback-model', [CompletionResultType]::ParameterName, 'Models to try in order when the primary one fails over; repeatable or comma-separated')
            [CompletionResult]::new('--thinking', '--thinking', [CompletionResultType]::ParameterName, 'Reasoning level, mapped to each provider''s setting (claude''s `--effort max` is xhigh)')
            [CompletionResult]::new('--effort', '--effort', [CompletionResultType]::ParameterName, 'Reasoning level, mapped to each provider''s setting (claude''s `--effort max` is xhigh)')
            [CompletionResult]::new('--max-thinking-tokens', '--max-thinking-tokens', [CompletionResultType]::ParameterName, 'Thinking budget in tokens (claude''s spelling): sent as is to Anthropic (at least 1024) and Gemini (within the model''s range), as the nearest --thinking level elsewhere; 0 is off')
            [CompletionResult]::new('--system-prompt', '--system-prompt', [CompletionResultType]::ParameterName, 'Replace the whole built system prompt with TEXT')
            [CompletionResult]::new('--system-prompt-file', '--system-prompt-file', [CompletionResultType]::ParameterName, 'Replace the whole built system prompt with the contents of FILE')
            [CompletionResult]::new('--append-system-prompt', '--append-system-prompt', [CompletionResultType]::ParameterName, 'Append TEXT to the system prompt for this turn; repeatable')
            [CompletionResult]::new('--append-system-prompt-file', '--append-system-prompt-file', [CompletionResultType]::ParameterName, 'Append the contents of FILE to the system prompt for this turn; repeatable')
            [CompletionResult]::new('--prompt-mode', '--prompt-mode', [CompletionResultType]::ParameterName, 'How much of the built system prompt to send')
            [CompletionResult]::new('--skill', '--skill', [CompletionResultType]::ParameterName, 'List the skill at PATH (a skill directory, its SKILL.md, or a directory of skills) in the prompt, after the discovered ones (a later name shadows an earlier one); repeatable')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Offer exactly these tools, comma-separated ("" offers none)')
            [CompletionResult]::new('--allowed-tools', '--allowed-tools', [CompletionResultType]::ParameterName, 'Allow tool calls matching PATTERN, e.g. group:fs or "exec(git *)" (plain commands only); repeatable')
            [CompletionResult]::new('--disallowed-tools', '--disallowed-tools', [CompletionResultType]::ParameterName, 'Deny tool calls matching PATTERN (deny wins over allow); repeatable')
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'Use the MCP servers of FILE, or of the JSON given inline (claude''s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win')
            [CompletionResult]::new('--settings', '--settings', [CompletionResultType]::ParameterName, 'Run the hooks of FILE, or of the JSON given inline (Claude Code''s settings format, {"hooks": {"PreToolUse": […]}}, e.g. .claude/settings.json); repeatable, added to config.toml''s [[hooks.EVENT]]')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'What tools may touch on disk (default from config, else workspace-write)')
            [CompletionResult]::new('--sandbox', '--sandbox', [CompletionResultType]::ParameterName, 'What tools may touch on disk (default from config, else workspace-write)')
            [CompletionResult]::new('--permission-mode', '--permission-mode', [CompletionResultType]::ParameterName, 'Claude-style permission mode, mapped to a sandbox mode')
            [CompletionResult]::new('--allow-host', '--allow-host', [CompletionResultType]::ParameterName, 'Let commands reach the hosts PATTERN names, and nothing else, through pincer''s egress proxy: a name (registry.npmjs.org), *.domain, host:port, localhost:PORT, an address or network, or a preset (@npm, @pypi, @crates, @go, @debian); repeatable, adds to config [sandbox.network] allow. --allow-network opens the whole network instead')
            [CompletionResult]::new('--add-dir', '--add-dir', [CompletionResultType]::ParameterName, 'Give the tools DIR as an extra root, confined and protected like the workspace (writable by commands in workspace-write); repeatable, adds to config tools.add_dirs, this turn only')
            [CompletionResult]::new('--max-turns', '--max-turns', [CompletionResultType]::ParameterName, 'Stop after N model round-trips (exit 5)')
            [CompletionResult]::new('--max-budget-usd', '--max-budget-usd', [CompletionResultType]::ParameterName, 'Stop once this run has spent more than X US dollars (exit 5)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up SECS after the start, whatever the run is doing — reading stdin, waiting for any lock, the model, tools (exit 124)')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Give up when the provider or child process stays silent for SECS')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Attach an image file to the prompt; repeatable')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Attach an image file to the prompt; repeatable')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Also write the final answer to FILE')
            [CompletionResult]::new('--output-last-message', '--output-last-message', [CompletionResultType]::ParameterName, 'Also write the final answer to FILE')
            [CompletionResult]::new('--events-file', '--events-file', [CompletionResultType]::ParameterName, 'Also write stream-json events to FILE, whatever stdout''s format')
            [CompletionResult]::new('--json-schema', '--json-schema', [CompletionResultType]::ParameterName, 'Hold the final answer to a JSON Schema (inline JSON or @FILE): validated, sent back with the errors when invalid, printed as `structured_output`')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'Hold the final answer to the JSON Schema in FILE (codex''s spelling of --json-schema @FILE)')
            [CompletionResult]::new('--auth-profile', '--auth-profile', [CompletionResultType]::ParameterName, 'Use only the credential profile ID')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Label this run''s line in the usage ledger, for `pincer usage --by tag`')
            [CompletionResult]::new('--stdin-timeout', '--stdin-timeout', [CompletionResultType]::ParameterName, 'Wait at most SECS for stdin''s first byte (default 0.5 with a prompt, 5 without; 0 = no limit). A file, or a pipe written by another command of the pipeline, is always read whole')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Append every model exchange of this run (HTTP request and response, or a CLI child''s output) to the cassette FILE, created when missing; keys are never written')
            [CompletionResult]::new('--replay', '--replay', [CompletionResultType]::ParameterName, 'Answer every model request from the cassette FILE: no network, no CLI child, no key; a request the cassette has no answer for ends the run (exit 2) with a diff on stderr')
            [CompletionResult]::new('--replay-mode', '--replay-mode', [CompletionResultType]::ParameterName, 'With --replay: pair requests by content with dates, ids and paths masked (strict), or take the recorded interactions in order (lenient)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--continue', '--continue', [CompletionResultType]::ParameterName, 'Continue the newest session of this workspace, like `pincer resume --last` (claude''s --continue; long only: -c is --config)')
            [CompletionResult]::new('--fork-session', '--fork-session', [CompletionResultType]::ParameterName, 'With -r or --continue: continue in a new session holding a copy, like `resume --fork`')
            [CompletionResult]::new('--no-context-files', '--no-context-files', [CompletionResultType]::ParameterName, 'Leave out workspace files such as AGENTS.md and MEMORY.md')
            [CompletionResult]::new('--no-skills', '--no-skills', [CompletionResultType]::ParameterName, 'Do not discover skills in <config>/skills, .pincer/skills, .agents/skills or skills.paths (--skill paths still load)')
            [CompletionResult]::new('--strict-mcp-config', '--strict-mcp-config', [CompletionResultType]::ParameterName, 'Use only the servers of --mcp-config, not those of config.toml or the workspace')
            [CompletionResult]::new('--approve-workspace-mcp', '--approve-workspace-mcp', [CompletionResultType]::ParameterName, 'Approve the servers of the workspace''s .mcp.json as they are now ([mcp] load_workspace = true starts only approved ones; a new or changed server waits for this flag)')
            [CompletionResult]::new('--include-hook-events', '--include-hook-events', [CompletionResultType]::ParameterName, 'With stream-json, also emit system/hook_started and system/hook_response lines for every hook run')
            [CompletionResult]::new('--dangerously-skip-permissions', '--dangerously-skip-permissions', [CompletionResultType]::ParameterName, 'Same as --sandbox danger-full-access: no confinement at all')
            [CompletionResult]::new('--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-approvals-and-sandbox', [CompletionResultType]::ParameterName, 'Same as --sandbox danger-full-access: no confinement at all')
            [CompletionResult]::new('--full-auto', '--full-auto', [CompletionResultType]::ParameterName, 'Same as --sandbox workspace-write (codex''s spelling): edits in the workspace, never asks')
            [CompletionResult]::new('--allow-network', '--allow-network', [CompletionResultType]::ParameterName, 'Let commands reach the network (default: off in read-only and workspace-write, only a loopback of their own; config [sandbox] network = true)')
            [CompletionResult]::new('--web-search', '--web-search', [CompletionResultType]::ParameterName, 'Let the model search the web with the provider''s own search tool (Anthropic, OpenAI Responses, Gemini grounding; claude''s WebSearch, codex''s web_search); like config tools.web_search. Exit 2 when the model cannot search. With the network closed an API model''s search is off, with a warning: --allow-host the provider''s host, or --allow-network')
            [CompletionResult]::new('--no-session-persistence', '--no-session-persistence', [CompletionResultType]::ParameterName, 'Keep nothing on disk: no session file, no index entry')
            [CompletionResult]::new('--ephemeral', '--ephemeral', [CompletionResultType]::ParameterName, 'Keep nothing on disk: no session file, no index entry')
            [CompletionResult]::new('--include-partial-messages', '--include-partial-messages', [CompletionResultType]::ParameterName, 'With stream-json, also emit stream_event lines: Anthropic''s raw stream events (message_start, content_block_delta with text_delta, …) as claude does, for every model')
            [CompletionResult]::new('--heartbeat', '--heartbeat', [CompletionResultType]::ParameterName, 'Run a cron heartbeat turn: act on HEARTBEAT.md, print nothing when all is well')
            [CompletionResult]::new('--approve-workspace-files', '--approve-workspace-files', [CompletionResultType]::ParameterName, 'Read the context files, skills and .mcp.json that an earlier run''s commands or tools created or changed here (held back until approved, or changed by you)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be sent (model, prompt, tools, messages) and exit 0 without calling it')
            [CompletionResult]::new('--skip-git-repo-check', '--skip-git-repo-check', [CompletionResultType]::ParameterName, 'Accepted for codex compatibility and ignored: pincer never requires a git repository')
            [CompletionResult]::new('--strict-config', '--strict-config', [CompletionResultType]::ParameterName, 'Accepted for codex compatibility and ignored: unknown config keys are always an error')
            [CompletionResult]::new('--no-stdin', '--no-stdin', [CompletionResultType]::ParameterName, 'Never read stdin, even when it is a pipe')
            [CompletionResult]::new('--lossy-stdin', '--lossy-stdin', [CompletionResultType]::ParameterName, 'Replace invalid UTF-8 on stdin with U+FFFD and warn, instead of exiting 2')
            [CompletionResult]::new('--replay-pace', '--replay-pace', [CompletionResultType]::ParameterName, 'With --replay: stream at the recorded pace instead of as fast as possible')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;resume' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Rename the session to NAME')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Rename the session to NAME')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'With --fork or --create: the id (a UUID) of the session made')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias')
            [CompletionResult]::new('--fallback-model', '--fallback-model', [CompletionResultType]::ParameterName, 'Models to try in order when the primary one fails over; repeatable or comma-separated')
            [CompletionResult]::new('--thinking', '--thinking', [CompletionResultType]::ParameterName, 'Reasoning level, mapped to each provider''s setting (claude''s `--effort max` is xhigh)')
            [CompletionResult]::new('--effort', '--effort', [CompletionResultType]::ParameterName, 'Reasoning level, mapped to each provider''s setting (claude''s `--effort max` is xhigh)')
            [CompletionResult]::new('--max-thinking-tokens', '--max-thinking-tokens', [CompletionResultType]::ParameterName, 'Thinking budget in tokens (claude''s spelling): sent as is to Anthropic (at least 1024) and Gemini (within the model''s range), as the nearest --thinking level elsewhere; 0 is off')
            [CompletionResult]::new('--system-prompt', '--system-prompt', [CompletionResultType]::ParameterName, 'Replace the whole built system prompt with TEXT')
            [CompletionResult]::new('--system-prompt-file', '--system-prompt-file', [CompletionResultType]::ParameterName, 'Replace the whole built system prompt with the contents of FILE')
            [CompletionResult]::new('--append-system-prompt', '--append-system-prompt', [CompletionResultType]::ParameterName, 'Append TEXT to the system prompt for this turn; repeatable')
            [CompletionResult]::new('--append-system-prompt-file', '--append-system-prompt-file', [CompletionResultType]::ParameterName, 'Append the contents of FILE to the system prompt for this turn; repeatable')
            [CompletionResult]::new('--prompt-mode', '--prompt-mode', [CompletionResultType]::ParameterName, 'How much of the built system prompt to send')
            [CompletionResult]::new('--skill', '--skill', [CompletionResultType]::ParameterName, 'List the skill at PATH (a skill directory, its SKILL.md, or a directory of skills) in the prompt, after the discovered ones (a later name shadows an earlier one); repeatable')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Offer exactly these tools, comma-separated ("" offers none)')
            [CompletionResult]::new('--allowed-tools', '--allowed-tools', [CompletionResultType]::ParameterName, 'Allow tool calls matching PATTERN, e.g. group:fs or "exec(git *)" (plain commands only); repeatable')
            [CompletionResult]::new('--disallowed-tools', '--disallowed-tools', [CompletionResultType]::ParameterName, 'Deny tool calls matching PATTERN (deny wins over allow); repeatable')
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'Use the MCP servers of FILE, or of the JSON given inline (claude''s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win')
            [CompletionResult]::new('--settings', '--settings', [CompletionResultType]::ParameterName, 'Run the hooks of FILE, or of the JSON given inline (Claude Code''s settings format, {"hooks": {"PreToolUse": […]}}, e.g. .claude/settings.json); repeatable, added to config.toml''s [[hooks.EVENT]]')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'What tools may touch on disk (default from config, else workspace-write)')
            [CompletionResult]::new('--sandbox', '--sandbox', [CompletionResultType]::ParameterName, 'What tools may touch on disk (default from config, else workspace-write)')
            [CompletionResult]::new('--permission-mode', '--permission-mode', [CompletionResultType]::ParameterName, 'Claude-style permission mode, mapped to a sandbox mode')
            [CompletionResult]::new('--allow-host', '--allow-host', [CompletionResultType]::ParameterName, 'Let commands reach the hosts PATTERN names, and nothing else, through pincer''s egress proxy: a name (registry.npmjs.org), *.domain, host:port, localhost:PORT, an address or network, or a preset (@npm, @pypi, @crates, @go, @debian); repeatable, adds to config [sandbox.network] allow. --allow-network opens the whole network instead')
            [CompletionResult]::new('--add-dir', '--add-dir', [CompletionResultType]::ParameterName, 'Give the tools DIR as an extra root, confined and protected like the workspace (writable by commands in workspace-write); repeatable, adds to config tools.add_dirs, this turn only')
            [CompletionResult]::new('--max-turns', '--max-turns', [CompletionResultType]::ParameterName, 'Stop after N model round-trips (exit 5)')
            [CompletionResult]::new('--max-budget-usd', '--max-budget-usd', [CompletionResultType]::ParameterName, 'Stop once this run has spent more than X US dollars (exit 5)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up SECS after the start, whatever the run is doing — reading stdin, waiting for any lock, the model, tools (exit 124)')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Give up when the provider or child process stays silent for SECS')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Attach an image file to the prompt; repeatable')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Attach an image file to the prompt; repeatable')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Also write the final answer to FILE')
            [CompletionResult]::new('--output-last-message', '--output-last-message', [CompletionResultType]::ParameterName, 'Also write the final answer to FILE')
            [CompletionResult]::new('--events-file', '--events-file', [CompletionResultType]::ParameterName, 'Also write stream-json events to FILE, whatever stdout''s format')
            [CompletionResult]::new('--json-schema', '--json-schema', [CompletionResultType]::ParameterName, 'Hold the final answer to a JSON Schema (inline JSON or @FILE): validated, sent back with the errors when invalid, printed as `structured_output`')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'Hold the final answer to the JSON Schema in FILE (codex''s spelling of --json-schema @FILE)')
            [CompletionResult]::new('--auth-profile', '--auth-profile', [CompletionResultType]::ParameterName, 'Use only the credential profile ID')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Label this run''s line in the usage ledger, for `pincer usage --by tag`')
            [CompletionResult]::new('--stdin-timeout', '--stdin-timeout', [CompletionResultType]::ParameterName, 'Wait at most SECS for stdin''s first byte (default 0.5 with a prompt, 5 without; 0 = no limit). A file, or a pipe written by another command of the pipeline, is always read whole')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Append every model exchange of this run (HTTP request and response, or a CLI child''s output) to the cassette FILE, created when missing; keys are never written')
            [CompletionResult]::new('--replay', '--replay', [CompletionResultType]::ParameterName, 'Answer every model request from the cassette FILE: no network, no CLI child, no key; a request the cassette has no answer for ends the run (exit 2) with a diff on stderr')
            [CompletionResult]::new('--replay-mode', '--replay-mode', [CompletionResultType]::ParameterName, 'With --replay: pair requests by content with dates, ids and paths masked (strict), or take the recorded interactions in order (lenient)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--last', '--last', [CompletionResultType]::ParameterName, 'Continue the most recently updated session of this workspace; the only argument is then the prompt')
            [CompletionResult]::new('--continue', '--continue', [CompletionResultType]::ParameterName, 'Continue the most recently updated session of this workspace; the only argument is then the prompt')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'With --last, consider sessions of every directory')
            [CompletionResult]::new('--fork', '--fork', [CompletionResultType]::ParameterName, 'Continue in a new session file holding a copy of the current branch')
            [CompletionResult]::new('--fork-session', '--fork-session', [CompletionResultType]::ParameterName, 'Continue in a new session file holding a copy of the current branch')
            [CompletionResult]::new('--create', '--create', [CompletionResultType]::ParameterName, 'Create the session named SESSION when none has that name yet; of overlapping creators one creates it and the others continue it (waiting under --wait, else exit 75)')
            [CompletionResult]::new('--no-context-files', '--no-context-files', [CompletionResultType]::ParameterName, 'Leave out workspace files such as AGENTS.md and MEMORY.md')
            [CompletionResult]::new('--no-skills', '--no-skills', [CompletionResultType]::ParameterName, 'Do not discover skills in <config>/skills, .pincer/skills, .agents/skills or skills.paths (--skill paths still load)')
            [CompletionResult]::new('--strict-mcp-config', '--strict-mcp-config', [CompletionResultType]::ParameterName, 'Use only the servers of --mcp-config, not those of config.toml or the workspace')
            [CompletionResult]::new('--approve-workspace-mcp', '--approve-workspace-mcp', [CompletionResultType]::ParameterName, 'Approve the servers of the workspace''s .mcp.json as they are now ([mcp] load_workspace = true starts only approved ones; a new or changed server waits for this flag)')
            [CompletionResult]::new('--include-hook-events', '--include-hook-events', [CompletionResultType]::ParameterName, 'With stream-json, also emit system/hook_started and system/hook_response lines for every hook run')
            [CompletionResult]::new('--dangerously-skip-permissions', '--dangerously-skip-permissions', [CompletionResultType]::ParameterName, 'Same as --sandbox danger-full-access: no confinement at all')
            [CompletionResult]::new('--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-approvals-and-sandbox', [CompletionResultType]::ParameterName, 'Same as --sandbox danger-full-access: no confinement at all')
            [CompletionResult]::new('--full-auto', '--full-auto', [CompletionResultType]::ParameterName, 'Same as --sandbox workspace-write (codex''s spelling): edits in the workspace, never asks')
            [CompletionResult]::new('--allow-network', '--allow-network', [CompletionResultType]::ParameterName, 'Let commands reach the network (default: off in read-only and workspace-write, only a loopback of their own; config [sandbox] network = true)')
            [CompletionResult]::new('--web-search', '--web-search', [CompletionResultType]::ParameterName, 'Let the model search the web with the provider''s own search tool (Anthropic, OpenAI Responses, Gemini grounding; claude''s WebSearch, codex''s web_search); like config tools.web_search. Exit 2 when the model cannot search. With the network closed an API model''s search is off, with a warning: --allow-host the provider''s host, or --allow-network')
            [CompletionResult]::new('--no-session-persistence', '--no-session-persistence', [CompletionResultType]::ParameterName, 'Keep nothing on disk: no session file, no index entry')
            [CompletionResult]::new('--ephemeral', '--ephemeral', [CompletionResultType]::ParameterName, 'Keep nothing on disk: no session file, no index entry')
            [CompletionResult]::new('--include-partial-messages', '--include-partial-messages', [CompletionResultType]::ParameterName, 'With stream-json, also emit stream_event lines: Anthropic''s raw stream events (message_start, content_block_delta with text_delta, …) as claude does, for every model')
            [CompletionResult]::new('--heartbeat', '--heartbeat', [CompletionResultType]::ParameterName, 'Run a cron heartbeat turn: act on HEARTBEAT.md, print nothing when all is well')
            [CompletionResult]::new('--approve-workspace-files', '--approve-workspace-files', [CompletionResultType]::ParameterName, 'Read the context files, skills and .mcp.json that an earlier run''s commands or tools created or changed here (held back until approved, or changed by you)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be sent (model, prompt, tools, messages) and exit 0 without calling it')
            [CompletionResult]::new('--skip-git-repo-check', '--skip-git-repo-check', [CompletionResultType]::ParameterName, 'Accepted for codex compatibility and ignored: pincer never requires a git repository')
            [CompletionResult]::new('--strict-config', '--strict-config', [CompletionResultType]::ParameterName, 'Accepted for codex compatibility and ignored: unknown config keys are always an error')
            [CompletionResult]::new('--no-stdin', '--no-stdin', [CompletionResultType]::ParameterName, 'Never read stdin, even when it is a pipe')
            [CompletionResult]::new('--lossy-stdin', '--lossy-stdin', [CompletionResultType]::ParameterName, 'Replace invalid UTF-8 on stdin with U+FFFD and warn, instead of exiting 2')
            [CompletionResult]::new('--replay-pace', '--replay-pace', [CompletionResultType]::ParameterName, 'With --replay: stream at the recorded pace instead of as fast as possible')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;exec' {
            [CompletionResult]::new('--thread-source', '--thread-source', [CompletionResultType]::ParameterName, 'Accepted for the Codex SDK and ignored with a warning (codex''s thread classification)')
            [CompletionResult]::new('--cyber-access-program', '--cyber-access-program', [CompletionResultType]::ParameterName, 'Accepted for the Codex SDK and ignored with a warning (an OpenAI account program)')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias')
            [CompletionResult]::new('--fallback-model', '--fallback-model', [CompletionResultType]::ParameterName, 'Models to try in order when the primary one fails over; repeatable or comma-separated')
            [CompletionResult]::new('--thinking', '--thinking', [CompletionResultType]::ParameterName, 'Reasoning level, mapped to each provider''s setting (claude''s `--effort max` is xhigh)')
            [CompletionResult]::new('--effort', '--effort', [CompletionResultType]::ParameterName, 'Reasoning level, mapped to each provider''s setting (claude''s `--effort max` is xhigh)')
            [CompletionResult]::new('--max-thinking-tokens', '--max-thinking-tokens', [CompletionResultType]::ParameterName, 'Thinking budget in tokens (claude''s spelling): sent as is to Anthropic (at least 1024) and Gemini (within the model''s range), as the nearest --thinking level elsewhere; 0 is off')
            [CompletionResult]::new('--system-prompt', '--system-prompt', [CompletionResultType]::ParameterName, 'Replace the whole built system prompt with TEXT')
            [CompletionResult]::new('--system-prompt-file', '--system-prompt-file', [CompletionResultType]::ParameterName, 'Replace the whole built system prompt with the contents of FILE')
            [CompletionResult]::new('--append-system-prompt', '--append-system-prompt', [CompletionResultType]::ParameterName, 'Append TEXT to the system prompt for this turn; repeatable')
            [CompletionResult]::new('--append-system-prompt-file', '--append-system-prompt-file', [CompletionResultType]::ParameterName, 'Append the contents of FILE to the system prompt for this turn; repeatable')
            [CompletionResult]::new('--prompt-mode', '--prompt-mode', [CompletionResultType]::ParameterName, 'How much of the built system prompt to send')
            [CompletionResult]::new('--skill', '--skill', [CompletionResultType]::ParameterName, 'List the skill at PATH (a skill directory, its SKILL.md, or a directory of skills) in the prompt, after the discovered ones (a later name shadows an earlier one); repeatable')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Offer exactly these tools, comma-separated ("" offers none)')
            [CompletionResult]::new('--allowed-tools', '--allowed-tools', [CompletionResultType]::ParameterName, 'Allow tool calls matching PATTERN, e.g. group:fs or "exec(git *)" (plain commands only); repeatable')
            [CompletionResult]::new('--disallowed-tools', '--disallowed-tools', [CompletionResultType]::ParameterName, 'Deny tool calls matching PATTERN (deny wins over allow); repeatable')
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'Use the MCP servers of FILE, or of the JSON given inline (claude''s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win')
            [CompletionResult]::new('--settings', '--settings', [CompletionResultType]::ParameterName, 'Run the hooks of FILE, or of the JSON given inline (Claude Code''s settings format, {"hooks": {"PreToolUse": […]}}, e.g. .claude/settings.json); repeatable, added to config.toml''s [[hooks.EVENT]]')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'What tools may touch on disk (default from config, else workspace-write)')
            [CompletionResult]::new('--sandbox', '--sandbox', [CompletionResultType]::ParameterName, 'What tools may touch on disk (default from config, else workspace-write)')
            [CompletionResult]::new('--permission-mode', '--permission-mode', [CompletionResultType]::ParameterName, 'Claude-style permission mode, mapped to a sandbox mode')
            [CompletionResult]::new('--allow-host', '--allow-host', [CompletionResultType]::ParameterName, 'Let commands reach the hosts PATTERN names, and nothing else, through pincer''s egress proxy: a name (registry.npmjs.org), *.domain, host:port, localhost:PORT, an address or network, or a preset (@npm, @pypi, @crates, @go, @debian); repeatable, adds to config [sandbox.network] allow. --allow-network opens the whole network instead')
            [CompletionResult]::new('--add-dir', '--add-dir', [CompletionResultType]::ParameterName, 'Give the tools DIR as an extra root, confined and protected like the workspace (writable by commands in workspace-write); repeatable, adds to config tools.add_dirs, this turn only')
            [CompletionResult]::new('--max-turns', '--max-turns', [CompletionResultType]::ParameterName, 'Stop after N model round-trips (exit 5)')
            [CompletionResult]::new('--max-budget-usd', '--max-budget-usd', [CompletionResultType]::ParameterName, 'Stop once this run has spent more than X US dollars (exit 5)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up SECS after the start, whatever the run is doing — reading stdin, waiting for any lock, the model, tools (exit 124)')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Give up when the provider or child process stays silent for SECS')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Attach an image file to the prompt; repeatable')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Attach an image file to the prompt; repeatable')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Also write the final answer to FILE')
            [CompletionResult]::new('--output-last-message', '--output-last-message', [CompletionResultType]::ParameterName, 'Also write the final answer to FILE')
            [CompletionResult]::new('--events-file', '--events-file', [CompletionResultType]::ParameterName, 'Also write stream-json events to FILE, whatever stdout''s format')
            [CompletionResult]::new('--json-schema', '--json-schema', [CompletionResultType]::ParameterName, 'Hold the final answer to a JSON Schema (inline JSON or @FILE): validated, sent back with the errors when invalid, printed as `structured_output`')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'Hold the final answer to the JSON Schema in FILE (codex''s spelling of --json-schema @FILE)')
            [CompletionResult]::new('--auth-profile', '--auth-profile', [CompletionResultType]::ParameterName, 'Use only the credential profile ID')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Label this run''s line in the usage ledger, for `pincer usage --by tag`')
            [CompletionResult]::new('--stdin-timeout', '--stdin-timeout', [CompletionResultType]::ParameterName, 'Wait at most SECS for stdin''s first byte (default 0.5 with a prompt, 5 without; 0 = no limit). A file, or a pipe written by another command of the pipeline, is always read whole')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Append every model exchange of this run (HTTP request and response, or a CLI child''s output) to the cassette FILE, created when missing; keys are never written')
            [CompletionResult]::new('--replay', '--replay', [CompletionResultType]::ParameterName, 'Answer every model request from the cassette FILE: no network, no CLI child, no key; a request the cassette has no answer for ends the run (exit 2) with a diff on stderr')
            [CompletionResult]::new('--replay-mode', '--replay-mode', [CompletionResultType]::ParameterName, 'With --replay: pair requests by content with dates, ids and paths masked (strict), or take the recorded interactions in order (lenient)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--experimental-json', '--experimental-json', [CompletionResultType]::ParameterName, 'Print codex''s JSONL events (thread.started, item.*, turn.completed or turn.failed), as --json does under exec')
            [CompletionResult]::new('--no-context-files', '--no-context-files', [CompletionResultType]::ParameterName, 'Leave out workspace files such as AGENTS.md and MEMORY.md')
            [CompletionResult]::new('--no-skills', '--no-skills', [CompletionResultType]::ParameterName, 'Do not discover skills in <config>/skills, .pincer/skills, .agents/skills or skills.paths (--skill paths still load)')
            [CompletionResult]::new('--strict-mcp-config', '--strict-mcp-config', [CompletionResultType]::ParameterName, 'Use only the servers of --mcp-config, not those of config.toml or the workspace')
            [CompletionResult]::new('--approve-workspace-mcp', '--approve-workspace-mcp', [CompletionResultType]::ParameterName, 'Approve the servers of the workspace''s .mcp.json as they are now ([mcp] load_workspace = true starts only approved ones; a new or changed server waits for this flag)')
            [CompletionResult]::new('--include-hook-events', '--include-hook-events', [CompletionResultType]::ParameterName, 'With stream-json, also emit system/hook_started and system/hook_response lines for every hook run')
            [CompletionResult]::new('--dangerously-skip-permissions', '--dangerously-skip-permissions', [CompletionResultType]::ParameterName, 'Same as --sandbox danger-full-access: no confinement at all')
            [CompletionResult]::new('--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-approvals-and-sandbox', [CompletionResultType]::ParameterName, 'Same as --sandbox danger-full-access: no confinement at all')
            [CompletionResult]::new('--full-auto', '--full-auto', [CompletionResultType]::ParameterName, 'Same as --sandbox workspace-write (codex''s spelling): edits in the workspace, never asks')
            [CompletionResult]::new('--allow-network', '--allow-network', [CompletionResultType]::ParameterName, 'Let commands reach the network (default: off in read-only and workspace-write, only a loopback of their own; config [sandbox] network = true)')
            [CompletionResult]::new('--web-search', '--web-search', [CompletionResultType]::ParameterName, 'Let the model search the web with the provider''s own search tool (Anthropic, OpenAI Responses, Gemini grounding; claude''s WebSearch, codex''s web_search); like config tools.web_search. Exit 2 when the model cannot search. With the network closed an API model''s search is off, with a warning: --allow-host the provider''s host, or --allow-network')
            [CompletionResult]::new('--no-session-persistence', '--no-session-persistence', [CompletionResultType]::ParameterName, 'Keep nothing on disk: no session file, no index entry')
            [CompletionResult]::new('--ephemeral', '--ephemeral', [CompletionResultType]::ParameterName, 'Keep nothing on disk: no session file, no index entry')
            [CompletionResult]::new('--include-partial-messages', '--include-partial-messages', [CompletionResultType]::ParameterName, 'With stream-json, also emit stream_event lines: Anthropic''s raw stream events (message_start, content_block_delta with text_delta, …) as claude does, for every model')
            [CompletionResult]::new('--heartbeat', '--heartbeat', [CompletionResultType]::ParameterName, 'Run a cron heartbeat turn: act on HEARTBEAT.md, print nothing when all is well')
            [CompletionResult]::new('--approve-workspace-files', '--approve-workspace-files', [CompletionResultType]::ParameterName, 'Read the context files, skills and .mcp.json that an earlier run''s commands or tools created or changed here (held back until approved, or changed by you)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be sent (model, prompt, tools, messages) and exit 0 without calling it')
            [CompletionResult]::new('--skip-git-repo-check', '--skip-git-repo-check', [CompletionResultType]::ParameterName, 'Accepted for codex compatibility and ignored: pincer never requires a git repository')
            [CompletionResult]::new('--strict-config', '--strict-config', [CompletionResultType]::ParameterName, 'Accepted for codex compatibility and ignored: unknown config keys are always an error')
            [CompletionResult]::new('--no-stdin', '--no-stdin', [CompletionResultType]::ParameterName, 'Never read stdin, even when it is a pipe')
            [CompletionResult]::new('--lossy-stdin', '--lossy-stdin', [CompletionResultType]::ParameterName, 'Replace invalid UTF-8 on stdin with U+FFFD and warn, instead of exiting 2')
            [CompletionResult]::new('--replay-pace', '--replay-pace', [CompletionResultType]::ParameterName, 'With --replay: stream at the recorded pace instead of as fast as possible')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Continue a thread (the session id thread.started printed, or a prefix, name or file)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pincer;exec;resume' {
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Attach an image file to the prompt; repeatable (the Codex SDK puts it after the id)')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Attach an image file to the prompt; repeatable (the Codex SDK puts it after the id)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--last', '--last', [CompletionResultType]::ParameterName, 'Continue the most recently updated session of this workspace; the only argument is then the prompt')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;exec;help' {
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Continue a thread (the session id thread.started printed, or a prefix, name or file)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pincer;exec;help;resume' {
            break
        }
        'pincer;exec;help;help' {
            break
        }
        'pincer;compact' {
            [CompletionResult]::new('--instructions', '--instructions', [CompletionResultType]::ParameterName, 'Tell the summarizer what to focus on')
            [CompletionResult]::new('--keep-recent-tokens', '--keep-recent-tokens', [CompletionResultType]::ParameterName, 'Keep at least N tokens of the newest messages verbatim')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Model that writes the summary (default: the session''s model)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model that writes the summary (default: the session''s model)')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Append every model exchange of this run (HTTP request and response, or a CLI child''s output) to the cassette FILE, created when missing; keys are never written')
            [CompletionResult]::new('--replay', '--replay', [CompletionResultType]::ParameterName, 'Answer every model request from the cassette FILE: no network, no CLI child, no key; a request the cassette has no answer for ends the run (exit 2) with a diff on stderr')
            [CompletionResult]::new('--replay-mode', '--replay-mode', [CompletionResultType]::ParameterName, 'With --replay: pair requests by content with dates, ids and paths masked (strict), or take the recorded interactions in order (lenient)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--last', '--last', [CompletionResultType]::ParameterName, 'Compact the most recently updated session of this workspace')
            [CompletionResult]::new('--continue', '--continue', [CompletionResultType]::ParameterName, 'Compact the most recently updated session of this workspace')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'With --last, consider sessions of every directory')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the cut point and token estimates; change nothing')
            [CompletionResult]::new('--replay-pace', '--replay-pace', [CompletionResultType]::ParameterName, 'With --replay: stream at the recorded pace instead of as fast as possible')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions' {
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'List the sessions of DIR instead of this workspace')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N sessions')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Only sessions whose name matches GLOB, e.g. ''ci-*''')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Include sessions of every directory, not only this workspace')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, newest first (the default); with --store, the store''s')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a session''s transcript; with --store, the store''s copy')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a session out as markdown, JSON or the raw JSONL; with --store, the store''s copy')
            [CompletionResult]::new('fork', 'fork', [CompletionResultType]::ParameterValue, 'Copy a session (up to an entry) into a new session')
            [CompletionResult]::new('rename', 'rename', [CompletionResultType]::ParameterValue, 'Give a session a new unique name')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Delete sessions; with --store, from the store, under each one''s lease')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete sessions not updated for a while; with --store, the store''s')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the path of a session''s file')
            [CompletionResult]::new('push', 'push', [CompletionResultType]::ParameterValue, 'Copy local sessions into the session store (--store); one already there is skipped')
            [CompletionResult]::new('pull', 'pull', [CompletionResultType]::ParameterValue, 'Write the local copy of a session of the session store (--store) and print its path')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Fix a corrupt session file, moving unreadable lines to a side file')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pincer;sessions;list' {
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'List the sessions of DIR instead of this workspace')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N sessions')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Only sessions whose name matches GLOB, e.g. ''ci-*''')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Include sessions of every directory, not only this workspace')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;show' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--tree', '--tree', [CompletionResultType]::ParameterName, 'Show every branch of the session tree, not only the current one')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;export' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Export format')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to FILE instead of stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to FILE instead of stdout')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;fork' {
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Fork at entry ID instead of the current leaf')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Name the new session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;rename' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;rm' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Delete even when a run holds the session''s lock')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Delete even when a run holds the session''s lock')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;prune' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Delete sessions not updated for DURATION, e.g. 30d, 12h, 90m')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Prune the sessions of DIR instead of this workspace')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'List what would be deleted; delete nothing')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Prune sessions of every directory, not only this workspace')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;path' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;push' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Copy every local session')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;pull' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;repair' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Report what would be fixed; change nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;sessions;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, newest first (the default); with --store, the store''s')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a session''s transcript; with --store, the store''s copy')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a session out as markdown, JSON or the raw JSONL; with --store, the store''s copy')
            [CompletionResult]::new('fork', 'fork', [CompletionResultType]::ParameterValue, 'Copy a session (up to an entry) into a new session')
            [CompletionResult]::new('rename', 'rename', [CompletionResultType]::ParameterValue, 'Give a session a new unique name')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Delete sessions; with --store, from the store, under each one''s lease')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete sessions not updated for a while; with --store, the store''s')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the path of a session''s file')
            [CompletionResult]::new('push', 'push', [CompletionResultType]::ParameterValue, 'Copy local sessions into the session store (--store); one already there is skipped')
            [CompletionResult]::new('pull', 'pull', [CompletionResultType]::ParameterValue, 'Write the local copy of a session of the session store (--store) and print its path')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Fix a corrupt session file, moving unreadable lines to a side file')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pincer;sessions;help;list' {
            break
        }
        'pincer;sessions;help;show' {
            break
        }
        'pincer;sessions;help;export' {
            break
        }
        'pincer;sessions;help;fork' {
            break
        }
        'pincer;sessions;help;rename' {
            break
        }
        'pincer;sessions;help;rm' {
            break
        }
        'pincer;sessions;help;prune' {
            break
        }
        'pincer;sessions;help;path' {
            break
        }
        'pincer;sessions;help;push' {
            break
        }
        'pincer;sessions;help;pull' {
            break
        }
        'pincer;sessions;help;repair' {
            break
        }
        'pincer;sessions;help;help' {
            break
        }
        'pincer;status' {
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'Use the MCP servers of FILE, or of the JSON given inline (claude''s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--mcp', '--mcp', [CompletionResultType]::ParameterName, 'Start each configured MCP server, list its tools and report failures with the server''s stderr')
            [CompletionResult]::new('--strict-mcp-config', '--strict-mcp-config', [CompletionResultType]::ParameterName, 'Use only the servers of --mcp-config, not those of config.toml or the workspace')
            [CompletionResult]::new('--approve-workspace-mcp', '--approve-workspace-mcp', [CompletionResultType]::ParameterName, 'Approve the servers of the workspace''s .mcp.json as they are now ([mcp] load_workspace = true starts only approved ones; a new or changed server waits for this flag)')
            [CompletionResult]::new('--last', '--last', [CompletionResultType]::ParameterName, 'Show the most recently updated session of this workspace')
            [CompletionResult]::new('--continue', '--continue', [CompletionResultType]::ParameterName, 'Show the most recently updated session of this workspace')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'With --last, consider sessions of every directory')
            [CompletionResult]::new('--fresh-probe', '--fresh-probe', [CompletionResultType]::ParameterName, 'Probe the exec sandbox now, rather than reuse what a probe found earlier this boot while nothing it depends on has changed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;auth' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List credential profiles (the default)')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Store a credential; the secret is read from stdin or a hidden prompt, never from argv')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Delete a credential profile')
            [CompletionResult]::new('order', 'order', [CompletionResultType]::ParameterValue, 'Show or set the order in which a provider''s profiles are tried')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show each profile''s type, source, last use, cooldown and failure counts')
            [CompletionResult]::new('reset', 'reset', [CompletionResultType]::ParameterValue, 'Clear cooldowns and failure counts, of one profile or all')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send one minimal request and print the classified outcome')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pincer;auth;list' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;auth;add' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Profile name (default: derived from the provider)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Kind of credential')
            [CompletionResult]::new('--from-env', '--from-env', [CompletionResultType]::ParameterName, 'Store a reference to environment variable VAR instead of a secret')
            [CompletionResult]::new('--command', '--command', [CompletionResultType]::ParameterName, 'Store a command whose stdout is the secret, run when the secret is needed')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;auth;remove' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;auth;order' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;auth;status' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;auth;reset' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;auth;test' {
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Model to send the test request to (default: the configured model when its provider matches, else the provider''s smallest catalog model)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model to send the test request to (default: the configured model when its provider matches, else the provider''s smallest catalog model)')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Append every model exchange of this run (HTTP request and response, or a CLI child''s output) to the cassette FILE, created when missing; keys are never written')
            [CompletionResult]::new('--replay', '--replay', [CompletionResultType]::ParameterName, 'Answer every model request from the cassette FILE: no network, no CLI child, no key; a request the cassette has no answer for ends the run (exit 2) with a diff on stderr')
            [CompletionResult]::new('--replay-mode', '--replay-mode', [CompletionResultType]::ParameterName, 'With --replay: pair requests by content with dates, ids and paths masked (strict), or take the recorded interactions in order (lenient)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--replay-pace', '--replay-pace', [CompletionResultType]::ParameterName, 'With --replay: stream at the recorded pace instead of as fast as possible')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;auth;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List credential profiles (the default)')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Store a credential; the secret is read from stdin or a hidden prompt, never from argv')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Delete a credential profile')
            [CompletionResult]::new('order', 'order', [CompletionResultType]::ParameterValue, 'Show or set the order in which a provider''s profiles are tried')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show each profile''s type, source, last use, cooldown and failure counts')
            [CompletionResult]::new('reset', 'reset', [CompletionResultType]::ParameterValue, 'Clear cooldowns and failure counts, of one profile or all')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send one minimal request and print the classified outcome')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pincer;auth;help;list' {
            break
        }
        'pincer;auth;help;add' {
            break
        }
        'pincer;auth;help;remove' {
            break
        }
        'pincer;auth;help;order' {
            break
        }
        'pincer;auth;help;status' {
            break
        }
        'pincer;auth;help;reset' {
            break
        }
        'pincer;auth;help;test' {
            break
        }
        'pincer;auth;help;help' {
            break
        }
        'pincer;usage' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only runs that ended since WHEN: a duration back from now (7d, 24h, 2w, 90m) or an RFC 3339 date or time (2026-06-01 is its 00:00 UTC). Default: every run')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Add a row per UTC day, per provider/model, per session (name, else id) or per --tag')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;completions' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--cd', '--cd', [CompletionResultType]::ParameterName, 'Use DIR as the workspace instead of the current directory')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Keep config, credentials and sessions in DIR instead of the XDG directories')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Choose what stdout carries: final text, one result object, or JSONL events')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--debug', '--debug', [CompletionResultType]::ParameterName, 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Style stderr output; NO_COLOR in the environment also turns colors off')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once; also how long to wait for the names lock (default 30 s) before exiting 75')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep sessions in the store at URL, shared across machines (s3://bucket/prefix, gs://, az://, memory://); overrides [store] url; an empty URL (--store '''') turns it off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON result object; same as --output-format json')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pincer;help' {
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Start a new session and run one turn')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Continue a session (by id, prefix, name, file or --last) and run one turn')
            [CompletionResult]::new('exec', 'exec', [CompletionResultType]::ParameterValue, 'Run one turn as `codex exec` does, for the Codex SDK (--json prints codex''s events)')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Summarize the older part of a session now to free context')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List, inspect, export, fork, rename, remove and repair sessions (default: list)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show one session''s state, or defaults, credentials and backends without one')
            [CompletionResult]::new('auth', 'auth', [CompletionResultType]::ParameterValue, 'Manage credential profiles (default: list); secrets are never printed')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Report what runs spent, from the usage ledger: totals, by day, model, session or tag')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to stdout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pincer;help;run' {
            break
        }
        'pincer;help;resume' {
            break
        }
        'pincer;help;exec' {
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Continue a thread (the session id thread.started printed, or a prefix, name or file)')
            break
        }
        'pincer;help;exec;resume' {
            break
        }
        'pincer;help;compact' {
            break
        }
        'pincer;help;sessions' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, newest first (the default); with --store, the store''s')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a session''s transcript; with --store, the store''s copy')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a session out as markdown, JSON or the raw JSONL; with --store, the store''s copy')
            [CompletionResult]::new('fork', 'fork', [CompletionResultType]::ParameterValue, 'Copy a session (up to an entry) into a new session')
            [CompletionResult]::new('rename', 'rename', [CompletionResultType]::ParameterValue, 'Give a session a new unique name')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Delete sessions; with --store, from the store, under each one''s lease')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete sessions not updated for a while; with --store, the store''s')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the path of a session''s file')
            [CompletionResult]::new('push', 'push', [CompletionResultType]::ParameterValue, 'Copy local sessions into the session store (--store); one already there is skipped')
            [CompletionResult]::new('pull', 'pull', [CompletionResultType]::ParameterValue, 'Write the local copy of a session of the session store (--store) and print its path')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Fix a corrupt session file, moving unreadable lines to a side file')
            break
        }
        'pincer;help;sessions;list' {
            break
        }
        'pincer;help;sessions;show' {
            break
        }
        'pincer;help;sessions;export' {
            break
        }
        'pincer;help;sessions;fork' {
            break
        }
        'pincer;help;sessions;rename' {
            break
        }
        'pincer;help;sessions;rm' {
            break
        }
        'pincer;help;sessions;prune' {
            break
        }
        'pincer;help;sessions;path' {
            break
        }
        'pincer;help;sessions;push' {
            break
        }
        'pincer;help;sessions;pull' {
            break
        }
        'pincer;help;sessions;repair' {
            break
        }
        'pincer;help;status' {
            break
        }
        'pincer;help;auth' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List credential profiles (the default)')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Store a credential; the secret is read from stdin or a hidden prompt, never from argv')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Delete a credential profile')
            [CompletionResult]::new('order', 'order', [CompletionResultType]::ParameterValue, 'Show or set the order in which a provider''s profiles are tried')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show each profile''s type, source, last use, cooldown and failure counts')
            [CompletionResult]::new('reset', 'reset', [CompletionResultType]::ParameterValue, 'Clear cooldowns and failure counts, of one profile or all')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send one minimal request and print the classified outcome')
            break
        }
        'pincer;help;auth;list' {
            break
        }
        'pincer;help;auth;add' {
            break
        }
        'pincer;help;auth;remove' {
            break
        }
        'pincer;help;auth;order' {
            break
        }
        'pincer;help;auth;status' {
            break
        }
        'pincer;help;auth;reset' {
            break
        }
        'pincer;help;auth;test' {
            break
        }
        'pincer;help;usage' {
            break
        }
        'pincer;help;completions' {
            break
        }
        'pincer;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
