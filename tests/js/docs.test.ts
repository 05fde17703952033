// Every code block of README.md and docs/*.md, run as written (doc-snippets.ts says how each declares what it leaves
// to the reader): a Node.js snippet as a module importing the built package, its stated values checked; a shell
// snippet's commands with the package's `cuckoo-wasm` command; JSON parsed. Page snippets run in Chromium
// (tests/browser/docs.test.ts); this test checks that each is declared.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, Snippet, allSnippets, filesOf, toJavaScript, withChecks } from './doc-snippets';
import { FakeRedis, fixtureChunks, readFixture, startFakeRedis } from './fake-redis';

const DIST = join(ROOT, 'dist');
const DATA = join(ROOT, 'examples', 'data');
const KINDS = ['node', 'sh', 'json', 'chromium-page', 'extension', 'not run'];

/**
 * What a node snippet leaves to the reader, by name: JavaScript run before it in the same module (`__lines(file)` reads
 * a list of examples/data). `FILE#name` is the name's meaning in that file, where its guide means another thing by it.
 */
const GIVENS: Record<string, string> = {
  CuckooFilter: `import { CuckooFilter } from 'cuckoo-wasm';`,
  RedisCuckooFilter: `import { RedisCuckooFilter } from 'cuckoo-wasm';`,
  entries: `const entries = __lines('phishing-urls-sample.txt').slice(0, 2000);`,
  domains: `const domains = __lines('blocklist-sample.txt').slice(0, 5000);`,
  badDomains: `const badDomains = [...__lines('blocklist-sample.txt').slice(0, 20000), 'phish.example', 'cleaned-site.example'];`,
  keysOfUnknownCount: `const keysOfUnknownCount = __lines('benign-opendns.txt');`,
  links: `const links = [{ href: 'https://www.evil.example/a' }, { href: 'https://example.org/' }];`,
  // A day's domains: 2,000 listed yesterday, 20 of them removed and 30 new ones added today.
  yesterdayBytes: `const __old = await (await import('cuckoo-wasm')).CuckooFilter.create({ capacity: 2500, falsePositiveRate: 0.001, expansion: 2 });
__old.addAll(__lines('blocklist-sample.txt').slice(0, 2000));
const yesterdayBytes = __old.toBytes();`,
  removed: `const removed = __lines('blocklist-sample.txt').slice(0, 20);`,
  added: `const added = __lines('blocklist-sample.txt').slice(2000, 2030);`,
  filter: `const filter = await (await import('cuckoo-wasm/reader')).CuckooFilter.fromBytes(yesterdayBytes);`,
  // README snippet 3 follows snippet 1's URL filter: entries as stored ('host/' for a site), and new URLs.
  'README.md#yesterdayBytes': `const __old = await (await import('cuckoo-wasm')).CuckooFilter.create({ capacity: 2500, falsePositiveRate: 0.01 / 30, expansion: 2 });
__old.addUrls(__lines('blocklist-sample.txt').slice(0, 2000));
const yesterdayBytes = __old.toBytes();`,
  'README.md#removed': `const removed = __lines('blocklist-sample.txt').slice(0, 20).map((host) => host + '/');`,
  'README.md#added': `const added = __lines('phishing-urls-sample.txt').slice(0, 500);`,
  client: `const client = await (await import('redis')).createClient({ url: 'redis://localhost:6379' }).connect();`,
};

