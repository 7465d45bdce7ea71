//! Where the rule docs (`rules/<id>.md`) are, for the registry's `include_str!`: at the
//! top of the repository, or inside this crate as published (the release workflow copies
//! them in before `cargo publish`, since a published crate holds only its own folder).

fn main() {
    let crate_dir = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let inside = crate_dir.join("rules");
    let docs = if inside.is_dir() {
        inside
    } else {
        crate_dir.join("../../rules")
    };
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-env=GPULINT_RULE_DOCS={}", docs.display());
}
