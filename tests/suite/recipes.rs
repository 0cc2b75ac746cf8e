//! The fleet recipes of `docs/sessions-across-machines.md` (GitHub Actions, a Kubernetes Job, an
//! Argo workflow, a Temporal activity; issue #49) against the one exit-code table they share
//! (`pincer::docs::retries`, rendered as `docs/reference/retries.md`): each recipe is parsed (the
//! YAML with the YAML parser pincer already has, the Python by its one list), its lists of exit
//! codes must be the table's, every pincer command in it must parse against the real command
//! line, and the GitHub Actions step runs, against the mock provider.

use std::path::PathBuf;
use std::time::Duration;

use pincer::cli::Cli;
use pincer::docs::retries;
use yaml_rust2::{Yaml, YamlLoader};

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::s3::S3Store;
use crate::common::wire::anthropic::{self as wire, Usage4};
use crate::common::{Home, code, stderr, stdout};

fn document() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/sessions-across-machines.md");
    std::fs::read_to_string(path).unwrap()
}

/// The fenced blocks of the document whose info string is `info`.
fn blocks(info: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    let text = document();
    for line in text.lines() {
        match (open.take(), line.strip_prefix("```")) {
            (None, Some(kind)) => open = Some((kind.trim().to_owned(), Vec::new())),
            (Some((kind, lines)), Some(_)) => {
                if kind == info {
                    found.push(lines.join("\n") + "\n");
                }
            }
            (Some((kind, mut lines)), None) => {
                lines.push(line);
                open = Some((kind, lines));
            }
            (None, None) => {}
        }
    }
    found
}

/// The one YAML recipe whose top-level `key` is `value` (`kind: Job`), or that has `key`.
fn yaml_recipe(key: &str, value: Option<&str>) -> Yaml {
    let mut found: Vec<Yaml> = blocks("yaml")
        .iter()
        .map(|block| {
            YamlLoader::load_from_str(block)
                .unwrap_or_else(|error| panic!("{error}\n{block}"))
                .remove(0)
        })
        .filter(|document| {
            let field = &document[key];
            match value {
                Some(value) => field.as_str() == Some(value),
                None => !field.is_badvalue(),
            }
        })
        .collect();
    assert_eq!(found.len(), 1, "one recipe with {key}: {value:?}");
    found.remove(0)
}

/// A YAML list of integers.
fn codes(list: &Yaml) -> Vec<u8> {
    list.as_vec()
        .unwrap_or_else(|| panic!("not a list: {list:?}"))
        .iter()
        .map(|code| u8::try_from(code.as_i64().unwrap()).unwrap())
        .collect()
}

/// The integers of `[4, 75, …]` or `{4, 75, …}` after `marker` in `text`.
fn listed_after(text: &str, marker: &str) -> Vec<u8> {
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker:?} in\n{text}"))
        + marker.len();
    let rest = &text[start..];
    let open = rest.find(['[', '{']).unwrap();
    let close = rest.find([']', '}']).unwrap();
    rest[open + 1..close]
        .split(',')
        .map(|code| code.trim().parse().unwrap())
        .collect()
}

/// The container's `args` of a Kubernetes or Argo recipe, as a pincer command line.
fn container_argv(container: &Yaml) -> Vec<String> {
    std::iter::once("pincer".to_owned())
        .chain(
            container["args"]
                .as_vec()
                .unwrap()
                .iter()
                .map(|arg| arg.as_str().unwrap().to_owned()),
        )
        .collect()
}

fn assert_parses(argv: &[String]) {
    if let Err(error) = Cli::try_parse_args_with(argv, &|_| None) {
        panic!("{argv:?} does not parse:\n{error}");
    }
}

/// The GitHub Actions recipe's step that runs pincer: its `env` and `run` script.
fn github_step() -> (Yaml, String) {
    let workflow = yaml_recipe("jobs", None);
    let job = &workflow["jobs"]["turn"];
    let step = job["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .find(|step| {
            step["run"]
                .as_str()
                .is_some_and(|run| run.contains("pincer"))
        })
        .unwrap()
        .clone();
    let run = step["run"].as_str().unwrap().to_owned();
    (step, run)
}

