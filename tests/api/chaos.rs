//! The reliability campaign's short run (docs "Reliability campaign"), as CI makes it: every
//! section against the real `arka` binary and its simulator on loopback, and the zeros asserted
//! (nothing lost, duplicated or out of sequence, no 5xx, no hang or panic, no leak).

use std::path::PathBuf;

use arka_chaos::{self as chaos, Plan, Section};

#[test]
fn the_short_campaign_finds_nothing_lost_duplicated_leaked_or_broken() {
    let plan = Plan::short(PathBuf::from(env!("CARGO_BIN_EXE_arka")), 20261124);
    let report = chaos::run(&plan, &Section::ALL, &|what| eprintln!("{what}")).expect("the campaign runs");
    println!("{}", report.render());
    for row in &report.rows {
        assert!(row.clean(), "{}: {:#?}", row.section, row);
    }
    let sections: Vec<&str> = report.rows.iter().map(|r| r.section.as_str()).collect();
    for expected in [
        "crash",
        "faults: down",
        "faults: after recovery",
        "bad input",
        "bad input: trailing data",
        "isolation",
        "secrets",
        "load held",
        "hq",
    ] {
        assert!(sections.contains(&expected), "{expected} in {sections:?}");
    }
}
