//! `pillbox gen-vapid`: make a Web Push (VAPID) key pair.

use std::process::ExitCode;

use clap::Args;

use super::{CliResult, DataArgs, Paths, load_settings};
use crate::secrets::{self, VapidKeys};

#[derive(Args)]
pub struct GenVapidArgs {
    #[command(flatten)]
    data: DataArgs,
    /// Write the key pair into the data directory (used unless the config sets vapid keys)
    /// instead of printing config lines
    #[arg(long)]
    write: bool,
    /// With --write, replace an existing key pair. Browsers subscribed with the old key must
    /// subscribe again
    #[arg(long, requires = "write")]
    force: bool,
}

pub fn run(args: GenVapidArgs) -> CliResult {
    let keys = VapidKeys::generate();
    if !args.write {
        println!("# VAPID key pair (P-256, base64url) from `pillbox gen-vapid`.");
        println!("# Put it in the [vapid] section of your config file, or set");
        println!("# PILLBOX_VAPID_PUBLIC_KEY and PILLBOX_VAPID_PRIVATE_KEY.");
        println!("[vapid]");
        println!("public_key = \"{}\"", keys.public_key);
        println!("private_key = \"{}\"", keys.private_key);
        return Ok(ExitCode::SUCCESS);
    }
    let settings = load_settings(&args.data.overrides())?;
    let paths = Paths::new(&settings)?;
    paths.ensure_data_dir()?;
    let path = secrets::vapid_key_path(&paths.data_dir);
    if path.exists() && !args.force {
        return Err(format!(
            "{} already exists; pass --force to replace it (subscribed browsers must then subscribe again)",
            path.display()
        )
        .into());
    }
    secrets::write_secret(&path, &keys.private_key, args.force)?;
    println!("wrote a new VAPID key pair to {}", path.display());
    println!("public key: {}", keys.public_key);
    if settings.vapid.private_key.is_some() {
        println!("note: the config sets vapid.private_key, which takes precedence over this file");
    }
    println!("restart `pillbox serve` to use it");
    Ok(ExitCode::SUCCESS)
}
