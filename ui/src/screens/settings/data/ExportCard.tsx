import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { ExportFormat } from '../../../api/data';
import { DisabledReason, disabledBecause } from '../../../components/DisabledReason';
import { FlashMessage } from '../../../components/FlashMessage';
import { DownloadIcon } from '../../../components/icons';
import { saveFile } from '../../../components/saveFile';
import { useFlash } from '../../../components/useFlash';
import { useDownloadExport } from '../../../queries/account';

/** Export Data (JSON), the history as CSV, and the way to the doctor report. */
export function ExportCard() {
  const { t } = useTranslation('data');
  const downloadExport = useDownloadExport();
  const busy = downloadExport.isPending ? downloadExport.variables : null;
  // SPEC §8: "Data exported successfully" / "Failed to export data", for 3 s / 5 s.
  const [flash, showFlash] = useFlash();

  const exportAs = async (format: ExportFormat) => {
    try {
      saveFile(await downloadExport.mutateAsync(format));
      showFlash('success', t('export.success'));
    } catch {
      showFlash('error', t('export.failed'));
    }
  };

  // One export at a time: the one being prepared says so on its button, the other says why it waits.
  const waitOther = busy === null ? null : t('export.waitOther');

  return (
    <>
      <section className="card" aria-labelledby="data-export-title">
        <h3 id="data-export-title">{t('export.title')}</h3>
        <p className="card-text">{t('export.text')}</p>
        <FlashMessage flash={flash} />
        <div className="button-row">
          <button
            type="button"
            className="button button-primary"
            disabled={busy !== null}
            {...disabledBecause('export-waiting', busy === 'csv' ? waitOther : null)}
            onClick={() => void exportAs('json')}
          >
            <DownloadIcon />
            <span>{busy === 'json' ? t('export.working') : t('export.json')}</span>
          </button>
          <button
            type="button"
            className="button button-secondary"
            disabled={busy !== null}
            {...disabledBecause('export-waiting', busy === 'json' ? waitOther : null)}
            onClick={() => void exportAs('csv')}
          >
            <DownloadIcon />
            <span>{busy === 'csv' ? t('export.working') : t('export.csv')}</span>
          </button>
        </div>
        <DisabledReason id="export-waiting" reason={waitOther} />
      </section>

      <section className="card" aria-labelledby="data-report-title">
        <h3 id="data-report-title">{t('export.reportTitle')}</h3>
        <p className="card-text">{t('export.reportText')}</p>
        <p>
          <Link className="button button-secondary" to="/report">
            {t('export.report')}
          </Link>
        </p>
      </section>
    </>
  );
}
