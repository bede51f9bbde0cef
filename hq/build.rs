// The migrations are embedded by refinery's macro: a changed file must rebuild the crate.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
