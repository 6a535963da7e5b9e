//! Managing two-factor sign-in: turning methods on and off, the preference, backup codes.

use chrono::{DateTime, Utc};

use super::{
    Accounts, BackupCodes, Disabled, Enabled, Preference, SetupStep, TotpSetup, TwoFactorMethod,
    TwoFactorStatus, methods_of, new_backup_codes, preference_of, use_backup_code,
};
use crate::security::{codes, totp};
use crate::services::{ErrorCode, ServiceError, ServiceResult, conflict, rejected};
use crate::store::users::{self, TwoFactor, User};

impl Accounts<'_> {
    pub async fn two_factor_status(&self, user_id: i64) -> ServiceResult<TwoFactorStatus> {
        let (tf, remaining) = self
            .db
            .read(move |conn| {
                Ok::<_, ServiceError>((
                    users::two_factor(conn, user_id)?,
                    users::unused_backup_codes(conn, user_id)?,
                ))
            })
            .await?;
        Ok(TwoFactorStatus {
            methods: methods_of(&tf),
            preference: preference_of(&tf),
            backup_codes_remaining: remaining,
            email_available: self.mailer.is_configured(),
        })
    }

    /// Turns a method on after the password: e-mail codes at once, the authenticator app
    /// with its first step (the secret to scan).
    pub async fn setup(
        &self,
        client: &str,
        user: &User,
        method: &str,
        password: String,
        now: DateTime<Utc>,
    ) -> ServiceResult<SetupStep> {
        let method = TwoFactorMethod::parse(method)?;
        self.confirm_password(client, user, password).await?;
        Ok(match method {
            TwoFactorMethod::Email => SetupStep::EmailEnabled(self.enable_email(user, now).await?),
            TwoFactorMethod::Totp => SetupStep::TotpStarted(self.start_totp(user).await?),
            // `parse` never answers it: passkeys are added in their own card.
            TwoFactorMethod::Passkey => return Err(crate::services::invalid("Method must be email or totp")),
        })
    }

    /// Applies a change to the user's two-factor settings in one transaction, makes a fresh
    /// set of backup codes when asked, and signs out other sessions. Returns the new backup
    /// codes (if any), the fresh token and the settings.
    async fn change_two_factor<F>(
        &self,
        user: &User,
        new_codes: bool,
        now: DateTime<Utc>,
        change: F,
    ) -> ServiceResult<(Option<Vec<String>>, String, TwoFactor)>
    where
        F: FnOnce(&rusqlite::Connection, &mut TwoFactor) -> ServiceResult<()> + Send + 'static,
    {
        let key = self.key.to_vec();
        let user_id = user.id;
        let (codes, version, tf) = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let mut tf = users::two_factor(&tx, user_id)?;
                change(&tx, &mut tf)?;
                if tf.preference() != tf.preferred_method.as_deref() {
                    tf.preferred_method = tf.preference().map(str::to_owned);
                }
                users::save_two_factor(&tx, user_id, &tf)?;
                let codes = if !tf.enabled() {
                    users::replace_backup_codes(&tx, user_id, &[])?;
                    None
                } else if new_codes {
                    Some(new_backup_codes(&tx, &key, user_id)?)
                } else {
                    None
                };
                let version = users::bump_token_version(&tx, user_id)?;
                tx.commit()?;
                Ok::<_, ServiceError>((codes, version, tf))
            })
            .await?;
        let token = self.token(user_id, version, now)?;
        Ok((codes, token, tf))
    }

    /// Turns e-mail codes on (the password was confirmed).
    pub async fn enable_email(&self, user: &User, now: DateTime<Utc>) -> ServiceResult<Enabled> {
        if !self.mailer.is_configured() {
            return Err(rejected(
                ErrorCode::EmailNotConfigured,
                "Email is not configured on this server",
            ));
        }
        let (codes, token, tf) = self
            .change_two_factor(user, true, now, |_, tf| {
                if tf.email_enabled {
                    return Err(conflict(
                        ErrorCode::MethodAlreadyEnabled,
                        "Email two-factor authentication is already enabled",
                    ));
                }
                tf.email_enabled = true;
                Ok(())
            })
            .await?;
        Ok(Enabled {
            backup_codes: codes,
            token,
            methods: methods_of(&tf),
        })
    }

    /// The authenticator app's first step (the password was confirmed): a new secret,
    /// pending until a code from it is entered.
    pub async fn start_totp(&self, user: &User) -> ServiceResult<TotpSetup> {
        let user_id = user.id;
        let secret = totp::new_secret();
        let qr = totp::qr_data_url(&secret, &user.email)
            .ok_or_else(|| ServiceError::Internal("cannot draw the TOTP QR code".into()))?;
        let pending = secret.clone();
        self.db
            .write(move |conn| {
                let mut tf = users::two_factor(conn, user_id)?;
                if tf.totp_secret.is_some() {
                    return Err(conflict(
                        ErrorCode::MethodAlreadyEnabled,
                        "Authenticator app two-factor authentication is already enabled",
                    ));
                }
                tf.totp_pending_secret = Some(pending);
                users::save_two_factor(conn, user_id, &tf)?;
                Ok(())
            })
            .await?;
        Ok(TotpSetup {
            secret,
            qr_code_url: qr,
        })
    }

    /// Turns the authenticator app on with a first code from it.
    pub async fn complete_totp(&self, user: &User, otp: &str, now: DateTime<Utc>) -> ServiceResult<Enabled> {
        // Counted before the check, forgiven unless the code was wrong.
        let account = format!("user:{}", user.id);
        self.limits.session_code_checks.hit(&account)?;
        let otp = otp.trim().to_owned();
        let unix = u64::try_from(now.timestamp()).unwrap_or_default();
        let result = self
            .change_two_factor(user, true, now, move |_, tf| {
                let pending = tf.totp_pending_secret.clone().ok_or_else(|| {
                    rejected(
                        ErrorCode::TotpSetupNotStarted,
                        "Start the authenticator app setup first",
                    )
                })?;
                let step = totp::verify(&pending, &otp, unix, 0)
                    .ok_or_else(|| rejected(ErrorCode::InvalidCode, "Invalid verification code"))?;
                tf.totp_secret = Some(pending);
                tf.totp_pending_secret = None;
                tf.totp_last_step = step;
                Ok(())
            })
            .await;
        if !is_problem(&result, ErrorCode::InvalidCode) {
            self.limits.session_code_checks.forgive(&account);
        }
        let (codes, token, tf) = result?;
        Ok(Enabled {
            backup_codes: codes,
            token,
            methods: methods_of(&tf),
        })
    }

    /// Turns off one method (`Some`) or all of them (`None`); a valid backup code is required
    /// either way, and is used up.
    pub async fn disable(
        &self,
        user: &User,
        method: Option<&str>,
        backup_code: &str,
        now: DateTime<Utc>,
    ) -> ServiceResult<Disabled> {
        let backup_code = codes::normalize_backup_code(backup_code.trim());
        if backup_code.is_empty() {
            return Err(rejected(
                ErrorCode::BackupCodeRequired,
                "Please enter a backup code",
            ));
        }
        let method = method.map(TwoFactorMethod::parse).transpose()?;
        let account = format!("user:{}", user.id);
        self.limits.session_code_checks.hit(&account)?;
        let key = self.key.to_vec();
        let user_id = user.id;
        let result = self
            .change_two_factor(user, false, now, move |conn, tf| {
                match method {
                    Some(m) if !tf.methods().contains(&m.as_str()) => {
                        return Err(rejected(
                            ErrorCode::MethodNotEnabled,
                            "This method is not enabled",
                        ));
                    }
                    None if !tf.enabled() => {
                        return Err(rejected(
                            ErrorCode::TwoFactorNotEnabled,
                            "Two-factor authentication is not enabled",
                        ));
                    }
                    _ => {}
                }
                if !use_backup_code(conn, &key, user_id, &backup_code, now)? {
                    return Err(rejected(ErrorCode::InvalidBackupCode, "Invalid backup code"));
                }
                if matches!(method, None | Some(TwoFactorMethod::Email)) {
                    tf.email_enabled = false;
                }
                if matches!(method, None | Some(TwoFactorMethod::Totp)) {
                    tf.totp_secret = None;
                    tf.totp_pending_secret = None;
                }
                Ok(())
            })
            .await;
        if !is_problem(&result, ErrorCode::InvalidBackupCode) {
            self.limits.session_code_checks.forgive(&account);
        }
        let (_, token, tf) = result?;
        Ok(Disabled {
            token,
            methods: methods_of(&tf),
            preference: preference_of(&tf),
        })
    }

    /// Turns everything off: the password and a backup code are both required.
    pub async fn disable_all(
        &self,
        client: &str,
        user: &User,
        method: Option<&str>,
        backup_code: &str,
        password: String,
        now: DateTime<Utc>,
    ) -> ServiceResult<Disabled> {
        if backup_code.trim().is_empty() {
            return Err(rejected(
                ErrorCode::BackupCodeRequired,
                "Please enter a backup code",
            ));
        }
        self.confirm_password(client, user, password).await?;
        self.disable(user, method, backup_code, now).await
    }

    /// The method offered first at sign-in.
    pub async fn set_preference(&self, user_id: i64, preference: String) -> ServiceResult<Preference> {
        let tf = self
            .db
            .write(move |conn| {
                let mut tf = users::two_factor(conn, user_id)?;
                if !tf.methods().contains(&preference.as_str()) {
                    return Err(rejected(
                        ErrorCode::MethodNotEnabled,
                        "That method is not enabled",
                    ));
                }
                tf.preferred_method = Some(preference);
                users::save_two_factor(conn, user_id, &tf)?;
                Ok(tf)
            })
            .await?;
        Ok(Preference {
            preference: preference_of(&tf),
            methods: methods_of(&tf),
        })
    }

    /// A fresh set of backup codes (the password was asked); the old ones stop working.
    pub async fn regenerate_backup_codes(
        &self,
        client: &str,
        user: &User,
        password: String,
    ) -> ServiceResult<BackupCodes> {
        self.confirm_password(client, user, password).await?;
        let key = self.key.to_vec();
        let user_id = user.id;
        let codes = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                if !users::two_factor(&tx, user_id)?.enabled() {
                    return Err(rejected(
                        ErrorCode::TwoFactorNotEnabled,
                        "Enable two-factor authentication first",
                    ));
                }
                let codes = new_backup_codes(&tx, &key, user_id)?;
                tx.commit()?;
                Ok(codes)
            })
            .await?;
        Ok(BackupCodes { backup_codes: codes })
    }
}

/// Whether a result is the refusal with this code (a wrong code counts as a failed try).
fn is_problem<T>(result: &ServiceResult<T>, code: ErrorCode) -> bool {
    matches!(
        result,
        Err(ServiceError::Invalid(p)) if p.code == code
    )
}
