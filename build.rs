use std::error::Error;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

use flate2::Compression;
use flate2::write::DeflateEncoder;

// Migrations are embedded at compile time; without this a new migration file would be
// silently left out of the binary. The book (docs/src and the screenshots it shows) is
// embedded the same way, every file found, so a new chapter needs no list kept by hand.
// Text is embedded as raw DEFLATE (the release binary's size goal, issue 34): the book's
// chapters, the OpenAPI document, the CIS schemas the simulator serves and the owner's page's
// scripts shrink to a fifth or less and
// are inflated once, when first served; images are already compressed and go in as they are.
fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=migrations");
    println!("cargo:rerun-if-changed=docs/src");
    println!("cargo:rerun-if-changed=docs/screenshots");
    println!("cargo:rerun-if-changed=assets/openapi.yaml");
    println!("cargo:rerun-if-changed=assets/cis");
    println!("cargo:rerun-if-changed=assets/web");
    println!("cargo:rerun-if-changed=assets/passwords");
    println!("cargo:rerun-if-changed=assets/till");

    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    let out = PathBuf::from(env::var("OUT_DIR")?);
    let docs = root.join("docs");
    let mut files = Vec::new();
    for dir in ["src", "screenshots"] {
        collect(&docs, &docs.join(dir), &mut files)?;
    }
    files.sort();
    let mut code = String::from("pub const FILES: &[(&str, Packed, &[u8])] = &[\n");
    for (name, path) in &files {
        if is_text(name) {
            let packed = deflate(Path::new(path), &out.join("book").join(format!("{name}.deflate")))?;
            writeln!(code, "    ({name:?}, Packed::Deflate, include_bytes!({packed:?})),")?;
        } else {
            writeln!(code, "    ({name:?}, Packed::Plain, include_bytes!({path:?})),")?;
        }
    }
    code.push_str("];\n");
    fs::write(out.join("book_files.rs"), code)?;

    // The x86_64 musl release binary is static-pie (its addresses differ at each start): its
    // relative relocations, 1.3 MB as RELA entries, are packed as DT_RELR (a few KB), which
    // musl's start-up code applies since 1.2.4 (Rust's musl targets carry 1.2.5). The aarch64
    // build (zig) links a plain static binary, which has none.
    // ARKA_LINK_MAP=FILE has the linker write its map there: every function and C object with its
    // size, also in the stripped release binary (how issue 34 found where the bytes go).
    println!("cargo:rerun-if-env-changed=ARKA_LINK_MAP");
    if env::var("TARGET")? == "x86_64-unknown-linux-musl" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
        if let Ok(map) = env::var("ARKA_LINK_MAP") {
            println!("cargo:rustc-link-arg-bins=-Wl,-Map={map}");
        }
    }

    deflate(&root.join("assets/openapi.yaml"), &out.join("openapi.yaml.deflate"))?;
    // The most common passwords, which a new password must not be (`domain::password`).
    deflate(&root.join("assets/passwords/common.txt"), &out.join("common-passwords.deflate"))?;
    // The owner's page's and the till's scripts and stylesheets (index.html goes in as it is:
    // its version is filled in when served).
    for dir in ["web", "till"] {
        for entry in fs::read_dir(root.join("assets").join(dir))? {
            let path = entry?.path();
            if let Some(name) = path.file_name().and_then(|n| n.to_str()).filter(|n| *n != "index.html") {
                deflate(&path, &out.join(dir).join(format!("{name}.deflate")))?;
            }
        }
    }
    for name in [
        "FiscalizationService.wsdl",
        "EinvoiceService.wsdl",
        "alimc-fiscalization-service.xsd",
        "alimc-einvoice-service.xsd",
        "xmldsig-core-schema.xsd",
    ] {
        deflate(&root.join("assets/cis").join(name), &out.join("cis").join(format!("{name}.deflate")))?;
    }
    Ok(())
}

fn is_text(name: &str) -> bool {
    [".md", ".css", ".svg", ".txt"].iter().any(|ext| name.ends_with(ext))
}

/// `source` as one raw DEFLATE stream (RFC 1951) at `packed`; returns `packed` as a string.
fn deflate(source: &Path, packed: &Path) -> Result<String, Box<dyn Error>> {
    let bytes = fs::read(source)?;
    if let Some(dir) = packed.parent() {
        fs::create_dir_all(dir)?;
    }
    let mut encoder = DeflateEncoder::new(Vec::with_capacity(bytes.len() / 3), Compression::best());
    encoder.write_all(&bytes)?;
    fs::write(packed, encoder.finish()?)?;
    Ok(packed.to_str().ok_or("a path of the build that is not UTF-8")?.to_string())
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
