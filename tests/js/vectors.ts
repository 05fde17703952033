// The test-vector files of tests/vectors/, which the native tests read too
// (tests/native/url_vectors.h): one list per kind, typed once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A URL as a string, or as bytes (inputs that are not UTF-8, as the docs' "\x01\x80"). */
export type UrlInput = string | Uint8Array;
/** A canonical URL, or the InvalidUrlError reason of a refusal. */
export type Canonical = string | { refused: string };

type RawInput = string | { latin1: string };
interface RawFile {
  canonicalization: Record<string, { vectors: [RawInput, Canonical][] }>;
  expressions: Record<string, { vectors: [RawInput, string[]][] }>;
}

const safeBrowsing = JSON.parse(
  readFileSync(join(__dirname, '..', 'vectors', 'safe-browsing.json'), 'utf8'),
) as RawFile;

/** {"latin1": s} is the bytes of s, one per code unit. */
function input(x: RawInput): UrlInput {
  return typeof x === 'string' ? x : new Uint8Array(Buffer.from(x.latin1, 'latin1'));
}

/** canonicalization.<list> of tests/vectors/safe-browsing.json: [input, canonical URL or refusal]. */
export function canonVectors(list: 'docs-v4' | 'docs-prose' | 'chromium'): [UrlInput, Canonical][] {
  return safeBrowsing.canonicalization[list].vectors.map(([i, want]) => [input(i), want]);
}

/** expressions.<list> of tests/vectors/safe-browsing.json: [URL, the expressions in order]. */
export function expressionVectors(list: 'docs-v4' | 'chromium'): [string, string[]][] {
  return safeBrowsing.expressions[list].vectors.map(([i, want]) => [i as string, want]);
}
