import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig, type Plugin } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';

const require = createRequire(import.meta.url);

/**
 * Redoc's standalone bundle (and its licence notices) for the server's API reference page,
 * /api/docs, which loads /api-docs/redoc.standalone.js: embedded with the app, so the page
 * works without a CDN.
 */
function redocBundle(): Plugin {
  return {
    name: 'pillbox-redoc-bundle',
    apply: 'build',
    generateBundle() {
      for (const file of ['redoc.standalone.js', 'redoc.standalone.js.LICENSE.txt']) {
        const source = readFileSync(require.resolve(`redoc/bundles/${file}`));
        this.emitFile({ type: 'asset', fileName: `api-docs/${file}`, source });
      }
    },
  };
}

// `pillbox serve` listens here by default; API_PROXY_TARGET points `vite` and `vite preview`
// at another instance.
const devServer = process.env.API_PROXY_TARGET ?? 'http://127.0.0.1:3001';

export default defineConfig({
  plugins: [
    react(),
    redocBundle(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      // main.tsx registers /sw.js itself: no inline script, which the server's CSP forbids.
      injectRegister: false,
      // The manifest is a static file in public/ and linked from index.html.
      manifest: false,
      injectManifest: {
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'],
        // The API reference is a page of the server, not of the app: never precached.
        globIgnores: ['api-docs/**'],
        rollupFormat: 'iife',
      },
    }),
  ],
  build: {
    // dist/.vite/manifest.json: which files each route loads, for the bundle budget
    // (scripts/bundle-budget.mjs) and benchmarks/ui_bundle.py.
    manifest: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // The libraries every screen runs on, in one file: compressed together and fetched in
          // one request. Everything else splits by route (App.tsx).
          groups: [
            {
              name: 'vendor',
              test: /node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom|i18next|react-i18next|@tanstack[\\/][^\\/]+|use-sync-external-store)[\\/]/,
              priority: 3,
            },
            {
              // The app's start-up code (what index.html's script imports), apart from the
              // group below so that the sign-in page never loads the signed-in screens' code.
              name: 'start',
              tags: ['$initial'],
              test: /[\\/]src[\\/]/,
              priority: 2,
            },
            {
              // What two or more screens share, in one file rather than dozens of small ones:
              // a browser opening Today fetches a handful of files, not forty.
              name: 'screens',
              test: /[\\/]src[\\/]/,
              minShareCount: 2,
              priority: 1,
            },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': devServer,
      '/health': devServer,
      '/migrations': devServer,
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
    // Screen tests render a whole screen and walk a flow through it; on a busy two-core CI
    // machine 5 s (the default) was seen to cut off flows that pass in under one.
    testTimeout: 15_000,
    unstubGlobals: true,
    // Vitest leaves one core to itself by default, which on a two-core machine means one
    // test file at a time; its own work is light next to rendering screens in jsdom.
    maxWorkers: availableParallelism(),
    // One module registry and DOM per worker instead of one per file: a fresh jsdom and
    // import graph for each of the 55 files took 145 s of a 147 s run; shared, the suite takes
    // 60 s. What a test may leave behind (DOM, storage, language, timers, unit catalogue) is
    // reset after every test in src/test/setup.ts; runs in shuffled file order pass the same.
    isolate: false,
  },
});
