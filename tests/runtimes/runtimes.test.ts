// The package on the runtimes besides Node.js where a blocklist is checked: Deno, Bun and workerd (the open-source
// Cloudflare Workers runtime), each the binary its makers publish on the npm registry at the version pinned in
// scripts/runtime-versions.sh (fetched once into ~/.cache/cuckoo-wasm/runtimes; a failed fetch fails the test).
// Each runs the same end-to-end scenario (scenario.mjs) on the same input (input.ts: made by the CLI from the
// repo's sample lists), with the package installed as npm installs it (package.json and dist/ in
// node_modules/cuckoo-wasm) and resolved by the runtime's own conditions. Its result must pass and equal Node.js's.
// Each runtime's outcome is written to $CUCKOO_TEST_RESULTS (scripts/test.sh sets it; build/test-results without it)
// as runtime-NAME.json for scripts/test.sh's summary.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installPackage, root, scenarioInputFile, scenarioPath, workDir } from './input';
import { bundleWorker, EDGE_CONDITIONS, serveWorkers, WorkerdServer } from './workerd';

const app = join(workDir, 'app');
const resultsDir = process.env.CUCKOO_TEST_RESULTS ?? join(root, 'build', 'test-results');
let inputFile: string;
let nodeResult: Record<string, unknown>;

type Result = Record<string, unknown> & { ok: boolean; failures: string[]; runtime: string; resolved: string };

/** The binary of a runtime of scripts/runtime-versions.sh, fetched if missing; throws (failing the test) if it cannot be. */
function runtimeBinary(name: string): string {
  const r = spawnSync('bash', [join(root, 'scripts/runtime-versions.sh'), name], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`cannot get ${name}: ${r.stderr || r.error}`);
  process.stderr.write(r.stderr);
  return r.stdout.trim();
}

function pinnedVersion(name: string): string {
  return execFileSync('bash', [join(root, 'scripts/runtime-versions.sh'), '--version', name], { encoding: 'utf8' }).trim();
}

/** Runs host.mjs with `command` in the app folder; returns the scenario's result (its last stdout line). */
function runHost(command: string[], env: Record<string, string> = {}): Result {
  const r = spawnSync(command[0], [...command.slice(1)], {
    cwd: app,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  const last = r.stdout?.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !last.startsWith('{')) {
    throw new Error(`${command.join(' ')} exited ${r.status} (${r.signal ?? r.error}):\n${r.stdout}\n${r.stderr}`);
  }
  return JSON.parse(last);
}

/** What must be the same in every runtime: the result without its timing, runtime and entry. */
function comparable(result: Record<string, unknown>): Record<string, unknown> {
  const { ms, runtime, resolved, nodeGlobals, ...rest } = result;
  void ms, runtime, resolved, nodeGlobals;
  return rest;
}

function record(name: string, version: string, started: number, result: Partial<Result> | undefined, error?: unknown): void {
  mkdirSync(resultsDir, { recursive: true });
  const failures = result?.failures ?? [];
  if (error) failures.push(String(error instanceof Error ? error.message : error).split('\n')[0]);
  writeFileSync(
    join(resultsDir, `runtime-${name}.json`),
    JSON.stringify({
      name,
      version,
      ok: !error && result?.ok === true,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      resolved: result?.resolved ?? null,
      listed: result?.listed ?? null,
      falseNegatives: result?.falseNegatives ?? null,
      failures,
    }) + '\n',
  );
}

/** Runs `body` for runtime `name` and records its outcome either way. */
async function recorded(name: string, version: string, body: () => Promise<Result>): Promise<Result> {
  const started = Date.now();
  try {
    const result = await body();
    record(name, version, started, result);
    return result;
  } catch (e) {
    record(name, version, started, undefined, e);
    throw e;
  }
}

beforeAll(() => {
  inputFile = scenarioInputFile();
  // The package as npm installs it, beside the host and the scenario.
  installPackage(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'runtime-scenario', private: true, type: 'module' }) + '\n');
  cpSync(scenarioPath, join(app, 'scenario.mjs'));
  for (const f of ['host.mjs', 'worker.mjs', 'worker-reader.mjs', 'worker-init.mjs']) cpSync(join(__dirname, f), join(app, f));
  nodeResult = runHost([process.execPath, 'host.mjs', inputFile]);
}, 120_000);

test('Node.js: the scenario passes (the reference the other runtimes are compared with)', () => {
  expect(nodeResult.failures).toEqual([]);
  expect(nodeResult).toMatchObject({ ok: true, resolved: 'dist/node.mjs', falseNegatives: 0, patchedEqual: true });
  expect(nodeResult.listed).toBeGreaterThanOrEqual(1000);
});

test('Node.js, the reader (cuckoo-wasm/reader): the same scenario gives the same results as the full entry', () => {
  const result = runHost([process.execPath, 'host.mjs', inputFile, 'cuckoo-wasm/reader']);
  expect(result.failures).toEqual([]);
  expect(result.resolved).toBe('dist/reader-node.mjs');
  expect(comparable(result)).toEqual(comparable(nodeResult));
});

