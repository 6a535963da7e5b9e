//! What a reminder says: the push payload, the e-mail and the message a channel (ntfy,
//! Gotify, Telegram, a webhook) is sent, with times in the person's zone and formats.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::email::{Button, Letter, Link};
use crate::domain::quantity::Quantity;
use crate::domain::words::{Lang, Words};
use crate::mailer::Email;

/// How a person writes dates and times, and in which language (their app settings).
#[derive(Debug, Clone)]
pub struct Formats {
    pub tz: Tz,
    pub date: &'static str,
    pub time: &'static str,
    pub lang: Lang,
}

impl Formats {
    pub fn new(
        tz: Tz,
        date_format: Option<&str>,
        time_format: Option<&str>,
        language: Option<&str>,
    ) -> Formats {
        let lang = Lang::of(language);
        Formats {
            tz,
            lang,
            date: lang.date_pattern_for(date_format),
            time: lang.time_pattern_for(time_format),
        }
    }

    pub fn words(&self) -> &'static Words {
        self.lang.words()
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
    /// The take link's token, for dose reminders: the service worker's Take, Snooze and
    /// Skip actions post to `/api/notifications/take/{token}` with it.
    pub token: Option<String>,
    /// The notification offers Snooze (a carer's alert does not: the reminder is not theirs).
    pub snooze: bool,
    pub silent: bool,
    pub vibrate: bool,
    pub lang: Lang,
}

impl Content {
    /// The push payload the service worker reads (ui/src/sw.ts).
    pub fn push_payload(&self) -> Vec<u8> {
        let path = self
            .open_url
            .find("://")
            .and_then(|scheme| self.open_url[scheme + 3..].find('/').map(|i| scheme + 3 + i))
            .map_or("/today", |i| &self.open_url[i..]);
        let words = self.lang.words();
        let mut payload = json!({
            "title": self.title,
            "body": self.body,
            "url": path,
            "takeUrl": self.take_url,
            "takeLabel": words.take_action,
            "tag": self.tag,
            "silent": self.silent,
            "vibrate": self.vibrate,
        });
        if let Some(token) = &self.token {
            payload["token"] = json!(token);
            if self.snooze {
                payload["actions"] = json!(["take", "snooze", "skip"]);
                payload["snoozeLabel"] = json!(words.snooze_action);
            } else {
                payload["actions"] = json!(["take", "skip"]);
            }
            payload["skipLabel"] = json!(words.skip_action);
        }
        payload.to_string().into_bytes()
    }

    pub fn email(&self) -> Email {
        let words = self.lang.words();
        Letter {
            heading: Some(self.title.clone()),
            paragraphs: self.body.lines().map(str::to_owned).collect(),
            button: self.take_url.as_ref().map(|take| Button {
                href: take.clone(),
                label: words.log_button.into(),
                text_label: Some(words.log_text.into()),
                or_open: None,
            }),
            notes: match self.take_url {
                Some(_) => vec![words.log_note.into()],
                None => Vec::new(),
            },
            open: Some(Link {
                href: self.open_url.clone(),
                label: words.open_app.into(),
            }),
            ..Letter::new(self.lang, self.title.clone())
        }
        .email()
    }
}

/// The words of a dose reminder (first sending, or a repeat).
pub fn dose_body(
    medication: &str,
    amount: Option<(Quantity, &str)>,
    due: DateTime<Utc>,
    formats: &Formats,
    message: Option<&str>,
    repeat: bool,
) -> (String, String) {
    let words = formats.words();
    let name = [("name", medication)];
    let title = words.fill(
        if repeat {
            words.repeat_title
        } else {
            words.dose_title
        },
        &name,
    );
    let what = match amount {
        Some((quantity, unit)) => words.fill(
            words.amount_of,
            &[("amount", &words.amount(quantity, unit)), ("name", medication)],
        ),
        None => medication.to_owned(),
    };
    let when = formats.date_time(due);
    let mut body = words.fill(
        if repeat {
            words.repeat_body
        } else {
            words.dose_body
        },
        &[("what", &what), ("when", &when)],
    );
    if let Some(message) = message.filter(|m| !m.trim().is_empty()) {
        body.push('\n');
        body.push_str(message.trim());
    }
    (title, body)
}

/// The words of a dose reminder (or a follow-up) that names no medication: "Time for your
/// 08:00 medicines", in the person's zone and time format.
pub fn hidden_dose_body(due: DateTime<Utc>, formats: &Formats) -> (String, String) {
    let words = formats.words();
    let time = due.with_timezone(&formats.tz).format(formats.time).to_string();
    (
        words.fill(words.hidden_title, &[("time", &time)]),
        words.hidden_body.to_owned(),
    )
}

