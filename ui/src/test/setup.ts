import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { setOffline } from '../api/connectivity';
import i18n from '../i18n';

afterEach(async () => {
  cleanup();
  localStorage.clear();
  setOffline(false);
  document.documentElement.className = '';
  await i18n.changeLanguage('en');
});