/** The givens' types, for type-checking the TypeScript snippets (browser ones too) as a user's project would. */
const GIVEN_TYPES: Record<string, string> = {
  CuckooFilter: GIVENS.CuckooFilter,
  RedisCuckooFilter: GIVENS.RedisCuckooFilter,
  ...Object.fromEntries(['entries', 'domains', 'badDomains', 'keysOfUnknownCount', 'removed', 'added'].map((n) => [n, `declare const ${n}: string[];`])),
  links: 'declare const links: { href: string }[];',
  yesterdayBytes: 'declare const yesterdayBytes: Uint8Array;',
  // A feed publisher's public key, base64 (what `cuckoo-wasm keygen` prints).
  publicKey: 'declare const publicKey: string;',
  filter: `declare const filter: import('cuckoo-wasm/reader').CuckooFilter;`,
  client: `declare const client: Awaited<ReturnType<ReturnType<typeof import('redis').createClient>['connect']>>;`,
  // The slice of @types/chrome an extension snippet uses, as that package types it.
  chrome: `declare const chrome: {
  runtime: { getURL(path: string): string };
  webNavigation: { onBeforeNavigate: { addListener(callback: (details: { url: string; tabId: number; frameId: number }) => void): void } };
  tabs: { update(tabId: number, properties: { url?: string }): Promise<unknown> };
};`,
  // The page's worker, as the page made it (new Worker(…, { type: 'module' })).
  worker: 'declare const worker: Worker;',
};

/** What the files a snippet declares (files=…) hold: lists of examples/data. */
const FILES: Record<string, (dir: string) => void> = {
  'day1.txt': (dir) => writeFileSync(join(dir, 'day1.txt'), lines('blocklist-sample.txt').slice(0, 20000).join('\n')),
  'day2.txt': (dir) => writeFileSync(join(dir, 'day2.txt'), lines('blocklist-sample.txt').slice(100, 20400).join('\n')),
  'blocklist.txt': (dir) => copyFileSync(join(DATA, 'blocklist-sample.txt'), join(dir, 'blocklist.txt')),
};