/// A reminder's title for a medication of someone else in the account ("Tom: Time for
/// Aspirin"), so the account holder knows whose dose it is.
pub fn for_person(title: &str, person: &str, lang: Lang) -> String {
    let words = lang.words();
    words.fill(words.for_person, &[("person", person), ("title", title)])
}

/// The words of a carer's alert: whose dose, which medicine and amount, and when it was due.
pub fn escalation_body(
    person: &str,
    medication: &str,
    amount: (Quantity, &str),
    due: DateTime<Utc>,
    formats: &Formats,
) -> (String, String) {
    let words = formats.words();
    let what = words.fill(
        words.amount_of,
        &[
            ("amount", &words.amount(amount.0, amount.1)),
            ("name", medication),
        ],
    );
    let when = formats.date_time(due);
    (
        words.fill(
            words.escalation_title,
            &[("person", person), ("name", medication)],
        ),
        words.fill(
            words.escalation_body,
            &[("what", &what), ("when", &when), ("person", person)],
        ),
    )
}

/// A carer's alert that names no medication: whose, and the time.
pub fn hidden_escalation_body(person: &str, due: DateTime<Utc>, formats: &Formats) -> (String, String) {
    let words = formats.words();
    let time = due.with_timezone(&formats.tz).format(formats.time).to_string();
    (
        words.fill(
            words.escalation_hidden_title,
            &[("person", person), ("time", &time)],
        ),
        words.hidden_body.to_owned(),
    )
}

/// The words that tell a carer an alert no longer holds: the clock was set back to before
/// the dose (due at `due`) was late. They name no medication, as the alert may not have.
pub fn escalation_retracted_body(person: &str, due: DateTime<Utc>, formats: &Formats) -> (String, String) {
    let words = formats.words();
    let when = formats.date_time(due);
    (
        words.fill(words.escalation_retracted_title, &[("person", person)]),
        words.fill(
            words.escalation_retracted_body,
            &[("person", person), ("when", &when)],
        ),
    )
}

/// The words of a low-stock alert that names no medication.
pub fn hidden_low_stock_body(lang: Lang) -> (String, String) {
    let words = lang.words();
    (words.hidden_low_title.to_owned(), words.hidden_body.to_owned())
}

/// A push that withdraws a handled reminder's notification (the service worker closes the
/// notification with this tag).
pub fn withdraw_payload(reminder_id: i64, outcome: &str) -> Vec<u8> {
    json!({"kind": "withdraw", "tag": format!("reminder-{reminder_id}"), "outcome": outcome})
        .to_string()
        .into_bytes()
}

/// The words of a low-stock alert; `left` is what remains, in the stock's unit. Nothing
/// (or a balance below zero from older versions) left reads "out of stock".
pub fn low_stock_body(medication: &str, left: Option<(Quantity, &str)>, lang: Lang) -> (String, String) {
    let words = lang.words();
    let body = match left {
        Some((q, unit)) if q.is_positive() => words.fill(
            words.low_body,
            &[("left", &words.amount(q, unit)), ("name", medication)],
        ),
        _ => words.fill(words.out_body, &[("name", medication)]),
    };
    (words.fill(words.low_title, &[("name", medication)]), body)
}

/// What the "order a refill" reminder says why it came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefillWhy {
    /// The stock runs out around the day.
    Stock,
    /// The prescription expires on the day.
    Expiry,
}

/// The facts of an "order a refill" reminder.
pub struct Refill<'a> {
    pub why: RefillWhy,
    pub due_on: NaiveDate,
    pub new_prescription_needed: bool,
    /// No refills are left on the prescription.
    pub none_left: bool,
    pub pharmacy_name: &'a str,
    pub pharmacy_phone: &'a str,
    pub pharmacy_url: &'a str,
}

/// The pharmacy's line: its name, phone and ordering page, whichever are known; with
/// `hide`, its phone and page only (its name may say what the medicine is for).
fn pharmacy_line(refill: &Refill<'_>, hide: bool, words: &Words) -> Option<String> {
    let contact: Vec<&str> = [
        (!hide).then_some(refill.pharmacy_name),
        Some(refill.pharmacy_phone),
        Some(refill.pharmacy_url),
    ]
    .into_iter()
    .flatten()
    .filter(|part| !part.is_empty())
    .collect();
    (!contact.is_empty()).then(|| words.fill(words.refill_pharmacy, &[("contact", &contact.join(" · "))]))
}

