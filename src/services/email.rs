//! Every e-mail Pillbox sends comes from one pair of templates: `templates/email.html`, which
//! escapes every value by default, and `templates/email.txt`, its plain-text part. A `Letter`
//! is an e-mail's parts, already in the recipient's language; the templates lay them out.

use askama::Template;

use crate::domain::words::Lang;
use crate::mailer::Email;

/// A link the reader is asked to follow: a button in HTML, the words and the address in text.
#[derive(Debug, Clone)]
pub struct Button {
    pub href: String,
    pub label: String,
    /// What the plain-text part says on the line before the address, when the paragraphs
    /// have not said it already.
    pub text_label: Option<String>,
    /// In HTML, the address again under the button, after these words ("Or open this link:"),
    /// for mail clients that show no buttons.
    pub or_open: Option<String>,
}

/// A plain link ("Open Pillbox").
#[derive(Debug, Clone)]
pub struct Link {
    pub href: String,
    pub label: String,
}

/// One e-mail's parts, top to bottom.
#[derive(Debug, Clone, Default)]
pub struct Letter {
    /// The `lang` of the HTML document.
    pub lang: &'static str,
    pub subject: String,
    pub heading: Option<String>,
    pub paragraphs: Vec<String>,
    /// A code to type (the sign-in code), shown large.
    pub code: Option<String>,
    pub after_code: Vec<String>,
    pub button: Option<Button>,
    /// Small print, in grey.
    pub notes: Vec<String>,
    pub open: Option<Link>,
}

#[derive(Template)]
#[template(path = "email.html")]
struct Html<'a> {
    letter: &'a Letter,
}

#[derive(Template)]
#[template(path = "email.txt")]
struct Text<'a> {
    letter: &'a Letter,
}

impl Letter {
    pub fn new(lang: Lang, subject: impl Into<String>) -> Letter {
        Letter {
            lang: lang.code(),
            subject: subject.into(),
            ..Letter::default()
        }
    }

    /// The e-mail: its subject, the HTML document and the plain text.
    pub fn email(&self) -> Email {
        // Writing into a String fails only if a value's Display fails; ours are strings.
        let html = Html { letter: self }
            .render()
            .expect("an e-mail renders into a String");
        let text = Text { letter: self }
            .render()
            .expect("an e-mail renders into a String");
        Email {
            subject: self.subject.clone(),
            text: text.trim_end().to_owned() + "\n",
            html,
        }
    }
}

/// "Or open this link:" in the reader's language.
pub fn or_open(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "Or open this link:",
        Lang::Es => "O abre este enlace:",
        Lang::Fr => "Ou ouvrez ce lien :",
        Lang::De => "Oder öffnen Sie diesen Link:",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letter() -> Letter {
        Letter {
            heading: Some("Time for <Aspirin> & \"co\"".into()),
            paragraphs: vec!["Take 1 tablet at 08:00.".into()],
            button: Some(Button {
                href: "https://pills.example/take/abc?x=1&y=2".into(),
                label: "Log this dose".into(),
                text_label: Some("Log this dose:".into()),
                or_open: Some("Or open this link:".into()),
            }),
            notes: vec!["Works for 24 hours.".into()],
            open: Some(Link {
                href: "https://pills.example/today".into(),
                label: "Open Pillbox".into(),
            }),
            ..Letter::new(Lang::De, "Time for <Aspirin>")
        }
    }

    #[test]
    fn the_html_part_escapes_every_value_a_person_typed() {
        let email = letter().email();
        assert!(email.html.starts_with("<!doctype html>\n<html lang=\"de\">"));
        assert!(
            email
                .html
                .contains("Time for &#60;Aspirin&#62; &#38; &#34;co&#34;"),
            "{}",
            email.html
        );
        assert!(!email.html.contains("<Aspirin>"));
        assert!(
            email
                .html
                .contains("href=\"https://pills.example/take/abc?x=1&#38;y=2\""),
            "{}",
            email.html
        );
    }

    #[test]
    fn the_text_part_reads_top_to_bottom_with_each_address_on_its_own_line() {
        let email = letter().email();
        assert_eq!(
            email.text,
            "Time for <Aspirin> & \"co\"\n\nTake 1 tablet at 08:00.\n\nLog this dose:\n\
             https://pills.example/take/abc?x=1&y=2\n\nWorks for 24 hours.\n\nOpen Pillbox: https://pills.example/today\n"
        );
        assert_eq!(email.subject, "Time for <Aspirin>");
    }
}
