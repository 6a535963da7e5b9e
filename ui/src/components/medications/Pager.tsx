import { useId } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { PagerState } from '../../medications/paging';
import { DisabledReason, disabledBecause } from '../DisabledReason';
import { ChevronIcon } from './MedicationIcon';

interface PagerProps {
  state: PagerState;
  onPage: (page: number) => void;
  /** A page is being loaded: the buttons wait, and say so. */
  loading?: boolean;
  /** What the pages are of, for screen readers (default: the history's). */
  label?: string;
}

/** Previous / "Page X of Y" / Next, with the number of entries ("at least" where the server
 * stopped counting a long list). */
export function Pager({ state, onPage, loading = false, label }: PagerProps) {
  const { t } = useTranslation('meds');
  const reasonId = useId();
  const waiting = loading ? t('history.pageLoading') : null;
  return (
    <nav className="pager" aria-label={label ?? t('history.pages')}>
      <p className="pager-summary" data-testid="pager-summary">
        {state.total === 0
          ? t('history.noEntries')
          : t(state.exact ? 'history.showing' : 'history.showingAtLeast', {
              first: state.firstItem,
              last: state.lastItem,
              count: state.total,
            })}
      </p>
      {state.showControls && (
        <div className="pager-controls">
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => onPage(state.page - 1)}
            disabled={loading || !state.hasPrevious}
            {...disabledBecause(reasonId, state.hasPrevious ? waiting : null)}
          >
            <ChevronIcon direction="left" />
            {t('history.previous')}
          </button>
          <span className="pager-position" aria-live="polite" data-testid="pager-position">
            {t(state.exact ? 'history.pageOf' : 'history.pageOfAtLeast', { page: state.page, pages: state.pages })}
          </span>
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => onPage(state.page + 1)}
            disabled={loading || !state.hasNext}
            {...disabledBecause(reasonId, state.hasNext ? waiting : null)}
          >
            {t('history.next')}
            <ChevronIcon direction="right" />
          </button>
        </div>
      )}
      <DisabledReason id={reasonId} reason={state.showControls ? waiting : null} />
    </nav>
  );
}
