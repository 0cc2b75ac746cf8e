//! Skills (SPEC §6.5, issue 20), end to end: discovery order and shadowing, bad front matter,
//! the Skills section of the request's system prompt (names, descriptions and paths, never a
//! body), the model reading a listed SKILL.md through `read` — a global one inside pincer's own
//! directory included — and running its script through `exec`, the modes that leave the section
//! out, the reports of `--dry-run` and `status`, the CLI backends, and a Claude Code skill
//! directory used as it is.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::backends::{Bench, session_id_of};
use super::exec_sandbox::{results, usage, user_namespaces_here};
use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic as wire;
use crate::common::{Home, code, skip, stderr, stdout};

const KEY: &str = "sk-ant-SKILLS-0123456789abcdef";
/// A line of every test skill's body: it must never reach a request unless the model reads it.
const BODY: &str = "BODY-OF-THE-SKILL";

/// Write `directory/SKILL.md` with `name` and `description` and a body naming the skill, and
/// return the file's canonical path.
fn skill(directory: &Path, name: &str, description: &str) -> PathBuf {
    std::fs::create_dir_all(directory).unwrap();
    let file = directory.join("SKILL.md");
    std::fs::write(
        &file,
        format!(
            "---\nname: {name}\ndescription: {description}\n---\n# {name}\n{BODY} of {name}.\n"
        ),
    )
    .unwrap();
    std::fs::canonicalize(file).unwrap()
}

fn run(home: &Home, server: &MockServer, args: &[&str]) -> Output {
    let anthropic = protocols::anthropic();
    home.pincer()
        .provider(&anthropic, server)
        .key(&anthropic, KEY)
        .args(args)
        .output()
}

