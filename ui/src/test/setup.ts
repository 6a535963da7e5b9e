// What the app's main.tsx installs before anything renders.
import '../reactOnPreact';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { setOffline } from '../api/connectivity';
import { parseUnitList } from '../api/units';
import i18n, { NAMESPACES } from '../i18n';
import { LANGUAGES } from '../settings/appSettings';
import { setUnitCatalogue } from '../medications/unitCatalogue';
import units from './fixtures/units.json';

// The app fetches a language's texts when it is chosen; tests have all of them from the start,
// so a test that switches language sees the new texts at once.
await i18n.loadNamespaces(NAMESPACES);
await i18n.loadLanguages([...LANGUAGES]);

// findBy… and waitFor give up after 1 s by default: a screen that appears in milliseconds
// alone can take longer on a busy two-core machine running two test files at once. The
// longer wait only delays a failure; it lets nothing pass that would not appear.
configure({ asyncUtilTimeout: 5000 });

// Every test starts where the app is after its first GET /api/units: with the server's
// catalogue (the fixture is that answer, taken from the binary).
const serverCatalogue = parseUnitList(units.data) ?? [];
setUnitCatalogue(serverCatalogue);

// Test files share one module registry (`isolate: false` in vite.config.ts), so whatever a test
// may change at module level is put back here, for the next test in this file or the next file.
afterEach(async () => {
  cleanup();
  vi.useRealTimers();
  setUnitCatalogue(serverCatalogue);
  localStorage.clear();
  setOffline(false);
  document.documentElement.className = '';
  await i18n.changeLanguage('en');
});
