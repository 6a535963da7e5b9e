//! Pillbox: a self-hosted medication tracker in one binary.
#![forbid(unsafe_code)]

mod cli;
mod clock;
mod config;
mod db;
mod domain;
mod files;
mod home_assistant;
mod http;
mod logging;
mod mailer;
mod reminders;
mod secrets;
mod security;
mod services;
mod store;
mod version;

use std::process::ExitCode;

/// glibc's and musl's allocators made up a sixth of a signed-in request's CPU time (and musl's
/// halves a static build's speed); mimalloc is the usual cure.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

fn main() -> ExitCode {
    // One TLS crypto provider for every client (push, SMTP); installing twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("pillbox: {err:#}");
            ExitCode::FAILURE
        }
    }
}
