import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ChunkingContext, OutputChunk } from 'rolldown';
import { defineConfig, type Plugin } from 'vitest/config';
import { VitePWA } from 'vite-plugin-pwa';
import { TOKEN_KEY } from './src/api/session.ts';
import { NAMESPACE_FOLDERS, SCREEN_TEXTS, SIGNED_IN_FRAME, SIGNED_IN_ROUTES } from './src/firstScreens.ts';

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

/**
 * index.html's start-up scripts are asked for at low priority. The first paint (the app's icon,
 * drawn by index.html and the stylesheet alone) needs none of them, so the stylesheet gets the
 * connection first; the scripts still start downloading while the page is parsed, and run as
 * soon as they are in, as before. (Module scripts default to high priority, which Lighthouse's
 * simulated phone then charges to the first paint they do not hold up; see BENCHMARKS.md.)
 */
function lowPriorityStartScripts(): Plugin {
  return {
    name: 'pillbox-start-scripts-low-priority',
    apply: 'build',
    enforce: 'post',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        const marked = html.replace(
          /<(script type="module"|link rel="modulepreload") crossorigin/g,
          '<$1 fetchpriority="low" crossorigin',
        );
        if (!marked.includes('<script type="module" fetchpriority="low"') || /<link rel="modulepreload"(?! fetchpriority)/.test(marked)) {
          throw new Error("index.html: a start-up script or preload was left at the browser's default priority");
        }
        return marked;
      },
    },
  };
}

/**
 * The start-up script's first step, inline in index.html: at a signed-in start (a token is
 * stored) at a signed-in screen's route, it asks for that screen's files, the signed-in
 * frame's and their English texts (every language falls back to English, so they are never
 * wasted) while the app's own code downloads. Without it they are asked only once that code
 * has run, a round trip later on a slow phone. `routes` maps firstScreens.ts's route patterns
 * to the files; the browser and the service worker fetch each file once, whoever asks first.
 * The server's Content-Security-Policy admits this script by its hash (build.rs). It stands
 * after the stylesheet on purpose: a browser runs it once the stylesheet is in, so that the
 * stylesheet, which the first paint waits for, is asked for before these files fill a phone's
 * six connections.
 */
const PRELOAD_FIRST_SCREEN = `(function (routes, tokenKey) {
  try {
    if (localStorage.getItem(tokenKey) === null) return;
  } catch (error) {
    return;
  }
  var path = location.pathname.replace(/(.)\\/$/, '$1').split('/');
  for (var pattern in routes) {
    var parts = pattern.split('/');
    var same = parts.length === path.length && parts.every(function (part, i) {
      return part.charAt(0) === ':' ? path[i] !== '' : part === path[i];
    });
    if (!same) continue;
    routes[pattern].forEach(function (href) {
      var link = document.createElement('link');
      if (/\\.css$/.test(href)) {
        link.rel = 'preload';
        link.as = 'style';
      } else {
        link.rel = 'modulepreload';
      }
      link.fetchPriority = 'low';
      link.crossOrigin = '';
      link.href = href;
      document.head.appendChild(link);
    });
    return;
  }
})`;

/** Writes the script above into index.html, with each signed-in route's files from the build. */
function preloadFirstScreen(): Plugin {
  const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
  return {
    name: 'pillbox-preload-first-screen',
    apply: 'build',
    enforce: 'post',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        const bundle = context.bundle ?? {};
        const chunks = Object.values(bundle).filter((file): file is OutputChunk => file.type === 'chunk');
        const chunkOf = (module: string) => {
          // Its own chunk, or the shared one it went into (PeopleScreen, which PersonScreen imports).
          const found =
            chunks.find((chunk) => chunk.facadeModuleId === module) ?? chunks.find((chunk) => chunk.moduleIds.includes(module));
          if (!found) throw new Error(`preloadFirstScreen: no chunk for ${module}`);
          return found;
        };
        // What index.html loads anyway: the entry and the files it imports.
        const initial = new Set<string>();
        const walk = (chunk: OutputChunk, into: Set<string>, skip: Set<string>) => {
          if (into.has(chunk.fileName) || skip.has(chunk.fileName)) return;
          into.add(chunk.fileName);
          for (const css of chunk.viteMetadata?.importedCss ?? []) if (!skip.has(css)) into.add(css);
          for (const name of chunk.imports) {
            const imported = bundle[name];
            if (imported?.type === 'chunk') walk(imported, into, skip);
          }
        };
        for (const entry of chunks.filter((chunk) => chunk.isEntry)) walk(entry, initial, new Set());
        const routes: Record<string, string[]> = {};
        for (const [route, screen] of Object.entries(SIGNED_IN_ROUTES)) {
          const files = new Set<string>();
          for (const name of [SIGNED_IN_FRAME, screen]) {
            walk(chunkOf(source(`src/screens/${name}.tsx`)), files, initial);
            for (const namespace of SCREEN_TEXTS[name]) {
              files.add(chunkOf(source(`src/i18n/${NAMESPACE_FOLDERS[namespace]}/en.json`)).fileName);
            }
          }
          routes[route] = [...files].map((file) => `/${file}`);
        }
        const script = `<script>${PRELOAD_FIRST_SCREEN}(${JSON.stringify(routes)}, ${JSON.stringify(TOKEN_KEY)});</script>`;
        if (!html.includes('</head>')) throw new Error('index.html: no </head>');
        return html.replace('</head>', `  ${script}\n  </head>`);
      },
    },
  };
}

