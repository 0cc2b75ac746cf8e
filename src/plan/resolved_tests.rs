//! [`super::resolved::resolve`] by value: flags and configuration in, a `TurnPlan` or the usage
//! error out, with nothing read but the configuration and the files the flags name.

use serde_json::json;

use super::TurnRequest;
use super::resolved::{TurnPlan, resolve};
use super::test_env::TestEnv;
use crate::error::{CliResult, Exit};
use crate::session_setup::{Choice, New, Resume};
use crate::tools::policy::Decision;

const NEW: Choice<'static> = Choice::New(New {
    session_id: None,
    name: None,
});

fn plan(config: &str, args: &TurnRequest) -> CliResult<TurnPlan> {
    resolve(&TestEnv::new(config), args, &NEW)
}

fn request(edit: impl FnOnce(&mut TurnRequest)) -> TurnRequest {
    let mut args = TurnRequest::default();
    edit(&mut args);
    args
}

/// One row of a tool-rule table: what it shows, the config, `--allowed-tools`,
/// `--disallowed-tools`, and whether `exec` of `git status` runs (None: a usage error).
type ToolCase = (
    &'static str,
    &'static str,
    Vec<&'static str>,
    Vec<&'static str>,
    Option<bool>,
);

/// The tools offered and whether an `exec` of `git status` may run, for each set of flags and
/// config: the flags add to the config's lists, a deny rule wins, and a tool rule that does
/// not parse is a usage error naming it.
#[test]
fn tool_rules_from_flags_and_config_resolve_into_one_policy() {
    let exec = |command: &str| json!({ "command": command });
    let cases: [ToolCase; 5] = [
        ("defaults", "", vec![], vec![], Some(true)),
        ("a flag denies exec", "", vec![], vec!["exec"], Some(false)),
        (
            "the config denies it",
            "[tools]\ndeny = [\"exec\"]\n",
            vec![],
            vec![],
            Some(false),
        ),
        (
            "deny wins over a flag's allow",
            "[tools]\ndeny = [\"exec(git status)\"]\n",
            vec!["exec(git status)"],
            vec![],
            Some(false),
        ),
        (
            "a rule that does not parse",
            "",
            vec!["exec(unclosed"],
            vec![],
            None,
        ),
    ];
    for (what, config, allowed, disallowed, runs) in cases {
        let args = request(|args| {
            args.allowed_tools = allowed.iter().map(|rule| (*rule).to_owned()).collect();
            args.disallowed_tools = disallowed.iter().map(|rule| (*rule).to_owned()).collect();
        });
        match (plan(config, &args), runs) {
            (Ok(plan), Some(runs)) => assert_eq!(
                matches!(
                    plan.policy.check("exec", &exec("git status")),
                    Decision::Allow
                ),
                runs,
                "{what}"
            ),
            (Err(error), None) => {
                assert_eq!(error.exit, Exit::Usage, "{what}");
                assert!(error.message.contains("exec(unclosed"), "{what}: {error:?}");
            }
            (outcome, _) => panic!("{what}: {:?}", outcome.map(|plan| plan.policy)),
        }
    }
}

/// Hooks come from the config, in declaration order; a hook the reader refuses is a usage
/// error before anything runs.
#[test]
fn hooks_from_the_config_are_resolved_and_a_bad_one_is_a_usage_error() {
    let config = "[[hooks.Stop]]\ncommand = \"echo stop\"\n\n[[hooks.PreToolUse]]\nmatcher = \
                  \"exec\"\ncommand = \"echo pre\"\n";
    let plan = plan(config, &TurnRequest::default()).unwrap();
    let commands: Vec<&str> = plan
        .hooks
        .hooks
        .iter()
        .map(|hook| hook.command.as_str())
        .collect();
    assert_eq!(commands.len(), 2, "{commands:?}");
    assert!(commands.contains(&"echo stop") && commands.contains(&"echo pre"));
    let bad = "[[hooks.PreToolUse]]\nmatcher = \"(\"\ncommand = \"echo\"\n";
    let error = self::plan(bad, &TurnRequest::default()).unwrap_err();
    assert_eq!(error.exit, Exit::Usage, "{error:?}");
}

