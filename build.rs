//! Compiles the shipped rule files (TOML) to JSON at build time, so that every process start
//! reads them with a fast decoder. The TOML files stay the source of truth; the runtime
//! validation is the same for both forms, and a test checks that the two agree.

use std::path::Path;

const RULE_FILES: &[&str] = &[
    "catastrophic",
    "unverifiable",
    "secrets",
    "sensitive",
    "system",
];

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo:rerun-if-changed=rules");
    for name in RULE_FILES {
        let source = format!("rules/{name}.toml");
        println!("cargo:rerun-if-changed={source}");
        let text = std::fs::read_to_string(&source).unwrap_or_else(|e| panic!("{source}: {e}"));
        let table: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{source}: {e}"));
        let json = serde_json::to_string(&table).unwrap_or_else(|e| panic!("{source}: {e}"));
        std::fs::write(Path::new(&out).join(format!("{name}.json")), json)
            .unwrap_or_else(|e| panic!("{source}: {e}"));
    }
}
