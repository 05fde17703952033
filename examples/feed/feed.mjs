/**
 * A feed publisher to follow (docs/FEED.md): publishes the URL blocklist samples of examples/data as a feed into a
 * folder with the package's publish() (what `cuckoo-wasm publish` runs), serves that folder on 127.0.0.1, and
 * publishes a new version every --every seconds, each one entry added and one removed, so that a follower (the
 * browser example, the extension, the Worker) sees updates arrive by patch:
 *
 *   node examples/feed/feed.mjs [--out DIR] [--state DIR] [--port 8787] [--every 30] [--sign KEYFILE] [--once]
 *
 * --out (default examples/feed/public) is the served folder; --state (default examples/feed/.state) the publisher's
 * own (never served); both are created if missing, and a run goes on from the versions they hold. --sign signs the
 * manifests with a key of `cuckoo-wasm keygen` (the public key it printed is what followers are given). --once
 * publishes one version and exits, serving nothing. The server answers GET /manifest.json and the files beside it
 * (manifest.json with `Cache-Control: no-cache`, the others, named by their SHA-256, as immutable), with
 * `Access-Control-Allow-Origin: *` so that pages of other origins may follow it. Ctrl+C stops it.
 *
 * Also importable: `publishVersion({ out, state, ... })` publishes the next version, `serveFeed(out, port)` serves a
 * folder; `SAMPLE_LISTS`, `ROTATING` say what a version holds.
 */
import { readFileSync, writeFileSync, mkdirSync, readFile } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { publish } from 'cuckoo-wasm';

const here = dirname(fileURLToPath(import.meta.url));
const data = resolve(here, '../data');

/** The lists every version holds: 50,114 hosts and 4,926 phishing URLs, and a folder entry the samples lack. */
export const SAMPLE_LISTS = [join(data, 'blocklist-sample.txt'), join(data, 'phishing-urls-sample.txt'), resolve(here, '../browser/demo-entries.txt')];
/** How many rotating entries a version holds: version v lists `feed-demo-v.example` to `feed-demo-(v+2).example`. */
export const ROTATING = 3;

/** The rotating entries of version `v`: bare hosts, each the whole site. */
export function rotatingEntries(v) {
  return Array.from({ length: ROTATING }, (_, i) => `feed-demo-${v + i}.example`);
}

/**
 * Publishes the next version: the samples plus the rotating entries of its number (one added, one dropped since the
 * version before), as a URL blocklist sized for one URL lookup to be a false positive at most 0.1% of the time.
 * @returns publish()'s result ({ published, version, full, patches, ... }).
 */
export async function publishVersion({ out, state, signingKey, pollSeconds = 30, now }) {
  mkdirSync(state, { recursive: true });
  const current = currentVersion(out);
  const list = join(state, 'list.txt');
  const samples = SAMPLE_LISTS.map((f) => readFileSync(f, 'utf8').replace(/\n?$/, '\n')).join('');
  writeFileSync(list, samples + rotatingEntries(current + 1).join('\n') + '\n');
  return publish({ list, out, state: join(state, 'publisher'), name: 'blocklist', urls: true, urlFalsePositiveRate: 0.001, pollSeconds, signingKey, now });
}

/** The version `out` serves, 0 when it serves none. */
function currentVersion(out) {
  try {
    const envelope = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    return JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')).version;
  } catch {
    return 0;
  }
}

/** Serves the files of `out` on 127.0.0.1:`port` (0: any free port). @returns the node:http server, listening. */
export function serveFeed(out, port) {
  const server = createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
    // Only the folder's own file names: no path, no dot file.
    if (req.method !== 'GET' || !/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name)) return res.writeHead(404).end();
    readFile(join(out, name), (error, body) => {
      if (error) return res.writeHead(404).end();
      res.writeHead(200, {
        'content-type': name.endsWith('.json') ? 'application/json' : 'application/octet-stream',
        'cache-control': name === 'manifest.json' ? 'no-cache' : 'public, max-age=31536000, immutable',
        'access-control-allow-origin': '*',
      });
      res.end(body);
    });
  });
  return new Promise((done) => server.listen(port, '127.0.0.1', () => done(server)));
}

function report(r) {
  if (!r.published) return console.log(`unchanged: version ${r.version}`);
  const patches = r.patches.map((p) => `from ${p.from} ${p.size} B`).join(', ') || 'none';
  console.log(`published version ${r.version}: ${r.entries} entries (+${r.added} -${r.removed}); full ${r.full.size} B; patches: ${patches}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: join(here, 'public') },
      state: { type: 'string', default: join(here, '.state') },
      port: { type: 'string', default: '8787' },
      every: { type: 'string', default: '30' },
      sign: { type: 'string' },
      once: { type: 'boolean', default: false },
    },
  });
  const every = Number(values.every);
  if (!(every >= 1)) {
    console.error(`feed.mjs: --every ${values.every}: not a number of seconds >= 1`);
    process.exit(1);
  }
  const options = { out: resolve(values.out), state: resolve(values.state), signingKey: values.sign, pollSeconds: Math.round(every) };
  try {
    report(await publishVersion(options));
    if (!values.once) {
      const server = await serveFeed(options.out, Number(values.port));
      console.log(`serving http://127.0.0.1:${server.address().port}/manifest.json; a new version every ${every} s (Ctrl+C stops)`);
      // One publish at a time: the next is scheduled when the last has finished.
      const next = () => setTimeout(() => publishVersion(options).then(report, (e) => console.error(e.message)).finally(next), every * 1000);
      next();
    }
  } catch (e) {
    console.error(`feed.mjs: ${e.message}`);
    process.exit(1);
  }
}
