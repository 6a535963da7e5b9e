import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { setOffline } from '../api/connectivity';
import { parseUnitList } from '../api/units';
import i18n from '../i18n';
import { setUnitCatalogue } from '../medications/unitCatalogue';
import units from './fixtures/units.json';

// findBy… and waitFor give up after 1 s by default: a screen that appears in milliseconds
// alone can take longer on a busy two-core machine running two test files at once. The
// longer wait only delays a failure; it lets nothing pass that would not appear.
configure({ asyncUtilTimeout: 5000 });

// Every test starts where the app is after its first GET /api/units: with the server's
// catalogue (the fixture is that answer, taken from the binary).
setUnitCatalogue(parseUnitList(units.data) ?? []);

afterEach(async () => {
  cleanup();
  localStorage.clear();
  setOffline(false);
  document.documentElement.className = '';
  await i18n.changeLanguage('en');
});
