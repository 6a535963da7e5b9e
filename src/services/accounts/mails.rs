//! The account e-mails (verification link, sign-in code, forgotten password), in the
//! recipient's language, and their queueing.

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::{EMAIL_CODE_MINUTES, VERIFICATION_HOURS};
use crate::clock;
use crate::domain::words::Lang;
use crate::mailer::{Email, Mailer};
use crate::security::codes;
use crate::services::email::{self, Button, Letter};
use crate::store::outbox::{self, MailKind, NewMail};

/// An account e-mail (verification link, sign-in code) is tried this many times, the
/// first retry after `ACCOUNT_MAIL_BACKOFF_SECONDS` and each further one after twice the
/// wait: about a quarter of an hour in all.
const ACCOUNT_MAIL_ATTEMPTS: u32 = 6;
const ACCOUNT_MAIL_BACKOFF_SECONDS: u32 = 30;

/// Queues an account e-mail (or another a person asked for, like a care invitation); the
/// caller wakes the queue after committing.
pub fn queue_account_mail(
    conn: &Connection,
    mailer: &Mailer,
    user_id: i64,
    to: &str,
    email: &Email,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let message_id = mailer.message_id(&format!("account.{}", codes::link_token()));
    outbox::enqueue(
        conn,
        &NewMail {
            kind: MailKind::Account,
            user_id: Some(user_id),
            reminder: None,
            recipient: to,
            subject: &email.subject,
            text: &email.text,
            html: &email.html,
            message_id: &message_id,
            max_attempts: ACCOUNT_MAIL_ATTEMPTS,
            backoff_seconds: ACCOUNT_MAIL_BACKOFF_SECONDS,
            retry_until: None,
            now: &clock::stamp(now),
        },
    )?;
    Ok(())
}

/// The verification e-mail, in the language the person signed up in.
pub fn verification_email(lang: Lang, link_base: &str, token: &str) -> Email {
    let link = format!("{link_base}/verify-email/{token}");
    let w = verification_words(lang);
    let hours = |text: &str| text.replace("{hours}", &VERIFICATION_HOURS.to_string());
    Letter {
        paragraphs: vec![w.welcome.into(), hours(w.confirm)],
        button: Some(Button {
            href: link,
            label: w.button.into(),
            text_label: None,
            or_open: Some(email::or_open(lang).into()),
        }),
        notes: vec![w.ignore.into()],
        ..Letter::new(lang, w.subject)
    }
    .email()
}

/// The sign-in code e-mail, in the person's language.
pub fn code_email(lang: Lang, code: &str) -> Email {
    let w = code_words(lang);
    Letter {
        paragraphs: vec![w.is.into()],
        code: Some(code.into()),
        after_code: vec![w.valid.replace("{minutes}", &EMAIL_CODE_MINUTES.to_string())],
        ..Letter::new(lang, w.subject)
    }
    .email()
}

/// The verification e-mail's texts (`{hours}`: `VERIFICATION_HOURS`).
struct VerificationWords {
    subject: &'static str,
    welcome: &'static str,
    confirm: &'static str,
    button: &'static str,
    ignore: &'static str,
}

fn verification_words(lang: Lang) -> &'static VerificationWords {
    match lang {
        Lang::En => &VerificationWords {
            subject: "Confirm your e-mail address for Pillbox",
            welcome: "Welcome to Pillbox.",
            confirm: "Confirm your e-mail address within {hours} hours:",
            button: "Confirm e-mail address",
            ignore: "If you did not create a Pillbox account, ignore this message.",
        },
        Lang::Es => &VerificationWords {
            subject: "Confirma tu dirección de correo para Pillbox",
            welcome: "Te damos la bienvenida a Pillbox.",
            confirm: "Confirma tu dirección de correo en las próximas {hours} horas:",
            button: "Confirmar dirección de correo",
            ignore: "Si no has creado una cuenta de Pillbox, ignora este mensaje.",
        },
        Lang::Fr => &VerificationWords {
            subject: "Confirmez votre adresse e-mail pour Pillbox",
            welcome: "Bienvenue dans Pillbox.",
            confirm: "Confirmez votre adresse e-mail dans les {hours} heures :",
            button: "Confirmer l'adresse e-mail",
            ignore: "Si vous n'avez pas créé de compte Pillbox, ignorez ce message.",
        },
        Lang::De => &VerificationWords {
            subject: "Bestätigen Sie Ihre E-Mail-Adresse für Pillbox",
            welcome: "Willkommen bei Pillbox.",
            confirm: "Bestätigen Sie Ihre E-Mail-Adresse innerhalb von {hours} Stunden:",
            button: "E-Mail-Adresse bestätigen",
            ignore: "Wenn Sie kein Pillbox-Konto angelegt haben, ignorieren Sie diese Nachricht.",
        },
    }
}

