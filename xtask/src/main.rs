//! Project chores for aclrt.
//!
//! * `cargo xtask bindgen` regenerates `sys/src/bindings.rs` from the
//!   project's own header `sys/include/acl/acl.h`, and writes the same text to
//!   `sim/src/bindings.rs`: the simulator implements these declarations and
//!   checks its exports against them, and a published package may only
//!   contain its own files, so `aclrt-sim` carries an identical copy instead
//!   of reaching into `sys/`.
//! * `cargo xtask bindgen --check` regenerates into memory and fails when
//!   either committed copy differs (the drift check CI runs), so the two can
//!   never differ from the header or from each other.
//! * `cargo xtask bindgen --check-system DIR` generates bindings from a real
//!   CANN toolkit's include directory `DIR` and fails when any function our
//!   header declares has a different Rust signature there (signature drift
//!   between the project's header and the vendor's).
//! * `cargo xtask bindgen --self-test` proves the drift check can fail: it
//!   copies the header, changes one prototype (`aclrtMalloc`'s `size_t size`
//!   becomes `uint32_t size`), and requires both checks to report it (the
//!   text check for every copy); then it edits a copy of the simulator's file
//!   alone and requires the text check to report that too.
//!
//! bindgen needs libclang at run time (`apt-get install libclang-dev`); a
//! normal build of the workspace does not.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The exact bindgen version the committed file was made with.
const BINDGEN_VERSION: &str = "0.72.1";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["bindgen"] => write_bindings(&root),
        ["bindgen", "--check"] => check_bindings(&root),
        ["bindgen", "--check-system", dir] => check_system(&root, Path::new(dir)),
        ["bindgen", "--self-test"] => self_test(&root),
        _ => {
            eprintln!(
                "usage: cargo xtask bindgen [--check | --self-test | --check-system <toolkit include dir>]"
            );
            ExitCode::from(2)
        }
    }
}

/// The committed copies of the generated bindings, relative to the root.
/// The first is aclrt-sys's; every one must equal a fresh generation.
const BINDINGS_COPIES: &[&str] = &["sys/src/bindings.rs", "sim/src/bindings.rs"];

fn bindings_path(root: &Path) -> PathBuf {
    root.join(BINDINGS_COPIES[0])
}

/// Macro constants get the C type they stand for instead of bindgen's `u32`.
#[derive(Debug)]
struct MacroTypes;

impl bindgen::callbacks::ParseCallbacks for MacroTypes {
    fn int_macro(&self, name: &str, _value: i64) -> Option<bindgen::callbacks::IntKind> {
        use bindgen::callbacks::IntKind;
        if name.starts_with("ACL_ERROR_") || name == "ACL_RT_SUCCESS" {
            // Error codes are compared with `aclError` (C `int`).
            Some(IntKind::Int)
        } else if name.starts_with("ACL_EVENT_") || name.starts_with("ACL_STREAM_") {
            // Flags are passed as `uint32_t`.
            Some(IntKind::U32)
        } else if name.starts_with("ACL_NOTIFY_")
            || name.starts_with("ACL_RT_MEM_TYPE_")
            || name.starts_with("ACL_RT_MEM_LINK_IDX_")
            || name.starts_with("ACL_MDLRI_DEBUG_JSON_PRINT_")
        {
            // Notify creation flags, memory-kind masks, link indexes and
            // debug-print forms are passed as `uint32_t`.
            Some(IntKind::U32)
        } else if name.starts_with("ACL_RT_NOTIFY_EXPORT_FLAG_")
            || name.starts_with("ACL_RT_NOTIFY_IMPORT_FLAG_")
            || name.starts_with("ACL_RT_IPC_MEM_EXPORT_FLAG_")
            || name.starts_with("ACL_RT_IPC_MEM_IMPORT_FLAG_")
            || name.starts_with("ACL_RT_VMM_EXPORT_FLAG_")
            || name.starts_with("ACL_RT_DEVS_TOPOLOGY_")
        {
            // Export/import flags and topology bits are `uint64_t`.
            Some(IntKind::U64)
        } else if name.starts_with("ACL_PKG_VERSION_") || name == "ACL_IPC_EVENT_HANDLE_SIZE" {
            Some(IntKind::Custom {
                name: "usize",
                is_signed: false,
            })
        } else {
            Some(IntKind::Int)
        }
    }
}

