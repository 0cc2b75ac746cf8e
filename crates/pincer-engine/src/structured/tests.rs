use super::*;

fn review_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["approve", "request_changes"]},
            "comments": {"type": "array", "items": {"type": "string"}},
            "score": {"type": "integer", "minimum": 0, "maximum": 10}
        },
        "required": ["verdict", "comments"]
    })
}

fn schema(value: Value) -> Arc<OutputSchema> {
    Arc::new(OutputSchema::new(value, "--json-schema".to_owned()).unwrap())
}

fn request() -> ModelRequest<'static> {
    ModelRequest {
        cache_key: None,
        cache_writes: Some(crate::conversation::CacheTtl::default()),
        model: "m".to_owned(),
        system_prompt: "You are pincer.".to_owned(),
        messages: Vec::new().into(),
        tools: vec![ToolDefinition {
            name: "read".to_owned(),
            description: "Read a file".to_owned(),
            parameters: json!({"type": "object", "properties": {}}),
        }],
        thinking: crate::conversation::ThinkingLevel::Off,
        thinking_budget: None,
        max_output_tokens: 1024,
        reasoning_model: false,
        web_search: None,
        output_format: None,
    }
}

#[test]
fn an_argument_is_inline_json_or_an_at_file_and_each_failure_names_its_problem() {
    let directory = tempfile::tempdir().unwrap();
    let file = directory.path().join("review.schema.json");
    std::fs::write(&file, review_schema().to_string()).unwrap();
    let from_file = OutputSchema::from_argument(&format!("@{}", file.display())).unwrap();
    assert_eq!(from_file.schema(), &review_schema());
    assert_eq!(from_file.origin(), format!("'{}'", file.display()));
    let inline = OutputSchema::from_argument(r#"{"type":"string"}"#).unwrap();
    assert_eq!(inline.origin(), "--json-schema");

    let missing = OutputSchema::from_argument("@/nonexistent/schema.json").unwrap_err();
    assert!(matches!(missing, SchemaError::Read { .. }), "{missing}");
    let not_json = OutputSchema::from_argument("{type: string}").unwrap_err();
    assert!(
        not_json
            .to_string()
            .starts_with("--json-schema is not JSON: "),
        "{not_json}"
    );
    let invalid =
        OutputSchema::from_argument(r#"{"type":"object","properties":{"a":{"type":"strin"}}}"#)
            .unwrap_err();
    assert!(
        invalid
            .to_string()
            .starts_with("--json-schema is not a valid JSON Schema: /properties/a/type: "),
        "{invalid}"
    );
    let dangling = OutputSchema::from_argument(r##"{"$ref":"#/$defs/missing"}"##).unwrap_err();
    assert!(
        matches!(dangling, SchemaError::Invalid { .. }),
        "{dangling}"
    );
    let remote =
        OutputSchema::from_argument(r#"{"$ref":"https://example.com/schema.json"}"#).unwrap_err();
    assert!(matches!(remote, SchemaError::Invalid { .. }), "{remote}");
}

#[test]
fn draft_07_schemas_are_checked_by_their_own_meta_schema() {
    let draft7 = json!({"$schema": "http://json-schema.org/draft-07/schema#",
        "type": "array", "items": [{"type": "string"}], "additionalItems": false});
    let checked = OutputSchema::new(draft7, "x".to_owned()).unwrap();
    assert!(checked.check_value(json!(["a"])).is_ok());
    assert_eq!(checked.check_value(json!(["a", "b"])).unwrap_err().len(), 1);
}

#[test]
fn answers_are_json_alone_or_in_one_fence_and_errors_are_path_colon_message() {
    let checked = schema(review_schema());
    let valid = json!({"verdict": "approve", "comments": []});
    assert_eq!(checked.check_text(&valid.to_string()).unwrap(), valid);
    assert_eq!(
        checked
            .check_text(&format!("```json\n{valid}\n```\n"))
            .unwrap(),
        valid
    );
    let errors = checked
        .check_text(r#"{"verdict": "maybe", "score": 11}"#)
        .unwrap_err();
    assert_eq!(
        errors,
        [
            r#"(root): "comments" is a required property"#,
            r#"/verdict: "maybe" is not one of "approve" or "request_changes""#,
            "/score: 11 is greater than the maximum of 10",
        ]
    );
    let prose = checked.check_text("Looks good to me!").unwrap_err();
    assert_eq!(prose.len(), 1);
    assert!(
        prose[0].starts_with("(root): the answer is not JSON ("),
        "{prose:?}"
    );
    assert_eq!(
        checked.check_text("  ").unwrap_err(),
        ["(root): the answer is empty; it must be a JSON value"]
    );
}

#[test]
fn an_optional_property_answered_null_counts_as_left_out_and_a_required_one_does_not() {
    let checked = schema(review_schema());
    assert_eq!(
        checked
            .check_value(json!({"verdict": "approve", "comments": [], "score": null}))
            .unwrap(),
        json!({"verdict": "approve", "comments": []})
    );
    assert!(
        checked
            .check_value(json!({"verdict": null, "comments": []}))
            .is_err()
    );
    let nullable = schema(json!({"type": "object", "properties": {
        "note": {"type": ["string", "null"]}}}));
    assert_eq!(
        nullable.check_value(json!({"note": null})).unwrap(),
        json!({"note": null})
    );
}

#[test]
fn formats_are_validated_not_only_annotated() {
    let checked = schema(json!({"type": "string", "format": "date"}));
    assert!(checked.check_value(json!("2025-11-03")).is_ok());
    assert!(checked.check_value(json!("next tuesday")).is_err());
}

#[test]
fn a_native_plan_sets_the_format_and_keeps_the_tools() {
    let (plan, warnings) = Plan::new(
        schema(review_schema()),
        ApiKind::OpenAi,
        StructuredMode::Native,
        2,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    let mut shaped = request();
    plan.shape(&mut shaped, false);
    let format = shaped.output_format.unwrap();
    assert!(format.strict);
    assert_eq!(format.name, "structured_output");
    assert_eq!(format.schema["additionalProperties"], json!(false));
    assert_eq!(shaped.tools.len(), 1);
    assert!(
        shaped
            .system_prompt
            .starts_with("You are pincer.\n\n## Answer format\n")
    );
}

#[test]
fn native_without_tools_constrains_only_calls_without_tools() {
    let (plan, _) = Plan::new(
        schema(review_schema()),
        ApiKind::Google,
        StructuredMode::NativeWithoutTools,
        2,
    );
    let mut with_tools = request();
    plan.shape(&mut with_tools, false);
    assert_eq!(with_tools.output_format, None);
    assert_eq!(with_tools.tools.len(), 1);
    assert!(with_tools.system_prompt.contains("\"request_changes\""));
    let mut final_call = request();
    plan.shape(&mut final_call, true);
    assert!(final_call.output_format.is_some());
    assert!(final_call.tools.is_empty());
}

#[test]
fn the_tool_plan_offers_the_answer_tool_and_wraps_a_schema_that_is_not_an_object() {
    let (plan, _) = Plan::new(
        schema(review_schema()),
        ApiKind::OpenAiChat,
        StructuredMode::Tool,
        2,
    );
    let mut shaped = request();
    plan.shape(&mut shaped, false);
    assert_eq!(shaped.output_format, None);
    let tool = &shaped.tools[1];
    assert_eq!(tool.name, "structured_output");
    assert_eq!(tool.parameters, review_schema());
    assert!(plan.is_answer_tool("structured_output"));
    assert!(!plan.is_answer_tool("read"));
    let valid = json!({"verdict": "approve", "comments": ["ok"]});
    assert_eq!(plan.check_tool_input(&valid).unwrap(), valid);

    let list = json!({"type": "array", "items": {"$ref": "#/$defs/item"},
        "$defs": {"item": {"type": "string"}}});
    let (plan, _) = Plan::new(schema(list), ApiKind::OpenAiChat, StructuredMode::Tool, 2);
    let mut shaped = request();
    plan.shape(&mut shaped, false);
    assert_eq!(
        shaped.tools[1].parameters,
        json!({"type": "object", "$defs": {"item": {"type": "string"}},
            "properties": {"value": {"type": "array", "items": {"$ref": "#/$defs/item"}}},
            "required": ["value"]})
    );
    assert_eq!(
        plan.check_tool_input(&json!({"value": ["a"]})).unwrap(),
        json!(["a"])
    );
    assert!(plan.check_tool_input(&json!({"value": [1]})).is_err());
}

#[test]
fn a_schema_anthropic_cannot_take_natively_goes_to_the_tool_with_a_warning() {
    let open = json!({"type": "object", "properties": {"a": {"type": "string"}},
        "additionalProperties": true});
    let (plan, warnings) = Plan::new(schema(open), ApiKind::Anthropic, StructuredMode::Native, 2);
    assert_eq!(plan.mode(), StructuredMode::Tool);
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].contains("additionalProperties other than false"),
        "{warnings:?}"
    );
}

#[test]
fn a_refused_native_mode_falls_back_to_the_tool_once() {
    let (mut plan, _) = Plan::new(
        schema(review_schema()),
        ApiKind::Anthropic,
        StructuredMode::Native,
        2,
    );
    assert!(plan.uses_native_format());
    assert!(plan.fall_back_to_tool().is_some());
    assert_eq!(plan.mode(), StructuredMode::Tool);
    assert!(!plan.uses_native_format());
    assert_eq!(plan.fall_back_to_tool(), None);
}

#[test]
fn feedback_lists_every_error_and_says_how_to_answer_again() {
    let errors = ["/a: 1 is not of type \"string\"".to_owned()];
    assert_eq!(
        feedback(&errors, false),
        "Your answer does not match the JSON Schema it must follow:\n- /a: 1 is not of type \
         \"string\"\nReply again with only the corrected JSON value."
    );
    assert!(feedback(&errors, true).ends_with("again with a corrected input."));
}

#[test]
fn the_record_names_the_schema_the_mode_and_the_outcome() {
    let (plan, _) = Plan::new(
        schema(review_schema()),
        ApiKind::OpenAi,
        StructuredMode::Native,
        2,
    );
    assert_eq!(
        plan.record(2, true),
        json!({"origin": "--json-schema", "mode": "native", "attempts": 2, "valid": true,
            "schema": review_schema(), "strict": true})
    );
    assert!(CUSTOM_TYPE.starts_with(crate::session::summary::PINCER_CUSTOM_PREFIX));
}
