// Workers in workerd, as a Worker is built and run for Cloudflare: bundled the way wrangler bundles it (esbuild,
// conditions workerd/worker/browser, each imported .wasm kept out of the bundle as a module of its own named
// HASH-NAME.wasm, wrangler's "CompiledWasm" rule), then served by `workerd serve` from a config.capnp that lists
// the bundle and its .wasm modules, on sockets bound to 127.0.0.1.
import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { build, Plugin } from 'esbuild';

/** wrangler's default conditions (its esbuild bundling), and those of an edge bundler that knows no "workerd". */
export const WRANGLER_CONDITIONS = ['workerd', 'worker', 'browser'];
export const EDGE_CONDITIONS = ['worker', 'browser'];

export interface WorkerBundle {
  dir: string;
  /** The bundle's modules: 'worker.js' first, then each .wasm. */
  modules: { name: string; kind: 'esModule' | 'wasm' }[];
  /** The files esbuild bundled (relative paths), e.g. to see which entry of a package it resolved. */
  inputs: string[];
}

/**
 * Bundles `entry` into `dir` (emptied first) as wrangler does: worker.js, and each imported .wasm (also
 * `.wasm?module`) copied beside it as HASH-NAME.wasm and imported by that name. `nodePaths`: more folders
 * to resolve packages from (a node_modules holding the installed package, for an entry outside it).
 */
export async function bundleWorker(
  entry: string,
  dir: string,
  conditions = WRANGLER_CONDITIONS,
  nodePaths: string[] = [],
): Promise<WorkerBundle> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const wasm: WorkerBundle['modules'] = [];
  const wasmModules: Plugin = {
    name: 'wasm-modules',
    setup(b) {
      b.onResolve({ filter: /\.wasm(\?module)?$/ }, async (args) => {
        if (args.pluginData === 'wasm-modules') return undefined;
        const path = args.path.replace(/\?module$/, '');
        const found = await b.resolve(path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'wasm-modules' });
        if (found.errors.length > 0) return { errors: found.errors };
        const bytes = readFileSync(found.path);
        const name = `${createHash('sha1').update(bytes).digest('hex')}-${basename(found.path)}`;
        copyFileSync(found.path, join(dir, name));
        if (!wasm.some((m) => m.name === name)) wasm.push({ name, kind: 'wasm' });
        return { path: `./${name}`, external: true };
      });
    },
  };
  const result = await build({
    entryPoints: [entry],
    outfile: join(dir, 'worker.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions,
    plugins: [wasmModules],
    nodePaths,
    metafile: true,
    logLevel: 'error',
  });
  return {
    dir,
    modules: [{ name: 'worker.js', kind: 'esModule' }, ...wasm],
    inputs: Object.keys(result.metafile.inputs),
  };
}

/** A free TCP port on 127.0.0.1 (asked of the system, then released for workerd to take). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export interface ServedWorker {
  name: string;
  bundle: WorkerBundle;
  /** Service bindings: binding name -> a directory served read-only (a workerd disk service), as ASSETS. */
  disks?: Record<string, string>;
  /** Plain-text bindings (wrangler.toml [vars]). */
  vars?: Record<string, string>;
}

export interface WorkerdServer {
  /** http://127.0.0.1:PORT of each worker, by name. */
  origins: Record<string, string>;
  /** workerd's output so far. */
  log(): string;
  close(): Promise<void>;
}

/**
 * Serves the workers with `workerd serve` (each on its own 127.0.0.1 port; outbound fetches may reach loopback,
 * for a test server) and waits until each answers. close() kills workerd.
 */
export async function serveWorkers(workerd: string, dir: string, workers: ServedWorker[]): Promise<WorkerdServer> {
  mkdirSync(dir, { recursive: true });
  const ports = await Promise.all(workers.map(() => freePort()));
  const text = (s: string) => JSON.stringify(s);
  const services: string[] = [`(name = "net", network = (allow = ["public", "private", "local"]))`];
  const sockets: string[] = [];
  const definitions: string[] = [];
  workers.forEach((w, i) => {
    const modules = w.bundle.modules.map(
      // embed paths are relative to the config's folder (an absolute one would be looked up in capnp's import path).
      (m) => `(name = ${text(m.name)}, ${m.kind} = embed ${text(relative(dir, join(w.bundle.dir, m.name)))})`,
    );
    const bindings = [
      ...Object.entries(w.disks ?? {}).map(([binding]) => `(name = ${text(binding)}, service = ${text(`${w.name}-${binding}`)})`),
      ...Object.entries(w.vars ?? {}).map(([binding, value]) => `(name = ${text(binding)}, text = ${text(value)})`),
    ];
    for (const [binding, path] of Object.entries(w.disks ?? {})) {
      services.push(`(name = ${text(`${w.name}-${binding}`)}, disk = (path = ${text(resolve(path))}, writable = false))`);
    }
    services.push(`(name = ${text(w.name)}, worker = .worker${i})`);
    sockets.push(`(name = ${text(w.name)}, address = "127.0.0.1:${ports[i]}", http = (), service = ${text(w.name)})`);
    definitions.push(`const worker${i} :Workerd.Worker = (
  modules = [${modules.join(', ')}],
  bindings = [${bindings.join(', ')}],
  globalOutbound = "net",
  compatibilityDate = "2025-09-01",
);`);
  });
  const config = join(dir, 'config.capnp');
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [${services.join(',\n    ')}],
  sockets = [${sockets.join(',\n    ')}],
);
${definitions.join('\n')}
`,
  );
  let output = '';
  const child: ChildProcess = spawn(workerd, ['serve', config, '--verbose'], { cwd: dirname(config), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  const server: WorkerdServer = {
    origins: Object.fromEntries(workers.map((w, i) => [w.name, `http://127.0.0.1:${ports[i]}`])),
    log: () => output,
    close: () =>
      new Promise<void>((done) => {
        if (exited) return done();
        child.once('exit', () => done());
        child.kill('SIGKILL');
      }),
  };
  // Ready when every socket answers (any status), within 30 s.
  const deadline = Date.now() + 30_000;
  for (const origin of Object.values(server.origins)) {
    for (;;) {
      if (exited) throw new Error(`workerd exited:\n${output}`);
      try {
        await fetch(`${origin}/`, { signal: AbortSignal.timeout(2000) });
        break;
      } catch {
        if (Date.now() > deadline) {
          await server.close();
          throw new Error(`workerd did not answer on ${origin} within 30 s:\n${output}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
  return server;
}