/// The words of the "order a refill" reminder: why (the stock runs out, the prescription
/// expires), what to do (order now, or ask for a new prescription) and the pharmacy's phone
/// or page. With `hide` ("hide medication names") it names no medication.
pub fn refill_body(medication: &str, refill: &Refill<'_>, formats: &Formats, hide: bool) -> (String, String) {
    let words = formats.words();
    let date = refill.due_on.format(formats.date).to_string();
    let mut lines = Vec::new();
    if !hide {
        let why = match refill.why {
            RefillWhy::Stock => words.refill_stock_body,
            RefillWhy::Expiry => words.refill_expiry_body,
        };
        lines.push(words.fill(why, &[("name", medication), ("date", &date)]));
    }
    lines.push(
        match (refill.none_left, refill.new_prescription_needed) {
            (true, _) => words.refill_none_left,
            (false, true) => words.refill_new_prescription,
            (false, false) => words.refill_order_now,
        }
        .to_owned(),
    );
    lines.extend(pharmacy_line(refill, hide, words));
    if hide {
        lines.push(words.hidden_body.to_owned());
    }
    let title = match hide {
        true => words.hidden_refill_title.to_owned(),
        false => words.fill(words.refill_title, &[("name", medication)]),
    };
    (title, lines.join("\n"))
}

/// The words of a stock batch's notice: it expires on `expires_on` (or, with `expired`, it
/// has), holding `left`, with its lot when it has one. With `hide` it names no medication.
pub fn batch_body(
    medication: &str,
    (expires_on, expired): (NaiveDate, bool),
    left: (Quantity, &str),
    lot: Option<&str>,
    formats: &Formats,
    hide: bool,
) -> (String, String) {
    let words = formats.words();
    if hide {
        let title = match expired {
            true => words.hidden_batch_expired_title,
            false => words.hidden_batch_expiring_title,
        };
        return (title.to_owned(), words.hidden_body.to_owned());
    }
    let lot = lot
        .filter(|l| !l.is_empty())
        .map(|l| words.batch_lot.replace("{lot}", l))
        .unwrap_or_default();
    let (title, body) = match expired {
        true => (words.batch_expired_title, words.batch_expired_body),
        false => (words.batch_expiring_title, words.batch_expiring_body),
    };
    let date = expires_on.format(formats.date).to_string();
    let left = words.amount(left.0, left.1);
    (
        words.fill(title, &[("name", medication)]),
        words.fill(
            &body.replace("{lot}", &lot),
            &[("name", medication), ("date", &date), ("left", &left)],
        ),
    )
}

/// The words of a test notification, sent `now`.
pub fn test_body(formats: &Formats, now: DateTime<Utc>) -> (String, String) {
    let words = formats.words();
    (
        words.test_title.to_owned(),
        words.fill(words.test_body, &[("when", &formats.date_time(now))]),
    )
}

/// How loudly a message asks for attention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    #[default]
    Default,
    /// A repeat nobody answered.
    High,
    /// An alert to a carer.
    Urgent,
}

/// The words of the buttons, in the person's language.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Labels {
    pub taken: String,
    pub snooze: String,
    pub skip: String,
    pub open: String,
}

impl Labels {
    pub fn of(lang: Lang) -> Labels {
        let words = lang.words();
        Labels {
            taken: words.taken_button.into(),
            snooze: words.snooze_ten_button.into(),
            skip: words.skip_action.into(),
            open: words.open_app.into(),
        }
    }
}

/// One message for a channel, as queued (`channel_sends.message`).
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Message {
    pub title: String,
    pub body: String,
    /// The take page (the app's, where a person confirms).
    #[serde(default)]
    pub take_page: Option<String>,
    /// The take link's API address, which the buttons post `{"status": …}` to.
    #[serde(default)]
    pub take_api: Option<String>,
    /// The take link's token (Telegram's buttons carry it).
    #[serde(default)]
    pub token: Option<String>,
    pub open_url: String,
    /// The buttons offer Snooze (a carer's alert does not).
    #[serde(default)]
    pub snooze: bool,
    #[serde(default)]
    pub priority: Priority,
    #[serde(default)]
    pub labels: Labels,
    /// A handled reminder's last word replaces the reminder: no buttons.
    #[serde(default)]
    pub handled: bool,
    /// What a webhook receives as `data`.
    #[serde(default)]
    pub data: serde_json::Value,
}

