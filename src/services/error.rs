//! The errors of the service layer, and the stable machine codes every error answer carries.
//!
//! A code names what went wrong for a program (the web app maps codes to its translations);
//! the message says the same to a person in English. Codes never change once shipped: add
//! new ones, never rename. Each area keeps its codes together below.

use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::accounts::TwoFactorMethod;
use crate::security::rate_limit::Limited;

macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident => $text:literal,)*) => {
        /// The machine-readable reason of an error answer (`code` in every error body).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
        }

        impl ErrorCode {
            #[cfg(test)]
            pub const ALL: &[ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as it appears in a body (`"unit_mismatch"`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $text,)*
                }
            }
        }
    };
}

error_codes! {
    // --- requests in general ---
    /// The body, a query parameter or a path segment could not be read.
    InvalidRequest => "invalid_request",
    /// A field has a value the server cannot use; `message` says which and why.
    ValidationFailed => "validation_failed",
    BodyTooLarge => "body_too_large",
    UnsupportedMediaType => "unsupported_media_type",
    /// No such API route.
    NotFound => "not_found",
    MethodNotAllowed => "method_not_allowed",
    RateLimited => "rate_limited",
    InternalError => "internal_error",
    ServiceUnavailable => "service_unavailable",
    /// The server's disk is full: the change was not saved (507).
    StorageFull => "storage_full",
    /// The request body did not arrive within `http.body_timeout_seconds`.
    RequestTimeout => "request_timeout",

    // --- sessions and accounts ---
    AuthenticationRequired => "authentication_required",
    SessionExpired => "session_expired",
    InvalidCredentials => "invalid_credentials",
    EmailNotVerified => "email_not_verified",
    RegistrationClosed => "registration_closed",
    EmailTaken => "email_taken",
    PasswordIncorrect => "password_incorrect",
    EmailNotConfigured => "email_not_configured",
    InvalidToken => "invalid_token",
    /// A forgotten-password link that is unknown, expired (after an hour) or already used.
    ResetLinkInvalid => "reset_link_invalid",
    UserNotFound => "user_not_found",
    /// A trusted proxy signed in a person who has no account here, and
    /// `auth.proxy_auto_register` is off: the administrator must create the account or allow it.
    ProxyRegistrationNotAllowed => "proxy_registration_not_allowed",
    /// A trusted proxy signed in a person without an account here but named them by no e-mail
    /// address, so none can be made: the administrator sets `auth.proxy_email_header`.
    ProxyEmailMissing => "proxy_email_missing",
    /// Sign-in with an OpenID Connect provider is not set up on this server (`oidc.issuer`).
    OidcNotConfigured => "oidc_not_configured",
    /// The provider's answer could not be used: an unknown or replayed sign-in (`state`), an
    /// ID token that does not verify, or the provider could not be reached.
    OidcFailed => "oidc_failed",
    /// An identity this server does not know, and `oidc.auto_register` is off.
    OidcNotAllowed => "oidc_not_allowed",
    /// The identity is in none of `oidc.allowed_groups`.
    OidcGroupDenied => "oidc_group_denied",
    /// The one-time code from the provider's return is unknown, used or older than 60 s.
    OidcCodeInvalid => "oidc_code_invalid",
    /// The provider did not say the identity's e-mail address is verified: it neither links to
    /// an account nor makes one.
    OidcEmailUnverified => "oidc_email_unverified",
    /// None of the account's linked identities has this id.
    OidcIdentityNotFound => "oidc_identity_not_found",
    /// Unlinking would leave the account no way to sign in (no password of its own, no passkey).
    OidcLastSignIn => "oidc_last_sign_in",

    /// A form field the person left empty or filled beyond its limit.
    CredentialsRequired => "credentials_required",
    EmailRequired => "email_required",
    EmailInvalid => "email_invalid",
    PasswordRequired => "password_required",
    PasswordTooShort => "password_too_short",
    PasswordTooLong => "password_too_long",
    FirstNameTooLong => "first_name_too_long",
    LastNameTooLong => "last_name_too_long",

    // --- two-factor sign-in ---
    TwoFactorRequired => "two_factor_required",
    InvalidCode => "invalid_code",
    CodeNotSent => "code_not_sent",
    MethodNotEnabled => "method_not_enabled",
    MethodAlreadyEnabled => "method_already_enabled",
    TwoFactorNotEnabled => "two_factor_not_enabled",
    TotpSetupNotStarted => "totp_setup_not_started",
    InvalidBackupCode => "invalid_backup_code",
    CodeRequired => "code_required",
    BackupCodeRequired => "backup_code_required",

    // --- medications, doses, stock ---
    /// No medication of the person's with that id.
    MedicationNotFound => "medication_not_found",
    /// No history entry of the person's with that id.
    EntryNotFound => "entry_not_found",
    NameRequired => "name_required",
    UnitRequired => "unit_required",
    /// A unit outside the catalogue (`params.unit`, as typed).
    UnitInvalid => "unit_invalid",
    /// The dose's unit and the stock's unit cannot be converted (`params.stock`, `params.unit`).
    UnitMismatch => "unit_mismatch",
    /// Doses and stock need an item strength to convert (`params.stock`, `params.unit`).
    StrengthNeeded => "strength_needed",
    /// Two units of different kinds (`params.from`, `params.to`).
    UnitIncompatible => "unit_incompatible",
    /// A dose time in the future.
    FutureDate => "future_date",
    /// A dose sooner after the last than the medication's `min_gap_minutes` allows, sent
    /// without `confirm` (409; `params.next_allowed_at`, RFC 3339, and `params.time`, HH:MM).
    DoseTooSoon => "dose_too_soon",
    /// A dose over the medication's `max_per_day` within 24 hours, sent without `confirm`
    /// (409; `params.max`, `params.next_allowed_at`, `params.time`).
    DailyMaximumReached => "daily_maximum_reached",
    /// A manual stock change on a medication that keeps no stock.
    InventoryNotEnabled => "inventory_not_enabled",
    /// A manual stock change that would leave less than nothing.
    StockBelowZero => "stock_below_zero",
    /// No stock batch of that medication with that id.
    BatchNotFound => "batch_not_found",
    /// A single-count stock change (adjust, a `current_quantity`) on a medication whose stock
    /// is kept in batches (409): change a batch instead.
    StockInBatches => "stock_in_batches",
    /// A batch sent without its `quantity`.
    BatchQuantityRequired => "batch_quantity_required",
    /// A batch's `quantity` not more than 0, or over `params.max`.
    BatchQuantityOutOfRange => "batch_quantity_out_of_range",
    /// A batch's new `quantity` below what doses already took from it.
    BatchQuantityBelowDrawn => "batch_quantity_below_drawn",
    /// A batch's `remaining` below 0 or above its quantity.
    BatchRemainingOutOfRange => "batch_remaining_out_of_range",
    /// A batch sent without its `expires_on`.
    BatchExpiryRequired => "batch_expiry_required",
    /// A batch's `expires_on` that is not a `YYYY-MM-DD` day (`params.expires_on`, as sent).
    BatchExpiryInvalid => "batch_expiry_invalid",
    /// A lot number over `params.max` characters.
    BatchLotTooLong => "batch_lot_too_long",

    // --- prescriptions ---
    /// A prescription's text over `params.max` characters (`params.field`: `prescriber`,
    /// `pharmacy_name`, `pharmacy_phone` or `pharmacy_url`).
    PrescriptionTextTooLong => "prescription_text_too_long",
    /// A prescription's text with a control character (`params.field`, as above).
    PrescriptionTextInvalid => "prescription_text_invalid",
    /// A pharmacy phone with other than digits, spaces and `+ - ( ) / .`.
    PharmacyPhoneInvalid => "pharmacy_phone_invalid",
    /// A pharmacy address that does not start with `https://` (or `http://`).
    PharmacyUrlInvalid => "pharmacy_url_invalid",
    /// A prescription date not written `YYYY-MM-DD` (`params.field`: `prescribed_on` or
    /// `expires_on`).
    PrescriptionDateInvalid => "prescription_date_invalid",
    /// `expires_on` before `prescribed_on`.
    PrescriptionExpiresBeforeWritten => "prescription_expires_before_written",
    /// `refills_authorised` or `refills_left` (`params.field`) over `params.max`.
    RefillsOutOfRange => "refills_out_of_range",
    /// `refills_left` more than `refills_authorised`.
    RefillsLeftAboveAuthorised => "refills_left_above_authorised",
    /// `order_days_before` outside `params.min`…`params.max`.
    OrderDaysOutOfRange => "order_days_out_of_range",

    // --- reminders and notifications ---
    NotificationNotFound => "notification_not_found",
    ReminderExists => "reminder_exists",
    NotificationNotScheduled => "notification_not_scheduled",
    NotificationSending => "notification_sending",
    NotificationNotSent => "notification_not_sent",
    DoseAlreadyLogged => "dose_already_logged",
    /// A snooze of other than 10, 30 or 60 minutes.
    InvalidSnoozeMinutes => "invalid_snooze_minutes",
    /// No calendar feed has that address (never made, or revoked).
    CalendarFeedNotFound => "calendar_feed_not_found",
    PushServiceNotAllowed => "push_service_not_allowed",
    InvalidSubscription => "invalid_subscription",
    SubscriptionTaken => "subscription_taken",
    /// No channel delivered a test or send-now notification (502); `data.results` says why
    /// per channel.
    DeliveryFailed => "delivery_failed",

    /// A delivery method that is neither `push` nor `email`.
    DeliveryMethodUnknown => "delivery_method_unknown",
    /// No delivery method chosen.
    DeliveryMethodRequired => "delivery_method_required",
    /// A reminder lead outside 0…1440 minutes (`params.max`).
    LeadOutOfRange => "lead_out_of_range",
    /// A reminder message over its length limit (`params.max`).
    MessageTooLong => "message_too_long",

    // --- your data ---
    BackupNotFound => "backup_not_found",
    ImportInvalid => "import_invalid",
    ImportHasUnreadableRows => "import_has_unreadable_rows",
    PrescriptionNotFound => "prescription_not_found",

    // --- the care circle ---
    /// A person you cannot see, or no such person.
    PersonNotFound => "person_not_found",
    PersonNameRequired => "person_name_required",
    /// The account holder's own person cannot be archived or deleted.
    PersonIsAccountHolder => "person_is_account_holder",
    /// You can see it, but your role does not allow this change (`params.role`, `params.needed`).
    NotPermitted => "not_permitted",
    CarerNotFound => "carer_not_found",
    /// That address is already a carer of this person, or invited.
    CarerExists => "carer_exists",
    /// The owner cannot be their own person's carer.
    CarerIsOwner => "carer_is_owner",
    /// `role` is not `view`, `record` or `manage`.
    RoleInvalid => "role_invalid",
    /// No such invitation, or it expired or was used.
    InvitationNotFound => "invitation_not_found",
    /// The invitation was sent to another address (`params.email`, masked).
    InvitationOtherAccount => "invitation_other_account",
    /// An escalation setting cannot be used (`after_minutes` out of range, or a chosen carer
    /// who cannot record doses of this person).
    EscalationInvalid => "escalation_invalid",

    // --- API tokens ---
    /// An API token was sent to a route only a password sign-in reaches (the account, its
    /// sign-in, sessions, two-factor, tokens, export, import, deletion).
    TokenNotAllowed => "token_not_allowed",
    /// An API token that is unknown, revoked or expired (401).
    ApiTokenInvalid => "api_token_invalid",
    /// None of the account's tokens has that id.
    ApiTokenNotFound => "api_token_not_found",
    ApiTokenNameRequired => "api_token_name_required",
    /// A token's name over `params.max` characters.
    ApiTokenNameTooLong => "api_token_name_too_long",
    /// `scope` is not `read`, `record` or `manage`.
    ApiTokenScopeInvalid => "api_token_scope_invalid",
    /// `expires_in_days` outside `params.min`…`params.max`.
    ApiTokenExpiryInvalid => "api_token_expiry_invalid",
    /// The account has `params.max` tokens already: revoke one first.
    ApiTokenLimitReached => "api_token_limit_reached",

    // --- passkeys ---
    /// The server has no passkeys: `public_url` is unset or names an IP address.
    PasskeysNotConfigured => "passkeys_not_configured",
    /// The passkey ceremony is unknown, already used, older than five minutes, or another
    /// account's: ask for new options.
    PasskeyCeremonyInvalid => "passkey_ceremony_invalid",
    /// The authenticator's answer does not verify (challenge, origin, signature, user
    /// verification), or names a passkey this server does not know.
    PasskeyInvalid => "passkey_invalid",
    /// The passkey's signature counter went backwards: the authenticator may have been copied.
    PasskeyCounterInvalid => "passkey_counter_invalid",
    PasskeyNameRequired => "passkey_name_required",
    /// A passkey's name over `params.max` characters.
    PasskeyNameTooLong => "passkey_name_too_long",
    /// None of the account's passkeys has that id.
    PasskeyNotFound => "passkey_not_found",
    /// The authenticator's credential is registered already.
    PasskeyAlreadyRegistered => "passkey_already_registered",
    /// The account has `params.max` passkeys already.
    PasskeyLimitReached => "passkey_limit_reached",
    /// The passkey is the account's last way to sign in (no usable password, no linked
    /// OpenID Connect identity).
    PasskeyLastSignInMethod => "passkey_last_sign_in_method",

    // --- channels ---
    ChannelNotFound => "channel_not_found",
    ChannelInvalid => "channel_invalid",
    ChannelAddressNotAllowed => "channel_address_not_allowed",
    TelegramNotConfigured => "telegram_not_configured",
}

