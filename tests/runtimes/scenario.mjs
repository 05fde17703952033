// The end-to-end scenario every runtime runs (Node.js, workerd, Deno, Bun, browsers): a plain ES module with no
// imports, so that any of them can load it as it is. The host imports cuckoo-wasm however that runtime resolves it,
// gets the input (made once per run by tests/runtimes/input.ts, from the CLI: a URL blocklist filter of the repo's
// sample lists, a real patch to the next version of it and that version's bytes) and calls:
//
//   const result = await runScenario(lib, input);
//
// lib    the cuckoo-wasm module namespace (import * as lib from 'cuckoo-wasm', or the module's exports)
// input  {
//   filterBytes:  Uint8Array    version 1 of the filter, as `cuckoo-wasm build --urls` wrote it
//   patch:        Uint8Array    `cuckoo-wasm diff` of version 1 and version 2
//   patchedBytes: Uint8Array    version 2, as `cuckoo-wasm patch` wrote it (Node.js's bytes)
//   listed:       string[]      URLs listed in both versions (each must be found: no false negatives)
//   benign:       string[]      URLs of hosts on neither list (any found is a false positive)
//   hostile:      Uint8Array | Uint8Array[]   bytes that are not a valid filter (each must be refused)
//   added?:       string[]      URLs listed in version 2 only (found once the patch is applied)
// }
//
// It returns a plain JSON-able object; `ok` is true when `failures` is empty. Everything but `ms` is the same in
// every runtime for the same input, so a host can compare a runtime's result with Node.js's whole.
//
// The input travels as JSON (input.json, written by tests/runtimes/input.ts: the byte fields in base64):
//   const input = inputFromJson(await (await fetch('input.json')).text());

/** At most this share of the benign URLs may be found (the filter is sized for 0.1% per URL). */
const MAX_FALSE_POSITIVE_SHARE = 0.01;

/**
 * Runs the scenario with `lib` on `input`; never throws (an exception becomes a failure).
 * @returns {Promise<{ ok: boolean, failures: string[], [key: string]: unknown }>}
 */
export async function runScenario(lib, input) {
  const failures = [];
  const result = { ok: false, failures };
  const now = () => (typeof performance === 'object' && performance ? performance.now() : Date.now());
  const start = now();
  let filter;
  try {
    const { CuckooFilter, FilterFormatError } = lib;
    filter = await CuckooFilter.fromBytes(input.filterBytes);
    result.items = filter.size;
    result.byteLength = filter.byteLength;

    // Version 1: every listed URL is found, one at a time and in one batch, and matchUrl names an entry.
    const listed = checkUrls(filter, input.listed);
    Object.assign(result, {
      listed: input.listed.length,
      falseNegatives: listed.notFound,
      unmatched: listed.unmatched,
      batchDisagreements: listed.disagreements,
      matchDigest: listed.digest,
    });
    if (listed.notFound > 0) failures.push(`${listed.notFound} of ${input.listed.length} listed URLs not found (false negatives)`);
    if (listed.unmatched > 0) failures.push(`matchUrl returned null for ${listed.unmatched} listed URLs`);

    const benign = checkUrls(filter, input.benign);
    const falsePositives = input.benign.length - benign.notFound;
    Object.assign(result, { benign: input.benign.length, falsePositives, benignDigest: benign.digest });
    if (falsePositives > MAX_FALSE_POSITIVE_SHARE * input.benign.length) {
      failures.push(`${falsePositives} of ${input.benign.length} benign URLs found (false positives above ${MAX_FALSE_POSITIVE_SHARE * 100}%)`);
    }
    const disagreements = listed.disagreements + benign.disagreements;
    if (disagreements > 0) failures.push(`hasAllUrls disagreed with hasUrl / matchUrl on ${disagreements} URLs`);

    result.roundTrip = equalBytes(filter.toBytes(), input.filterBytes);
    if (!result.roundTrip) failures.push('toBytes() of the loaded filter differs from the bytes it was loaded from');

    // Version 2 by the patch: the bytes are Node.js's, the added URLs are found, the listed ones still are.
    filter.applyPatch(input.patch);
    result.patchBytes = input.patch.length;
    result.patchedEqual = equalBytes(filter.toBytes(), input.patchedBytes);
    if (!result.patchedEqual) failures.push("toBytes() after applyPatch differs from Node.js's patched bytes");
    const added = input.added ?? [];
    const afterPatch = checkUrls(filter, [...input.listed, ...added]);
    Object.assign(result, { added: added.length, falseNegativesAfterPatch: afterPatch.notFound });
    if (afterPatch.notFound > 0) failures.push(`${afterPatch.notFound} listed or added URLs not found after the patch`);

    // The same patch again: its base is version 1, so it is refused and the filter stays as it is.
    result.repatch = await refusal(() => filter.applyPatch(input.patch), FilterFormatError);
    if (!result.repatch.refused) failures.push(`the patch applied twice was not refused with FilterFormatError (${result.repatch.name})`);
    if (!equalBytes(filter.toBytes(), input.patchedBytes)) failures.push('a refused patch changed the filter');

    // Hostile bytes: refused with FilterFormatError (a rejection, not a trap or another error).
    const hostile = input.hostile instanceof Uint8Array ? [input.hostile] : input.hostile;
    result.hostile = [];
    for (const bytes of hostile) {
      const outcome = await refusal(() => CuckooFilter.fromBytes(bytes), FilterFormatError);
      result.hostile.push(outcome);
      if (!outcome.refused) failures.push(`hostile bytes (${bytes.length}) not refused with FilterFormatError: ${outcome.name}: ${outcome.message}`);
    }
  } catch (e) {
    failures.push(`threw ${e && e.name}: ${e && e.message}`);
  } finally {
    try {
      filter?.dispose();
    } catch (e) {
      failures.push(`dispose() threw ${e && e.name}: ${e && e.message}`);
    }
  }
  result.ms = Math.round((now() - start) * 10) / 10;
  result.ok = failures.length === 0;
  return result;
}

