
use builtin;
use str;

set edit:completion:arg-completer[pincer] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'pincer'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'pincer'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand run 'Start a new session and run one turn'
            cand resume 'Continue a session (by id, prefix, name, file or --last) and run one turn'
            cand compact 'Summarize the older part of a session now to free context'
            cand sessions 'List, inspect, export, fork, rename, remove and repair sessions (default: list)'
            cand status 'Show one session''s state, or defaults, credentials and backends without one'
            cand auth 'Manage credential profiles (default: list); secrets are never printed'
            cand completions 'Print a shell completion script to stdout'
            cand generate-docs 'Regenerate man/ and completions/ from this command-line definition'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pincer;run'= {
            cand --session-id 'Give the new session this id instead of a generated one (with -r/--continue, the forked session''s; needs --fork-session)'
            cand -n 'Give the new session a unique NAME, for `pincer resume NAME`'
            cand --name 'Give the new session a unique NAME, for `pincer resume NAME`'
            cand -r 'Continue SESSION instead of starting one, like `pincer resume SESSION` (claude''s -r/--resume)'
            cand --resume 'Continue SESSION instead of starting one, like `pincer resume SESSION` (claude''s -r/--resume)'
            cand -m 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias'
            cand --model 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias'
            cand --fallback-model 'Models to try in order when the primary one fails over; repeatable or comma-separated'
            cand --thinking 'Reasoning level, mapped to each provider''s setting (claude''s `--effort max` is xhigh)'
            cand --effort 'Reasoning level, mapped to each provider''s setting (claude''s `--effort max` is xhigh)'
            cand --max-thinking-tokens 'Thinking budget in tokens (claude''s spelling): sent as is to Anthropic (at least 1024) and Gemini (within the model''s range), as the nearest --thinking level elsewhere; 0 is off'
            cand --system-prompt 'Replace the whole built system prompt with TEXT'
            cand --system-prompt-file 'Replace the whole built system prompt with the contents of FILE'
            cand --append-system-prompt 'Append TEXT to the system prompt for this turn; repeatable'
            cand --append-system-prompt-file 'Append the contents of FILE to the system prompt for this turn; repeatable'
            cand --prompt-mode 'How much of the built system prompt to send'
            cand --tools 'Offer exactly these tools, comma-separated ("" offers none)'
            cand --allowed-tools 'Allow tool calls matching PATTERN, e.g. group:fs or "exec(git *)" (plain commands only); repeatable'
            cand --disallowed-tools 'Deny tool calls matching PATTERN (deny wins over allow); repeatable'
            cand --mcp-config 'Use the MCP servers of FILE, or of the JSON given inline (claude''s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win'
            cand -s 'What tools may touch on disk (default from config, else workspace-write)'
            cand --sandbox 'What tools may touch on disk (default from config, else workspace-write)'
            cand --permission-mode 'Claude-style permission mode, mapped to a sandbox mode'
            cand --max-turns 'Stop after N model round-trips (exit 5)'
            cand --max-budget-usd 'Stop once this run has spent more than X US dollars (exit 5)'
            cand --timeout 'Give up SECS after the start, whatever the run is doing — reading stdin, waiting for the session lock, the model, tools (exit 124)'
            cand --idle-timeout 'Give up when the provider or child process stays silent for SECS'
            cand -i 'Attach an image file to the prompt; repeatable'
            cand --image 'Attach an image file to the prompt; repeatable'
            cand -o 'Also write the final answer to FILE'
            cand --output-last-message 'Also write the final answer to FILE'
            cand --events-file 'Also write stream-json events to FILE, whatever stdout''s format'
            cand --json-schema 'Constrain the answer to a JSON Schema, given inline or as @FILE'
            cand --output-schema 'Constrain the answer to the JSON Schema in FILE (codex spelling of --json-schema @FILE)'
            cand --auth-profile 'Use only the credential profile ID'
            cand --stdin-timeout 'Wait at most SECS for stdin''s first byte (default 0.5 with a prompt, 5 without; 0 = no limit)'
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --continue 'Continue the newest session of this workspace, like `pincer resume --last` (claude''s --continue; long only: -c is --config)'
            cand --fork-session 'With -r or --continue: continue in a new session holding a copy, like `resume --fork`'
            cand --no-context-files 'Leave out workspace files such as AGENTS.md and MEMORY.md'
            cand --strict-mcp-config 'Use only the servers of --mcp-config, not those of config.toml or the workspace'
            cand --dangerously-skip-permissions 'Same as --sandbox danger-full-access: no confinement at all'
            cand --dangerously-bypass-approvals-and-sandbox 'Same as --sandbox danger-full-access: no confinement at all'
            cand --full-auto 'Same as --sandbox workspace-write (codex''s spelling): edits in the workspace, never asks'
            cand --no-session-persistence 'Keep nothing on disk: no session file, no index entry'
            cand --ephemeral 'Keep nothing on disk: no session file, no index entry'
            cand --include-partial-messages 'With stream-json, also emit stream_event lines: Anthropic''s raw stream events (message_start, content_block_delta with text_delta, …) as claude does, for every model'
            cand --heartbeat 'Run a cron heartbeat turn: act on HEARTBEAT.md, print nothing when all is well'
            cand --dry-run 'Print what would be sent (model, prompt, tools, messages) and exit 0 without calling it'
            cand --skip-git-repo-check 'Accepted for codex compatibility and ignored: pincer never requires a git repository'
            cand --strict-config 'Accepted for codex compatibility and ignored: unknown config keys are always an error'
            cand --no-stdin 'Never read stdin, even when it is a pipe'
            cand --lossy-stdin 'Replace invalid UTF-8 on stdin with U+FFFD and warn, instead of exiting 2'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;resume'= {
            cand -n 'Rename the session to NAME'
            cand --name 'Rename the session to NAME'
            cand --session-id 'With --fork or --create: the id (a UUID) of the session made'
            cand -m 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias'
            cand --model 'Model as provider/model (anthropic/claude-sonnet-4-5, claude-cli/sonnet) or an alias'
            cand --fallback-model 'Models to try in order when the primary one fails over; repeatable or comma-separated'
            cand --thinking 'Reasoning level, mapped to each provider''s setting (claude''s `--effort max` is xhigh)'
            cand --effort 'Reasoning level, mapped to each provider''s setting (claude''s `--effort max` is xhigh)'
            cand --max-thinking-tokens 'Thinking budget in tokens (claude''s spelling): sent as is to Anthropic (at least 1024) and Gemini (within the model''s range), as the nearest --thinking level elsewhere; 0 is off'
            cand --system-prompt 'Replace the whole built system prompt with TEXT'
            cand --system-prompt-file 'Replace the whole built system prompt with the contents of FILE'
            cand --append-system-prompt 'Append TEXT to the system prompt for this turn; repeatable'
            cand --append-system-prompt-file 'Append the contents of FILE to the system prompt for this turn; repeatable'
            cand --prompt-mode 'How much of the built system prompt to send'
            cand --tools 'Offer exactly these tools, comma-separated ("" offers none)'
            cand --allowed-tools 'Allow tool calls matching PATTERN, e.g. group:fs or "exec(git *)" (plain commands only); repeatable'
            cand --disallowed-tools 'Deny tool calls matching PATTERN (deny wins over allow); repeatable'
            cand --mcp-config 'Use the MCP servers of FILE, or of the JSON given inline (claude''s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win'
            cand -s 'What tools may touch on disk (default from config, else workspace-write)'
            cand --sandbox 'What tools may touch on disk (default from config, else workspace-write)'
            cand --permission-mode 'Claude-style permission mode, mapped to a sandbox mode'
            cand --max-turns 'Stop after N model round-trips (exit 5)'
            cand --max-budget-usd 'Stop once this run has spent more than X US dollars (exit 5)'
            cand --timeout 'Give up SECS after the start, whatever the run is doing — reading stdin, waiting for the session lock, the model, tools (exit 124)'
            cand --idle-timeout 'Give up when the provider or child process stays silent for SECS'
            cand -i 'Attach an image file to the prompt; repeatable'
            cand --image 'Attach an image file to the prompt; repeatable'
            cand -o 'Also write the final answer to FILE'
            cand --output-last-message 'Also write the final answer to FILE'
            cand --events-file 'Also write stream-json events to FILE, whatever stdout''s format'
            cand --json-schema 'Constrain the answer to a JSON Schema, given inline or as @FILE'
            cand --output-schema 'Constrain the answer to the JSON Schema in FILE (codex spelling of --json-schema @FILE)'
            cand --auth-profile 'Use only the credential profile ID'
            cand --stdin-timeout 'Wait at most SECS for stdin''s first byte (default 0.5 with a prompt, 5 without; 0 = no limit)'
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --last 'Continue the most recently updated session of this workspace; the only argument is then the prompt'
            cand --continue 'Continue the most recently updated session of this workspace; the only argument is then the prompt'
            cand --all 'With --last, consider sessions of every directory'
            cand --fork 'Continue in a new session file holding a copy of the current branch'
            cand --fork-session 'Continue in a new session file holding a copy of the current branch'
            cand --create 'Create the session named SESSION when none has that name yet; of overlapping creators one creates it and the others continue it (waiting under --wait, else exit 75)'
            cand --no-context-files 'Leave out workspace files such as AGENTS.md and MEMORY.md'
            cand --strict-mcp-config 'Use only the servers of --mcp-config, not those of config.toml or the workspace'
            cand --dangerously-skip-permissions 'Same as --sandbox danger-full-access: no confinement at all'
            cand --dangerously-bypass-approvals-and-sandbox 'Same as --sandbox danger-full-access: no confinement at all'
            cand --full-auto 'Same as --sandbox workspace-write (codex''s spelling): edits in the workspace, never asks'
            cand --no-session-persistence 'Keep nothing on disk: no session file, no index entry'
            cand --ephemeral 'Keep nothing on disk: no session file, no index entry'
            cand --include-partial-messages 'With stream-json, also emit stream_event lines: Anthropic''s raw stream events (message_start, content_block_delta with text_delta, …) as claude does, for every model'
            cand --heartbeat 'Run a cron heartbeat turn: act on HEARTBEAT.md, print nothing when all is well'
            cand --dry-run 'Print what would be sent (model, prompt, tools, messages) and exit 0 without calling it'
            cand --skip-git-repo-check 'Accepted for codex compatibility and ignored: pincer never requires a git repository'
            cand --strict-config 'Accepted for codex compatibility and ignored: unknown config keys are always an error'
            cand --no-stdin 'Never read stdin, even when it is a pipe'
            cand --lossy-stdin 'Replace invalid UTF-8 on stdin with U+FFFD and warn, instead of exiting 2'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;compact'= {
            cand --instructions 'Tell the summarizer what to focus on'
            cand --keep-recent-tokens 'Keep at least N tokens of the newest messages verbatim'
            cand -m 'Model that writes the summary (default: the session''s model)'
            cand --model 'Model that writes the summary (default: the session''s model)'
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --last 'Compact the most recently updated session of this workspace'
            cand --continue 'Compact the most recently updated session of this workspace'
            cand --all 'With --last, consider sessions of every directory'
            cand --dry-run 'Show the cut point and token estimates; change nothing'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;sessions'= {
            cand --cwd 'List the sessions of DIR instead of this workspace'
            cand --limit 'Show at most N sessions'
            cand --name 'Only sessions whose name matches GLOB, e.g. ''ci-*'''
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --all 'Include sessions of every directory, not only this workspace'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'List sessions, newest first (the default)'
            cand show 'Print a session''s transcript'
            cand export 'Write a session out as markdown, JSON or the raw JSONL'
            cand fork 'Copy a session (up to an entry) into a new session'
            cand rename 'Give a session a new unique name'
            cand rm 'Delete sessions'
            cand prune 'Delete sessions not updated for a while'
            cand path 'Print the path of a session''s file'
            cand repair 'Fix a corrupt session file, moving unreadable lines to a side file'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pincer;sessions;list'= {
            cand --cwd 'List the sessions of DIR instead of this workspace'
            cand --limit 'Show at most N sessions'
            cand --name 'Only sessions whose name matches GLOB, e.g. ''ci-*'''
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --all 'Include sessions of every directory, not only this workspace'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;sessions;show'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --tree 'Show every branch of the session tree, not only the current one'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;sessions;export'= {
            cand --format 'Export format'
            cand -o 'Write to FILE instead of stdout'
            cand --output 'Write to FILE instead of stdout'
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;sessions;fork'= {
            cand --at 'Fork at entry ID instead of the current leaf'
            cand --name 'Name the new session'
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;sessions;rename'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;sessions;rm'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand -f 'Delete even when a run holds the session''s lock'
            cand --force 'Delete even when a run holds the session''s lock'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;sessions;prune'= {
            cand --older-than 'Delete sessions not updated for DURATION, e.g. 30d, 12h, 90m'
            cand --cwd 'Prune the sessions of DIR instead of this workspace'
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --dry-run 'List what would be deleted; delete nothing'
            cand --all 'Prune sessions of every directory, not only this workspace'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;sessions;path'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;sessions;repair'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --dry-run 'Report what would be fixed; change nothing'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;sessions;help'= {
            cand list 'List sessions, newest first (the default)'
            cand show 'Print a session''s transcript'
            cand export 'Write a session out as markdown, JSON or the raw JSONL'
            cand fork 'Copy a session (up to an entry) into a new session'
            cand rename 'Give a session a new unique name'
            cand rm 'Delete sessions'
            cand prune 'Delete sessions not updated for a while'
            cand path 'Print the path of a session''s file'
            cand repair 'Fix a corrupt session file, moving unreadable lines to a side file'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pincer;sessions;help;list'= {
        }
        &'pincer;sessions;help;show'= {
        }
        &'pincer;sessions;help;export'= {
        }
        &'pincer;sessions;help;fork'= {
        }
        &'pincer;sessions;help;rename'= {
        }
        &'pincer;sessions;help;rm'= {
        }
        &'pincer;sessions;help;prune'= {
        }
        &'pincer;sessions;help;path'= {
        }
        &'pincer;sessions;help;repair'= {
        }
        &'pincer;sessions;help;help'= {
        }
        &'pincer;status'= {
            cand --mcp-config 'Use the MCP servers of FILE, or of the JSON given inline (claude''s {"mcpServers": {…}} format, e.g. a .mcp.json); repeatable, later files win'
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --mcp 'Start each configured MCP server, list its tools and report failures with the server''s stderr'
            cand --strict-mcp-config 'Use only the servers of --mcp-config, not those of config.toml or the workspace'
            cand --last 'Show the most recently updated session of this workspace'
            cand --continue 'Show the most recently updated session of this workspace'
            cand --all 'With --last, consider sessions of every directory'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;auth'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'List credential profiles (the default)'
            cand add 'Store a credential; the secret is read from stdin or a hidden prompt, never from argv'
            cand remove 'Delete a credential profile'
            cand order 'Show or set the order in which a provider''s profiles are tried'
            cand status 'Show each profile''s type, source, last use, cooldown and failure counts'
            cand reset 'Clear cooldowns and failure counts, of one profile or all'
            cand test 'Send one minimal request and print the classified outcome'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pincer;auth;list'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;auth;add'= {
            cand --name 'Profile name (default: derived from the provider)'
            cand --type 'Kind of credential'
            cand --from-env 'Store a reference to environment variable VAR instead of a secret'
            cand --command 'Store a command whose stdout is the secret, run when the secret is needed'
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;auth;remove'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;auth;order'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;auth;status'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;auth;reset'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;auth;test'= {
            cand -m 'Model to send the test request to (default: the configured model when its provider matches, else the provider''s smallest catalog model)'
            cand --model 'Model to send the test request to (default: the configured model when its provider matches, else the provider''s smallest catalog model)'
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;auth;help'= {
            cand list 'List credential profiles (the default)'
            cand add 'Store a credential; the secret is read from stdin or a hidden prompt, never from argv'
            cand remove 'Delete a credential profile'
            cand order 'Show or set the order in which a provider''s profiles are tried'
            cand status 'Show each profile''s type, source, last use, cooldown and failure counts'
            cand reset 'Clear cooldowns and failure counts, of one profile or all'
            cand test 'Send one minimal request and print the classified outcome'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pincer;auth;help;list'= {
        }
        &'pincer;auth;help;add'= {
        }
        &'pincer;auth;help;remove'= {
        }
        &'pincer;auth;help;order'= {
        }
        &'pincer;auth;help;status'= {
        }
        &'pincer;auth;help;reset'= {
        }
        &'pincer;auth;help;test'= {
        }
        &'pincer;auth;help;help'= {
        }
        &'pincer;completions'= {
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;generate-docs'= {
            cand --out 'Directory that receives man/ and completions/ (default: the current directory)'
            cand -C 'Use DIR as the workspace instead of the current directory'
            cand --cd 'Use DIR as the workspace instead of the current directory'
            cand --home 'Keep config, credentials and sessions in DIR instead of the XDG directories'
            cand -c 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --config 'Override one config key with a TOML value, e.g. -c model="openai/gpt-5"; repeatable'
            cand --output-format 'Choose what stdout carries: final text, one result object, or JSONL events'
            cand -d 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --debug 'Same as -vv (claude''s spelling); a category filter given with = is accepted and ignored'
            cand --color 'Style stderr output; NO_COLOR in the environment also turns colors off'
            cand --wait 'Wait up to SECS for a busy session''s lock instead of exiting 75 at once'
            cand --json 'Print one JSON result object; same as --output-format json'
            cand -q 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand --quiet 'Print only errors on stderr: no spinner, tool lines or warnings (stdout is unaffected)'
            cand -v 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand --verbose 'Print more on stderr: a line per tool call and the session id also when stderr is not a terminal; repeat for more (-vv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pincer;help'= {
            cand run 'Start a new session and run one turn'
            cand resume 'Continue a session (by id, prefix, name, file or --last) and run one turn'
            cand compact 'Summarize the older part of a session now to free context'
            cand sessions 'List, inspect, export, fork, rename, remove and repair sessions (default: list)'
            cand status 'Show one session''s state, or defaults, credentials and backends without one'
            cand auth 'Manage credential profiles (default: list); secrets are never printed'
            cand completions 'Print a shell completion script to stdout'
            cand generate-docs 'Regenerate man/ and completions/ from this command-line definition'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pincer;help;run'= {
        }
        &'pincer;help;resume'= {
        }
        &'pincer;help;compact'= {
        }
        &'pincer;help;sessions'= {
            cand list 'List sessions, newest first (the default)'
            cand show 'Print a session''s transcript'
            cand export 'Write a session out as markdown, JSON or the raw JSONL'
            cand fork 'Copy a session (up to an entry) into a new session'
            cand rename 'Give a session a new unique name'
            cand rm 'Delete sessions'
            cand prune 'Delete sessions not updated for a while'
            cand path 'Print the path of a session''s file'
            cand repair 'Fix a corrupt session file, moving unreadable lines to a side file'
        }
        &'pincer;help;sessions;list'= {
        }
        &'pincer;help;sessions;show'= {
        }
        &'pincer;help;sessions;export'= {
        }
        &'pincer;help;sessions;fork'= {
        }
        &'pincer;help;sessions;rename'= {
        }
        &'pincer;help;sessions;rm'= {
        }
        &'pincer;help;sessions;prune'= {
        }
        &'pincer;help;sessions;path'= {
        }
        &'pincer;help;sessions;repair'= {
        }
        &'pincer;help;status'= {
        }
        &'pincer;help;auth'= {
            cand list 'List credential profiles (the default)'
            cand add 'Store a credential; the secret is read from stdin or a hidden prompt, never from argv'
            cand remove 'Delete a credential profile'
            cand order 'Show or set the order in which a provider''s profiles are tried'
            cand status 'Show each profile''s type, source, last use, cooldown and failure counts'
            cand reset 'Clear cooldowns and failure counts, of one profile or all'
            cand test 'Send one minimal request and print the classified outcome'
        }
        &'pincer;help;auth;list'= {
        }
        &'pincer;help;auth;add'= {
        }
        &'pincer;help;auth;remove'= {
        }
        &'pincer;help;auth;order'= {
        }
        &'pincer;help;auth;status'= {
        }
        &'pincer;help;auth;reset'= {
        }
        &'pincer;help;auth;test'= {
        }
        &'pincer;help;completions'= {
        }
        &'pincer;help;generate-docs'= {
        }
        &'pincer;help;help'= {
        }
    ]
    $completions[$command]
}
