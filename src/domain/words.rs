//! The words of reminders in the person's language: their app setting `language` (en, es,
//! fr, de), which the web app keeps in step with the server. The texts match the web app's
//! own translations (ui/src/i18n) in tone: informal Spanish, formal French and German.

use crate::domain::quantity::Quantity;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Es,
    Fr,
    De,
}

impl Lang {
    /// The language of a saved `language` setting; English when unset or unknown.
    pub fn of(code: Option<&str>) -> Lang {
        match code {
            Some("es") => Lang::Es,
            Some("fr") => Lang::Fr,
            Some("de") => Lang::De,
            _ => Lang::En,
        }
    }

    /// The setting's code for the language: `en`, `es`, `fr`, `de`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Es => "es",
            Lang::Fr => "fr",
            Lang::De => "de",
        }
    }

    /// The date pattern for a person's `dateFormat` setting: their choice, or as the language
    /// writes dates when they chose none (unset or `auto`).
    pub fn date_pattern_for(self, choice: Option<&str>) -> &'static str {
        match choice {
            Some("MM/dd/yyyy") => "%m/%d/%Y",
            Some("dd/MM/yyyy") => "%d/%m/%Y",
            Some("yyyy-MM-dd") => "%Y-%m-%d",
            _ => self.date_pattern(),
        }
    }

    /// The time pattern for a person's `timeFormat` setting: `12h`, `24h`, or as the language
    /// writes times when they chose none (unset or `auto`).
    pub fn time_pattern_for(self, choice: Option<&str>) -> &'static str {
        match choice {
            Some("12h") => "%-I:%M %p",
            Some("24h") => "%H:%M",
            _ => self.time_pattern(),
        }
    }

    /// How the language writes a date when the person chose no format (`auto`).
    pub fn date_pattern(self) -> &'static str {
        match self {
            Lang::En => "%m/%d/%Y",
            Lang::De => "%d.%m.%Y",
            Lang::Es | Lang::Fr => "%d/%m/%Y",
        }
    }

    /// How the language writes a time of day when the person chose no format (`auto`):
    /// English on the 12-hour clock, the others on the 24-hour one.
    pub fn time_pattern(self) -> &'static str {
        match self {
            Lang::En => "%-I:%M %p",
            Lang::Es | Lang::Fr | Lang::De => "%H:%M",
        }
    }

    pub fn words(self) -> &'static Words {
        match self {
            Lang::En => &EN,
            Lang::Es => &ES,
            Lang::Fr => &FR,
            Lang::De => &DE,
        }
    }
}

