// Fails when a first screen's download grows past its budget: the JS and CSS that index.html
// loads (the app's code and the English shell texts) with the sign-in screen and, for
// Today, the signed-in frame, the screen and the English texts App.tsx fetches with it; gzipped
// at level 9 as the release binary sends them, found through the built index.html and Vite's
// manifest of the build in dist/ (run after `npm run build` or `cargo build`; it builds nothing
// itself).
//
//   node scripts/bundle-budget.mjs [dist]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

// Issue 25: at most 120 KB on the sign-in page and on Today (see BENCHMARKS.md).
const BUDGET_BYTES = 120_000;
const ROUTES = {
  // The sign-in screen is a chunk of its own (a signed-in start does not download it), which
  // a start without a session fetches at once (App.tsx, preloadFirstScreen).
  'sign-in page': ['index.html', 'src/screens/LoginScreen.tsx'],
  Today: [
    'index.html',
    'src/screens/SignedInLayout.tsx',
    'src/screens/TodayScreen.tsx',
    // Its namespaces beyond the shell's, as App.tsx fetches them with the screen.
    'src/i18n/medications/en.json',
    'src/i18n/circle/en.json',
  ],
};

const dist = process.argv[2] ?? new URL('../dist', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
// The manifest names index.html only when its entry is a chunk of its own; the page's script
// and style tags always say what it loads.
const byFile = new Map(Object.entries(manifest).map(([key, chunk]) => [chunk.file, key]));
const indexHtml = readFileSync(join(dist, 'index.html'), 'utf8');
const loadedByIndex = [...indexHtml.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
if (!loadedByIndex.some((file) => file.endsWith('.js'))) throw new Error('index.html loads no script: did the build change?');

/** The JS and CSS files of `keys` and of everything they import. */
function filesOf(keys) {
  const files = new Set();
  const seen = new Set();
  const visit = (key) => {
    if (key === 'index.html') {
      for (const file of loadedByIndex) {
        files.add(file);
        if (byFile.has(file)) visit(byFile.get(file));
      }
      return;
    }
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the build's manifest: did the route move?`);
    seen.add(key);
    files.add(chunk.file);
    for (const css of chunk.css ?? []) files.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  keys.forEach(visit);
  return [...files].filter((f) => /\.(js|css)$/.test(f)).sort();
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
let over = false;
for (const [route, keys] of Object.entries(ROUTES)) {
  let total = 0;
  const lines = [];
  for (const file of filesOf(keys)) {
    const size = gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
    total += size;
    lines.push(`  ${String(size).padStart(7)}  ${file}`);
  }
  console.log(`${route}: ${kib(total)} (${total} bytes) of JS and CSS gzipped, budget ${BUDGET_BYTES} bytes`);
  // BUDGET_LIST=1 lists the files of every route, not only of one over its budget.
  if (total > BUDGET_BYTES || process.env.BUDGET_LIST) console.error(lines.join('\n'));
  if (total > BUDGET_BYTES) over = true;
}
if (over) {
  console.error('A first screen downloads more than its budget: load the new code with its route (App.tsx) or when it is used.');
  process.exit(1);
}