/// What the person did that the service cannot accept, told back with a code and, where the
/// message has values in it (a unit, a date), the same values under `params` so that a
/// translation can use them.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub code: ErrorCode,
    pub message: String,
    pub params: Map<String, Value>,
}

impl Problem {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Problem {
        Problem {
            code,
            message: message.into(),
            params: Map::new(),
        }
    }

    pub fn with_param(mut self, key: &str, value: impl Into<Value>) -> Problem {
        self.params.insert(key.to_owned(), value.into());
        self
    }
}

impl std::error::Error for Problem {}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What went wrong in a service: the person's input (told to them as it is, with its code)
/// or the machinery (logged; the person sees a generic failure).
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Input that cannot be used (400); the message says what to change.
    #[error("{0}")]
    Invalid(Problem),
    /// Nothing of the person's with that id (404) — also for other people's ids.
    #[error("{0}")]
    NotFound(Problem),
    /// The request clashes with the current state (409).
    #[error("{0}")]
    Conflict(Problem),
    /// Allowed to see, not to do (403).
    #[error("{0}")]
    Forbidden(Problem),
    /// Not signed in (401): wrong credentials, a wrong or missing second factor, a dead session.
    #[error("{0}")]
    Unauthorized(Problem),
    /// The address is not verified yet and this server sends e-mail (403).
    #[error("Please verify your email address before signing in")]
    EmailNotVerified,
    /// The password was right; a second factor must follow (401).
    #[error("Two-factor authentication code required")]
    TwoFactorRequired {
        methods: Vec<TwoFactorMethod>,
        preferred: Option<TwoFactorMethod>,
    },
    /// Too many tries: retry after this many seconds (429).
    #[error("too many attempts, retry in {0} s")]
    Limited(u64),
    /// A message the person needs could not be sent (503).
    #[error("{0}")]
    Unavailable(Problem),
    /// Hashing or signing failed: logged, never shown.
    #[error("{0}")]
    Internal(String),
    #[error("database error: {0}")]
    Database(#[from] rusqlite::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl From<Limited> for ServiceError {
    fn from(Limited(secs): Limited) -> Self {
        ServiceError::Limited(secs)
    }
}