test('Deno: resolves the "deno" entry, needs no Node.js global, and the scenario passes with the same results as Node.js', async () => {
  const version = pinnedVersion('deno');
  const result = await recorded('deno', version, async () => {
    const deno = runtimeBinary('deno');
    // Read access to the input only: importing the package needs no permission.
    return runHost([deno, 'run', '--no-prompt', `--allow-read=${inputFile}`, 'host.mjs', inputFile], {
      DENO_DIR: join(workDir, 'deno-dir'),
      DENO_NO_UPDATE_CHECK: '1',
    });
  });
  expect(result.runtime).toBe(`deno ${version}`);
  expect(result.failures).toEqual([]);
  expect(result.resolved).toBe('dist/node.mjs');
  expect(result.nodeGlobals).toEqual([]); // process, Buffer, global, require removed before the import
  expect(comparable(result)).toEqual(comparable(nodeResult));
  // The reader, resolved by the same conditions.
  const reader = runHost([runtimeBinary('deno'), 'run', '--no-prompt', `--allow-read=${inputFile}`, 'host.mjs', inputFile, 'cuckoo-wasm/reader'], {
    DENO_DIR: join(workDir, 'deno-dir'),
    DENO_NO_UPDATE_CHECK: '1',
  });
  expect(reader.resolved).toBe('dist/reader-node.mjs');
  expect(reader.nodeGlobals).toEqual([]);
  expect(comparable(reader)).toEqual(comparable(nodeResult));
});

test('Bun: resolves the "bun" entry, needs no Node.js global, and the scenario passes with the same results as Node.js', async () => {
  const version = pinnedVersion('bun');
  const result = await recorded('bun', version, async () => {
    const bun = runtimeBinary('bun');
    return runHost([bun, '--no-install', 'host.mjs', inputFile], { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' });
  });
  expect(result.runtime).toBe(`bun ${version}`);
  expect(result.failures).toEqual([]);
  expect(result.resolved).toBe('dist/node.mjs');
  expect(result.nodeGlobals).toEqual([]); // process, Buffer, global, require removed before the import
  expect(comparable(result)).toEqual(comparable(nodeResult));
  // The reader, resolved by the same conditions.
  const reader = runHost([runtimeBinary('bun'), '--no-install', 'host.mjs', inputFile, 'cuckoo-wasm/reader'], { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' });
  expect(reader.resolved).toBe('dist/reader-node.mjs');
  expect(reader.nodeGlobals).toEqual([]);
  expect(comparable(reader)).toEqual(comparable(nodeResult));
});

describe('workerd', () => {
  let server: WorkerdServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  /** POSTs the input to a Worker's /scenario; its JSON answer. */
  async function askScenario(origin: string): Promise<Result & { before?: Record<string, unknown> }> {
    const response = await fetch(`${origin}/scenario`, {
      method: 'POST',
      body: readFileSync(inputFile, 'utf8'),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${text}\n${server?.log()}`);
    return JSON.parse(text);
  }

  test('a Worker bundled as wrangler does gets the "workerd" entry, with the .wasm as a module; the scenario passes over HTTP as on Node.js', async () => {
    const version = pinnedVersion('workerd');
    const result = await recorded('workerd', version, async () => {
      const workerd = runtimeBinary('workerd');
      const bundle = await bundleWorker(join(app, 'worker.mjs'), join(workDir, 'workerd', 'scenario'));
      const edge = await bundleWorker(join(app, 'worker-init.mjs'), join(workDir, 'workerd', 'init'), EDGE_CONDITIONS);
      const reader = await bundleWorker(join(app, 'worker-reader.mjs'), join(workDir, 'workerd', 'reader'));
      // The workerd entry, and no .wasm bytes in the bundle: the module comes as a module of its own.
      expect(bundle.inputs).toContain('build/runtimes/app/node_modules/cuckoo-wasm/dist/workerd.mjs');
      expect(bundle.modules.map((m) => m.kind)).toEqual(['esModule', 'wasm']);
      expect(edge.inputs).toContain('build/runtimes/app/node_modules/cuckoo-wasm/dist/index.mjs');
      expect(reader.inputs).toContain('build/runtimes/app/node_modules/cuckoo-wasm/dist/reader-workerd.mjs');
      expect(reader.modules.map((m) => m.kind)).toEqual(['esModule', 'wasm']);
      server = await serveWorkers(workerd, join(workDir, 'workerd'), [
        { name: 'scenario', bundle },
        { name: 'init', bundle: edge },
        { name: 'reader', bundle: reader },
      ]);
      const answer = await askScenario(server.origins.scenario);
      return { ...answer, resolved: 'dist/workerd.mjs' };
    });
    expect(result.failures).toEqual([]);
    expect(comparable(result)).toEqual(comparable(nodeResult));
  });

  test('the reader (cuckoo-wasm/reader) bundled as wrangler does gets its "workerd" entry and cuckoo-reader.wasm; the scenario gives the same results', async () => {
    expect(server).toBeDefined();
    const result = await askScenario(server!.origins.reader);
    expect(result.failures).toEqual([]);
    expect(comparable({ ...result, resolved: '' })).toEqual(comparable(nodeResult));
  });

  test('bundled without the "workerd" condition (dist/index.mjs), create() rejects with WasmLoadError compile-disallowed; initWasm(the imported .wasm) then runs the scenario', async () => {
    expect(server).toBeDefined();
    const { before, ...result } = await askScenario(server!.origins.init);
    expect(before).toMatchObject({ name: 'WasmLoadError', code: 'ERR_WASM_LOAD', reason: 'compile-disallowed' });
    expect(before!.message).toMatch(/disallowed by embedder/);
    expect(before!.message).toMatch(/initWasm\(wasm\)/);
    expect(result.failures).toEqual([]);
    expect(comparable({ ...result, resolved: '' })).toEqual(comparable(nodeResult));
  });
});
