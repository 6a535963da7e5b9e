//! Outgoing e-mail over SMTP (lettre): verification links, sign-in codes and reminders. Every
//! message has a plain-text and an HTML part. Without `smtp.host` the mailer is unconfigured
//! and says so; it never pretends to have sent anything. Mail the server sends on its own
//! goes through the e-mail queue (`store::outbox`, worked by `reminders::mail_queue`); the
//! mailer only wakes its worker.

use std::time::Duration;

use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::config::{SmtpSettings, SmtpTls};

pub struct Mailer {
    smtp: Option<(AsyncSmtpTransport<Tokio1Executor>, Mailbox)>,
    /// The whole conversation's limit; lettre's own timeout is per read or write, so a
    /// server that trickles an answer could otherwise hold a send for minutes.
    timeout: Duration,
    /// Wakes the e-mail queue's worker when a mail was queued.
    queued: tokio::sync::Notify,
}

#[derive(Debug)]
pub enum MailError {
    NotConfigured,
    BadAddress(String),
    Send(String),
}

impl std::fmt::Display for MailError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MailError::NotConfigured => f.write_str("e-mail is not configured on this server (smtp.host)"),
            MailError::BadAddress(e) => write!(f, "invalid e-mail address: {e}"),
            MailError::Send(e) => write!(f, "sending e-mail failed: {e}"),
        }
    }
}

impl std::error::Error for MailError {}

/// One e-mail: subject, plain text, and the HTML document (`services::email` makes all three).
pub struct Email {
    pub subject: String,
    pub text: String,
    pub html: String,
}

impl Mailer {
    pub fn new(settings: &SmtpSettings) -> Result<Mailer, String> {
        let timeout = settings.timeout();
        let Some(host) = &settings.host else {
            return Ok(Mailer {
                smtp: None,
                timeout,
                queued: tokio::sync::Notify::new(),
            });
        };
        let from: Mailbox = settings
            .from
            .as_deref()
            .unwrap_or_default()
            .parse()
            .map_err(|e| format!("smtp.from is not a valid address: {e}"))?;
        let builder = match settings.tls {
            SmtpTls::None => AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host),
            SmtpTls::Starttls => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(host)
                .map_err(|e| format!("smtp.host: {e}"))?,
            SmtpTls::Tls => {
                AsyncSmtpTransport::<Tokio1Executor>::relay(host).map_err(|e| format!("smtp.host: {e}"))?
            }
        };
        let mut builder = builder.port(settings.port_or_default()).timeout(Some(timeout));
        if let (Some(user), Some(password)) = (&settings.user, &settings.password) {
            builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
        }
        Ok(Mailer {
            smtp: Some((builder.build(), from)),
            timeout,
            queued: tokio::sync::Notify::new(),
        })
    }

    pub fn is_configured(&self) -> bool {
        self.smtp.is_some()
    }

    /// Tells the queue's worker that a mail is waiting (after the transaction that queued it).
    pub fn wake_queue(&self) {
        self.queued.notify_one();
    }

    /// Completes when a mail was queued since the last call.
    pub async fn queue_woken(&self) {
        self.queued.notified().await;
    }

    /// A Message-ID (RFC 5322) with `unique` left of the sender's domain.
    pub fn message_id(&self, unique: &str) -> String {
        let domain = self
            .smtp
            .as_ref()
            .map(|(_, from)| from.email.domain().to_owned())
            .unwrap_or_else(|| "pillbox.invalid".to_owned());
        format!("<{unique}@{domain}>")
    }

    /// Connects, says EHLO, starts TLS as configured and logs in when a user is set, then
    /// asks NOOP: the whole path of a send but the message (`pillbox doctor`).
    pub async fn check_connection(&self) -> Result<(), MailError> {
        let (transport, _) = self.smtp.as_ref().ok_or(MailError::NotConfigured)?;
        match tokio::time::timeout(self.timeout, transport.test_connection()).await {
            Ok(Ok(true)) => Ok(()),
            Ok(Ok(false)) => Err(MailError::Send("the mail server did not answer NOOP".into())),
            Ok(Err(e)) => Err(MailError::Send(with_causes(&e))),
            Err(_) => Err(MailError::Send(format!(
                "the mail server did not finish within {} s (smtp.timeout_seconds)",
                self.timeout.as_secs()
            ))),
        }
    }

    /// Sends at once, with a Message-ID of lettre's making (test notifications).
    pub async fn send(&self, to: &str, email: Email) -> Result<(), MailError> {
        self.send_as(to, email, None).await
    }

    /// Sends at once; a mail from the queue keeps the Message-ID it was given there.
    pub async fn send_as(&self, to: &str, email: Email, message_id: Option<&str>) -> Result<(), MailError> {
        let (transport, from) = self.smtp.as_ref().ok_or(MailError::NotConfigured)?;
        let to: Mailbox = to
            .parse()
            .map_err(|e: lettre::address::AddressError| MailError::BadAddress(e.to_string()))?;
        // The templates (`services::email`) write whole documents; a mail queued by an older
        // version holds only the body's content.
        let html = match email.html.starts_with("<!doctype") {
            true => email.html,
            false => format!(
                "<!doctype html><html><body style=\"font-family:system-ui,sans-serif;line-height:1.5;color:#1f2937\">{}</body></html>",
                email.html
            ),
        };
        let message = Message::builder()
            .from(from.clone())
            .to(to)
            .subject(email.subject)
            .message_id(message_id.map(str::to_owned))
            .multipart(MultiPart::alternative_plain_html(email.text, html))
            .map_err(|e| MailError::Send(e.to_string()))?;
        match tokio::time::timeout(self.timeout, transport.send(message)).await {
            Ok(sent) => sent.map(|_| ()).map_err(|e| MailError::Send(e.to_string())),
            Err(_) => Err(MailError::Send(format!(
                "the mail server did not finish within {} s (smtp.timeout_seconds)",
                self.timeout.as_secs()
            ))),
        }
    }
}

/// Escapes text for HTML bodies.
/// An error and the reasons under it: lettre's top message alone can be "network error".
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut inner = error.source();
    while let Some(cause) = inner {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text = format!("{text}: {cause_text}");
        }
        inner = cause.source();
    }
    text
}