impl From<crate::db::DbError> for ServiceError {
    fn from(e: crate::db::DbError) -> Self {
        match e {
            crate::db::DbError::Sqlite(e) => ServiceError::Database(e),
            crate::db::DbError::Task(e) => ServiceError::Io(std::io::Error::other(e)),
        }
    }
}

impl From<crate::domain::notification::SettingError> for ServiceError {
    fn from(e: crate::domain::notification::SettingError) -> Self {
        use crate::domain::medication::{MAX_LEAD_MINUTES, MAX_MESSAGE};
        use crate::domain::notification::SettingError as E;
        let problem = match e {
            E::LeadOutOfRange => {
                Problem::new(ErrorCode::LeadOutOfRange, e.to_string()).with_param("max", MAX_LEAD_MINUTES)
            }
            E::MessageTooLong => {
                Problem::new(ErrorCode::MessageTooLong, e.to_string()).with_param("max", MAX_MESSAGE)
            }
            E::MethodUnknown => Problem::new(ErrorCode::DeliveryMethodUnknown, e.to_string()),
            E::MethodRequired => Problem::new(ErrorCode::DeliveryMethodRequired, e.to_string()),
            E::RepeatIntervalOutOfRange | E::RepeatsOutOfRange => {
                Problem::new(ErrorCode::ValidationFailed, e.to_string())
            }
        };
        ServiceError::Invalid(problem)
    }
}

