import { useMemo, useSyncExternalStore } from 'react';
import i18n, { type I18n, type Namespace, type TFunction } from '.';

/**
 * The texts of a component's namespaces (the shell's unless named; `t` reads the first, and
 * `t('other:key')` another's), in the language shown. The component renders again when the
 * language changes. Until its texts are in it suspends (the nearest Suspense shows its
 * fallback), or with `useSuspense: false` renders at once with `ready` false.
 */
export function useTranslation(
  namespaces: Namespace | readonly Namespace[] = 'translation',
  options: { useSuspense?: boolean } = {},
): { t: TFunction; i18n: I18n; ready: boolean } {
  const list: readonly Namespace[] = typeof namespaces === 'string' ? [namespaces] : namespaces;
  // Renders again when the language changes or its own namespaces arrive, not when another
  // screen's do (a new `t` would re-run every effect that depends on it).
  const state = useSyncExternalStore(
    i18n.subscribe,
    () => `${i18n.language}|${list.map((namespace) => (i18n.hasLoaded(namespace) ? 1 : 0)).join('')}`,
  );
  const language = i18n.language;
  const ready = list.every((namespace) => i18n.hasLoaded(namespace));
  if (!ready) {
    // The index's loads are shared: a render asking again waits for the same fetches.
    const loaded = i18n.loadNamespaces(list);
    // Suspense's protocol: the nearest boundary waits for the thrown promise.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (options.useSuspense !== false) throw loaded;
  }
  const first = list[0] ?? 'translation';
  // A new function when the language or the texts change, so that what depends on it updates.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const t = useMemo(() => i18n.getFixedT(language, first), [language, first, state]);
  return { t, i18n, ready };
}