/// The sign-in code e-mail's texts (`{minutes}`: `EMAIL_CODE_MINUTES`).
struct CodeWords {
    subject: &'static str,
    is: &'static str,
    valid: &'static str,
}

fn code_words(lang: Lang) -> &'static CodeWords {
    match lang {
        Lang::En => &CodeWords {
            subject: "Your Pillbox sign-in code",
            is: "Your Pillbox sign-in code is",
            valid: "It is valid for {minutes} minutes. If you did not try to sign in, change your password.",
        },
        Lang::Es => &CodeWords {
            subject: "Tu código de acceso a Pillbox",
            is: "Tu código de acceso a Pillbox es",
            valid: "Es válido durante {minutes} minutos. Si no has intentado iniciar sesión, cambia tu contraseña.",
        },
        Lang::Fr => &CodeWords {
            subject: "Votre code de connexion Pillbox",
            is: "Votre code de connexion Pillbox est",
            valid: "Il est valable {minutes} minutes. Si vous n'avez pas essayé de vous connecter, changez votre mot de passe.",
        },
        Lang::De => &CodeWords {
            subject: "Ihr Pillbox-Anmeldecode",
            is: "Ihr Pillbox-Anmeldecode lautet",
            valid: "Er ist {minutes} Minuten gültig. Wenn Sie sich nicht anmelden wollten, ändern Sie Ihr Passwort.",
        },
    }
}

/// The forgotten-password e-mail, in the account holder's language.
pub fn password_reset_email(lang: Lang, link_base: &str, token: &str) -> Email {
    let link = format!("{link_base}/reset-password/{token}");
    let w = reset_words(lang);
    Letter {
        paragraphs: vec![w.asked.into(), w.open.into()],
        button: Some(Button {
            href: link,
            label: w.button.into(),
            text_label: None,
            or_open: Some(email::or_open(lang).into()),
        }),
        notes: vec![w.ignore.into()],
        ..Letter::new(lang, w.subject)
    }
    .email()
}

/// The forgotten-password e-mail's texts (the link is valid for `PASSWORD_RESET_HOURS`: one).
struct ResetWords {
    subject: &'static str,
    asked: &'static str,
    open: &'static str,
    button: &'static str,
    ignore: &'static str,
}

fn reset_words(lang: Lang) -> &'static ResetWords {
    match lang {
        Lang::En => &ResetWords {
            subject: "Reset your Pillbox password",
            asked: "Someone asked to reset the password of your Pillbox account.",
            open: "Open this link within 1 hour to choose a new password. It works once.",
            button: "Choose a new password",
            ignore: "If you did not ask for this, ignore this message: your password stays as it is.",
        },
        Lang::Es => &ResetWords {
            subject: "Restablece tu contraseña de Pillbox",
            asked: "Alguien ha pedido restablecer la contraseña de tu cuenta de Pillbox.",
            open: "Abre este enlace en la próxima hora para elegir una contraseña nueva. Solo funciona una vez.",
            button: "Elegir una contraseña nueva",
            ignore: "Si no lo has pedido tú, ignora este mensaje: tu contraseña no cambia.",
        },
        Lang::Fr => &ResetWords {
            subject: "Réinitialisez votre mot de passe Pillbox",
            asked: "Quelqu'un a demandé à réinitialiser le mot de passe de votre compte Pillbox.",
            open: "Ouvrez ce lien dans l'heure pour choisir un nouveau mot de passe. Il ne fonctionne qu'une fois.",
            button: "Choisir un nouveau mot de passe",
            ignore: "Si vous n'avez rien demandé, ignorez ce message : votre mot de passe reste inchangé.",
        },
        Lang::De => &ResetWords {
            subject: "Ihr Pillbox-Passwort zurücksetzen",
            asked: "Jemand hat das Zurücksetzen des Passworts Ihres Pillbox-Kontos angefordert.",
            open: "Öffnen Sie diesen Link innerhalb einer Stunde, um ein neues Passwort zu wählen. Er funktioniert nur einmal.",
            button: "Neues Passwort wählen",
            ignore: "Wenn Sie das nicht angefordert haben, ignorieren Sie diese Nachricht: Ihr Passwort bleibt unverändert.",
        },
    }
}
