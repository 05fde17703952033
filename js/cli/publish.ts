/**
 * The `cuckoo-wasm` commands that publish a feed (docs/FEED.md):
 *   cuckoo-wasm publish LIST --out DIR --state DIR [...]        (or --redis URL --key KEY in place of LIST)
 *   cuckoo-wasm keygen --out KEYFILE
 * `publish` runs publish() (js/feed/publish.ts) and prints what it did; `keygen` writes an Ed25519 private key
 * (PKCS#8 PEM, mode 0600) and prints its public key as clients take it (base64 of the 32 raw bytes).
 * Errors: thrown as Error (one line; the caller prints it and exits with code 1).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { publish } from '../feed/publish.js';
import { toBase64 } from '../feed/manifest.js';
import { UsageError } from './redis.js';
import { fileError } from './files.js';

export const PUBLISH_USAGE = `
  cuckoo-wasm publish LIST --out DIR --state DIR [--name N] [--urls] [--format F] [--type cuckoo|bloom|fuse]
                      [--fpr R | --url-fpr R] [--capacity N] [--expansion N] [--keep 10] [--poll-seconds 300] [--sign KEYFILE]
                      [--allow-empty]
  cuckoo-wasm publish --redis URL --key KEY --out DIR --state DIR [--name N] [--keep 10] [--poll-seconds 300] [--sign KEYFILE]
      publishes the next version of a feed (docs/FEED.md) into DIR (--out, the folder a web server serves): the full
      filter and patches from the last --keep versions, named by their SHA-256, and manifest.json last, signed with
      --sign. An unchanged list publishes nothing. LIST is read as build reads it (--format, --urls); --redis
      publishes a RedisBloom key as redis-pull reads it. --state is the publisher's own folder (not served): the
      last versions' filters and the list's entries, sorted; the next run goes on from it. A cuckoo filter's next
      version deletes the entries removed and adds the new ones (a patch); one that fills up is built again
      (fullOnly), as is a Bloom filter that loses an entry; a binary fuse filter (--type fuse, static) is built
      again for every version (fullOnly). --capacity defaults to the entries x 1.25.
      --name defaults to LIST's file name without its extension (or KEY). A LIST with no entries is refused
      (nothing published) unless --allow-empty is given
  cuckoo-wasm keygen --out KEYFILE
      writes a new Ed25519 private key to KEYFILE (PKCS#8 PEM, mode 0600; an existing file is never replaced) for
      publish --sign, and prints its public key, base64 of its 32 bytes, which clients are given (FilterFeed's publicKey)`;

function numberOf(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${name} must be a number, got "${value}"`);
  return n;
}

async function publishCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      state: { type: 'string' },
      name: { type: 'string' },
      urls: { type: 'boolean' },
      format: { type: 'string' },
      type: { type: 'string' },
      fpr: { type: 'string' },
      'url-fpr': { type: 'string' },
      capacity: { type: 'string' },
      expansion: { type: 'string' },
      keep: { type: 'string' },
      'poll-seconds': { type: 'string' },
      sign: { type: 'string' },
      redis: { type: 'string' },
      key: { type: 'string' },
      'allow-empty': { type: 'boolean' },
    },
  });
  const redis = values.redis !== undefined || values.key !== undefined;
  if (redis && (values.redis === undefined || values.key === undefined)) throw new UsageError('publish --redis URL needs --key KEY (and --key needs --redis)');
  if (redis ? positionals.length !== 0 : positionals.length !== 1) {
    throw new UsageError(redis ? 'publish --redis takes no LIST' : 'publish takes one LIST file (or --redis URL --key KEY)');
  }
  if (values.out === undefined) throw new UsageError('publish needs --out DIR (the served folder)');
  if (values.state === undefined) throw new UsageError('publish needs --state DIR (the publisher\'s own folder, not served)');
  if (values.type !== undefined && values.type !== 'cuckoo' && values.type !== 'bloom' && values.type !== 'fuse') {
    throw new UsageError(`--type must be cuckoo, bloom or fuse, got "${values.type}"`);
  }
  // A publish allocates a string per line of the list, of each sorted run and of the last version's entries, most
  // short-lived: young-generation semispaces of 32 MB (V8's default is at most 16) halve the scavenges, about 15% of
  // a 3,000,000-line run's time (bench/publish.mjs), for about 30 MB more memory. The command's own process only:
  // publish() leaves its host's V8 as it is.
  setFlagsFromString('--max-semi-space-size=32');
  const r = await publish({
    ...(redis ? { redis: { url: values.redis!, key: values.key! } } : { list: positionals[0] }),
    out: values.out,
    state: values.state,
    name: values.name,
    urls: values.urls,
    format: values.format,
    type: values.type as 'cuckoo' | 'bloom' | 'fuse' | undefined,
    falsePositiveRate: numberOf('fpr', values.fpr),
    urlFalsePositiveRate: numberOf('url-fpr', values['url-fpr']),
    capacity: numberOf('capacity', values.capacity),
    expansion: numberOf('expansion', values.expansion),
    keep: numberOf('keep', values.keep),
    pollSeconds: numberOf('poll-seconds', values['poll-seconds']),
    signingKey: values.sign,
    allowEmpty: values['allow-empty'],
  });
  for (const line of r.report) console.log(line);
  if (!r.published) {
    console.log(`unchanged: nothing published (${values.out} serves version ${r.version} of ${r.name}, ${r.entries} entries)`);
    return;
  }
  console.log(`published:           ${r.name} version ${r.version} (${r.family}${r.fullOnly ? ', fullOnly: no patch leads to it' : ''})`);
  console.log(`entries:             ${r.entries} (${r.added} added, ${r.removed} removed)`);
  console.log(`full:                ${r.full.path} (${r.full.size} bytes)`);
  for (const p of r.patches) console.log(`patch from ${String(p.from).padEnd(9)}${p.path} (${p.size} bytes)`);
  console.log(`wrote ${values.out}/manifest.json${values.sign === undefined ? ' (unsigned)' : ` (signed with ${values.sign})`}`);
}

async function keygenCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { out: { type: 'string', short: 'o' } } });
  if (positionals.length !== 0 || values.out === undefined) throw new UsageError('keygen takes --out KEYFILE');
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  let fd: number;
  try {
    // 'wx': never replaces a file (a key in use would be lost); 0600: the key is the feed's trust.
    fd = openSync(values.out, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`${values.out} exists: keygen never replaces a key; give another --out, or delete it first`);
    throw fileError('write', 'key', values.out, e);
  }
  try {
    writeSync(fd, pem);
  } finally {
    closeSync(fd);
  }
  const x = createPublicKey(privateKey).export({ format: 'jwk' }).x!;
  console.log(`wrote ${values.out} (Ed25519 private key, PKCS#8 PEM, mode 0600): publish --sign ${values.out}`);
  console.log(`public key: ${toBase64(new Uint8Array(Buffer.from(x, 'base64url')))}`);
}

/**
 * Runs `publish` or `keygen`.
 * @throws UsageError for arguments that do not fit the command; Error (one line) for anything else.
 */
export function feedCommand(command: 'publish' | 'keygen', args: string[]): Promise<void> {
  return command === 'publish' ? publishCommand(args) : keygenCommand(args);
}
