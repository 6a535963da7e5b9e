//! Pillbox: a self-hosted medication tracker in one binary.
#![forbid(unsafe_code)]

mod cli;
mod config;
mod db;
mod http;
mod logging;
mod secrets;
mod version;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("pillbox: {err:#}");
            ExitCode::FAILURE
        }
    }
}