fn generate(include_dir: &Path) -> Result<String, String> {
    let header = include_dir.join("acl/acl.h");
    if !header.is_file() {
        return Err(format!("header not found: {}", header.display()));
    }
    let bindings = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .clang_arg(format!("-I{}", include_dir.display()))
        .clang_arg("-std=c11")
        .allowlist_function("acl.*")
        .allowlist_type("acl.*")
        .allowlist_var("ACL_.*")
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .use_core()
        .ctypes_prefix("::core::ffi")
        .rust_target(bindgen::RustTarget::stable(85, 0).expect("known target"))
        .rust_edition(bindgen::RustEdition::Edition2024)
        .merge_extern_blocks(true)
        .layout_tests(true)
        .generate_comments(false)
        .parse_callbacks(Box::new(MacroTypes))
        .generate()
        .map_err(|e| format!("bindgen failed: {e}"))?;
    let body = bindings.to_string();
    Ok(format!(
        "// Generated by `cargo xtask bindgen` with bindgen {BINDGEN_VERSION} from the\n\
         // project's own header sys/include/acl/acl.h (written from shared/acl-facts.md).\n\
         // Do not edit by hand: change the header and regenerate; CI runs\n\
         // `cargo xtask bindgen --check` and fails when this file is stale.\n\n{body}"
    ))
}

