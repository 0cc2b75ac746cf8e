//! Sessions across machines (SPEC §19, issue #49): `run` and `resume` against a session store.
//! Two `PINCER_HOME`s stand for two machines sharing one store; the store is a real
//! S3-compatible server (moto, started by the tests: `tests/common/s3.rs`), or `memory://`
//! where one process suffices.

use serde_json::json;

use crate::common::mock::{MockServer, Reply};
use crate::common::protocols;
use crate::common::wire::anthropic as wire;
use crate::common::{Home, code, stderr};

const MODEL: &str = "anthropic/claude-sonnet-4-5";

fn usage() -> wire::Usage4 {
    wire::Usage4 {
        input: 40,
        output: 10,
        cache_read: 0,
        cache_write: 0,
    }
}

/// The variables a store reads its credentials from, with distinctive values.
const STORE_CREDENTIALS: [(&str, &str); 4] = [
    ("AWS_SECRET_ACCESS_KEY", "store-secret-7f3a9c1e"),
    ("AWS_SESSION_TOKEN", "store-token-2b8d4e6f"),
    ("GOOGLE_SERVICE_ACCOUNT_KEY", "store-gcp-5a1c3e7b"),
    ("AZURE_STORAGE_ACCOUNT_KEY", "store-azure-9e2f4a6c"),
];

/// Issue #49: the store's credential variables join the list removed from every child's
/// environment, whenever pincer runs (with a store or not): a tool's `env` and a hook's show
/// none of them, while the store's other variables (its region) stay.
#[test]
fn no_tool_or_hook_sees_the_store_credentials_in_its_environment() {
    let home = Home::new();
    std::fs::write(
        home.home.join("config.toml"),
        "[[hooks.UserPromptSubmit]]\ncommand = \"env > hook.env\"\n",
    )
    .unwrap();
    let server = MockServer::start(vec![
        Reply::sse(&wire::tool_use_stream(
            None,
            &[("c_env", "exec", &json!({"command": "env"}).to_string())],
            usage(),
        )),
        Reply::sse(&wire::text_stream(&["Done."], usage())),
    ]);
    let mut command = home.pincer().provider(&protocols::anthropic(), &server);
    for (name, value) in STORE_CREDENTIALS {
        command = command.env(name, value);
    }
    let output = command
        .env("AWS_REGION", "eu-west-3")
        .args(["run", "-m", MODEL, "look"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let requests = server.requests();
    let results = wire::tool_results(&requests[1].json());
    let (environment, failed) = &results["c_env"];
    assert!(!failed, "{environment}");
    let hook = std::fs::read_to_string(home.workspace.join("hook.env")).unwrap();
    for (label, text) in [("exec", environment.as_str()), ("hook", hook.as_str())] {
        assert!(text.contains("AWS_REGION=eu-west-3"), "{label}: {text}");
        for (name, value) in STORE_CREDENTIALS {
            assert!(!text.contains(name), "{label} sees {name}: {text}");
            assert!(!text.contains(value), "{label} sees {name}'s value: {text}");
        }
    }
}
