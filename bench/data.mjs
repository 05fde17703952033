// Key sets for the benchmarks: members (keys added) and non-members (keys never
// added), from real lists: domains (the default) or URLs (`keys: 'urls'`). Shared by bench/worker.mjs and bench/floor.mjs;
// bench/native/core_bench.cc implements the same rule in C++ (and both print the
// same key-set digest, so a mismatch is visible).
//
// Members: the first N lines of blocklist_domains.txt (file order). When N is
// larger than the list, extra keys are derived deterministically by prefixing a
// label to each real domain in file order, round after round:
//   round 1 "cdn.<domain>", round 2 "api.<domain>", ... (DERIVE_LABELS), then
//   "cdn2.<domain>", ... ; a derived key already taken is skipped.
// Non-members: every line of benign_domains.txt that is not a member (exact
// match), in file order; if more are asked for than exist, derived the same way
// (skipping members and keys already taken).
//
// URL keys: members are the first N distinct lines of phishing_urls.txt (49,256
// real phishing links, as published; N may not exceed that), non-members are
// `https://<domain>/` for each benign domain, the shape of a link a page or an
// extension checks. There is no in-repo sample of URLs: they need ../shared/data.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Labels prefixed to real domains to derive extra, real-looking keys. */
export const DERIVE_LABELS = ['cdn', 'api', 'm', 'static', 'img', 'login', 'mail', 'app', 'secure', 'auth'];

/** Label of derivation round r (1-based): cdn, api, ..., auth, cdn2, api2, ... */
export function deriveLabel(round) {
  const base = DERIVE_LABELS[(round - 1) % DERIVE_LABELS.length];
  const cycle = Math.floor((round - 1) / DERIVE_LABELS.length);
  return cycle === 0 ? base : `${base}${cycle + 1}`;
}

/**
 * Finds the data files: `dir` if given, else ../shared/data next to the repo
 * (the full lists), else the in-repo sample in examples/data.
 */
export function locateData(dir) {
  const full = dir ? resolve(dir) : resolve(ROOT, '..', 'shared', 'data');
  const blocklist = join(full, 'blocklist_domains.txt');
  const benign = join(full, 'benign_domains.txt');
  const urls = join(full, 'phishing_urls.txt');
  if (existsSync(blocklist) && existsSync(benign)) {
    return { blocklist, benign, urls: existsSync(urls) ? urls : null, sample: false };
  }
  if (dir) throw new Error(`no blocklist_domains.txt and benign_domains.txt in ${full}`);
  return {
    blocklist: join(ROOT, 'examples', 'data', 'blocklist-sample.txt'),
    benign: join(ROOT, 'examples', 'data', 'benign-opendns.txt'),
    urls: null,
    sample: true,
  };
}

/** Non-empty, non-comment lines of a file, trimmed, in file order. */
export function readLines(path) {
  const out = [];
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line && line[0] !== '#') out.push(line);
  }
  return out;
}

/**
 * Keys derived from real ones, in order: `${deriveLabel(r)}.${d}` for each d of
 * `real`, round r = 1, 2, ...; a key `taken` has (checked as it is reached) is skipped.
 */
export function* derived(real, taken) {
  for (let round = 1; ; ++round) {
    if (round > 10_000) throw new Error('cannot derive enough distinct keys');
    const label = deriveLabel(round);
    for (const d of real) {
      const k = `${label}.${d}`;
      if (!taken.has(k)) yield k;
    }
  }
}

/** Appends to `target` the keys of `real` not taken, then derived ones, up to `want`; returns how many were derived. */
function fill(target, want, real, taken) {
  for (const k of real) {
    if (target.length >= want) return 0;
    if (!taken.has(k)) {
      taken.add(k);
      target.push(k);
    }
  }
  let count = 0;
  for (const k of derived(real, taken)) {
    if (target.length >= want) break;
    taken.add(k);
    target.push(k);
    ++count;
  }
  return count;
}

/** The kinds of key a benchmark can use. */
export const KEY_KINDS = ['domains', 'urls'];

/** How many URL keys there are (distinct lines of phishing_urls.txt), or 0 without the file. */
export function urlCount(dir) {
  const { urls } = locateData(dir);
  return urls ? new Set(readLines(urls)).size : 0;
}

/**
 * Loads the key sets.
 *
 * @param {number} n - members wanted.
 * @param {{ dir?: string, nonMembers?: number, keys?: 'domains' | 'urls' }} [options] - data
 *   folder; non-members wanted (default: every benign line that is not a member); the kind of key.
 * @returns {{ members: string[], nonMembers: string[], derivedMembers: number,
 *   derivedNonMembers: number, excludedNonMembers: number, files: object, digest: string }}
 */
export function loadKeys(n, options = {}) {
  const files = locateData(options.dir);
  const kind = options.keys ?? 'domains';
  if (!KEY_KINDS.includes(kind)) throw new Error(`keys: ${kind} is not one of ${KEY_KINDS.join(', ')}`);
  if (kind === 'urls') return loadUrlKeys(n, files, options);
  const block = readLines(files.blocklist);
  const benign = readLines(files.benign);
  const members = [];
  const taken = new Set();
  const derivedMembers = fill(members, n, block, taken);
  const nonMembers = [];
  let excludedNonMembers = 0;
  const benignFresh = [];
  for (const k of benign) {
    if (taken.has(k)) ++excludedNonMembers;
    else benignFresh.push(k);
  }
  const wantNon = options.nonMembers ?? benignFresh.length;
  const derivedNonMembers = fill(nonMembers, wantNon, benignFresh, taken);
  return keySet(members, nonMembers, { derivedMembers, derivedNonMembers, excludedNonMembers, files });
}

/** A key set as loadKeys returns it: fresh copies of the keys, the counts, the files and the digest. */
function keySet(members, nonMembers, counts) {
  // Fresh, flat strings (split() may return slices of the whole file, which
  // would keep it alive and make keys cheaper to read than keys from elsewhere).
  return {
    members: JSON.parse(JSON.stringify(members)),
    nonMembers: JSON.parse(JSON.stringify(nonMembers)),
    ...counts,
    digest: `${digest(members)}/${digest(nonMembers)}`,
  };
}

function loadUrlKeys(n, files, options) {
  if (!files.urls) throw new Error('URL keys need phishing_urls.txt (../shared/data or --data DIR)');
  const urls = [...new Set(readLines(files.urls))];
  if (n > urls.length) throw new Error(`URL keys: ${n} asked for, phishing_urls.txt has ${urls.length} distinct URLs`);
  const members = urls.slice(0, n);
  const taken = new Set(members);
  const nonMembers = [];
  let excludedNonMembers = 0;
  for (const d of readLines(files.benign)) {
    if (options.nonMembers !== undefined && nonMembers.length >= options.nonMembers) break;
    const url = `https://${d}/`;
    if (taken.has(url)) ++excludedNonMembers;
    else nonMembers.push(url);
  }
  return keySet(members, nonMembers, { derivedMembers: 0, derivedNonMembers: 0, excludedNonMembers, files });
}

/** FNV-1a 32 over the keys joined by '\n' (UTF-16 code units; the lists are ASCII, so the same as bytes): a cheap key-set identity. */
export function digest(keys) {
  let h = 0x811c9dc5;
  for (let i = 0; i < keys.length; ++i) {
    const k = keys[i];
    for (let j = 0; j < k.length; ++j) h = Math.imul(h ^ k.charCodeAt(j), 0x01000193);
    h = Math.imul(h ^ 10, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
