"""Shared body of the fake `claude` and `codex` executables used by tests/suite/backends.rs.

Each call records what pincer gave it (argv, environment, stdin, the system prompt file's text,
the working directory, claude's `--settings` file, codex's `--output-schema` file) as `call-N.json`
in $FAKE_RECORD, then replays the fixture chosen for call N from $FAKE_SCENARIO (a comma-separated
list of fixture paths; the last one repeats).

A fixture is JSON lines written to stdout as they are, with `$SESSION_ID` replaced by the
session the call resumes (or the fresh one it was given). Lines of the form {"fake": ...} are
directives: `stderr` (write text to stderr), `exit` (exit with a code), `sleep` (seconds),
`grandchild` (start a `sleep 300` that inherits the process group and record its pid),
`hang` (sleep for good), `gate` (wait until the file $FAKE_GATE exists, up to 10 s).
"""

import json
import os
import subprocess
import sys
import time


def option(argv, name):
    for index, arg in enumerate(argv):
        if arg == name and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith(name + "="):
            return arg[len(name) + 1 :]
    return None


def read_json(path):
    """The JSON in the file `path` names, or None when there is no such file (a hostile value
    where a file name belongs must still leave a record of the argv that carried it)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def main(kind):
    argv = sys.argv[1:]
    stdin = sys.stdin.read()
    record = os.environ["FAKE_RECORD"]
    os.makedirs(record, exist_ok=True)
    call = len([name for name in os.listdir(record) if name.startswith("call-")])
    if kind == "claude":
        prompt_file = option(argv, "--append-system-prompt-file")
        session = option(argv, "--resume") or option(argv, "--session-id") or ""
    else:
        prompt_file = None
        for index, arg in enumerate(argv):
            if arg == "-c" and argv[index + 1].startswith("model_instructions_file="):
                prompt_file = json.loads(argv[index + 1].split("=", 1)[1])
        session = "0199a213-81c0-7800-8aa1-bbab2a035a53"
        if "resume" in argv and "--" in argv:
            session = argv[argv.index("--") + 1]
    output_schema = None
    schema_file = option(argv, "--output-schema") if kind == "codex" else None
    if schema_file:
        output_schema = read_json(schema_file)
    mcp_config = None
    mcp_file = option(argv, "--mcp-config") if kind == "claude" else None
    if mcp_file:
        mcp_config = read_json(mcp_file)
    settings = None
    settings_file = option(argv, "--settings") if kind == "claude" else None
    if settings_file:
        settings = read_json(settings_file)
    system_prompt = None
    if prompt_file:
        with open(prompt_file, encoding="utf-8") as handle:
            system_prompt = handle.read()
    with open(os.path.join(record, "call-%d.json" % call), "w", encoding="utf-8") as handle:
        json.dump(
            {
                "argv": argv,
                "env": dict(os.environ),
                "stdin": stdin,
                "system_prompt": system_prompt,
                "mcp_config": mcp_config,
                "settings": settings,
                "output_schema": output_schema,
                "cwd": os.getcwd(),
            },
            handle,
        )
    scenarios = os.environ["FAKE_SCENARIO"].split(",")
    fixture = scenarios[min(call, len(scenarios) - 1)]
    with open(fixture, encoding="utf-8") as handle:
        lines = [line.rstrip("\n") for line in handle if line.strip()]
    for line in lines:
        value = json.loads(line)
        directive = value.get("fake") if isinstance(value, dict) else None
        if directive is None:
            sys.stdout.write(line.replace("$SESSION_ID", session) + "\n")
            sys.stdout.flush()
        elif directive == "stderr":
            sys.stderr.write(value["text"].replace("$SESSION_ID", session) + "\n")
            sys.stderr.flush()
        elif directive == "exit":
            sys.exit(value["code"])
        elif directive == "sleep":
            time.sleep(value["seconds"])
        elif directive == "grandchild":
            child = subprocess.Popen(["sleep", "300"])
            with open(os.path.join(record, "grandchild.pid"), "w", encoding="utf-8") as handle:
                handle.write(str(child.pid))
        elif directive == "hang":
            while True:
                time.sleep(60)
        elif directive == "gate":
            gate = os.environ["FAKE_GATE"]
            deadline = time.time() + 10
            while not os.path.exists(gate):
                if time.time() > deadline:
                    sys.stderr.write("gate never opened: pincer did not stream\n")
                    sys.exit(99)
                time.sleep(0.02)
    sys.exit(0)