/// Input that cannot be used, with the generic `validation_failed` code.
pub fn invalid(message: impl Into<String>) -> ServiceError {
    ServiceError::Invalid(Problem::new(ErrorCode::ValidationFailed, message))
}

/// Input that cannot be used, with its own code.
pub fn rejected(code: ErrorCode, message: impl Into<String>) -> ServiceError {
    ServiceError::Invalid(Problem::new(code, message))
}

pub fn not_found(code: ErrorCode, message: impl Into<String>) -> ServiceError {
    ServiceError::NotFound(Problem::new(code, message))
}

pub fn conflict(code: ErrorCode, message: impl Into<String>) -> ServiceError {
    ServiceError::Conflict(Problem::new(code, message))
}

/// Not signed in (401), with its code.
pub fn unauthorized(code: ErrorCode, message: impl Into<String>) -> ServiceError {
    ServiceError::Unauthorized(Problem::new(code, message))
}

pub type ServiceResult<T> = Result<T, ServiceError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_snake_case_words() {
        assert_eq!(ErrorCode::UnitMismatch.as_str(), "unit_mismatch");
        assert_eq!(ErrorCode::InvalidCredentials.as_str(), "invalid_credentials");
        assert_eq!(ErrorCode::RateLimited.as_str(), "rate_limited");
        for code in ErrorCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str(), "{code:?}");
        }
    }
}
