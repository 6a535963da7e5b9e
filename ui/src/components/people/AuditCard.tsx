import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { AUDIT_ACTIONS, AUDIT_PAGE_SIZE, type AuditEntry } from '../../api/peopleTypes';
import { circleErrorText } from '../../people/errors';
import { useAuditQuery } from '../../queries/people';
import { DisabledReason, disabledBecause } from '../DisabledReason';
import { ScreenStatus } from '../medications/ScreenStatus';
import { useMedsFormat } from '../medications/useMedsFormat';

/** An action in words; one this build does not know reads as the server wrote it. */
function useActionText(): (entry: AuditEntry) => string {
  const { t } = useTranslation('circle');
  return (entry) =>
    AUDIT_ACTIONS.some((action) => action === entry.action)
      ? t(`audit.actions.${entry.action.replace('.', '_')}`)
      : entry.action;
}

/** A person's audit list: carers' doses and changes, and changes to the circle, newest first. */
export function AuditCard({ personId }: { personId: number }) {
  const { t } = useTranslation('circle');
  const format = useMedsFormat();
  const [page, setPage] = useState(1);
  const query = useAuditQuery(personId, page);
  const actionText = useActionText();
  const entries = query.data ?? null;
  const hasNewer = page > 1;
  const hasOlder = (entries?.length ?? 0) >= AUDIT_PAGE_SIZE;
  // While a page loads the buttons wait; the first and last pages' own ends need no words.
  const waiting = query.isFetching ? t('audit.pageLoading') : null;

  return (
    <section className="card" aria-labelledby="audit-title" data-testid="audit-card">
      <h2 id="audit-title" className="card-heading">
        {t('audit.title')}
      </h2>
      <p className="card-text">{t('audit.intro')}</p>
      <ScreenStatus
        loading={query.isPending}
        error={query.error ? circleErrorText(query.error, 'audit.loadFailed') : null}
        onRetry={() => void query.refetch()}
      />
      {entries?.length === 0 && page === 1 && <p className="muted">{t('audit.empty')}</p>}
      {entries && entries.length > 0 && (
        <ul className="audit-list" data-testid="audit-list" aria-busy={query.isFetching}>
          {entries.map((entry) => (
            <li key={entry.id} className="audit-entry" data-testid="audit-entry">
              <time dateTime={entry.created_at} className="muted">
                {format.dateTime(entry.created_at)}
              </time>
              <span>
                <strong>{entry.actor_name}</strong> {actionText(entry)}
                {entry.subject !== '' && <>: {entry.subject}</>}
              </span>
            </li>
          ))}
        </ul>
      )}
      {(hasNewer || hasOlder) && (
        <div className="button-row">
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={!hasNewer || query.isFetching}
            {...disabledBecause('audit-page-loading', hasNewer ? waiting : null)}
            onClick={() => setPage((p) => Math.max(1, p - 1))}
          >
            {t('audit.newer')}
          </button>
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={!hasOlder || query.isFetching}
            {...disabledBecause('audit-page-loading', hasOlder ? waiting : null)}
            onClick={() => setPage((p) => p + 1)}
          >
            {t('audit.older')}
          </button>
        </div>
      )}
      {(hasNewer || hasOlder) && <DisabledReason id="audit-page-loading" reason={waiting} />}
    </section>
  );
}
