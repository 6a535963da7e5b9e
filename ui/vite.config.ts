import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
  },
});
