//! Arka's black-box tests, one binary: each module is a part of the API told as the stories a POS
//! developer would tell, against a real server (`common::TestServer`, the CIS simulator, the real
//! `arka` binary where a story needs a process). One binary links once and compiles `common` once;
//! `cargo test --test api invoices::` runs one part.

mod common;

mod ai_chat;
mod audit;
mod bulk_noncash;
mod cancellations;
mod cash_register;
mod catalog_clients;
mod catalog_products;
mod chaos;
mod cis_sim;
mod copy;
mod corrections;
mod docs;
mod drawer;
mod einvoices;
mod exchange_rates;
mod fiscal_engine;
mod foundation_certificate;
mod foundation_cli;
mod foundation_edge;
mod foundation_registration;
mod hardening;
mod hq;
mod hq_mistakes;
mod invoices;
mod late_delivery;
mod marketplace;
mod one_body;
mod operations;
mod owner_browser;
mod owner_console;
mod owner_page;
mod owner_profile;
mod owner_wizard;
mod owner_words;
mod permissions;
mod pipelined_delivery;
mod print;
mod purchase_invoices;
mod reports;
mod rooms;
mod sessions;
mod setup;
mod source;
mod stock;
mod storage;
mod tables;
mod till_browser;
mod till_printer;
mod walkthrough;
mod wtn;