/// Templates with `{name}`, `{what}`, `{when}`, `{left}` and `{amount}` holes.
pub struct Words {
    pub dose_title: &'static str,
    pub repeat_title: &'static str,
    pub dose_body: &'static str,
    pub repeat_body: &'static str,
    /// "1 tablet of Aspirin".
    pub amount_of: &'static str,
    pub low_title: &'static str,
    pub low_body: &'static str,
    /// A low-stock alert when nothing is left: never "Only 0 (or -1) left".
    pub out_body: &'static str,
    pub test_title: &'static str,
    pub test_body: &'static str,
    pub log_button: &'static str,
    pub log_note: &'static str,
    pub log_text: &'static str,
    pub open_app: &'static str,
    /// The notification's Take action.
    pub take_action: &'static str,
    pub snooze_action: &'static str,
    pub skip_action: &'static str,
    /// A channel's buttons (ntfy, Telegram): the dose was taken; snooze for 10 minutes.
    pub taken_button: &'static str,
    pub snooze_ten_button: &'static str,
    /// What replaces a reminder on a channel once the dose is handled: `{time}`, then
    /// `handled_by` with `{name}` when someone logged it.
    pub handled_taken: &'static str,
    pub handled_skipped: &'static str,
    pub handled_missed: &'static str,
    pub handled_snoozed: &'static str,
    pub handled_by: &'static str,
    /// What replaces a carer's alert on a channel once the clock was set back to before the
    /// dose was late.
    pub handled_corrected: &'static str,
    /// The Telegram bot's replies in a chat: `/start` without a code, a chat linked, a link
    /// used or expired, linking failed, `/stop`, a chat that is not linked.
    pub bot_start_hint: &'static str,
    pub bot_linked: &'static str,
    pub bot_link_used: &'static str,
    pub bot_link_failed: &'static str,
    pub bot_unlinked: &'static str,
    pub bot_not_linked: &'static str,
    /// A button pressed in Telegram that could not be answered: its reminder's link expired,
    /// the dose was logged already, anything else.
    pub bot_expired: &'static str,
    pub bot_already_logged: &'static str,
    pub bot_failed: &'static str,
    /// A dose reminder that names no medication ("hide medication names"), with `{time}`.
    pub hidden_title: &'static str,
    pub hidden_body: &'static str,
    /// A low-stock alert that names no medication.
    pub hidden_low_title: &'static str,
    /// The "order a refill" reminder: `{name}`; why (`{date}`: the stock runs out around
    /// it, or the prescription expires on it); what to do; the pharmacy (`{contact}`).
    pub refill_title: &'static str,
    pub hidden_refill_title: &'static str,
    pub refill_stock_body: &'static str,
    pub refill_expiry_body: &'static str,
    pub refill_order_now: &'static str,
    pub refill_new_prescription: &'static str,
    /// No refills are left on the prescription.
    pub refill_none_left: &'static str,
    pub refill_pharmacy: &'static str,
    /// A stock batch expiring soon, or expired: `{name}`, `{lot}` (`batch_lot` or nothing),
    /// `{date}` (its expiry date), `{left}` (what it still holds).
    pub batch_expiring_title: &'static str,
    pub batch_expired_title: &'static str,
    pub hidden_batch_expiring_title: &'static str,
    pub hidden_batch_expired_title: &'static str,
    pub batch_expiring_body: &'static str,
    pub batch_expired_body: &'static str,
    pub batch_lot: &'static str,
    /// A reminder of a medication of someone else in the account: `{person}` and `{title}`.
    pub for_person: &'static str,
    /// A carer's alert about a dose not logged: `{person}`, `{name}`, `{what}`, `{when}`.
    pub escalation_title: &'static str,
    pub escalation_body: &'static str,
    /// The same, naming no medication: `{person}`, `{time}`.
    pub escalation_hidden_title: &'static str,
    /// A carer's alert that no longer holds, the clock having been set back: `{person}`,
    /// `{when}` (the dose's time).
    pub escalation_retracted_title: &'static str,
    pub escalation_retracted_body: &'static str,
    /// Counted units: (unit, singular, plural).
    counted: [(&'static str, &'static str, &'static str); 5],
    decimal_comma: bool,
    /// French counts below 2 as singular ("1,5 comprimé"); the others only exactly 1.
    singular_below_two: bool,
    /// French writes "d'Ibuprofène", not "de Ibuprofène".
    elide_de: bool,
}

const EN: Words = Words {
    dose_title: "Time for {name}",
    repeat_title: "Reminder: {name} is due",
    dose_body: "Take {what} at {when}.",
    repeat_body: "You have not logged {what}, due at {when}.",
    amount_of: "{amount} of {name}",
    low_title: "Running low on {name}",
    low_body: "Only {left} of {name} left. Time to refill.",
    out_body: "{name} is out of stock. Time to refill.",
    test_title: "Pillbox test notification",
    test_body: "Reminders reach you here. Sent at {when}.",
    log_button: "Log this dose",
    log_note: "The button opens a page where you confirm; opening it alone records nothing. \
               It works for 24 hours after the dose time.",
    log_text: "Log this dose (opens a page where you confirm; works for 24 hours):",
    open_app: "Open Pillbox",
    take_action: "Take",
    snooze_action: "Snooze",
    skip_action: "Skip",
    taken_button: "Taken",
    snooze_ten_button: "Snooze 10 min",
    handled_taken: "✓ Taken at {time}",
    handled_skipped: "Skipped at {time}",
    handled_missed: "Missed: not logged by {time}",
    handled_snoozed: "Snoozed until {time}",
    handled_by: " by {name}",
    handled_corrected: "Alert withdrawn: the server's clock was corrected and this dose is not overdue yet",
    bot_start_hint: "Open the link from Pillbox (Settings → Notifications → Channels) to get reminders here.",
    bot_linked: "Linked: Pillbox reminders arrive in this chat. Send /stop to end them.",
    bot_link_used: "This link is used or expired: make a new one in Pillbox (Settings → Notifications → Channels).",
    bot_link_failed: "Pillbox could not link this chat; try again in a minute.",
    bot_unlinked: "Unlinked: no more Pillbox reminders here. Link again from Pillbox's settings.",
    bot_not_linked: "This chat is not linked to Pillbox.",
    bot_expired: "This reminder has expired: log the dose in Pillbox.",
    bot_already_logged: "This dose was already logged.",
    bot_failed: "Pillbox could not record this; try again in a minute.",
    hidden_title: "Time for your {time} medicines",
    hidden_body: "Open Pillbox to see which.",
    hidden_low_title: "Running low on a medicine",
    refill_title: "Order a refill of {name}",
    hidden_refill_title: "Time to order a medicine",
    refill_stock_body: "{name} runs out around {date}.",
    refill_expiry_body: "The prescription for {name} expires on {date}.",
    refill_order_now: "Order a refill now.",
    refill_new_prescription: "Ask your prescriber for a new prescription.",
    refill_none_left: "No refills are left: ask your prescriber for a new prescription.",
    refill_pharmacy: "Pharmacy: {contact}",
    batch_expiring_title: "A batch of {name} expires soon",
    batch_expired_title: "A batch of {name} has expired",
    hidden_batch_expiring_title: "A medicine expires soon",
    hidden_batch_expired_title: "A medicine has expired",
    batch_expiring_body: "The batch of {name}{lot} expires on {date}; {left} left in it. Use it first.",
    batch_expired_body: "The batch of {name}{lot} expired on {date} with {left} left; it no longer counts as stock. Ask your pharmacy how to dispose of it.",
    batch_lot: " (lot {lot})",
    for_person: "{person}: {title}",
    escalation_title: "{person} has not taken {name}",
    escalation_body: "{what}, due at {when}, has not been logged for {person}.",
    escalation_hidden_title: "{person} has not taken the {time} medicines",
    escalation_retracted_title: "{person}: the earlier alert no longer holds",
    escalation_retracted_body: "The alert about {person}'s dose due at {when} was sent because the server's clock was wrong. The clock has been corrected and the dose is not overdue yet.",
    counted: [
        ("tablets", "tablet", "tablets"),
        ("capsules", "capsule", "capsules"),
        ("pills", "pill", "pills"),
        ("units", "unit", "units"),
        ("drops", "drop", "drops"),
    ],
    decimal_comma: false,
    singular_below_two: false,
    elide_de: false,
};

const ES: Words = Words {
    dose_title: "Hora de {name}",
    repeat_title: "Recordatorio: toca {name}",
    dose_body: "Toma {what} el {when}.",
    repeat_body: "Aún no has registrado {what}, prevista el {when}.",
    amount_of: "{amount} de {name}",
    low_title: "Queda poco {name}",
    low_body: "Solo quedan {left} de {name}. Es hora de reponer.",
    out_body: "Se acabó {name}. Es hora de reponer.",
    test_title: "Notificación de prueba de Pillbox",
    test_body: "Los recordatorios te llegan aquí. Enviada el {when}.",
    log_button: "Registrar esta dosis",
    log_note: "El botón abre una página donde confirmas; abrirla no registra nada. \
               Funciona hasta 24 horas después de la hora de la dosis.",
    log_text: "Registrar esta dosis (abre una página donde confirmas; funciona durante 24 horas):",
    open_app: "Abrir Pillbox",
    take_action: "Tomar",
    snooze_action: "Posponer",
    skip_action: "Omitir",
    taken_button: "Tomada",
    snooze_ten_button: "Posponer 10 min",
    handled_taken: "✓ Tomada a las {time}",
    handled_skipped: "Omitida a las {time}",
    handled_missed: "Olvidada: sin registrar a las {time}",
    handled_snoozed: "Pospuesta hasta las {time}",
    handled_by: " por {name}",
    handled_corrected: "Alerta retirada: se corrigió el reloj del servidor y esta dosis aún no está atrasada",
    bot_start_hint: "Abre el enlace de Pillbox (Ajustes → Notificaciones → Canales) para recibir aquí los recordatorios.",
    bot_linked: "Vinculado: los recordatorios de Pillbox llegarán a este chat. Envía /stop para dejar de recibirlos.",
    bot_link_used: "Este enlace ya se usó o caducó: crea uno nuevo en Pillbox (Ajustes → Notificaciones → Canales).",
    bot_link_failed: "Pillbox no pudo vincular este chat; inténtalo de nuevo en un minuto.",
    bot_unlinked: "Desvinculado: ya no llegarán recordatorios de Pillbox aquí. Vuelve a vincularlo desde los ajustes de Pillbox.",
    bot_not_linked: "Este chat no está vinculado a Pillbox.",
    bot_expired: "Este recordatorio ha caducado: registra la dosis en Pillbox.",
    bot_already_logged: "Esta dosis ya estaba registrada.",
    bot_failed: "Pillbox no pudo registrarlo; inténtalo de nuevo en un minuto.",
    hidden_title: "Hora de tus medicamentos de las {time}",
    hidden_body: "Abre Pillbox para ver cuáles.",
    hidden_low_title: "Queda poco de un medicamento",
    refill_title: "Hora de reponer {name}",
    hidden_refill_title: "Hora de pedir un medicamento",
    refill_stock_body: "{name} se acabará hacia el {date}.",
    refill_expiry_body: "La receta de {name} caduca el {date}.",
    refill_order_now: "Pide la reposición ahora.",
    refill_new_prescription: "Pide una receta nueva a tu médico.",
    refill_none_left: "No quedan repeticiones: pide una receta nueva a tu médico.",
    refill_pharmacy: "Farmacia: {contact}",
    batch_expiring_title: "Un lote de {name} caduca pronto",
    batch_expired_title: "Un lote de {name} ha caducado",
    hidden_batch_expiring_title: "Un medicamento caduca pronto",
    hidden_batch_expired_title: "Un medicamento ha caducado",
    batch_expiring_body: "El lote de {name}{lot} caduca el {date}; quedan {left}. Úsalo primero.",
    batch_expired_body: "El lote de {name}{lot} caducó el {date} con {left}; ya no cuenta como existencias. Pregunta en tu farmacia cómo desecharlo.",
    batch_lot: " (lote {lot})",
    for_person: "{person}: {title}",
    escalation_title: "{person} no ha tomado {name}",
    escalation_body: "{what}, prevista el {when}, no se ha registrado para {person}.",
    escalation_hidden_title: "{person} no ha tomado los medicamentos de las {time}",
    escalation_retracted_title: "{person}: la alerta anterior ya no es válida",
    escalation_retracted_body: "La alerta sobre la dosis de {person} prevista el {when} se envió porque el reloj del servidor estaba mal. El reloj ya se ha corregido y la dosis aún no está atrasada.",
    counted: [
        ("tablets", "comprimido", "comprimidos"),
        ("capsules", "cápsula", "cápsulas"),
        ("pills", "píldora", "píldoras"),
        ("units", "unidad", "unidades"),
        ("drops", "gota", "gotas"),
    ],
    decimal_comma: true,
    singular_below_two: false,
    elide_de: false,
};

const FR: Words = Words {
    dose_title: "À prendre : {name}",
    repeat_title: "Rappel : {name} est à prendre",
    dose_body: "Prenez {what} le {when}.",
    repeat_body: "Vous n'avez pas enregistré {what}, prévue le {when}.",
    amount_of: "{amount} de {name}",
    low_title: "Stock bas : {name}",
    low_body: "Il ne reste que {left} de {name}. Pensez à en racheter.",
    out_body: "Vous n'avez plus de {name}. Pensez à en racheter.",
    test_title: "Notification de test Pillbox",
    test_body: "Les rappels vous parviennent ici. Envoyée le {when}.",
    log_button: "Enregistrer cette prise",
    log_note: "Le bouton ouvre une page où vous confirmez ; l'ouvrir seul n'enregistre rien. \
               Il fonctionne jusqu'à 24 heures après l'heure de la prise.",
    log_text: "Enregistrer cette prise (ouvre une page où vous confirmez ; valable 24 heures) :",
    open_app: "Ouvrir Pillbox",
    take_action: "Prendre",
    snooze_action: "Reporter",
    skip_action: "Sauter",
    taken_button: "Prise",
    snooze_ten_button: "Reporter de 10 min",
    handled_taken: "✓ Prise à {time}",
    handled_skipped: "Sautée à {time}",
    handled_missed: "Oubliée : non notée à {time}",
    handled_snoozed: "Reportée jusqu'à {time}",
    handled_by: " par {name}",
    handled_corrected: "Alerte retirée : l'horloge du serveur a été corrigée et cette prise n'est pas encore en retard",
    bot_start_hint: "Ouvrez le lien de Pillbox (Paramètres → Notifications → Canaux) pour recevoir les rappels ici.",
    bot_linked: "Associé : les rappels de Pillbox arrivent dans cette conversation. Envoyez /stop pour les arrêter.",
    bot_link_used: "Ce lien a déjà servi ou a expiré : créez-en un nouveau dans Pillbox (Paramètres → Notifications → Canaux).",
    bot_link_failed: "Pillbox n'a pas pu associer cette conversation ; réessayez dans une minute.",
    bot_unlinked: "Dissocié : plus aucun rappel de Pillbox ici. Associez-la de nouveau depuis les paramètres de Pillbox.",
    bot_not_linked: "Cette conversation n'est pas associée à Pillbox.",
    bot_expired: "Ce rappel a expiré : enregistrez la prise dans Pillbox.",
    bot_already_logged: "Cette prise était déjà enregistrée.",
    bot_failed: "Pillbox n'a pas pu l'enregistrer ; réessayez dans une minute.",
    hidden_title: "C'est l'heure de vos médicaments de {time}",
    hidden_body: "Ouvrez Pillbox pour les voir.",
    hidden_low_title: "Stock bas pour un médicament",
    refill_title: "À renouveler : {name}",
    hidden_refill_title: "Un médicament est à renouveler",
    refill_stock_body: "Le stock de {name} sera épuisé vers le {date}.",
    refill_expiry_body: "L'ordonnance de {name} expire le {date}.",
    refill_order_now: "Commandez le renouvellement maintenant.",
    refill_new_prescription: "Demandez une nouvelle ordonnance à votre médecin.",
    refill_none_left: "Plus aucun renouvellement : demandez une nouvelle ordonnance à votre médecin.",
    refill_pharmacy: "Pharmacie : {contact}",
    batch_expiring_title: "Un lot de {name} périme bientôt",
    batch_expired_title: "Un lot de {name} est périmé",
    hidden_batch_expiring_title: "Un médicament périme bientôt",
    hidden_batch_expired_title: "Un médicament est périmé",
    batch_expiring_body: "Le lot de {name}{lot} périme le {date} ; il en reste {left}. Utilisez-le en premier.",
    batch_expired_body: "Le lot de {name}{lot} est périmé depuis le {date} ; les {left} restants ne comptent plus dans le stock. Demandez à votre pharmacie comment l'éliminer.",
    batch_lot: " (lot {lot})",
    for_person: "{person} : {title}",
    escalation_title: "{person} n'a pas pris {name}",
    escalation_body: "{what}, prévu le {when}, n'a pas été enregistré pour {person}.",
    escalation_hidden_title: "{person} n'a pas pris ses médicaments de {time}",
    escalation_retracted_title: "{person} : l'alerte précédente n'est plus valable",
    escalation_retracted_body: "L'alerte sur la prise de {person} prévue le {when} a été envoyée parce que l'horloge du serveur était fausse. L'horloge a été corrigée et la prise n'est pas encore en retard.",
    counted: [
        ("tablets", "comprimé", "comprimés"),
        ("capsules", "capsule", "capsules"),
        ("pills", "pilule", "pilules"),
        ("units", "unité", "unités"),
        ("drops", "goutte", "gouttes"),
    ],
    decimal_comma: true,
    singular_below_two: true,
    elide_de: true,
};

const DE: Words = Words {
    dose_title: "Zeit für {name}",
    repeat_title: "Erinnerung: {name} ist fällig",
    dose_body: "Nehmen Sie {what} am {when}.",
    repeat_body: "Sie haben {what} noch nicht erfasst (fällig am {when}).",
    amount_of: "{amount} {name}",
    low_title: "Vorrat knapp: {name}",
    low_body: "Nur noch {left} {name} übrig. Zeit zum Nachkaufen.",
    out_body: "{name} ist aufgebraucht. Zeit zum Nachkaufen.",
    test_title: "Pillbox-Testbenachrichtigung",
    test_body: "Erinnerungen erreichen Sie hier. Gesendet am {when}.",
    log_button: "Diese Einnahme erfassen",
    log_note: "Die Schaltfläche öffnet eine Seite, auf der Sie bestätigen; das Öffnen allein \
               erfasst nichts. Sie gilt bis 24 Stunden nach dem Einnahmezeitpunkt.",
    log_text: "Diese Einnahme erfassen (öffnet eine Seite zum Bestätigen; 24 Stunden gültig):",
    open_app: "Pillbox öffnen",
    take_action: "Einnehmen",
    snooze_action: "Später",
    skip_action: "Auslassen",
    taken_button: "Genommen",
    snooze_ten_button: "10 Min. später",
    handled_taken: "✓ Genommen um {time}",
    handled_skipped: "Ausgelassen um {time}",
    handled_missed: "Verpasst: bis {time} nicht erfasst",
    handled_snoozed: "Verschoben bis {time}",
    handled_by: " von {name}",
    handled_corrected: "Warnung zurückgezogen: Die Uhr des Servers wurde korrigiert, diese Dosis ist noch nicht überfällig",
    bot_start_hint: "Öffnen Sie den Link aus Pillbox (Einstellungen → Benachrichtigungen → Kanäle), um Erinnerungen hier zu erhalten.",
    bot_linked: "Verknüpft: Pillbox-Erinnerungen kommen in diesem Chat an. Senden Sie /stop, um sie zu beenden.",
    bot_link_used: "Dieser Link wurde schon benutzt oder ist abgelaufen: Erstellen Sie in Pillbox einen neuen (Einstellungen → Benachrichtigungen → Kanäle).",
    bot_link_failed: "Pillbox konnte diesen Chat nicht verknüpfen; versuchen Sie es in einer Minute erneut.",
    bot_unlinked: "Getrennt: Hier kommen keine Pillbox-Erinnerungen mehr an. Verknüpfen Sie ihn in den Pillbox-Einstellungen neu.",
    bot_not_linked: "Dieser Chat ist nicht mit Pillbox verknüpft.",
    bot_expired: "Diese Erinnerung ist abgelaufen: Tragen Sie die Einnahme in Pillbox ein.",
    bot_already_logged: "Diese Einnahme war schon eingetragen.",
    bot_failed: "Pillbox konnte das nicht eintragen; versuchen Sie es in einer Minute erneut.",
    hidden_title: "Zeit für Ihre Medikamente um {time}",
    hidden_body: "Öffnen Sie Pillbox, um sie zu sehen.",
    hidden_low_title: "Vorrat knapp bei einem Medikament",
    refill_title: "Nachbestellen: {name}",
    hidden_refill_title: "Zeit, ein Medikament nachzubestellen",
    refill_stock_body: "Der Vorrat an {name} reicht bis etwa {date}.",
    refill_expiry_body: "Das Rezept für {name} läuft am {date} ab.",
    refill_order_now: "Bestellen Sie jetzt nach.",
    refill_new_prescription: "Bitten Sie Ihre Ärztin oder Ihren Arzt um ein neues Rezept.",
    refill_none_left: "Keine Wiederholungen mehr übrig: Bitten Sie Ihre Ärztin oder Ihren Arzt um ein neues Rezept.",
    refill_pharmacy: "Apotheke: {contact}",
    batch_expiring_title: "Eine Packung {name} läuft bald ab",
    batch_expired_title: "Eine Packung {name} ist abgelaufen",
    hidden_batch_expiring_title: "Ein Medikament läuft bald ab",
    hidden_batch_expired_title: "Ein Medikament ist abgelaufen",
    batch_expiring_body: "Die Packung {name}{lot} läuft am {date} ab; darin sind noch {left}. Verbrauchen Sie sie zuerst.",
    batch_expired_body: "Die Packung {name}{lot} ist am {date} abgelaufen, mit noch {left} darin; sie zählt nicht mehr zum Vorrat. Fragen Sie Ihre Apotheke, wie Sie sie entsorgen.",
    batch_lot: " (Charge {lot})",
    for_person: "{person}: {title}",
    escalation_title: "{person} hat {name} nicht genommen",
    escalation_body: "{what}, fällig am {when}, wurde für {person} nicht erfasst.",
    escalation_hidden_title: "{person} hat die Medikamente um {time} nicht genommen",
    escalation_retracted_title: "{person}: Die vorherige Warnung gilt nicht mehr",
    escalation_retracted_body: "Die Warnung zur Dosis für {person}, fällig am {when}, wurde verschickt, weil die Uhr des Servers falsch ging. Die Uhr wurde korrigiert, und die Dosis ist noch nicht überfällig.",
    counted: [
        ("tablets", "Tablette", "Tabletten"),
        ("capsules", "Kapsel", "Kapseln"),
        ("pills", "Pille", "Pillen"),
        ("units", "Einheit", "Einheiten"),
        ("drops", "Tropfen", "Tropfen"),
    ],
    decimal_comma: true,
    singular_below_two: false,
    elide_de: false,
};

impl Words {
    /// Fills a template's `{key}` holes.
    pub fn fill(&self, template: &str, values: &[(&str, &str)]) -> String {
        let mut out = template.to_owned();
        for (key, value) in values {
            if self.elide_de
                && *key == "name"
                && value.starts_with(|c: char| "aeiouyhâàéèêîïôûAEIOUYHÂÀÉÈÊÎÏÔÛ".contains(c))
            {
                out = out.replace("de {name}", &format!("d'{value}"));
            }
            out = out.replace(&format!("{{{key}}}"), value);
        }
        out
    }

    /// "1 tablet", "2 Tabletten", "0,5 ml": the amount in the person's language. Measured
    /// units keep their symbol.
    pub fn amount(&self, quantity: Quantity, unit: &str) -> String {
        let mut number = quantity.to_string();
        if self.decimal_comma {
            number = number.replace('.', ",");
        }
        let Some(&(_, one, other)) = self.counted.iter().find(|(u, _, _)| *u == unit) else {
            return format!("{number} {unit}");
        };
        let value = quantity.to_f64();
        let singular = if self.singular_below_two {
            value < 2.0
        } else {
            value == 1.0
        };
        format!("{number} {}", if singular { one } else { other })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::quantity::q;

    #[test]
    fn amounts_follow_each_language() {
        assert_eq!(EN.amount(q(1.0), "tablets"), "1 tablet");
        assert_eq!(EN.amount(q(2.0), "tablets"), "2 tablets");
        assert_eq!(EN.amount(q(2.5), "ml"), "2.5 ml");
        assert_eq!(DE.amount(q(2.5), "ml"), "2,5 ml");
        assert_eq!(DE.amount(q(1.0), "capsules"), "1 Kapsel");
        assert_eq!(FR.amount(q(1.5), "tablets"), "1,5 comprimé");
        assert_eq!(ES.amount(q(3.0), "drops"), "3 gotas");
    }

    #[test]
    fn french_elides_before_a_vowel() {
        let what = FR.fill(FR.amount_of, &[("amount", "1 comprimé"), ("name", "Ibuprofène")]);
        assert_eq!(what, "1 comprimé d'Ibuprofène");
        assert_eq!(
            FR.fill(FR.low_body, &[("left", "2 comprimés"), ("name", "Doliprane")]),
            "Il ne reste que 2 comprimés de Doliprane. Pensez à en racheter."
        );
    }

    #[test]
    fn unknown_languages_are_english() {
        assert_eq!(Lang::of(Some("de")), Lang::De);
        assert_eq!(Lang::of(Some("pt")), Lang::En);
        assert_eq!(Lang::of(None), Lang::En);
    }
}