/** The input's fields that are bytes: base64 in its JSON form. */
const BYTE_FIELDS = ['filterBytes', 'patch', 'patchedBytes'];

/**
 * The scenario's input from its JSON form: the byte fields (and each of `hostile`) from base64 to Uint8Array.
 * @param {string} text
 */
export function inputFromJson(text) {
  const input = JSON.parse(text);
  for (const field of BYTE_FIELDS) input[field] = fromBase64(input[field]);
  input.hostile = input.hostile.map(fromBase64);
  return input;
}

/** The JSON form of `input` (see inputFromJson). */
export function inputToJson(input) {
  const copy = { ...input };
  for (const field of BYTE_FIELDS) copy[field] = toBase64(input[field]);
  copy.hostile = (input.hostile instanceof Uint8Array ? [input.hostile] : input.hostile).map(toBase64);
  return JSON.stringify(copy);
}

function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** hasUrl, matchUrl and hasAllUrls over `urls`: how many not found, matched by none, answered differently; a digest of the matches. */
function checkUrls(filter, urls) {
  const batch = filter.hasAllUrls(urls);
  let notFound = 0;
  let unmatched = 0;
  let disagreements = 0;
  let digest = 0x811c9dc5;
  for (let i = 0; i < urls.length; ++i) {
    const has = filter.hasUrl(urls[i]);
    const match = filter.matchUrl(urls[i]);
    if (!has) notFound += 1;
    if (has && match === null) unmatched += 1;
    if (batch[i] !== has || (match !== null) !== has) disagreements += 1;
    digest = fnv1a(digest, `${match}\n`);
  }
  return { notFound, unmatched, disagreements, digest: (digest >>> 0).toString(16).padStart(8, '0') };
}

/** What calling `f` did: refused with `ErrorClass` (and its code and reason), or not. */
async function refusal(f, ErrorClass) {
  try {
    await f();
    return { refused: false, name: 'no error', code: null, reason: null, message: '' };
  } catch (e) {
    return {
      refused: e instanceof ErrorClass && e.code === 'ERR_FILTER_FORMAT',
      name: e && e.name,
      code: (e && e.code) ?? null,
      reason: (e && e.reason) ?? null,
      message: String(e && e.message).slice(0, 200),
    };
  }
}

function equalBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) return false;
  return true;
}

/** FNV-1a (32-bit) over the UTF-16 code units of `text`, continuing from `hash`. */
function fnv1a(hash, text) {
  for (let i = 0; i < text.length; ++i) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}

/**
 * A Worker (workerd) of the scenario: POST /scenario with the input's JSON answers what `run(input)` gives (the
 * scenario's result, and whatever else the Worker adds), with the runtime; GET / answers what to POST.
 * @param {(input: object) => Promise<object>} run
 */
export function scenarioWorker(run) {
  return {
    async fetch(request) {
      const { pathname } = new URL(request.url);
      if (request.method === 'POST' && pathname === '/scenario') {
        const result = await run(inputFromJson(await request.text()));
        return Response.json({ ...result, runtime: `workerd ${navigator.userAgent}` });
      }
      return new Response('POST /scenario', { status: pathname === '/' ? 200 : 404 });
    },
  };
}
