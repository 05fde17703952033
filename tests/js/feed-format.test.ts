// The feed format's own code (js/feed/manifest.ts, docs/FEED.md §2, §3, §6): base64, the DSSE pre-authentication
// encoding, the envelope, Ed25519 verification against the document's signed test vector (made by
// scripts/feed-vector.mjs with node:crypto alone), and every check of the manifest's members.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FeedError } from 'cuckoo-wasm';
import {
  FEED_FORMAT,
  PAYLOAD_TYPE,
  encodeEnvelope,
  fromBase64,
  keyId,
  parseEnvelope,
  parseManifest,
  preAuthEncoding,
  sha256Hex,
  toBase64,
  verifyEnvelope,
} from '../../js/feed/manifest';

const root = join(__dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'FEED.md'), 'utf8');
const vector = doc.slice(doc.indexOf('<!-- feed-vector:begin -->'), doc.indexOf('<!-- feed-vector:end -->'));
const between = (label: string) => vector.split(label)[1].split('`')[1];
const publicKey = fromBase64(between('public key (base64 of the 32 raw bytes): '))!;
const jsonBlocks = [...vector.matchAll(/```json\n(.*)\n```/g)].map((m) => m[1]);
const [payloadText, manifestText] = jsonBlocks;

async function refusal(p: Promise<unknown> | (() => unknown)): Promise<FeedError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(FeedError);
    return e as FeedError;
  }
  throw new Error('no error');
}

