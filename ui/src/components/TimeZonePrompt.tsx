import { useTranslation } from '../i18n/useTranslation';
import { useZonePrompt } from '../medications/timezone';

/**
 * Asks before the person's time zone follows this device: shown when the browser's zone
 * differs from the stored one, until they choose.
 */
export function TimeZonePrompt() {
  const { t } = useTranslation();
  const prompt = useZonePrompt();
  const { question } = prompt;
  if (!question) return null;
  return (
    <section className="timezone-prompt" aria-labelledby="timezone-prompt-title" data-testid="timezone-prompt">
      <h2 id="timezone-prompt-title">{t('timeZone.title')}</h2>
      <p>{t('timeZone.question', { stored: question.stored, browser: question.browser })}</p>
      {prompt.failed && (
        <p className="form-error" role="alert">
          {t('timeZone.failed')}
        </p>
      )}
      <div className="button-row">
        <button
          type="button"
          className="button button-primary"
          disabled={prompt.busy}
          onClick={() => void prompt.accept()}
        >
          {prompt.busy ? t('timeZone.saving') : t('timeZone.switch', { zone: question.browser })}
        </button>
        <button type="button" className="button button-secondary" disabled={prompt.busy} onClick={prompt.decline}>
          {t('timeZone.keep', { zone: question.stored })}
        </button>
      </div>
    </section>
  );
}
