import { useTranslation } from '../../../i18n/useTranslation';
import { Link } from 'react-router-dom';
import type { ExportFormat } from '../../../api/data';
import { DisabledReason, disabledBecause } from '../../../components/DisabledReason';
import { FlashMessage } from '../../../components/FlashMessage';
import { DownloadIcon } from '../../../components/icons';
import { saveFile } from '../../../components/saveFile';
import { useFlash } from '../../../components/useFlash';
import { useDownloadExport } from '../../../queries/account';

const EXPORTS = [
  { format: 'json', label: 'export.json', primary: true },
  { format: 'csv', label: 'export.csv', primary: false },
  { format: 'fhir', label: 'export.fhir', primary: false },
] as const satisfies readonly { format: ExportFormat; label: string; primary: boolean }[];

/** Export Data (JSON), the history as CSV, the record as FHIR, and the way to the doctor report. */
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
          {EXPORTS.map(({ format, label, primary }) => (
            <button
              key={format}
              type="button"
              className={primary ? 'button button-primary' : 'button button-secondary'}
              disabled={busy !== null}
              {...disabledBecause('export-waiting', busy !== null && busy !== format ? waitOther : null)}
              onClick={() => void exportAs(format)}
            >
              <DownloadIcon />
              <span>{busy === format ? t('export.working') : t(label)}</span>
            </button>
          ))}
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
