import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { LinkedIdentity } from '../../api/oidc';
import { FlashMessage } from '../../components/FlashMessage';
import { ConfirmDialog } from '../../components/medications/ConfirmDialog';
import { useMedsFormat } from '../../components/medications/useMedsFormat';
import { useFlash } from '../../components/useFlash';
import { errorText } from '../../i18n/messages';
import { useOidcIdentitiesQuery, useUnlinkOidcIdentity } from '../../queries/oidc';

const labelOf = (identity: LinkedIdentity) => identity.label ?? identity.issuer;

/**
 * Settings → Security → Linked sign-ins: the identity provider's identities linked to the
 * account (provider, address, linked on, last used), each unlinked after a confirmation. The
 * server refuses to unlink the account's only way to sign in, and the card says why.
 * Shown only when an identity is linked.
 */
export function LinkedSignInsCard() {
  const { t } = useTranslation();
  const query = useOidcIdentitiesQuery();
  const unlink = useUnlinkOidcIdentity();
  const [unlinking, setUnlinking] = useState<LinkedIdentity | null>(null);
  const [flash, showFlash] = useFlash();
  const format = useMedsFormat();
  const identities = query.data;

  if (query.isPending || (identities?.length === 0 && flash === null)) return null;

  const confirmUnlink = async () => {
    if (!unlinking) return;
    try {
      await unlink.mutateAsync(unlinking.id);
    } catch (error) {
      throw new Error(errorText(t, error, 'security:identities.unlinkFailed'), { cause: error });
    }
    showFlash('success', t('security:identities.unlinked', { provider: labelOf(unlinking) }));
    setUnlinking(null);
  };

  return (
    <section className="card" aria-labelledby="linked-sign-ins-title" data-testid="linked-sign-ins">
      <h3 id="linked-sign-ins-title">{t('security:identities.heading')}</h3>
      <p className="card-text">{t('security:identities.hint')}</p>
      <FlashMessage flash={flash} />
      {query.isError && (
        <p className="form-error" role="alert">
          {errorText(t, query.error, 'security:identities.loadFailed')}
        </p>
      )}
      {identities?.length === 0 && <p className="muted">{t('security:identities.none')}</p>}
      {identities && identities.length > 0 && (
        <ul className="channel-list">
          {identities.map((identity) => (
            <li key={identity.id} className="channel-row" data-testid="linked-sign-in">
              <div className="channel-heading">
                <h4 className="channel-name">{labelOf(identity)}</h4>
              </div>
              <dl className="token-facts">
                <dt>{t('security:identities.provider')}</dt>
                <dd className="mono">{identity.issuer}</dd>
                <dt>{t('security:identities.email')}</dt>
                <dd>{identity.email ?? '—'}</dd>
                <dt>{t('security:identities.linked')}</dt>
                <dd>{format.dateTime(identity.linked_at)}</dd>
                <dt>{t('security:identities.lastUsed')}</dt>
                <dd>
                  {identity.last_used_at
                    ? format.dateTime(identity.last_used_at)
                    : t('security:identities.neverUsed')}
                </dd>
              </dl>
              <div className="button-row">
                <button
                  type="button"
                  className="button button-secondary button-small"
                  onClick={() => setUnlinking(identity)}
                >
                  {t('security:identities.unlink')}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}

      {unlinking && (
        <ConfirmDialog
          title={t('security:identities.unlinkTitle')}
          confirmLabel={t('security:identities.unlink')}
          busyLabel={t('security:identities.unlinking')}
          onConfirm={confirmUnlink}
          onClose={() => setUnlinking(null)}
        >
          <p>
            {t('security:identities.unlinkText', {
              provider: labelOf(unlinking),
              email: unlinking.email ?? unlinking.issuer,
            })}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
