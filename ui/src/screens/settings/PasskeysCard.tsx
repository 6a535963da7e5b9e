import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { Passkey } from '../../api/passkeys';
import { passkeyErrorText } from '../../auth/passkeyErrors';
import { passkeysSupported } from '../../auth/webauthn';
import { Dialog } from '../../components/Dialog';
import { FlashMessage } from '../../components/FlashMessage';
import { FormDialogActions } from '../../components/FormDialogActions';
import { TextField } from '../../components/TextField';
import { ConfirmDialog } from '../../components/medications/ConfirmDialog';
import { useMedsFormat } from '../../components/medications/useMedsFormat';
import { useFlash } from '../../components/useFlash';
import { errorText } from '../../i18n/messages';
import { useSignInProvidersQuery } from '../../queries/account';
import { useAddPasskey, useDeletePasskey, usePasskeysQuery } from '../../queries/passkeys';

/** The longest name the server accepts (services::passkeys). */
const NAME_MAX = 64;

/**
 * Settings → Security → Passkeys: each passkey with when it was added and last used; adding
 * one (a name, then the browser's passkey prompt) and deleting one after asking. Without
 * passkeys on the server (no public_url) the card says so instead of offering to add one.
 */
export function PasskeysCard() {
  const { t } = useTranslation();
  const providers = useSignInProvidersQuery();
  const offered = providers.data?.passkeys === true;
  const query = usePasskeysQuery(offered);
  const remove = useDeletePasskey();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Passkey | null>(null);
  const [flash, showFlash, clearFlash] = useFlash();
  const passkeys = offered ? query.data : undefined;
  const unavailable = providers.data !== undefined && !offered;

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
    } catch (error) {
      throw new Error(errorText(t, error, 'security:passkeys.deleteFailed'), { cause: error });
    }
    showFlash('success', t('security:passkeys.deleted', { name: deleting.name }));
    setDeleting(null);
  };

  return (
    <section className="card" aria-labelledby="passkeys-title" data-testid="passkeys">
      <h3 id="passkeys-title">{t('security:passkeys.heading')}</h3>
      <p className="card-text">{t('security:passkeys.hint')}</p>
      <FlashMessage flash={flash} />
      {(providers.isPending || (offered && query.isPending)) && <p className="muted">{t('common.loading')}</p>}
      {offered && query.isError && (
        <p className="form-error" role="alert">
          {errorText(t, query.error, 'security:passkeys.loadFailed')}
        </p>
      )}
      {passkeys?.length === 0 && <p className="muted">{t('security:passkeys.none')}</p>}
      {passkeys && passkeys.length > 0 && (
        <ul className="channel-list" data-testid="passkey-list">
          {passkeys.map((passkey) => (
            <PasskeyRow key={passkey.id} passkey={passkey} onDelete={() => setDeleting(passkey)} />
          ))}
        </ul>
      )}
      {unavailable && (
        <p className="muted" data-testid="passkeys-unavailable">
          {t('server.passkeysNotConfigured')}
        </p>
      )}
      {offered && !passkeysSupported() && <p className="muted">{t('passkeys.browser.unsupported')}</p>}
      {offered && (
        <div className="button-row">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => {
              clearFlash();
              setAdding(true);
            }}
            disabled={!passkeys}
          >
            {t('security:passkeys.add')}
          </button>
        </div>
      )}

      {adding && (
        <AddPasskeyDialog
          onClose={() => setAdding(false)}
          onAdded={(passkey) => {
            setAdding(false);
            showFlash('success', t('security:passkeys.added', { name: passkey.name }));
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={t('security:passkeys.deleteTitle')}
          confirmLabel={t('security:passkeys.delete')}
          busyLabel={t('security:passkeys.deleting')}
          onConfirm={confirmDelete}
          onClose={() => setDeleting(null)}
        >
          <p>{t('security:passkeys.deleteText', { name: deleting.name })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function PasskeyRow({ passkey, onDelete }: { passkey: Passkey; onDelete: () => void }) {
  const { t } = useTranslation();
  const format = useMedsFormat();
  return (
    <li className="channel-row" data-testid="passkey-row">
      <div className="channel-heading">
        <h4 className="channel-name">{passkey.name}</h4>
      </div>
      <dl className="token-facts">
        <dt>{t('security:passkeys.created')}</dt>
        <dd>{format.dateTime(passkey.created_at)}</dd>
        <dt>{t('security:passkeys.lastUsed')}</dt>
        <dd>{passkey.last_used_at ? format.dateTime(passkey.last_used_at) : t('security:passkeys.neverUsed')}</dd>
      </dl>
      <div className="button-row">
        <button type="button" className="button button-secondary button-small" onClick={onDelete}>
          {t('security:passkeys.delete')}
        </button>
      </div>
    </li>
  );
}

const FORM_ID = 'passkey-form';

/**
 * Asks the passkey's name and the account password (a stolen session must not add a way in),
 * then lets the browser make the passkey and stores it.
 */
function AddPasskeyDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (passkey: Passkey) => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const add = useAddPasskey();
  const busy = add.isPending;
  const reason = name.trim() === '' ? t('server.passkeyNameRequired') : null;
  const error = add.error ? passkeyErrorText(t, add.error, 'security:passkeys.addFailed') : null;

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (reason !== null) return;
    add.mutate({ name: name.trim(), password }, { onSuccess: onAdded });
  };

  return (
    <Dialog
      title={t('security:passkeys.addTitle')}
      onClose={busy ? undefined : onClose}
      actions={
        <FormDialogActions
          formId={FORM_ID}
          busy={busy}
          submitLabel={t('security:passkeys.addSubmit')}
          busyLabel={t('security:passkeys.waiting')}
          disabledReason={reason}
          onCancel={onClose}
        />
      }
    >
      <form id={FORM_ID} className="form form-tight" onSubmit={submit}>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <TextField
          id="passkey-name"
          label={t('security:passkeys.name')}
          value={name}
          onChange={setName}
          maxLength={NAME_MAX}
          required
          hint={t('security:passkeys.nameHint')}
          autoFocus
        />
        <TextField
          id="passkey-password"
          label={t('security:passkeys.password')}
          value={password}
          onChange={setPassword}
          type="password"
          autoComplete="current-password"
          hint={t('security:passkeys.passwordHint')}
        />
      </form>
    </Dialog>
  );
}
