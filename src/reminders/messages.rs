//! What a reminder says: the push payload and the e-mail, with times in the person's zone
//! and formats.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::json;

use crate::mailer::{Email, button, escape_html};

/// How a person writes dates and times (their app settings).
#[derive(Debug, Clone)]
pub struct Formats {
    pub tz: Tz,
    pub date: &'static str,
    pub time: &'static str,
}

impl Formats {
    pub fn new(tz: Tz, date_format: Option<&str>, time_format: Option<&str>) -> Formats {
        Formats {
            tz,
            date: match date_format {
                Some("dd/MM/yyyy") => "%d/%m/%Y",
                Some("yyyy-MM-dd") => "%Y-%m-%d",
                _ => "%m/%d/%Y",
            },
            time: match time_format {
                Some("24h") => "%H:%M",
                _ => "%-I:%M %p",
            },
        }
    }

    pub fn date_time(&self, instant: DateTime<Utc>) -> String {
        let local = instant.with_timezone(&self.tz);
        format!("{} {}", local.format(self.date), local.format(self.time))
    }
}

/// One notification, ready for every channel.
#[derive(Debug, Clone)]
pub struct Content {
    pub title: String,
    pub body: String,
    /// Absolute take link, for dose reminders.
    pub take_url: Option<String>,
    /// Absolute link to the app page the notification is about.
    pub open_url: String,
    pub tag: String,
    pub silent: bool,
    pub vibrate: bool,
}

impl Content {
    /// The push payload the service worker reads (ui/src/sw.ts).
    pub fn push_payload(&self) -> Vec<u8> {
        let path = self
            .open_url
            .find("://")
            .and_then(|scheme| self.open_url[scheme + 3..].find('/').map(|i| scheme + 3 + i))
            .map_or("/today", |i| &self.open_url[i..]);
        json!({
            "title": self.title,
            "body": self.body,
            "url": path,
            "takeUrl": self.take_url,
            "tag": self.tag,
            "silent": self.silent,
            "vibrate": self.vibrate,
        })
        .to_string()
        .into_bytes()
    }

    pub fn email(&self) -> Email {
        let mut html = format!("<h2 style=\"margin:0 0 12px\">{}</h2>", escape_html(&self.title));
        for line in self.body.lines() {
            html.push_str(&format!("<p>{}</p>", escape_html(line)));
        }
        let mut text = format!("{}\n\n{}\n", self.title, self.body);
        if let Some(take) = &self.take_url {
            html.push_str(&button(take, "Log this dose"));
            html.push_str(
                "<p style=\"color:#6b7280;font-size:13px\">The button opens a page where you confirm; \
                 opening it alone records nothing. It works for 24 hours after the dose time.</p>",
            );
            text.push_str(&format!(
                "\nLog this dose (opens a page where you confirm; works for 24 hours):\n{take}\n"
            ));
        }
        html.push_str(&format!(
            "<p><a href=\"{}\">Open Pillbox</a></p>",
            escape_html(&self.open_url)
        ));
        text.push_str(&format!("\nOpen Pillbox: {}\n", self.open_url));
        Email {
            subject: self.title.clone(),
            text,
            html,
        }
    }
}

/// The words of a dose reminder (first sending, or a repeat).
pub fn dose_body(
    medication: &str,
    amount: Option<&str>,
    due: DateTime<Utc>,
    formats: &Formats,
    message: Option<&str>,
    repeat: bool,
) -> (String, String) {
    let title = if repeat {
        format!("Reminder: {medication} is due")
    } else {
        format!("Time for {medication}")
    };
    let what = amount.map_or_else(|| medication.to_owned(), |a| format!("{a} of {medication}"));
    let mut body = if repeat {
        format!("You have not logged {what}, due at {}.", formats.date_time(due))
    } else {
        format!("Take {what} at {}.", formats.date_time(due))
    };
    if let Some(message) = message.filter(|m| !m.trim().is_empty()) {
        body.push('\n');
        body.push_str(message.trim());
    }
    (title, body)
}

pub fn low_stock_body(medication: &str, left: &str) -> (String, String) {
    (
        format!("Running low on {medication}"),
        format!("Only {left} of {medication} left. Time to refill."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn times_follow_the_person_zone_and_formats() {
        let due = Utc.with_ymd_and_hms(2026, 3, 29, 7, 30, 0).unwrap();
        let berlin = Formats::new(chrono_tz::Europe::Berlin, Some("dd/MM/yyyy"), Some("24h"));
        assert_eq!(berlin.date_time(due), "29/03/2026 09:30");
        let ny = Formats::new(chrono_tz::America::New_York, None, None);
        assert_eq!(ny.date_time(due), "03/29/2026 3:30 AM");
    }

    #[test]
    fn payload_carries_the_path_and_the_take_link() {
        let content = Content {
            title: "Time for Aspirin".into(),
            body: "Take 1 tablets".into(),
            take_url: Some("https://pills.example/notifications/take/abc".into()),
            open_url: "https://pills.example/today".into(),
            tag: "reminder-1".into(),
            silent: false,
            vibrate: true,
        };
        let payload: serde_json::Value = serde_json::from_slice(&content.push_payload()).unwrap();
        assert_eq!(payload["url"], "/today");
        assert_eq!(payload["takeUrl"], "https://pills.example/notifications/take/abc");
        let email = content.email();
        assert!(
            email
                .html
                .contains("href=\"https://pills.example/notifications/take/abc\"")
        );
        assert!(
            email
                .text
                .contains("https://pills.example/notifications/take/abc")
        );
    }
}