/// The system prompt of a request body, whichever protocol sent it.
fn system_text(body: &Value) -> String {
    let texts = |parts: &Value| -> String {
        parts
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|part| part["text"].as_str())
            .collect()
    };
    if body["system"].is_array() {
        texts(&body["system"])
    } else if let Some(instructions) = body["instructions"].as_str() {
        instructions.to_owned()
    } else if body["systemInstruction"].is_object() {
        texts(&body["systemInstruction"]["parts"])
    } else {
        body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

/// The section of the first request's system prompt that lists the skills ("" when absent).
fn skills_section(server: &MockServer) -> String {
    let prompt = system_text(&server.requests()[0].json());
    match prompt.find("## Skills\n") {
        Some(start) => {
            let rest = &prompt[start..];
            let end = rest[1..].find("\n## ").map_or(rest.len(), |end| end + 1);
            rest[..end].trim_end().to_owned()
        }
        None => String::new(),
    }
}

fn entry(name: &str, description: &str, path: &Path) -> String {
    format!("- {name}: {description}\n  {}", path.display())
}

fn dry_run(home: &Home, args: &[&str]) -> Value {
    let server = MockServer::start(Vec::new());
    let mut all = vec!["run", "--dry-run"];
    all.extend_from_slice(args);
    all.push("hi");
    let output = run(home, &server, &all);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

fn listed_names(report: &Value) -> Vec<String> {
    report["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn skills_are_found_in_order_and_a_later_name_shadows_an_earlier_one_with_a_warning() {
    let home = Home::new();
    let global = skill(&home.home.join("skills/deploy"), "deploy", "Global deploy.");
    skill(
        &home.home.join("skills/triage"),
        "triage",
        "Sort the on-call queue.",
    );
    let pincer_dir = skill(
        &home.workspace.join(".pincer/skills/deploy"),
        "deploy",
        "Pincer deploy.",
    );
    let agents = skill(
        &home.workspace.join(".agents/skills/deploy"),
        "deploy",
        "Agents deploy.",
    );
    let configured = skill(
        &home.workspace.join("team-skills/review"),
        "review",
        "Configured review.",
    );
    let flagged = skill(
        &home.root.path().join("flag/review"),
        "review",
        "Flag review.",
    );
    std::fs::write(
        home.home.join("config.toml"),
        "[skills]\npaths = [\"team-skills\"]\n",
    )
    .unwrap();
    let server = MockServer::start(vec![Reply::sse(&wire::text_stream(&["ok"], usage()))]);
    let output = run(
        &home,
        &server,
        &["run", "--skill", flagged.to_str().unwrap(), "go"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let errors = stderr(&output);
    for (name, later, earlier) in [
        ("deploy", &pincer_dir, &global),
        ("deploy", &agents, &pincer_dir),
        ("review", &flagged, &configured),
    ] {
        let warning = format!(
            "warning: skill '{name}' in '{}' shadows the one in '{}'",
            later.display(),
            earlier.display()
        );
        assert!(errors.contains(&warning), "{warning}\n{errors}");
    }
    let section = skills_section(&server);
    let expected = [
        entry("deploy", "Agents deploy.", &agents),
        entry("review", "Flag review.", &flagged),
        entry(
            "triage",
            "Sort the on-call queue.",
            &std::fs::canonicalize(home.home.join("skills/triage/SKILL.md")).unwrap(),
        ),
    ]
    .join("\n");
    assert!(section.ends_with(&expected), "{section}");
    assert!(!section.contains("Global deploy."), "{section}");
}

#[test]
fn a_skill_with_bad_front_matter_is_skipped_with_a_warning_naming_the_file_and_the_run_succeeds() {
    let home = Home::new();
    let skills = home.workspace.join(".agents/skills");
    skill(&skills.join("good"), "good", "Still listed.");
    let cases = [
        ("no-header", "# Only a title\n"),
        ("no-description", "---\nname: no-description\n---\nbody\n"),
        (
            "not-yaml",
            "---\nname: not-yaml\ndescription: Use when: asked\n---\n",
        ),
    ];
    for (directory, text) in cases {
        std::fs::create_dir_all(skills.join(directory)).unwrap();
        std::fs::write(skills.join(directory).join("SKILL.md"), text).unwrap();
    }
    let server = MockServer::start(vec![Reply::sse(&wire::text_stream(&["ok"], usage()))]);
    let output = run(&home, &server, &["run", "go"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "ok\n");
    let errors = stderr(&output);
    for (directory, reason) in [
        (
            "no-header",
            "no front matter: the file must start with a line `---`",
        ),
        ("no-description", "the front matter has no `description`"),
        (
            "not-yaml",
            "the front matter is not valid YAML: mapping values are not allowed in this context \
             (line 3, column 22; a value containing \": \" must be quoted)",
        ),
    ] {
        let warning = format!(
            "warning: skipped skill '{}': {reason}",
            skills.join(directory).join("SKILL.md").display()
        );
        assert!(errors.contains(&warning), "{warning}\n{errors}");
    }
    let section = skills_section(&server);
    assert!(section.contains("- good: Still listed."), "{section}");
    assert!(!section.contains("no-description"), "{section}");
}

#[test]
fn the_request_lists_name_description_and_path_but_never_the_body_on_every_protocol() {
    for protocol in protocols::all() {
        let home = Home::new();
        let path = skill(
            &home.workspace.join(".agents/skills/release-checklist"),
            "release-checklist",
            "Cut a release, bump the version, update the changelog and tag.",
        );
        let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["ok"]))]);
        let output = home
            .pincer()
            .provider(&protocol, &server)
            .key(&protocol, KEY)
            .args(["run", "-m", protocol.model, "ship it"])
            .output();
        assert_eq!(code(&output), 0, "{}: {}", protocol.name, stderr(&output));
        let request = &server.requests()[0];
        let prompt = system_text(&request.json());
        assert!(
            prompt.contains(&entry(
                "release-checklist",
                "Cut a release, bump the version, update the changelog and tag.",
                &path
            )),
            "{}: {prompt}",
            protocol.name
        );
        assert!(
            prompt.contains("Read at most one skill before you begin"),
            "{}",
            protocol.name
        );
        let sent = String::from_utf8_lossy(&request.body).into_owned();
        assert!(!sent.contains(BODY), "{}: the body was sent", protocol.name);
    }
}

#[test]
fn the_model_reads_a_listed_global_skill_and_its_files_but_nothing_else_of_pincers_directory() {
    let home = Home::new();
    let directory = home.home.join("skills/release");
    let path = skill(&directory, "release", "Cut a release.");
    std::fs::write(directory.join("reference.md"), "REFERENCE-NOTES\n").unwrap();
    std::fs::write(
        home.home.join("config.toml"),
        "# CONFIG-MARKER\n[retry]\nmax_retries = 1\n",
    )
    .unwrap();
    let read = |path: &Path| json!({"path": path}).to_string();
    let calls = [
        ("c0", "read", read(&path)),
        ("c1", "read", read(&directory.join("reference.md"))),
        ("c2", "read", read(&home.home.join("config.toml"))),
        (
            "c3",
            "write",
            json!({"path": path, "content": "overwritten"}).to_string(),
        ),
    ];
    let calls: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, tool, arguments)| (*id, *tool, arguments.as_str()))
        .collect();
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(Some("Reading."), &calls, usage())),
        Reply::sse(&wire::text_stream(&["Done."], usage())),
    ]);
    let output = run(&home, &server, &["run", "release 1.2"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let found = results(&server);
    let (body, failed) = &found["c0"];
    assert!(!failed, "{body}");
    assert!(body.contains(&format!("{BODY} of release.")), "{body}");
    assert!(body.contains("name: release"), "{body}");
    assert_eq!(found["c1"], ("REFERENCE-NOTES\n".to_owned(), false));
    let (config, failed) = &found["c2"];
    assert!(*failed && !config.contains("CONFIG-MARKER"), "{config}");
    assert!(config.contains("is outside the workspace"), "{config}");
    let (write, failed) = &found["c3"];
    assert!(failed, "{write}");
    assert!(
        std::fs::read_to_string(&path).unwrap().contains(BODY),
        "the skill was changed"
    );
}

#[test]
fn a_global_skills_script_runs_through_exec_while_the_rest_of_pincers_directory_stays_hidden() {
    let test =
        "a_global_skills_script_runs_through_exec_while_the_rest_of_pincers_directory_stays_hidden";
    if !user_namespaces_here() {
        skip(
            test,
            "user namespaces are not available here (unshare -Urm fails)",
        );
        return;
    }
    let home = Home::new();
    home.add_profile("anthropic", "main", KEY);
    let directory = home.home.join("skills/release");
    skill(&directory, "release", "Cut a release.");
    // Not listed (no header): stays hidden with the rest.
    std::fs::create_dir_all(home.home.join("skills/unlisted")).unwrap();
    std::fs::write(home.home.join("skills/unlisted/SKILL.md"), "no header\n").unwrap();
    std::fs::create_dir_all(directory.join("scripts")).unwrap();
    let script = directory.join("scripts/check.sh");
    std::fs::write(&script, "#!/bin/sh\necho CHECK-OK\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let skills_dir = home.home.join("skills");
    let commands = [
        script.display().to_string(),
        format!("ls {}", skills_dir.display()),
        format!("cat {}", home.home.join("auth-profiles.json").display()),
        format!("touch {}", directory.join("new").display()),
    ];
    let arguments: Vec<String> = commands
        .iter()
        .map(|command| json!({"command": command}).to_string())
        .collect();
    let ids = ["c0", "c1", "c2", "c3"];
    let calls: Vec<(&str, &str, &str)> = ids
        .iter()
        .zip(&arguments)
        .map(|(id, arguments)| (*id, "exec", arguments.as_str()))
        .collect();
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(Some("Checking."), &calls, usage())),
        Reply::sse(&wire::text_stream(&["Done."], usage())),
    ]);
    let output = run(&home, &server, &["run", "release"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let found = results(&server);
    let (checked, failed) = &found["c0"];
    assert!(!*failed && checked.contains("CHECK-OK"), "{checked}");
    let (listing, _) = &found["c1"];
    assert_eq!(listing.trim(), "release", "only the listed skill is shown");
    let (secret, failed) = &found["c2"];
    assert!(*failed && !secret.contains(KEY), "{secret}");
    let (touched, failed) = &found["c3"];
    assert!(failed, "{touched}");
    assert!(!directory.join("new").exists());
}

#[test]
fn no_skills_turns_discovery_off_but_an_explicit_skill_still_loads() {
    let home = Home::new();
    skill(&home.home.join("skills/global"), "global", "Global one.");
    skill(&home.workspace.join(".agents/skills/here"), "here", "Here.");
    let explicit = skill(&home.root.path().join("explicit"), "explicit", "Asked for.");
    let report = dry_run(&home, &["--no-skills"]);
    assert_eq!(report["skills"]["enabled"], false);
    assert!(listed_names(&report["skills"]).is_empty());
    assert!(
        !report["system_prompt"]
            .as_str()
            .unwrap()
            .contains("## Skills")
    );
    let report = dry_run(
        &home,
        &[
            "--no-skills",
            "--skill",
            explicit.parent().unwrap().to_str().unwrap(),
        ],
    );
    assert_eq!(listed_names(&report["skills"]), ["explicit"]);
    // The configuration's switch does the same.
    std::fs::write(home.home.join("config.toml"), "[skills]\nenabled = false\n").unwrap();
    assert!(listed_names(&dry_run(&home, &[])["skills"]).is_empty());
    let report = dry_run(&home, &["-c", "skills.enabled=true"]);
    assert_eq!(listed_names(&report["skills"]), ["global", "here"]);
}

#[test]
fn heartbeat_minimal_and_replaced_prompts_leave_the_skills_section_out() {
    let home = Home::new();
    skill(&home.workspace.join(".agents/skills/here"), "here", "Here.");
    std::fs::write(home.workspace.join("HEARTBEAT.md"), "- check the backups\n").unwrap();
    for args in [
        &["--heartbeat"][..],
        &["--prompt-mode", "minimal"],
        &["--prompt-mode", "none"],
        &["--system-prompt", "Be terse."],
    ] {
        let server = MockServer::start(vec![Reply::sse(&wire::text_stream(
            &["HEARTBEAT_OK"],
            usage(),
        ))]);
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        all.push("go");
        let output = run(&home, &server, &all);
        assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
        let body = server.requests()[0].json();
        let prompt = system_text(&body);
        assert!(!prompt.contains("## Skills"), "{args:?}: {prompt}");
        assert!(!prompt.contains("- here: Here."), "{args:?}");
    }
    // A --skill that cannot apply says so instead of vanishing.
    let report = {
        let server = MockServer::start(Vec::new());
        run(
            &home,
            &server,
            &[
                "run",
                "--dry-run",
                "--heartbeat",
                "--skill",
                ".agents/skills/here",
            ],
        )
    };
    assert!(
        stderr(&report)
            .contains("warning: --skill has no effect on this run: heartbeat runs list no skills"),
        "{}",
        stderr(&report)
    );
}

#[test]
fn dry_run_and_status_report_the_skills_the_shadowed_ones_and_the_section_size() {
    let home = Home::new();
    let global = skill(&home.home.join("skills/deploy"), "deploy", "Global deploy.");
    let directory = home.workspace.join(".agents/skills/deploy");
    std::fs::create_dir_all(&directory).unwrap();
    std::fs::write(
        directory.join("SKILL.md"),
        "---\nname: deploy\ndescription: Ship to staging.\nlicense: MIT\nallowed-tools: Bash(kubectl *) Read\nmetadata:\n  owner: ops\n---\nbody\n",
    )
    .unwrap();
    let local = std::fs::canonicalize(directory.join("SKILL.md")).unwrap();
    let expected = json!({
        "enabled": true,
        "loaded": [{
            "name": "deploy",
            "description": "Ship to staging.",
            "path": local,
            "source": "workspace",
            "license": "MIT",
            "compatibility": null,
            "allowed_tools": ["Bash(kubectl *)", "Read"],
            "metadata": {"owner": "ops"},
            "disable_model_invocation": false,
        }],
        "shadowed": [{
            "name": "deploy",
            "path": global,
            "source": "global",
            "shadowed_by": local,
        }],
        "skipped": [],
        "warnings": [],
    });
    let report = dry_run(&home, &[]);
    assert_eq!(report["skills"], expected);
    let section = report["system_prompt_sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|section| section["name"] == "skills")
        .unwrap()
        .clone();
    let prompt = report["system_prompt"].as_str().unwrap();
    let start = prompt.find("## Skills").unwrap();
    let end = prompt[start..].find("\n\n## ").unwrap() + start;
    assert_eq!(section["chars"], json!(prompt[start..end].chars().count()));
    // allowed-tools is reported, never a grant: the policy is the default one.
    let policy = dry_run(&home, &["--no-skills"])["tool_policy"].clone();
    assert_eq!(report["tool_policy"], policy);

    let server = MockServer::start(Vec::new());
    let output = run(&home, &server, &["status", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let status: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(status["skills"], expected);
    assert!(
        status["system_prompt"]["sections"]
            .as_array()
            .unwrap()
            .iter()
            .any(|section| section["name"] == "skills")
    );
    let output = run(&home, &server, &["status"]);
    assert!(
        stdout(&output).contains("\nskills:         deploy (workspace)\n"),
        "{}",
        stdout(&output)
    );
}

/// A team's Claude Code skill, as `.claude/skills/` holds it: extra Claude fields, a script and
/// a reference file next to SKILL.md.
fn claude_code_skill(root: &Path) -> PathBuf {
    let directory = root.join("release-checklist");
    std::fs::create_dir_all(directory.join("scripts")).unwrap();
    std::fs::write(
        directory.join("SKILL.md"),
        "---\nname: release-checklist\ndescription: Use before tagging a release. Runs the checks in order and stops at the first failure.\nallowed-tools: Read, Grep, Bash(git tag:*)\nargument-hint: [version]\nmodel: sonnet\n---\n\n# Release checklist\n\n1. Run `scripts/preflight.sh`.\n2. Read `reference.md` for the tag format.\n",
    )
    .unwrap();
    std::fs::write(
        directory.join("scripts/preflight.sh"),
        "#!/bin/sh\necho preflight\n",
    )
    .unwrap();
    std::fs::write(directory.join("reference.md"), "Tags look like v1.2.3.\n").unwrap();
    std::fs::canonicalize(directory.join("SKILL.md")).unwrap()
}

#[test]
fn a_claude_code_skill_directory_works_through_skill_and_under_agents_skills() {
    let description =
        "Use before tagging a release. Runs the checks in order and stops at the first failure.";
    // Pointing --skill at the team's .claude/skills directory.
    let home = Home::new();
    let path = claude_code_skill(&home.workspace.join(".claude/skills"));
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(
            None,
            &[("c0", "read", &json!({"path": path}).to_string())],
            usage(),
        )),
        Reply::sse(&wire::text_stream(&["Checked."], usage())),
    ]);
    let output = run(
        &home,
        &server,
        &["run", "--skill", ".claude/skills", "release v1.2.3"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "",
        "a Claude Code skill loads without warnings"
    );
    assert!(skills_section(&server).contains(&entry("release-checklist", description, &path)));
    let (body, failed) = &results(&server)["c0"];
    assert!(
        !failed && body.contains("Run `scripts/preflight.sh`."),
        "{body}"
    );

    // The same directory copied under .agents/skills.
    let home = Home::new();
    let path = claude_code_skill(&home.workspace.join(".agents/skills"));
    let report = dry_run(&home, &[]);
    assert_eq!(listed_names(&report["skills"]), ["release-checklist"]);
    assert_eq!(
        report["skills"]["loaded"][0]["allowed_tools"],
        json!(["Read", "Grep", "Bash(git tag:*)"])
    );
    assert!(report["system_prompt"].as_str().unwrap().contains(&entry(
        "release-checklist",
        description,
        &path
    )));
}

#[test]
fn claude_and_codex_get_the_skills_section_in_their_system_prompt_file_on_every_turn() {
    for (backend, model, scenario) in [
        (
            "claude-cli",
            "claude-cli/sonnet",
            ["text-turn.jsonl", "second-turn.jsonl"],
        ),
        (
            "codex-cli",
            "codex-cli/gpt-5-codex",
            ["tool-turn.jsonl", "second-turn.jsonl"],
        ),
    ] {
        let bench = Bench::new();
        let path = skill(
            &bench.home.home.join("skills/triage"),
            "triage",
            "Sort the on-call queue.",
        );
        let first = bench.run(
            backend,
            &scenario[..1],
            &["--json", "run", "-m", model, "go"],
        );
        assert_eq!(code(&first), 0, "{backend}: {}", stderr(&first));
        let session = session_id_of(&first);
        let second = bench.run(
            backend,
            &scenario[1..],
            &["--json", "resume", &session, "again"],
        );
        assert_eq!(code(&second), 0, "{backend}: {}", stderr(&second));
        let reader = if backend == "claude-cli" {
            "with the `Read` tool"
        } else {
            "by printing it with the `shell` tool"
        };
        for index in 0..2 {
            let prompt = bench.call(index)["system_prompt"]
                .as_str()
                .unwrap()
                .to_owned();
            assert!(
                prompt.contains(&entry("triage", "Sort the on-call queue.", &path)),
                "{backend} call {index}: {prompt}"
            );
            assert!(prompt.contains(reader), "{backend}: {prompt}");
            assert!(!prompt.contains(BODY), "{backend}");
        }
    }
}
