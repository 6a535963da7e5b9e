import { useTranslation } from '../../../i18n/useTranslation';
import { CopyButton } from '../../../components/CopyButton';

/** The link that binds a Telegram chat: opened in Telegram, or copied to open elsewhere. */
export function TelegramLink({ url }: { url: string }) {
  const { t } = useTranslation('notifyPrefs');
  return (
    <div className="channel-link" data-testid="telegram-link">
      <div className="button-row">
        <a className="button button-primary button-small" href={url} target="_blank" rel="noopener noreferrer">
          {t('channels.openTelegram')}
        </a>
        <CopyButton text={url} label={t('channels.copyLink')} />
      </div>
      <p className="field-hint">{t('channels.linkHint')}</p>
    </div>
  );
}
