//! The fuzz targets' checks (`fuzz/checks.rs`) on every committed seed (`fuzz/seeds/TARGET/`)
//! and on a local corpus when there is one (`fuzz/corpus/TARGET/`, made by `fuzz/run`), so that
//! `cargo test` holds the properties the fuzzers look for without the fuzzing toolchain.

use std::path::Path;

#[path = "../../fuzz/checks.rs"]
mod checks;

/// What a fuzz target checks of one input (panics when the property fails).
type Check = fn(&[u8]);

/// Each target, by its directory name under `fuzz/seeds`, with its check.
const TARGETS: [(&str, Check); 9] = [
    ("apply_patch", checks::apply_patch),
    ("cli_stream", checks::cli_stream),
    ("session_file", checks::session_file),
    ("session_line", checks::session_line),
    ("session_summary", checks::session_summary),
    ("sse_anthropic", checks::sse_anthropic),
    ("sse_gemini", checks::sse_gemini),
    ("sse_openai", checks::sse_openai),
    ("sse_openai_chat", checks::sse_openai_chat),
];

fn inputs(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_fuzz_target_holds_on_its_seeds_and_the_local_corpus() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let targets_dir = fuzz.join("fuzz_targets");
    for (target, check) in TARGETS {
        assert!(
            targets_dir.join(format!("{target}.rs")).is_file(),
            "no fuzz target {target}"
        );
        let seeds = inputs(&fuzz.join("seeds").join(target));
        assert!(!seeds.is_empty(), "no seeds for {target}");
        for input in seeds
            .iter()
            .chain(inputs(&fuzz.join("corpus").join(target)).iter())
        {
            let bytes = std::fs::read(input).unwrap();
            if std::panic::catch_unwind(|| check(&bytes)).is_err() {
                panic!("{target} fails on {}", input.display());
            }
        }
    }
    // Every target has a check here: a new one must be added to TARGETS.
    let count = std::fs::read_dir(&targets_dir).unwrap().count();
    assert_eq!(count, TARGETS.len(), "fuzz targets and TARGETS differ");
}
