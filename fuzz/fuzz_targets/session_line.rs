//! One session line: parsing never panics, and a line that parses serializes to one line that
//! parses back and serializes to the same bytes. (Comparing the parsed values instead would be
//! wrong: `1e+17` is written as JavaScript writes it, `100000000000000000`, which reads back as an
//! integer — the same number, a different `serde_json::Number`.) The fast reader of the
//! entries pincer writes gives what the general reader (through a `serde_json::Value`) gives.
#![no_main]

use pincer::session::record::{Line, parse_line, parse_value, to_line};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let general = parse_value(text).and_then(Line::from_value);
    match (&parse_line(text), &general) {
        (Ok(fast), Ok(general)) => assert_eq!(fast, general),
        (Err(_), Err(_)) => {}
        (fast, general) => panic!("the readers disagree: {fast:?} and {general:?}"),
    }
    let Ok(line) = general else {
        return;
    };
    let written = to_line(&line).expect("a parsed record serializes");
    assert_eq!(written.matches('\n').count(), 1, "{written:?}");
    assert!(written.ends_with('\n'));
    let again = parse_line(written.trim_end_matches('\n')).expect("a written line parses");
    assert_eq!(to_line(&again).expect("serializes again"), written);
});
