//! Outgoing e-mail over SMTP (lettre): verification links and sign-in codes now, reminders
//! later. Every message has a plain-text and an HTML part. Without `smtp.host` the mailer is
//! unconfigured and says so; it never pretends to have sent anything.

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

/// One e-mail: subject, plain text, and the HTML body's inner content.
pub struct Email {
    pub subject: String,
    pub text: String,
    pub html: String,
}

impl Mailer {
    pub fn new(settings: &SmtpSettings) -> Result<Mailer, String> {
        let timeout = settings.timeout();
        let Some(host) = &settings.host else {
            return Ok(Mailer { smtp: None, timeout });
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
        })
    }

    pub fn is_configured(&self) -> bool {
        self.smtp.is_some()
    }

    pub async fn send(&self, to: &str, email: Email) -> Result<(), MailError> {
        let (transport, from) = self.smtp.as_ref().ok_or(MailError::NotConfigured)?;
        let to: Mailbox = to
            .parse()
            .map_err(|e: lettre::address::AddressError| MailError::BadAddress(e.to_string()))?;
        let html = format!(
            "<!doctype html><html><body style=\"font-family:system-ui,sans-serif;line-height:1.5;color:#1f2937\">{}</body></html>",
            email.html
        );
        let message = Message::builder()
            .from(from.clone())
            .to(to)
            .subject(email.subject)
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
pub fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A call-to-action button for HTML e-mails.
pub fn button(href: &str, label: &str) -> String {
    format!(
        "<p><a href=\"{}\" style=\"display:inline-block;padding:10px 18px;background:#2563eb;color:#ffffff;\
         text-decoration:none;border-radius:6px;font-weight:600\">{}</a></p>",
        escape_html(href),
        escape_html(label)
    )
}
