import { useId, type ReactNode, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { DeliveryMethod } from '../../api/notifications';
import { DisabledReason, disabledBecause } from '../DisabledReason';
import { Dialog } from '../Dialog';
import { FlashMessage } from '../FlashMessage';
import type { PreferencesActions } from './usePreferencesActions';
import '../../styles/preferences.css';

const TEST_REASON_ID = 'prefs-test-needs-method';
const WAIT_REASON_ID = 'prefs-waiting';
const LOADING_ID = 'prefs-loading';
const LOAD_ERROR_ID = 'prefs-load-error';

interface PreferencesDialogFrameProps {
  title: string;
  actions: PreferencesActions;
  /** The preferences have loaded: before that, nothing can be saved (SPEC §5). */
  loaded: boolean;
  loadError: string | null;
  /** The methods a test notification would use; none disables Test Notification (SPEC §5). */
  testMethods: readonly DeliveryMethod[];
  onSave: () => void;
  onClose: () => void;
  children: ReactNode;
}

/**
 * What both modes of the preferences dialog share: loading, the messages, and the buttons
 * Save Settings, Test Notification and Cancel (SPEC §2). A click on the backdrop closes it.
 */
export function PreferencesDialogFrame({
  title,
  actions,
  loaded,
  loadError,
  testMethods,
  onSave,
  onClose,
  children,
}: PreferencesDialogFrameProps) {
  const { t } = useTranslation('notifyPrefs');
  const formId = useId();
  const { busy, closing } = actions;
  const idle = loaded && busy === null && !closing;

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (idle) onSave();
  };

  const testReason = loaded && testMethods.length === 0 ? t('dialog.testNeedsMethod') : null;
  // Why the buttons wait: the preferences are not there yet (the loading line or the error
  // says so), or the other button's save or test is under way.
  const notLoaded = loaded
    ? null
    : loadError
      ? disabledBecause(LOAD_ERROR_ID, loadError)
      : disabledBecause(LOADING_ID, t('dialog.loading'));
  const waiting = busy === 'save' ? t('dialog.waitSaving') : busy === 'test' ? t('dialog.waitTesting') : null;
  const waitingFor = (own: 'save' | 'test' | null) => disabledBecause(WAIT_REASON_ID, busy === own ? null : waiting);

  return (
    <Dialog
      title={title}
      onClose={busy === null ? onClose : undefined}
      closeOnBackdrop
      className="prefs-dialog"
      actions={
        <>
          <button
            type="submit"
            form={formId}
            className="button button-primary"
            disabled={!idle}
            {...(notLoaded ?? waitingFor('save'))}
          >
            {busy === 'save' ? t('dialog.saving') : t('dialog.save')}
          </button>
          <button
            type="button"
            className="button button-secondary"
            disabled={!idle || testMethods.length === 0}
            {...(notLoaded ?? (testReason ? disabledBecause(TEST_REASON_ID, testReason) : waitingFor('test')))}
            onClick={() => void actions.test(testMethods)}
          >
            {busy === 'test' ? t('dialog.testing') : t('dialog.test')}
          </button>
          <button
            type="button"
            className="button button-secondary"
            onClick={onClose}
            disabled={busy !== null}
            {...waitingFor(null)}
          >
            {t('dialog.cancel')}
          </button>
          <DisabledReason id={TEST_REASON_ID} reason={testReason} />
          <DisabledReason id={WAIT_REASON_ID} reason={waiting} />
        </>
      }
    >
      {loadError && (
        <p className="form-error" role="alert" id={LOAD_ERROR_ID}>
          {loadError}
        </p>
      )}
      {!loadError && !loaded && (
        <p className="muted" role="status" id={LOADING_ID}>
          {t('dialog.loading')}
        </p>
      )}
      {loaded && (
        <form id={formId} className="form form-tight prefs-form" noValidate onSubmit={submit}>
          {children}
        </form>
      )}
      <FlashMessage flash={actions.notice} />
      {actions.failedChannels.length > 0 && (
        <ul className="prefs-channel-problems" data-testid="test-channel-problems">
          {actions.failedChannels.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}