/// `--json-schema`: a schema is checked here; one that is no JSON Schema is a usage error.
/// `--web-search` or `tools.web_search` ask for the provider's search, the flag saying so.
#[test]
fn the_output_schema_and_the_web_search_are_resolved_from_flags_and_config() {
    let schema = request(|args| {
        args.json_schema =
            Some(r#"{"type":"object","properties":{"ok":{"type":"boolean"}}}"#.into());
    });
    assert!(plan("", &schema).unwrap().output_schema.is_some());
    assert!(
        plan("", &TurnRequest::default())
            .unwrap()
            .output_schema
            .is_none()
    );
    let not_json = request(|args| args.json_schema = Some("{not json".into()));
    assert_eq!(plan("", &not_json).unwrap_err().exit, Exit::Usage);

    let by_flag = plan("", &request(|args| args.web_search = true)).unwrap();
    assert!(by_flag.web_search.asked && by_flag.web_search.by_flag);
    let by_config = plan("[tools]\nweb_search = true\n", &TurnRequest::default()).unwrap();
    assert!(by_config.web_search.asked && !by_config.web_search.by_flag);
    assert!(!plan("", &TurnRequest::default()).unwrap().web_search.asked);
}

/// `--add-dir` that is missing is a usage error naming it; `resume --session-id` without
/// `--fork` or `--create` too, before anything else is looked at.
#[test]
fn missing_directories_and_resume_arguments_that_do_not_fit_are_usage_errors() {
    let missing = request(|args| args.add_dir = vec!["/nonexistent/pincer-plan-test".into()]);
    let error = plan("", &missing).unwrap_err();
    assert_eq!(error.exit, Exit::Usage);
    assert!(
        error.message.contains("(--add-dir) does not exist"),
        "{error:?}"
    );

    let resume = Choice::Resume(Resume {
        session: Some("nightly"),
        session_id: Some("0199a000-0000-7000-8000-000000000001"),
        ..Resume::default()
    });
    let error = resolve(&TestEnv::new(""), &TurnRequest::default(), &resume).unwrap_err();
    assert_eq!(error.exit, Exit::Usage);
    assert!(error.message.contains("--session-id"), "{error:?}");

    let dir = tempfile::tempdir().unwrap();
    let found = plan(
        "",
        &request(|args| args.add_dir = vec![dir.path().to_owned()]),
    )
    .unwrap();
    assert_eq!(found.added_dirs, [dir.path().canonicalize().unwrap()]);
}

/// The network rules (SPEC §20) are resolved with the rest: `--allow-host` and
/// `[sandbox.network]` make one policy, and a pattern that is no rule — on the command line or
/// in claude's `--settings` — is a usage error naming it, before anything runs.
#[test]
fn network_rules_from_flags_settings_and_config_resolve_and_a_bad_pattern_is_a_usage_error() {
    assert!(
        plan("", &TurnRequest::default())
            .unwrap()
            .network_rules
            .is_empty()
    );
    let flag = request(|args| args.allow_host = vec!["registry.npmjs.org".into()]);
    assert!(!plan("", &flag).unwrap().network_rules.is_empty());
    let config = "[sandbox.network]\nallow = [\"@pypi\"]\n";
    assert!(
        !plan(config, &TurnRequest::default())
            .unwrap()
            .network_rules
            .is_empty()
    );
    for (bad, named) in [
        (request(|args| args.allow_host = vec!["*".into()]), "*"),
        (
            request(|args| {
                args.settings =
                    vec![r#"{"sandbox":{"network":{"allowedDomains":["*.org"]}}}"#.into()];
            }),
            "*.org",
        ),
    ] {
        let error = plan("", &bad).unwrap_err();
        assert_eq!(error.exit, Exit::Usage, "{error:?}");
        assert!(error.message.contains(named), "{error:?}");
    }
}