fn write_bindings(root: &Path) -> ExitCode {
    match generate(&root.join("sys/include")) {
        Ok(text) => {
            for copy in BINDINGS_COPIES {
                let path = root.join(copy);
                if let Err(e) = std::fs::write(&path, &text) {
                    eprintln!("cannot write {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
                println!("wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn check_bindings(root: &Path) -> ExitCode {
    let fresh = match generate(&root.join("sys/include")) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let mut stale = 0;
    for copy in BINDINGS_COPIES {
        if !check_copy(&root.join(copy), &fresh) {
            stale += 1;
        }
    }
    if stale > 0 {
        eprintln!("run `cargo xtask bindgen` and commit the result.");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Whether the committed file at `path` equals `fresh`; says which line
/// differs when it does not.
fn check_copy(path: &Path, fresh: &str) -> bool {
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    if committed == fresh {
        println!("bindings up to date: {}", path.display());
        return true;
    }
    eprintln!(
        "DRIFT: {} differs from a fresh generation from sys/include/acl/acl.h.",
        path.display()
    );
    for (n, (a, b)) in committed.lines().zip(fresh.lines()).enumerate() {
        if a != b {
            eprintln!(
                "first difference at line {}:\n  committed: {a}\n  fresh:     {b}",
                n + 1
            );
            break;
        }
    }
    if committed.lines().count() != fresh.lines().count() {
        eprintln!(
            "committed has {} lines, fresh generation has {}",
            committed.lines().count(),
            fresh.lines().count()
        );
    }
    false
}

/// Every `pub fn name(...) -> ...;` of a generated file, whitespace-normalised.
fn function_signatures(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(start) = rest.find("pub fn ") {
        let tail = &rest[start..];
        let end = tail.find(';').unwrap_or(tail.len());
        let decl: String = tail[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let decl = decl
            .replace("( ", "(")
            .replace(", )", ")")
            .replace(",)", ")");
        let name = decl["pub fn ".len()..]
            .split('(')
            .next()
            .unwrap_or_default()
            .to_string();
        out.insert(name, decl);
        rest = &tail[end..];
    }
    out
}

fn check_system(root: &Path, include_dir: &Path) -> ExitCode {
    let ours = match std::fs::read_to_string(bindings_path(root)) {
        Ok(t) => function_signatures(&t),
        Err(e) => {
            eprintln!("cannot read committed bindings: {e}");
            return ExitCode::FAILURE;
        }
    };
    let theirs = match generate(include_dir) {
        Ok(t) => function_signatures(&t),
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let mut bad = 0;
    for (name, sig) in &ours {
        match theirs.get(name) {
            None => {
                eprintln!("MISSING in {}: {name}", include_dir.display());
                bad += 1;
            }
            Some(other) if other != sig => {
                eprintln!("SIGNATURE DRIFT {name}:\n  ours:    {sig}\n  toolkit: {other}");
                bad += 1;
            }
            Some(_) => {}
        }
    }
    if bad > 0 {
        eprintln!(
            "{bad} function(s) differ between our header and {}",
            include_dir.display()
        );
        return ExitCode::FAILURE;
    }
    println!(
        "all {} functions match {}",
        ours.len(),
        include_dir.display()
    );
    ExitCode::SUCCESS
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

fn self_test(root: &Path) -> ExitCode {
    let tmp = std::env::temp_dir().join(format!("aclrt-xtask-selftest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    if let Err(e) = copy_dir(&root.join("sys/include"), &tmp) {
        eprintln!("cannot copy the header: {e}");
        return ExitCode::FAILURE;
    }
    let rt = tmp.join("acl/acl_rt.h");
    let text = std::fs::read_to_string(&rt).unwrap_or_default();
    let needle = "aclrtMalloc(void **devPtr, size_t size,";
    if !text.contains(needle) {
        eprintln!(
            "self-test: prototype to mutate not found in {}",
            rt.display()
        );
        return ExitCode::FAILURE;
    }
    let mutated = text.replacen(needle, "aclrtMalloc(void **devPtr, uint32_t size,", 1);
    if let Err(e) = std::fs::write(&rt, mutated) {
        eprintln!("cannot write {}: {e}", rt.display());
        return ExitCode::FAILURE;
    }
    let fresh = match generate(&tmp) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let committed = std::fs::read_to_string(bindings_path(root)).unwrap_or_default();
    // Every committed copy must be reported stale against the mutated header.
    println!("self-test: the DRIFT reports below are expected (three of them)");
    let text_differs = BINDINGS_COPIES
        .iter()
        .all(|copy| !check_copy(&root.join(copy), &fresh));
    let ours = function_signatures(&committed);
    let theirs = function_signatures(&fresh);
    let sig_differs = ours.get("aclrtMalloc") != theirs.get("aclrtMalloc");
    // And a hand edit of the simulator's copy alone (the header unchanged)
    // must be reported too: the copies cannot drift apart.
    let copy_edit_caught = match generate(&root.join("sys/include")) {
        Ok(unmutated) => {
            let edited = tmp.join("edited-sim-bindings.rs");
            let sim_copy = std::fs::read_to_string(root.join(BINDINGS_COPIES[1]))
                .unwrap_or_default()
                .replacen("size: usize", "size: u32", 1);
            std::fs::write(&edited, sim_copy).is_ok() && !check_copy(&edited, &unmutated)
        }
        Err(e) => {
            eprintln!("{e}");
            false
        }
    };
    let _ = std::fs::remove_dir_all(&tmp);
    println!(
        "self-test: mutated aclrtMalloc(size_t -> uint32_t): text drift detected in every copy = {text_differs}, signature drift detected = {sig_differs}; \
         hand-edited simulator copy detected = {copy_edit_caught}"
    );
    if text_differs && sig_differs && copy_edit_caught {
        println!(
            "self-test passed: the drift check fails on a changed prototype and on a changed copy"
        );
        ExitCode::SUCCESS
    } else {
        eprintln!("self-test FAILED: a changed prototype or copy went unnoticed");
        ExitCode::FAILURE
    }
}
