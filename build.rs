// Migrations are embedded at compile time; without this a new migration file would be
// silently left out of the binary.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