/**
 * The tab's icon, written into index.html as a data: URL (the policy's img-src admits data:):
 * one request fewer at the start, when a phone's few connections are all busy with what the
 * first screen needs. public/favicon.svg stays for the API reference page and for links; the
 * PNG icon stays a file (browsers without SVG icons, and the manifest, use it).
 */
function inlineFavicon(): Plugin {
  const link = '<link rel="icon" href="/favicon.svg" type="image/svg+xml" />';
  return {
    name: 'pillbox-inline-favicon',
    apply: 'build',
    transformIndexHtml(html) {
      if (!html.includes(link)) throw new Error(`index.html: no ${link}`);
      const svg = readFileSync(new URL('public/favicon.svg', import.meta.url), 'utf8').replace(/\n\s*/g, '');
      return html.replace(link, `<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(svg)}" type="image/svg+xml" />`);
    },
  };
}

/**
 * The app is written against React's API and runs on Preact's compat layer, which implements
 * it in a tenth of react-dom's bytes (see BENCHMARKS.md, issue 25). The build, Vitest and the
 * binary Playwright drives all resolve these imports the same way, so every test runs what
 * ships. Exact names only: `react-dom/client` is not `react-dom` with a path after it.
 */
const REACT_ON_PREACT = [
  { find: /^react$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/compat/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/compat/jsx-dev-runtime' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom\/test-utils$/, replacement: 'preact/test-utils' },
];

/** The sign-in screen: a chunk of its own, whose shared code stays with the start's. */
const SIGN_IN = fileURLToPath(new URL('src/screens/LoginScreen.tsx', import.meta.url));

/** Today and the signed-in frame around it: the first screen of a signed-in visit. */
const TODAY = ['src/screens/TodayScreen.tsx', 'src/screens/SignedInLayout.tsx'].map((file) =>
  fileURLToPath(new URL(file, import.meta.url)),
);

/** Today's refill notice: fetched by Today only when something needs ordering. */
const REFILL_NOTICE = fileURLToPath(new URL('src/components/medications/RefillNotice.tsx', import.meta.url));

const reached = new WeakMap<object, Set<string>>();
/** The modules `entries` import, directly or through others (not those they load later). */
function reachedFrom(entries: string[], context: ChunkingContext): Set<string> {
  const first = context.getModuleInfo(entries[0] ?? '');
  const known = first && reached.get(first);
  if (known) return known;
  const found = new Set<string>();
  const queue = [...entries];
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    if (found.has(id)) continue;
    found.add(id);
    queue.push(...(context.getModuleInfo(id)?.importedIds ?? []));
  }
  if (first) reached.set(first, found);
  return found;
}

// `pillbox serve` listens here by default; API_PROXY_TARGET points `vite` and `vite preview`
// at another instance.
const devServer = process.env.API_PROXY_TARGET ?? 'http://127.0.0.1:3001';