function lines(file: string): string[] {
  return readFileSync(join(DATA, file), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

const snippets = allSnippets();
const where = (s: Snippet) => `${s.file}:${s.line}`;
const ofKind = (kind: string) => snippets.filter((s) => s.kind === kind).map((s) => [where(s), s] as const);

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cuckoo-docs-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('every code block says how it runs and what it leaves to the reader, and the harness knows each name', () => {
  const problems: string[] = [];
  for (const s of snippets) {
    if (s.declaration === undefined) problems.push(`${where(s)}: no <!-- snippet: … --> line before the block`);
    else if (!KINDS.includes(s.kind)) problems.push(`${where(s)}: unknown kind '${s.kind}'`);
    for (const name of s.files) if (!(name in FILES)) problems.push(`${where(s)}: the harness has no file '${name}'`);
    for (const name of s.given) {
      const known = name in GIVENS || `${s.file}#${name}` in GIVENS;
      if (!known && !(name in GIVEN_TYPES)) problems.push(`${where(s)}: the harness has no given '${name}'`);
    }
  }
  expect(problems).toEqual([]);
  expect(snippets.filter((s) => s.kind === 'node').length).toBeGreaterThanOrEqual(8);
});

/** Runs `file` with Node.js in `cwd`; resolves with its exit code and output. */
function runNode(args: string[], cwd: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** The module a node snippet runs as: the givens, then the snippet, the package's imports pointed at dist/. */
function moduleOf(s: Snippet, redisUrl: string | undefined): { text: string; checks: number } {
  const { code, checks } = withChecks(s);
  const givens = s.given.map((name) => GIVENS[`${s.file}#${name}`] ?? GIVENS[name]).join('\n');
  let text = [
    `import { readFileSync as __read } from 'node:fs';`,
    `const __lines = (file) => __read(${JSON.stringify(DATA)} + '/' + file, 'utf8').split('\\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));`,
    `let __checked = 0;`,
    `const __check = (got, want, at) => { __checked++; const g = JSON.stringify(got), w = JSON.stringify(want); if (g !== w) throw new Error(at + ': the guide says ' + w + ', the code gives ' + g); };`,
    // One module, so that a given import the snippet uses is kept.
    toJavaScript(`${givens}\n${code}`),
    // Every stated value was checked: none sat in a callback that never ran.
    `if (__checked !== ${checks}) throw new Error('checked ' + __checked + ' of the ${checks} stated values');`,
    // A Redis client keeps the process open: the run ends after the snippet's last statement, once what that
    // started has had a turn to fail.
    redisUrl ? 'await new Promise((resolve) => setTimeout(resolve, 50));\nprocess.exit(process.exitCode ?? 0);' : '',
  ].join('\n');
  text = text.replace(/(['"])cuckoo-wasm(\/reader)?\1/g, (_, q, reader) => `${q}${pathToFileURL(join(DIST, reader ? 'reader-node.mjs' : 'node.mjs')).href}${q}`);
  if (redisUrl) text = text.replace(/redis:\/\/localhost:6379/g, redisUrl);
  return { text, checks };
}

const nodeSnippets = ofKind('node');
test.each(nodeSnippets)('%s runs in Node.js as written, its stated values true', async (at, s) => {
  let fake: FakeRedis | undefined;
  if (s.redis) {
    fake = await startFakeRedis(
      Object.fromEntries(
        Object.entries(s.redis).map(([key, fixture]) => {
          const f = readFixture(fixture);
          return [key, { type: f.type, chunks: fixtureChunks(f) }];
        }),
      ),
    );
  }
  try {
    const { text, checks } = moduleOf(s, fake?.url);
    // Under the repository, so that the snippet's other imports (redis, ioredis) resolve as in a project.
    const dir = join(ROOT, 'build', 'docs-snippets');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${at.replace(/[/:.]/g, '_')}.mjs`);
    writeFileSync(file, text);
    const cwd = mkdtempSync(join(work, 'run-'));
    for (const name of s.files) FILES[name](cwd);
    const r = await runNode([file], cwd);
    expect([at, r.status, r.output]).toEqual([at, 0, '']);
    console.log(`${at}: ran, ${checks} stated values checked${fake ? `; Redis commands: ${[...new Set(fake.log.map((c) => c[0].toUpperCase()))].join(' ')}` : ''}`);
  } finally {
    await fake?.close();
  }
});

test.each(ofKind('sh'))('%s: each command runs with the package\'s cuckoo-wasm command', async (at, s) => {
  const cwd = mkdtempSync(join(work, 'sh-'));
  for (const name of s.files) FILES[name](cwd);
  const commands = s.code
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  expect(commands.length).toBeGreaterThan(0);
  for (const command of commands) {
    const words = command.split(/\s+/);
    expect([at, words.slice(0, 2)]).toEqual([at, ['npx', 'cuckoo-wasm']]);
    const r = await runNode([join(DIST, 'cli.cjs'), ...words.slice(2)], cwd);
    expect([command, r.status]).toEqual([command, 0]);
  }
});

test.each(ofKind('json'))('%s is JSON', (_, s) => {
  const text = s.code.trim().startsWith('"') ? `{${s.code}}` : s.code;
  expect(() => JSON.parse(text)).not.toThrow();
});

test('the TypeScript snippets type-check in a strict project that installed the package (node16 resolution; a page with the DOM lib alone, a worker or service worker with the WebWorker lib)', async () => {
  const dir = join(ROOT, 'build', 'docs-snippets', 'types');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'cuckoo-wasm'), 'dir'); // resolved through package.json, as installed
  const groups: Record<'node' | 'dom' | 'webworker', string[]> = { node: [], dom: [], webworker: [] };
  for (const s of snippets.filter((x) => x.lang === 'ts' && ['node', 'chromium-page', 'extension'].includes(x.kind))) {
    for (const part of filesOf(s)) {
      const lib = s.kind === 'node' ? 'node' : s.kind === 'extension' || part.name.includes('worker') ? 'webworker' : 'dom';
      const name = `${where(s).replace(/[/:.]/g, '_')}${part.name ? `_${part.name}` : ''}.mts`;
      const givens = s.given.map((g) => GIVEN_TYPES[g]).join('\n');
      writeFileSync(join(dir, name), `${givens}\n${part.code}\nexport {};\n`);
      groups[lib].push(name);
    }
  }
  const problems: string[] = [];
  for (const [lib, files] of Object.entries(groups)) {
    if (files.length === 0) continue;
    const config = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: 'es2022',
        module: 'node16',
        moduleResolution: 'node16',
        lib: lib === 'node' ? ['es2022'] : ['es2022', lib],
        types: lib === 'node' ? ['node'] : [],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files,
    };
    writeFileSync(join(dir, `tsconfig.${lib}.json`), JSON.stringify(config));
    const r = await runNode([join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', `tsconfig.${lib}.json`], dir);
    if (r.status !== 0) problems.push(r.output.trim());
  }
  expect(existsSync(join(ROOT, 'dist', 'types-esm', 'index.d.ts'))).toBe(true);
  expect(problems).toEqual([]);
  expect(groups.node.length).toBeGreaterThanOrEqual(8);
});

test('README.md and the guides the package ships link only to files it ships (images included)', () => {
  const listed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }));
  const shipped = new Set<string>(listed[0].files.map((f: { path: string }) => f.path));
  const outside: string[] = [];
  for (const md of [...shipped].filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(ROOT, md), 'utf8').replace(/```[\s\S]*?```/g, '');
    // Inline links and images, reference definitions, and HTML src / href.
    const targets = [
      ...[...text.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map((m) => m[1]),
      ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]),
      ...[...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const path = normalize(join(dirname(md), target.split('#')[0]));
      if (!shipped.has(path) && ![...shipped].some((f) => f.startsWith(`${path.replace(/\/$/, '')}/`))) outside.push(`${md}: ${target}`);
    }
  }
  expect(outside).toEqual([]);
  expect(shipped.has('docs/cli.md')).toBe(true);
});

test("the guides' tables state the benchmarks' figures: each number of their rows is one bench/ wrote in bench/results/", () => {
  // What bench/ wrote in `files`, as written and rounded to fewer decimals (0.0952% may be stated as 0.095%).
  const dir = join(ROOT, 'bench', 'results');
  const writtenIn = (files: string[]) => {
    const written = new Set<string>();
    for (const f of files) {
      for (const n of readFileSync(join(dir, f), 'utf8').match(/\d[\d,]*(?:\.\d+)?/g) ?? []) {
        const value = Number(n.replace(/,/g, ''));
        const decimals = n.split('.')[1]?.length ?? 0;
        for (let digits = 0; digits <= decimals; digits++) written.add(value.toFixed(digits));
      }
    }
    return written;
  };
  const unknown: string[] = [];
  for (const doc of ['docs/choosing-a-filter.md', 'docs/performance.md', 'docs/updates-by-patch.md']) {
    // The results files the guide cites.
    const cited = [...new Set([...readFileSync(join(ROOT, doc), 'utf8').matchAll(/bench\/results\/([\w-]+\.md)/g)].map((m) => m[1]))];
    expect([doc, cited.length > 0]).toEqual([doc, true]);
    const written = writtenIn(cited);
    let section = '';
    for (const row of readFileSync(join(ROOT, doc), 'utf8').split('\n')) {
      if (row.startsWith('## ')) section = row;
      // Table rows of measured figures: not the download sizes (scripts/build.mjs writes them, and the size history
      // is of builds past), nor the budget (tests/size-budget.json).
      if (!row.startsWith('|') || section === '## Download size') continue;
      for (const n of row.match(/\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+|\d{4,}/g) ?? []) {
        if (/^(19|20)\d\d$/.test(n)) continue; // a year (a citation's), not a figure
        if (!written.has(n.replace(/,/g, ''))) unknown.push(`${doc}: ${n} in ${row.slice(0, 90)}`);
      }
    }
  }
  expect(unknown).toEqual([]);
});
