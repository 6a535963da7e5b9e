//! `pillbox send-test`: sends a test notification to one user now, over their delivery
//! methods (or the one named), and reports each channel's result. Exits non-zero when no
//! channel delivered, so it can be used to check a deployment.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;

use super::{CliResult, DataArgs, Paths, load_settings, open_and_migrate};
use crate::db::{Db, DbError};
use crate::mailer::Mailer;
use crate::secrets;
use crate::store::notify_prefs::{self, Method};
use crate::store::users;

#[derive(Args)]
pub struct SendTestArgs {
    #[command(flatten)]
    data: DataArgs,
    /// E-mail address of the account to remind
    #[arg(long)]
    email: String,
    /// Only this method (default: the user's delivery methods)
    #[arg(long, value_parser = ["push", "email"], conflicts_with = "channel")]
    method: Option<String>,
    /// One of the user's channels (ntfy, Gotify, Telegram, webhook) by its id, or `all`
    #[arg(long)]
    channel: Option<String>,
}

pub fn run(args: SendTestArgs) -> CliResult {
    let settings = load_settings(&args.data.overrides())?;
    let paths = Paths::new(&settings)?;
    paths.database_must_exist()?;
    let writer = open_and_migrate(&paths)?;
    let secrets = secrets::load_or_create(&paths.data_dir, &settings.vapid)?;
    let email = args.email.trim();
    let user = users::find_by_email(&writer, email)?
        .ok_or_else(|| format!("no account with the e-mail address {email}"))?;
    let channels = crate::store::channels::list(&writer, user.id)?;
    let methods = match (
        args.channel.as_deref().map(str::trim),
        args.method.as_deref().and_then(Method::parse),
    ) {
        (Some("all"), _) if channels.is_empty() => {
            return Err(
                format!("{email} has no channels: add one in Settings → Notifications → Channels").into(),
            );
        }
        (Some("all"), _) => channels.iter().map(|c| Method::Channel(c.id)).collect(),
        (Some(id), _) => {
            let id: i64 = id
                .parse()
                .map_err(|_| format!("--channel takes a channel's id or `all`, not {id:?}"))?;
            if !channels.iter().any(|c| c.id == id) {
                let known: Vec<String> = channels
                    .iter()
                    .map(|c| format!("{} ({} {:?})", c.id, c.kind, c.name))
                    .collect();
                return Err(format!(
                    "{email} has no channel {id}; their channels: {}",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                )
                .into());
            }
            vec![Method::Channel(id)]
        }
        (None, Some(method)) => vec![method],
        (None, None) => {
            let prefs = notify_prefs::global(&writer, user.id)?;
            if prefs.delivery_methods.is_empty() {
                vec![Method::Push]
            } else {
                prefs.delivery_methods
            }
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let mailer = Arc::new(Mailer::new(&settings.smtp)?);
        let db = Db::new(paths.database.clone(), writer);
        let settings = Arc::new(settings);
        let engine = super::serve::engine(&db, &settings, &secrets, &mailer, crate::clock::Clock::system())?;
        let reports = engine
            .send_test(user.id, &methods)
            .await
            .map_err(|e: DbError| e.to_string())?;
        for report in &reports {
            let outcome = if report.ok() { "sent" } else { "failed" };
            let named = report
                .channel
                .channel_id()
                .and_then(|id| channels.iter().find(|c| c.id == id))
                .map(|c| format!(" ({} {:?})", c.kind, c.name))
                .unwrap_or_default();
            println!("{}{named}: {outcome}: {}", report.channel, report.detail);
        }
        if reports.iter().any(|r| r.ok()) {
            Ok(ExitCode::SUCCESS)
        } else {
            eprintln!("pillbox: no channel delivered the test notification to {email}");
            Ok(ExitCode::FAILURE)
        }
    })
}
