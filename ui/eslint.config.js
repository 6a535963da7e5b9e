import js from '@eslint/js';
import i18next from 'eslint-plugin-i18next';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist', 'dev-dist', 'node_modules', 'test-results', 'playwright-report'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.strictTypeChecked],
    languageOptions: {
      ecmaVersion: 2022,
      globals: globals.browser,
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },
  {
    // Text people read comes from the translations: no words written into JSX.
    files: ['src/**/*.tsx'],
    ignores: ['src/**/*.test.tsx', 'src/test/**'],
    plugins: { i18next },
    rules: { 'i18next/no-literal-string': ['error', { mode: 'jsx-text-only' }] },
  },
  {
    // Every server call goes through queries/ (TanStack Query, or the few plain functions
    // there whose calls are no query or mutation: the start-up settings sync, the unit
    // catalogue, the push subscription). Outside api/ and queries/ a module takes from api/
    // only types and the values below, which call nothing. The one named exception is the
    // sign-in flow, which holds the session itself.
    files: ['src/**/*.{ts,tsx}'],
    ignores: [
      'src/api/**',
      'src/queries/**',
      'src/**/*.test.{ts,tsx}',
      'src/test/**',
      // The session: restored, refreshed, signed in and out, for the whole app.
      'src/auth/AuthProvider.tsx',
      // The password step's calls in sequence (requirements, then sign-in), run by AuthProvider.
      'src/auth/loginFlow.ts',
      'src/auth/passkeySignIn.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // The modules that call the server (and the session store); the other modules
              // of api/ (types, paths, connectivity) call nothing and are free to import.
              regex:
                '^(\\.{1,2}/)+api(/(index|http|client|session|auth|twoFactor|calendar|channels|data|history|medications|notificationPrefs|notifications|people|settings|take|units|version))?$',
              allowTypeImports: true,
              // Plain values of those modules: error classes, constants and pure helpers.
              allowImportNames: [
                'ApiError',
                'NETWORK_ERROR_MESSAGE',
                'isJsonObject',
                'TWO_FACTOR_METHODS',
                'DELIVERY_METHODS',
                'channelIdOf',
                'channelResultsOf',
                'CHANNEL_KINDS',
                'WEBHOOK_EVENTS',
                'UNIT_CATEGORIES',
                'SNOOZE_MINUTES',
                'IMPORT_LIMIT_BYTES',
                // Checks the catalogue this browser kept (unitCatalogue.ts), not an answer.
                'parseUnitList',
              ],
              message:
                'Server calls go through src/queries/ (a query or a mutation); from src/api/ take only types and plain values.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/sw.ts'],
    languageOptions: { globals: globals.serviceworker },
  },
  {
    files: ['*.config.ts', 'e2e/**/*.ts'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.{js,mjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
);
