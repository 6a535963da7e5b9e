import { useTranslation } from '../i18n/useTranslation';
import { CopyButton } from './CopyButton';
import { Dialog } from './Dialog';

/** The ten one-time codes in a monospace grid, with Copy and the advice to keep them safe. */
export function BackupCodesList({ codes }: { codes: string[] }) {
  const { t } = useTranslation();
  return (
    <div className="backup-codes">
      <p className="note">{t('twoFactor.backupCodes.note')}</p>
      <ul className="backup-code-grid" aria-label={t('twoFactor.backupCodes.listLabel')} data-testid="backup-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <CopyButton text={codes.join('\n')} label={t('twoFactor.backupCodes.copy')} />
    </div>
  );
}

interface BackupCodesDialogProps {
  title: string;
  intro: string;
  codes: string[];
  onClose: () => void;
}

export function BackupCodesDialog({ title, intro, codes, onClose }: BackupCodesDialogProps) {
  const { t } = useTranslation();
  return (
    <Dialog
      title={title}
      onClose={onClose}
      actions={
        <button type="button" className="button button-primary" onClick={onClose} data-autofocus>
          {t('twoFactor.backupCodes.saved')}
        </button>
      }
    >
      <p>{intro}</p>
      <BackupCodesList codes={codes} />
    </Dialog>
  );
}