export default defineConfig({
  resolve: {
    alias: REACT_ON_PREACT,
    // Vitest resolves packages as Node does, and react-router's exports give Node its CommonJS
    // build unless it asks for 'module-sync' (see `test` below).
    ...(process.env.VITEST ? { conditions: ['module-sync'] } : {}),
  },
  // JSX compiles to the automatic runtime's `react/jsx-runtime`, which the alias above turns
  // into Preact's. (No fast refresh in `npm run dev`: an edit reloads the page.)
  oxc: { jsx: { runtime: 'automatic' } },
  plugins: [
    redocBundle(),
    inlineFavicon(),
    lowPriorityStartScripts(),
    preloadFirstScreen(),
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
    // Browsers preload modules themselves (Safari since 17; before it the hint is ignored and a
    // screen's files are fetched as it imports them); the polyfill was an entry script of its
    // own, one more request before anything else could start.
    modulePreload: { polyfill: false },
    // dist/.vite/manifest.json: which files each route loads, for the bundle budget
    // (scripts/bundle-budget.mjs) and benchmarks/ui_bundle.py.
    manifest: true,
    rolldownOptions: {
      onwarn(warning, warn) {
        // TanStack Query marks its providers "use client" for React Server Components; a
        // browser bundle has no server components, so the marker means nothing here.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' && warning.message.includes('use client')) return;
        warn(warning);
      },
      output: {
        codeSplitting: {
          // The start-up code in three files of about 20 KB (compressed) that download side by
          // side: the libraries that render, those that fetch, and the app's own code. Over a
          // phone's plain-HTTP connections a file of 50 KB took as long as the two others
          // together (see BENCHMARKS.md). Everything else splits by route (App.tsx).
          groups: [
            {
              // Rendering (Preact, under React's names) and routing.
              name: 'view',
              test: /node_modules[\\/](preact|react|react-dom|scheduler|react-router|react-router-dom)[\\/]/,
              priority: 5,
            },
            {
              // The data layer: TanStack Query, the API client and the app's calls of the API
              // (those the start-up code makes; the others go with their screens).
              name: 'data',
              tags: ['$initial'],
              test: /node_modules[\\/](@tanstack[\\/][^\\/]+|openapi-fetch)[\\/]|[\\/]src[\\/]api[\\/]/,
              priority: 4,
            },
            {
              // What the sign-in screen imports beyond the start-up code: what Today runs too in
              // one file, the rest in another. A signed-out start fetches the start, the screen
              // and these; a signed-in one the start, Today's files and the first of them.
              name: (id, context) => {
                if (id === SIGN_IN || !reachedFrom([SIGN_IN], context).has(id)) return null;
                return reachedFrom(TODAY, context).has(id) ? 'signed-in-and-out' : 'sign-in';
              },
              test: /[\\/]src[\\/]/,
              // Below the start group's: the start-up code's own modules stay there.
              priority: 2.5,
            },
            {
              // The app's start-up code (what index.html's script imports), apart from the
              // groups below so that the sign-in page never loads the signed-in screens' code.
              name: 'start',
              tags: ['$initial'],
              test: /[\\/]src[\\/]/,
              priority: 3,
            },
            // What two or more screens share, in two files rather than dozens of small ones (a
            // phone's few connections would fetch them a few at a time): what Today and its frame
            // run, and the rest, so that a browser opening Today fetches none of the code only
            // other screens run (their dialogs, the care circle's pages).
            {
              name: (id, context) => (reachedFrom(TODAY, context).has(id) ? 'today' : null),
              test: /[\\/]src[\\/]/,
              minShareCount: 2,
              priority: 2,
            },
            {
              // What the refill notice shares with the Medications screen (its words, the
              // pharmacy's contact, "mark ordered"): a small file of their own, so that the
              // notice does not fetch the other screens' shared code with it.
              name: (id, context) =>
                reachedFrom([REFILL_NOTICE], context).has(id) && !reachedFrom(TODAY, context).has(id) ? 'refill' : null,
              test: /[\\/]src[\\/]/,
              minShareCount: 2,
              priority: 1.5,
            },
            {
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
    // Vitest loads node_modules straight from Node, past the alias; these libraries import
    // React, so they go through Vite and get Preact like the build. Their ES module builds:
    // Node's `require` in a CommonJS one would bring back React itself.
    server: {
      deps: {
        inline: [/[\\/]node_modules[\\/](@testing-library[\\/]react|react-router|react-router-dom|@tanstack[\\/]react-query)[\\/]/],
      },
    },
    alias: [
      { find: /^@testing-library\/react$/, replacement: '@testing-library/react/dist/@testing-library/react.esm.js' },
    ],
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
