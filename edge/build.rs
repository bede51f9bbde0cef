use std::error::Error;
use std::io::Write as _;
use std::path::PathBuf;
use std::{env, fs};

use flate2::Compression;
use flate2::write::DeflateEncoder;

// The owner's page's scripts and stylesheets (`assets/web/`, beside this crate), each embedded as
// one raw DEFLATE stream and inflated once, when first served; index.html goes in as it is (its
// version is filled in when served).
fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=../assets/web");
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    let out = PathBuf::from(env::var("OUT_DIR")?).join("web");
    fs::create_dir_all(&out)?;
    for entry in fs::read_dir(root.join("../assets/web"))? {
        let path = entry?.path();
        if let Some(name) = path.file_name().and_then(|n| n.to_str()).filter(|n| *n != "index.html") {
            let mut encoder = DeflateEncoder::new(Vec::new(), Compression::best());
            encoder.write_all(&fs::read(&path)?)?;
            fs::write(out.join(format!("{name}.deflate")), encoder.finish()?)?;
        }
    }
    Ok(())
}
