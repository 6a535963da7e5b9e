//! `pillbox create-user` and `pillbox reset-password`: account administration for the
//! operator. Passwords come from a prompt (not echoed) or standard input, never from an
//! argument, which would end up in the shell history and the process list.

use std::error::Error;
use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use clap::Args;

use super::{CliResult, DataArgs, Paths, load_settings, open_and_migrate};
use crate::clock;
use crate::config::display_path;
use crate::services::accounts;

#[derive(Args)]
pub struct UserArgs {
    #[command(flatten)]
    data: DataArgs,
    /// E-mail address of the account
    #[arg(long)]
    email: String,
    /// Read the password from the first line of standard input instead of prompting
    #[arg(long)]
    password_stdin: bool,
}

fn read_password(from_stdin: bool) -> Result<String, Box<dyn Error>> {
    if from_stdin {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        return Ok(line.trim_end_matches(['\r', '\n']).to_owned());
    }
    if !std::io::stdin().is_terminal() {
        return Err("no terminal to ask for the password: pipe it in with --password-stdin".into());
    }
    let first = rpassword::prompt_password("Password: ")?;
    let second = rpassword::prompt_password("Repeat the password: ")?;
    if first != second {
        return Err("Passwords do not match".into());
    }
    Ok(first)
}

/// Creates an account, verified at once (the operator vouches for the address).
pub fn create_user(args: UserArgs) -> CliResult {
    accounts::validate_email(&args.email)?;
    let settings = load_settings(&args.data.overrides())?;
    let password = read_password(args.password_stdin)?;
    accounts::validate_new_password(&password)?;
    let paths = Paths::new(&settings)?;
    paths.ensure_data_dir()?;
    let conn = open_and_migrate(&paths)?;
    let user = accounts::create_verified(&conn, &args.email, &password, clock::now())?;
    println!(
        "created account {} (id {}) in {}",
        user.email,
        user.id,
        display_path(&paths.database)
    );
    Ok(ExitCode::SUCCESS)
}

/// Sets a new password and signs the account out everywhere.
pub fn reset_password(args: UserArgs) -> CliResult {
    let settings = load_settings(&args.data.overrides())?;
    let paths = Paths::new(&settings)?;
    paths.database_must_exist()?;
    let conn = open_and_migrate(&paths)?;
    let password = read_password(args.password_stdin)?;
    let user = accounts::reset_password(&conn, &args.email, &password, clock::now())?;
    println!(
        "changed the password of {}; all of its sessions were signed out",
        user.email
    );
    Ok(ExitCode::SUCCESS)
}
