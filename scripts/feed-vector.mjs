// Writes docs/FEED.md §6's signed test vector between its feed-vector markers: the Ed25519 key whose 32-byte seed is
// 0x00..0x1f (RFC 8032 §5.1.5) signs a fixed manifest, as docs/FEED.md §2 says (DSSE's pre-authentication encoding),
// with node:crypto alone, a second implementation beside js/feed/manifest.ts, which tests/js/feed-format.test.ts
// checks against the vector. `--check` compares instead of writing (exit code 1 when the document differs).
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const doc = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'FEED.md');
const PAYLOAD_TYPE = 'application/vnd.cuckoo-wasm.feed+json';
const seed = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
// PKCS#8 of an Ed25519 private key: this fixed prefix, then the 32-byte seed (RFC 8410 §7).
const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);

const sha = (text) => createHash('sha256').update(text).digest('hex');
const payload = Buffer.from(
  JSON.stringify({
    format: 'cuckoo-wasm-feed/1',
    name: 'test-vector',
    version: 2,
    family: 'CuckooFilter',
    published: '2026-12-07T00:00:00.000Z',
    pollSeconds: 300,
    full: { path: `full-${sha('full')}.bin`, size: 4, sha256: sha('full') },
    fullOnly: false,
    patches: [{ from: 1, path: `patch-1-${sha('patch')}.bin`, size: 5, sha256: sha('patch') }],
  }),
);
const pae = Buffer.concat([Buffer.from(`DSSEv1 ${PAYLOAD_TYPE.length} ${PAYLOAD_TYPE} ${payload.length} `), payload]);
const sig = sign(null, pae, privateKey);
const keyid = createHash('sha256').update(publicKey).digest().subarray(0, 8).toString('base64');
const envelope = JSON.stringify({ payloadType: PAYLOAD_TYPE, payload: payload.toString('base64'), signatures: [{ keyid, sig: sig.toString('base64') }] });

const fence = '```';
const block = [
  '<!-- feed-vector:begin -->',
  '- seed (hex): `' + seed.toString('hex') + '`',
  '- public key (base64 of the 32 raw bytes): `' + publicKey.toString('base64') + '`',
  '- key id: `' + keyid + '`',
  '- payload (' + payload.length + ' bytes of UTF-8, exactly):',
  '',
  '<!-- snippet: json -->',
  fence + 'json',
  payload.toString(),
  fence,
  '',
  '- the signed bytes begin `DSSEv1 ' + PAYLOAD_TYPE.length + ' ' + PAYLOAD_TYPE + ' ' + payload.length + ' ` and go on with the payload',
  '- signature (base64): `' + sig.toString('base64') + '`',
  '- `manifest.json`:',
  '',
  '<!-- snippet: json -->',
  fence + 'json',
  envelope,
  fence,
  '<!-- feed-vector:end -->',
].join('\n');

const text = readFileSync(doc, 'utf8');
const next = text.replace(/<!-- feed-vector:begin -->[\s\S]*?<!-- feed-vector:end -->/, block);
if (process.argv.includes('--check')) {
  if (next !== text) {
    console.error('docs/FEED.md: the test vector is not the one scripts/feed-vector.mjs makes: run it');
    process.exit(1);
  }
} else {
  writeFileSync(doc, next);
  console.log('wrote docs/FEED.md §6');
}
