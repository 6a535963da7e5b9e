import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { ApiToken } from '../../api/tokens';
import { FlashMessage } from '../../components/FlashMessage';
import { ConfirmDialog } from '../../components/medications/ConfirmDialog';
import { useMedsFormat } from '../../components/medications/useMedsFormat';
import { useFlash } from '../../components/useFlash';
import { errorText } from '../../i18n/messages';
import { useApiTokensQuery, useRevokeApiToken } from '../../queries/tokens';
import { CreateApiTokenDialog } from './CreateApiTokenDialog';
import { TOKEN_CODE_KEYS } from './apiTokenTexts';

/**
 * Settings → Security → API tokens: what each token may do and for whom, when it was made,
 * last used and when it expires; making one (its secret shown once) and revoking one.
 */
export function ApiTokensCard() {
  const { t } = useTranslation();
  const query = useApiTokensQuery();
  const revoke = useRevokeApiToken();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const [flash, showFlash] = useFlash();
  const tokens = query.data;

  const confirmRevoke = async () => {
    if (!revoking) return;
    try {
      await revoke.mutateAsync(revoking.id);
    } catch (error) {
      throw new Error(errorText(t, error, 'security:tokens.revokeFailed', undefined, TOKEN_CODE_KEYS), {
        cause: error,
      });
    }
    showFlash('success', t('security:tokens.revoked', { name: revoking.name }));
    setRevoking(null);
  };

  return (
    <section className="card" aria-labelledby="api-tokens-title" data-testid="api-tokens">
      <h3 id="api-tokens-title">{t('security:tokens.heading')}</h3>
      <p className="card-text">{t('security:tokens.hint')}</p>
      <FlashMessage flash={flash} />
      {query.isPending && <p className="muted">{t('common.loading')}</p>}
      {query.isError && (
        <p className="form-error" role="alert">
          {errorText(t, query.error, 'security:tokens.loadFailed', undefined, TOKEN_CODE_KEYS)}
        </p>
      )}
      {tokens?.length === 0 && <p className="muted">{t('security:tokens.none')}</p>}
      {tokens && tokens.length > 0 && (
        <ul className="channel-list" data-testid="api-token-list">
          {tokens.map((token) => (
            <TokenRow key={token.id} token={token} onRevoke={() => setRevoking(token)} />
          ))}
        </ul>
      )}
      <div className="button-row">
        <button type="button" className="button button-secondary" onClick={() => setCreating(true)} disabled={!tokens}>
          {t('security:tokens.create')}
        </button>
      </div>

      {creating && <CreateApiTokenDialog onClose={() => setCreating(false)} />}
      {revoking && (
        <ConfirmDialog
          title={t('security:tokens.revokeTitle')}
          confirmLabel={t('security:tokens.revoke')}
          busyLabel={t('security:tokens.revoking')}
          onConfirm={confirmRevoke}
          onClose={() => setRevoking(null)}
        >
          <p>{t('security:tokens.revokeText', { name: revoking.name })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function TokenRow({ token, onRevoke }: { token: ApiToken; onRevoke: () => void }) {
  const { t } = useTranslation();
  const format = useMedsFormat();
  const people = token.people
    ? token.people.map((person) => person.name).join(', ')
    : t('security:tokens.everyone');
  return (
    <li className="channel-row" data-testid="api-token-row">
      <div className="channel-heading">
        <h4 className="channel-name">{token.name}</h4>
        <span className="badge badge-neutral" data-testid="api-token-scope">
          {t(`security:tokens.scopes.${token.scope}.name`)}
        </span>
      </div>
      <dl className="token-facts">
        <dt>{t('security:tokens.people')}</dt>
        <dd>{people}</dd>
        <dt>{t('security:tokens.created')}</dt>
        <dd>{format.dateTime(token.created_at)}</dd>
        <dt>{t('security:tokens.lastUsed')}</dt>
        <dd>{token.last_used_at ? format.dateTime(token.last_used_at) : t('security:tokens.neverUsed')}</dd>
        <dt>{t('security:tokens.expires')}</dt>
        <dd>{token.expires_at ? format.dateTime(token.expires_at) : t('security:tokens.neverExpires')}</dd>
      </dl>
      <div className="button-row">
        <button type="button" className="button button-secondary button-small" onClick={onRevoke}>
          {t('security:tokens.revoke')}
        </button>
      </div>
    </li>
  );
}