impl Message {
    /// A notification's words and take links as a channel message. Snooze is offered only
    /// where the notification offers it and has a take link.
    pub fn of(content: &Content, link_base: &str, priority: Priority, data: serde_json::Value) -> Message {
        Message {
            title: content.title.clone(),
            body: content.body.clone(),
            take_page: content.take_url.clone(),
            take_api: content
                .token
                .as_ref()
                .map(|token| format!("{link_base}/api/notifications/take/{token}")),
            token: content.token.clone(),
            open_url: content.open_url.clone(),
            snooze: content.snooze && content.token.is_some(),
            priority,
            labels: Labels::of(content.lang),
            handled: false,
            data,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn refill(none_left: bool) -> Refill<'static> {
        Refill {
            why: RefillWhy::Stock,
            due_on: NaiveDate::from_ymd_opt(2026, 12, 6).unwrap(),
            new_prescription_needed: none_left,
            none_left,
            pharmacy_name: "Apotheke am Markt",
            pharmacy_phone: "+49 30 1234567",
            pharmacy_url: "",
        }
    }

    #[test]
    fn a_refill_reminder_says_why_what_to_do_and_whom_to_call_in_each_language() {
        for (lang, title, first, last) in [
            (
                "en",
                "Order a refill of Aspirin",
                "Aspirin runs out around 12/06/2026.",
                "Pharmacy: Apotheke am Markt · +49 30 1234567",
            ),
            (
                "de",
                "Nachbestellen: Aspirin",
                "Der Vorrat an Aspirin reicht bis etwa 06.12.2026.",
                "Apotheke: Apotheke am Markt · +49 30 1234567",
            ),
            (
                "fr",
                "À renouveler : Aspirin",
                "Le stock d'Aspirin sera épuisé vers le 06/12/2026.",
                "Pharmacie : Apotheke am Markt · +49 30 1234567",
            ),
            (
                "es",
                "Hora de reponer Aspirin",
                "Aspirin se acabará hacia el 06/12/2026.",
                "Farmacia: Apotheke am Markt · +49 30 1234567",
            ),
        ] {
            let formats = Formats::new(chrono_tz::UTC, None, None, Some(lang));
            let (t, body) = refill_body("Aspirin", &refill(false), &formats, false);
            assert_eq!(t, title);
            let lines: Vec<&str> = body.lines().collect();
            assert_eq!((lines[0], lines[2]), (first, last), "{lang}");
            let (_, none_left) = refill_body("Aspirin", &refill(true), &formats, false);
            assert_ne!(none_left, body, "{lang}");
        }
        let en = Formats::new(chrono_tz::UTC, None, None, Some("en"));
        let (title, body) = refill_body("Aspirin", &refill(true), &en, true);
        assert_eq!(title, "Time to order a medicine");
        assert_eq!(
            body,
            "No refills are left: ask your prescriber for a new prescription.\nPharmacy: +49 30 1234567\nOpen Pillbox to see which."
        );
    }

    #[test]
    fn an_expiring_prescription_asks_for_a_new_one() {
        let expiring = Refill {
            why: RefillWhy::Expiry,
            new_prescription_needed: true,
            pharmacy_name: "",
            pharmacy_url: "https://apotheke.example/order",
            ..refill(false)
        };
        let es = Formats::new(chrono_tz::UTC, None, None, Some("es"));
        let (_, body) = refill_body("Aspirin", &expiring, &es, false);
        assert_eq!(
            body,
            "La receta de Aspirin caduca el 06/12/2026.\nPide una receta nueva a tu médico.\n\
             Farmacia: +49 30 1234567 · https://apotheke.example/order"
        );
    }

    #[test]
    fn a_batch_notice_names_its_lot_date_and_what_is_left() {
        let day = NaiveDate::from_ymd_opt(2026, 12, 31).unwrap();
        let de = Formats::new(chrono_tz::UTC, None, None, Some("de"));
        let five = Quantity::from_f64(5.0).unwrap();
        assert_eq!(
            batch_body("Aspirin", (day, false), (five, "tablets"), Some("A1"), &de, false),
            (
                "Eine Packung Aspirin läuft bald ab".to_owned(),
                "Die Packung Aspirin (Charge A1) läuft am 31.12.2026 ab; darin sind noch 5 Tabletten. Verbrauchen Sie sie zuerst.".to_owned()
            )
        );
        let fr = Formats::new(chrono_tz::UTC, None, None, Some("fr"));
        let (title, body) = batch_body("Ibuprofène", (day, true), (five, "tablets"), None, &fr, false);
        assert_eq!(title, "Un lot d'Ibuprofène est périmé");
        assert!(
            body.starts_with("Le lot d'Ibuprofène est périmé depuis le 31/12/2026"),
            "{body}"
        );
        let (title, body) = batch_body("Aspirin", (day, true), (five, "tablets"), Some("A1"), &fr, true);
        assert_eq!(title, "Un médicament est périmé");
        assert!(!body.contains("Aspirin") && !body.contains("A1"));
    }

    #[test]
    fn times_follow_the_person_zone_and_formats() {
        let due = Utc.with_ymd_and_hms(2026, 3, 29, 7, 30, 0).unwrap();
        let berlin = Formats::new(
            chrono_tz::Europe::Berlin,
            Some("dd/MM/yyyy"),
            Some("24h"),
            Some("de"),
        );
        assert_eq!(berlin.date_time(due), "29/03/2026 09:30");
        let ny = Formats::new(chrono_tz::America::New_York, None, None, None);
        assert_eq!(ny.date_time(due), "03/29/2026 3:30 AM");
        // No format chosen (or `auto`): the language's way.
        for (date, time, lang, written) in [
            (None, None, "de", "29.03.2026 09:30"),
            (Some("auto"), Some("auto"), "de", "29.03.2026 09:30"),
            (Some("auto"), Some("auto"), "fr", "29/03/2026 09:30"),
            (None, None, "es", "29/03/2026 09:30"),
            (Some("auto"), Some("auto"), "en", "03/29/2026 9:30 AM"),
            (Some("MM/dd/yyyy"), Some("12h"), "de", "03/29/2026 9:30 AM"),
        ] {
            let formats = Formats::new(chrono_tz::Europe::Berlin, date, time, Some(lang));
            assert_eq!(formats.date_time(due), written, "{lang} {date:?} {time:?}");
        }
    }

    #[test]
    fn reminders_speak_the_person_language() {
        let due = Utc.with_ymd_and_hms(2026, 3, 29, 7, 30, 0).unwrap();
        let two = Quantity::from_f64(2.0).unwrap();
        let de = Formats::new(
            chrono_tz::Europe::Berlin,
            Some("dd/MM/yyyy"),
            Some("24h"),
            Some("de"),
        );
        let (title, body) = dose_body(
            "Aspirin",
            Some((two, "tablets")),
            due,
            &de,
            Some("Mit Wasser"),
            false,
        );
        assert_eq!(title, "Zeit für Aspirin");
        assert_eq!(
            body,
            "Nehmen Sie 2 Tabletten Aspirin am 29/03/2026 09:30.\nMit Wasser"
        );
        let en = Formats::new(chrono_tz::UTC, None, None, Some("en"));
        let one = Quantity::from_f64(1.0).unwrap();
        let (title, body) = dose_body("Aspirin", Some((one, "tablets")), due, &en, None, true);
        assert_eq!(title, "Reminder: Aspirin is due");
        assert_eq!(
            body,
            "You have not logged 1 tablet of Aspirin, due at 03/29/2026 7:30 AM."
        );
        let (title, body) = low_stock_body("Ibuprofène", Some((two, "tablets")), Lang::Fr);
        assert_eq!(title, "Stock bas : Ibuprofène");
        assert_eq!(
            body,
            "Il ne reste que 2 comprimés d'Ibuprofène. Pensez à en racheter."
        );
        for (left, lang, body) in [
            (
                Quantity::ZERO,
                Lang::En,
                "Aspirin is out of stock. Time to refill.",
            ),
            (-two, Lang::En, "Aspirin is out of stock. Time to refill."),
            (-two, Lang::Es, "Se acabó Aspirin. Es hora de reponer."),
            (
                Quantity::ZERO,
                Lang::De,
                "Aspirin ist aufgebraucht. Zeit zum Nachkaufen.",
            ),
        ] {
            assert_eq!(low_stock_body("Aspirin", Some((left, "tablets")), lang).1, body);
        }
        assert_eq!(
            low_stock_body("Ibuprofène", Some((Quantity::ZERO, "tablets")), Lang::Fr).1,
            "Vous n'avez plus d'Ibuprofène. Pensez à en racheter."
        );
        let es = Formats::new(chrono_tz::UTC, None, None, Some("es"));
        assert_eq!(test_body(&es, due).0, "Notificación de prueba de Pillbox");
    }

    #[test]
    fn hidden_names_say_only_the_time_in_the_person_language() {
        let due = Utc.with_ymd_and_hms(2026, 3, 29, 7, 30, 0).unwrap();
        let cases = [
            (
                "en",
                "Time for your 09:30 medicines",
                "Open Pillbox to see which.",
            ),
            (
                "es",
                "Hora de tus medicamentos de las 09:30",
                "Abre Pillbox para ver cuáles.",
            ),
            (
                "fr",
                "C'est l'heure de vos médicaments de 09:30",
                "Ouvrez Pillbox pour les voir.",
            ),
            (
                "de",
                "Zeit für Ihre Medikamente um 09:30",
                "Öffnen Sie Pillbox, um sie zu sehen.",
            ),
        ];
        for (lang, title, body) in cases {
            let formats = Formats::new(chrono_tz::Europe::Berlin, None, Some("24h"), Some(lang));
            assert_eq!(
                hidden_dose_body(due, &formats),
                (title.to_owned(), body.to_owned())
            );
        }
        let twelve = Formats::new(chrono_tz::Europe::Berlin, None, None, None);
        assert_eq!(
            hidden_dose_body(due, &twelve).0,
            "Time for your 9:30 AM medicines"
        );
        let withdraw: serde_json::Value = serde_json::from_slice(&withdraw_payload(7, "taken")).unwrap();
        assert_eq!(
            withdraw,
            json!({"kind": "withdraw", "tag": "reminder-7", "outcome": "taken"})
        );
    }

    #[test]
    fn a_carers_alert_says_whose_dose_which_and_when_in_the_carers_language() {
        let due = Utc.with_ymd_and_hms(2026, 3, 29, 7, 30, 0).unwrap();
        let one = Quantity::from_f64(1.0).unwrap();
        let cases = [
            (
                "en",
                "Tom has not taken Aspirin",
                "1 tablet of Aspirin, due at 29/03/2026 09:30, has not been logged for Tom.",
                "Tom has not taken the 09:30 medicines",
            ),
            (
                "es",
                "Tom no ha tomado Aspirin",
                "1 comprimido de Aspirin, prevista el 29/03/2026 09:30, no se ha registrado para Tom.",
                "Tom no ha tomado los medicamentos de las 09:30",
            ),
            (
                "fr",
                "Tom n'a pas pris Aspirin",
                "1 comprimé d'Aspirin, prévu le 29/03/2026 09:30, n'a pas été enregistré pour Tom.",
                "Tom n'a pas pris ses médicaments de 09:30",
            ),
            (
                "de",
                "Tom hat Aspirin nicht genommen",
                "1 Tablette Aspirin, fällig am 29/03/2026 09:30, wurde für Tom nicht erfasst.",
                "Tom hat die Medikamente um 09:30 nicht genommen",
            ),
        ];
        for (lang, title, body, hidden) in cases {
            let formats = Formats::new(
                chrono_tz::Europe::Berlin,
                Some("dd/MM/yyyy"),
                Some("24h"),
                Some(lang),
            );
            assert_eq!(
                escalation_body("Tom", "Aspirin", (one, "tablets"), due, &formats),
                (title.to_owned(), body.to_owned())
            );
            assert_eq!(hidden_escalation_body("Tom", due, &formats).0, hidden);
        }
        assert_eq!(
            for_person("Time for Aspirin", "Tom", Lang::En),
            "Tom: Time for Aspirin"
        );
        assert_eq!(
            for_person("À prendre : Aspirin", "Tom", Lang::Fr),
            "Tom : À prendre : Aspirin"
        );
    }

    #[test]
    fn payload_carries_the_path_and_the_take_link() {
        let content = Content {
            title: "Time for Aspirin".into(),
            body: "Take 1 tablets".into(),
            take_url: Some("https://pills.example/notifications/take/abc".into()),
            open_url: "https://pills.example/today".into(),
            tag: "reminder-1".into(),
            token: Some("abc".into()),
            snooze: true,
            silent: false,
            vibrate: true,
            lang: Lang::En,
        };
        let payload: serde_json::Value = serde_json::from_slice(&content.push_payload()).unwrap();
        assert_eq!(payload["url"], "/today");
        assert_eq!(payload["takeUrl"], "https://pills.example/notifications/take/abc");
        assert_eq!(payload["takeLabel"], "Take");
        assert_eq!(payload["token"], "abc");
        assert_eq!(payload["actions"], json!(["take", "snooze", "skip"]));
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