describe('base64 and hex', () => {
  it('round-trips every length against Buffer, and refuses what is not padded standard base64', () => {
    for (let n = 0; n < 70; ++n) {
      const bytes = randomBytes(n);
      const text = toBase64(bytes);
      expect(text).toBe(bytes.toString('base64'));
      expect(Buffer.from(fromBase64(text)!).equals(bytes)).toBe(true);
    }
    for (const bad of ['A', 'AB', 'ABC', 'AB=C', 'A===', 'AB-_', 'AB C', '====']) expect(fromBase64(bad)).toBeUndefined();
  });

  it('SHA-256 by WebCrypto is node:crypto\'s', async () => {
    for (const n of [0, 1, 55, 56, 64, 1000]) {
      const bytes = randomBytes(n);
      expect(await sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });
});

describe('the signed test vector of docs/FEED.md §6', () => {
  it('is the one scripts/feed-vector.mjs makes', () => {
    expect(() => execFileSync(process.execPath, [join(root, 'scripts', 'feed-vector.mjs'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('verifies with its public key, and its payload is the manifest shown', async () => {
    const envelope = parseEnvelope(manifestText);
    expect(new TextDecoder().decode(envelope.payload)).toBe(payloadText);
    await expect(verifyEnvelope(envelope, publicKey)).resolves.toBeUndefined();
    expect(envelope.signatures[0].keyid).toBe(await keyId(publicKey));
    const m = parseManifest(envelope.payload);
    expect(m).toMatchObject({ format: FEED_FORMAT, name: 'test-vector', version: 2, family: 'CuckooFilter', fullOnly: false });
    expect(m.patches).toHaveLength(1);
    // Its pre-authentication encoding is the one §2 spells out.
    const pae = Buffer.from(preAuthEncoding(envelope.payload)).toString();
    expect(pae).toBe(`DSSEv1 ${PAYLOAD_TYPE.length} ${PAYLOAD_TYPE} ${envelope.payload.length} ${payloadText}`);
  });

  it('refuses a payload changed by one byte, a signature changed by one bit, another key and no signature', async () => {
    const envelope = parseEnvelope(manifestText);
    const payload = envelope.payload.slice();
    payload[payload.length - 2] ^= 1;
    expect((await refusal(verifyEnvelope({ ...envelope, payload }, publicKey))).reason).toBe('bad-signature');
    const sig = fromBase64(envelope.signatures[0].sig)!;
    sig[10] ^= 0x10;
    const flipped = { ...envelope, signatures: [{ keyid: '', sig: toBase64(sig) }] };
    expect((await refusal(verifyEnvelope(flipped, publicKey))).reason).toBe('bad-signature');
    const other = publicKey.slice();
    other[0] ^= 1;
    expect((await refusal(verifyEnvelope(envelope, other))).reason).toBe('bad-signature');
    expect((await refusal(verifyEnvelope({ ...envelope, signatures: [] }, publicKey))).reason).toBe('unsigned');
    // A signature of the wrong length is skipped, the good one after it still counts.
    const both = { ...envelope, signatures: [{ keyid: '', sig: 'AAAA' }, envelope.signatures[0]] };
    await expect(verifyEnvelope(both, publicKey)).resolves.toBeUndefined();
  });
});

describe('the envelope', () => {
  it('round-trips, and names what is wrong in one that is not', async () => {
    const payload = new TextEncoder().encode('{"a":1}');
    const e = parseEnvelope(encodeEnvelope(payload, []));
    expect(Buffer.from(e.payload).equals(Buffer.from(payload))).toBe(true);
    expect(e.signatures).toEqual([]);
    const cases: [string, RegExp][] = [
      ['not json', /not JSON/],
      ['[]', /not a JSON object/],
      [JSON.stringify({ payloadType: 'application/json', payload: '', signatures: [] }), /payloadType/],
      [JSON.stringify({ payloadType: PAYLOAD_TYPE, payload: 'A', signatures: [] }), /payload is not a base64/],
      [JSON.stringify({ payloadType: PAYLOAD_TYPE, payload: '', signatures: {} }), /signatures is not an array/],
      [JSON.stringify({ payloadType: PAYLOAD_TYPE, payload: '', signatures: [{ keyid: 'x' }] }), /signatures\[0\]/],
    ];
    for (const [text, message] of cases) {
      const error = await refusal(() => parseEnvelope(text));
      expect(error.reason).toBe('manifest-invalid');
      expect(error.message).toMatch(message);
    }
  });
});

describe('the manifest', () => {
  const hash = 'ab'.repeat(32);
  const good = {
    format: FEED_FORMAT,
    name: 'list-1.b_c',
    version: 5,
    family: 'BloomFilter',
    published: '2026-12-07T06:00:00.000Z',
    pollSeconds: 60,
    full: { path: `full-${hash}.bin`, size: 100, sha256: hash },
    fullOnly: false,
    patches: [
      { from: 4, path: `patch-4-${hash}.bin`, size: 10, sha256: hash },
      { from: 1, path: `patch-1-${hash}.bin`, size: 12, sha256: hash },
    ],
    extra: 'ignored',
  };
  const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

  it('parses one with every member right, ignoring members it does not know', () => {
    const m = parseManifest(bytes(good));
    expect(m).toEqual({ ...good, extra: undefined });
    expect('extra' in m).toBe(false);
  });

  const wrong: [string, (m: Record<string, any>) => void, RegExp][] = [
    ['another format', (m) => (m.format = 'cuckoo-wasm-feed/2'), /format/],
    ['a name with a slash', (m) => (m.name = 'a/b'), /name/],
    ['an empty name', (m) => (m.name = ''), /name/],
    ['a name of 129 characters', (m) => (m.name = 'a'.repeat(129)), /name/],
    ['version 0', (m) => (m.version = 0), /version/],
    ['a fractional version', (m) => (m.version = 1.5), /version/],
    ['a version past 2^53 - 1', (m) => (m.version = 2 ** 53), /version/],
    ['a version as a string', (m) => (m.version = '5'), /version/],
    ['an unknown family', (m) => (m.family = 'QuotientFilter'), /family/],
    ['a time that is none', (m) => (m.published = 'yesterday'), /published/],
    ['pollSeconds 0', (m) => (m.pollSeconds = 0), /pollSeconds/],
    ['a path with a slash', (m) => (m.full.path = 'a/full.bin'), /full\.path/],
    ['a path going up', (m) => (m.full.path = '..'), /full\.path/],
    ['a hidden path', (m) => (m.full.path = '.full.bin'), /full\.path/],
    ['an absolute URL as path', (m) => (m.full.path = 'https://evil.example/x.bin'), /full\.path/],
    ['a path of 201 characters', (m) => (m.full.path = 'a'.repeat(201)), /full\.path/],
    ['an uppercase hash', (m) => (m.full.sha256 = 'AB'.repeat(32)), /full\.sha256/],
    ['a short hash', (m) => (m.full.sha256 = 'ab'), /full\.sha256/],
    ['a size past 1 GiB', (m) => (m.full.size = 2 ** 30 + 1), /full\.size/],
    ['a negative size', (m) => (m.full.size = -1), /full\.size/],
    ['no full', (m) => delete m.full, /full is not an object/],
    ['fullOnly as a string', (m) => (m.fullOnly = 'false'), /fullOnly/],
    ['fullOnly with patches', (m) => (m.fullOnly = true), /fullOnly is true/],
    ['patches as an object', (m) => (m.patches = {}), /patches is not an array/],
    ['two patches from one version', (m) => (m.patches[1].from = 4), /two patches are from version 4/],
    ['a patch from this version', (m) => (m.patches[0].from = 5), /patches\[0\]\.from/],
    ['a patch with no from', (m) => delete m.patches[1].from, /patches\[1\]\.from/],
    ['a patch whose path is bad', (m) => (m.patches[1].path = 'x\\y'), /patches\[1\]\.path/],
  ];
  it.each(wrong)('refuses %s, naming the member', async (_, change, message) => {
    const m = JSON.parse(JSON.stringify(good));
    change(m);
    const error = await refusal(() => parseManifest(bytes(m)));
    expect(error.reason).toBe('manifest-invalid');
    expect(error.message).toMatch(message);
  });

  it('refuses a payload that is not UTF-8 JSON', async () => {
    for (const payload of [new Uint8Array([0x7b, 0xff, 0x7d]), new TextEncoder().encode('[1]'), new TextEncoder().encode('{')]) {
      expect((await refusal(() => parseManifest(payload))).reason).toBe('manifest-invalid');
    }
  });
});
