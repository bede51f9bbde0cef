use std::error::Error;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

// Migrations are embedded at compile time; without this a new migration file would be
// silently left out of the binary. The book (docs/src and the screenshots it shows) is
// embedded the same way, every file found, so a new chapter needs no list kept by hand.
fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=migrations");
    println!("cargo:rerun-if-changed=migrations_hq");
    println!("cargo:rerun-if-changed=docs/src");
    println!("cargo:rerun-if-changed=docs/screenshots");

    let docs = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?).join("docs");
    let mut files = Vec::new();
    for dir in ["src", "screenshots"] {
        collect(&docs, &docs.join(dir), &mut files)?;
    }
    files.sort();
    let mut code = String::from("pub const FILES: &[(&str, &[u8])] = &[\n");
    for (name, path) in &files {
        writeln!(code, "    ({name:?}, include_bytes!({path:?})),")?;
    }
    code.push_str("];\n");
    fs::write(PathBuf::from(env::var("OUT_DIR")?).join("book_files.rs"), code)?;
    Ok(())
}

/// Every file under `dir`, named by its path below `docs/` with `/` between the parts.
fn collect(docs: &Path, dir: &Path, files: &mut Vec<(String, String)>) -> Result<(), Box<dyn Error>> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(docs, &path, files)?;
        } else {
            let name = path.strip_prefix(docs)?.components().map(|c| c.as_os_str().to_string_lossy());
            let name = name.collect::<Vec<_>>().join("/");
            let full = path.to_str().ok_or("a path of the book that is not UTF-8")?.to_string();
            files.push((name, full));
        }
    }
    Ok(())
}