#[test]
fn the_github_actions_recipe_groups_by_session_takes_oidc_credentials_and_retries_the_tables_exits()
{
    let workflow = yaml_recipe("jobs", None);
    assert_eq!(workflow["permissions"]["id-token"].as_str(), Some("write"));
    let job = &workflow["jobs"]["turn"];
    let group = job["concurrency"]["group"].as_str().unwrap();
    assert!(group.contains("github.event.issue.number"), "{group}");
    assert_eq!(
        job["concurrency"]["cancel-in-progress"].as_bool(),
        Some(false)
    );
    let steps = job["steps"].as_vec().unwrap();
    let credentials = steps
        .iter()
        .position(|step| {
            step["uses"]
                .as_str()
                .is_some_and(|uses| uses.starts_with("aws-actions/configure-aws-credentials@"))
        })
        .expect("the store's credentials from OIDC");
    assert!(!steps[credentials]["with"]["role-to-assume"].is_badvalue());
    let (step, run) = github_step();
    assert!(
        steps.iter().position(|candidate| *candidate == step) > Some(credentials),
        "the credentials come before the step that uses them"
    );
    assert!(
        step["env"]["PINCER_STORE"]
            .as_str()
            .unwrap()
            .starts_with("s3://")
    );
    assert_eq!(shell_list(&run, "retry_exits=\""), retries::retried());
    // Every pincer command of the script parses, with the variables as words.
    let commands: Vec<&str> = run
        .lines()
        .filter_map(|line| line.find("pincer ").map(|at| &line[at..]))
        .collect();
    assert_eq!(commands.len(), 1, "{run}");
    for command in commands {
        let command = command.split(['>', '|']).next().unwrap();
        let argv = shlex::split(command).unwrap();
        assert_parses(&argv);
    }
}

/// The integers of the space-separated shell list after `marker`, up to its closing quote.
fn shell_list(text: &str, marker: &str) -> Vec<u8> {
    let start = text.find(marker).unwrap() + marker.len();
    let end = start + text[start..].find('"').unwrap();
    text[start..end]
        .split_whitespace()
        .map(|code| code.parse().unwrap())
        .collect()
}

#[test]
fn the_kubernetes_job_fails_on_the_tables_fail_exits_and_counts_its_retry_exits() {
    let job = yaml_recipe("kind", Some("Job"));
    let spec = &job["spec"];
    assert_eq!(
        spec["template"]["spec"]["restartPolicy"].as_str(),
        Some("Never"),
        "podFailurePolicy needs restartPolicy: Never"
    );
    let container = &spec["template"]["spec"]["containers"][0];
    let name = container["name"].as_str().unwrap();
    let rules = spec["podFailurePolicy"]["rules"].as_vec().unwrap();
    let by_action = |action: &str| {
        let rule = rules
            .iter()
            .find(|rule| {
                rule["action"].as_str() == Some(action) && !rule["onExitCodes"].is_badvalue()
            })
            .unwrap_or_else(|| panic!("no {action} rule by exit code"));
        assert_eq!(rule["onExitCodes"]["containerName"].as_str(), Some(name));
        assert_eq!(rule["onExitCodes"]["operator"].as_str(), Some("In"));
        codes(&rule["onExitCodes"]["values"])
    };
    assert_eq!(by_action("FailJob"), retries::failed());
    assert_eq!(by_action("Count"), retries::retried());
    // An evicted pod (SIGTERM, 143) is not counted against backoffLimit: its rule comes first.
    assert_eq!(rules[0]["action"].as_str(), Some("Ignore"));
    assert_eq!(
        rules[0]["onPodConditions"][0]["type"].as_str(),
        Some("DisruptionTarget")
    );
    assert!(!container_argv(container).is_empty());
    assert_parses(&container_argv(container));
}

#[test]
fn the_argo_retry_strategy_expression_retries_exactly_the_tables_retry_exits() {
    let workflow = yaml_recipe("kind", Some("Workflow"));
    let template = &workflow["spec"]["templates"][0];
    let strategy = &template["retryStrategy"];
    assert_eq!(strategy["retryPolicy"].as_str(), Some("Always"));
    let expression = strategy["expression"].as_str().unwrap();
    assert!(
        expression.starts_with("asInt(lastRetry.exitCode) in "),
        "{expression}"
    );
    assert_eq!(listed_after(expression, " in "), retries::retried());
    assert_parses(&container_argv(&template["container"]));
}

#[test]
fn the_temporal_activity_marks_every_exit_but_the_tables_retry_exits_non_retryable() {
    let python = blocks("python");
    let activity = python
        .iter()
        .find(|block| block.contains("@activity.defn"))
        .unwrap();
    assert_eq!(
        listed_after(activity, "RETRYABLE_EXITS = frozenset("),
        retries::retried()
    );
    assert!(activity.contains("non_retryable=code not in RETRYABLE_EXITS"));
    assert!(activity.contains(r#"event.get("subtype") == "checkpoint""#));
    // The command it starts, with the session variable as a word.
    let start = activity.find("create_subprocess_exec(").unwrap() + "create_subprocess_exec(".len();
    let end = start + activity[start..].find("stdin=").unwrap();
    let argv: Vec<String> = activity[start..end]
        .split(',')
        .map(str::trim)
        .filter(|word| !word.is_empty())
        .map(|word| match word.strip_prefix('"') {
            Some(quoted) => quoted.trim_end_matches('"').to_owned(),
            None => "nightly".to_owned(),
        })
        .collect();
    assert_eq!(argv[0], "pincer");
    assert_parses(&argv);
}

/// The GitHub Actions step's script run by bash with the built pincer as `pincer`, the
/// provider at `server`, the session store `store` (none: local sessions), the comment
/// `comment`, and `sleep` recorded instead of slept.
fn run_github_step(
    home: &Home,
    server: &MockServer,
    store: Option<&S3Store>,
    comment: &str,
) -> (std::process::Output, Vec<String>) {
    let (_, run) = github_step();
    let sleeps = home.root.path().join("sleeps");
    let script = format!(
        "pincer_bin=$0\n\
         pincer() {{ \"$pincer_bin\" -c retry.max_retries=0 \"$@\"; }}\n\
         sleep() {{ echo \"$1\" >> \"{}\"; }}\n\
         {run}",
        sleeps.display()
    );
    let command = home.pincer().provider(&protocols::anthropic(), server);
    let command = match store {
        Some(store) => command.store(store),
        None => command.env("PINCER_STORE", ""),
    };
    let output = command
        .env("SESSION", "pr-7")
        .env("COMMENT", comment)
        .inside("bash", ["-euo", "pipefail", "-c", &script])
        .output();
    let slept = std::fs::read_to_string(&sleeps)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    (output, slept)
}

#[test]
fn the_github_actions_step_retries_an_unavailable_provider_and_stops_on_bad_credentials() {
    let home = Home::new();
    let answer = Reply::sse(&wire::text_stream(
        &["done"],
        Usage4 {
            input: 10,
            output: 2,
            cache_read: 0,
            cache_write: 0,
        },
    ));
    let overloaded = Reply::json(529, &wire::error_body("overloaded_error", "Overloaded"));
    let server = MockServer::start(vec![overloaded, answer]);
    let (output, slept) = run_github_step(&home, &server, None, "--help is not a flag here");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(slept, ["20"], "one retry after exit 4");
    assert_eq!(server.requests().len(), 2);
    // The comment reached the model as the prompt, not as a flag.
    let body = String::from_utf8_lossy(&server.requests()[1].body).into_owned();
    assert!(body.contains("--help is not a flag here"), "{body}");
    assert!(stderr(&output).contains("exit 4, attempt 1: retrying"));
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.workspace.join("result.json")).unwrap())
            .unwrap();
    assert_eq!(result["result"], "done", "{result}");
    assert_eq!(result["session_name"], "pr-7", "{result}");
    assert!(stdout(&output).is_empty());

    // Exit 3 is in the table's fail list: no second try.
    let home = Home::new();
    let server = MockServer::start(vec![Reply::json(
        401,
        &wire::error_body("authentication_error", "invalid x-api-key"),
    )]);
    let (output, slept) = run_github_step(&home, &server, None, "hello");
    assert_eq!(code(&output), 3, "{}", stderr(&output));
    assert!(slept.is_empty(), "{slept:?}");
    assert_eq!(server.requests().len(), 1);
}

fn answer(text: &str) -> Reply {
    Reply::sse(&wire::text_stream(
        &[text],
        Usage4 {
            input: 10,
            output: 2,
            cache_read: 0,
            cache_write: 0,
        },
    ))
}

/// The result object the step left in the workspace.
fn step_result(home: &Home) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(home.workspace.join("result.json")).unwrap())
        .unwrap()
}

/// Issue #49: the recipe's step, run by two runners (two homes) against a real S3-compatible
/// server: the second continues the session the first started, after the lease a runner that
/// died left behind expired (the step's `--wait`), without a retry.
#[test]
fn the_github_actions_step_continues_the_prs_session_on_another_runner_through_the_store() {
    let store = S3Store::new();
    let server = MockServer::start(vec![answer("Looked at it."), answer("Fixed it.")]);
    let (runner_a, runner_b) = (Home::new(), Home::new());
    let (output, slept) = run_github_step(&runner_a, &server, Some(&store), "please look");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(slept.is_empty(), "{slept:?}");
    let first = step_result(&runner_a);
    assert_eq!(first["session_name"], "pr-7", "{first}");

    // A runner that took the lease and died: never renewed, never released.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let handle = pincer_store::Store::open(
        &store.url,
        pincer_store::StoreOptions {
            environment: pincer_store::Environment::Given(store.environment.clone()),
            ..pincer_store::StoreOptions::default()
        },
    )
    .unwrap();
    let session = pincer_store::SessionId::parse(first["session_id"].as_str().unwrap()).unwrap();
    let dead = runtime
        .block_on(handle.acquire_lease(
            &session,
            &pincer_store::Holder::new("pincer dead", "gone-runner"),
            Duration::from_secs(1),
            Duration::ZERO,
        ))
        .unwrap();
    drop(dead);

    let (output, slept) = run_github_step(&runner_b, &server, Some(&store), "now fix it");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(slept.is_empty(), "the wait, not a retry: {slept:?}");
    let second = step_result(&runner_b);
    assert_eq!(second["session_id"], first["session_id"], "{second}");
    assert_eq!(second["result"], "Fixed it.");
    let body = String::from_utf8_lossy(&server.requests()[1].body).into_owned();
    assert!(
        body.contains("please look")
            && body.contains("Looked at it.")
            && body.contains("now fix it"),
        "the second runner sent the first runner's turn: {body}"
    );
}
