/**
 * The URL lookups every filter has (js/url/url.ts, src/url/url_filter.h, docs/URLS.md):
 * a URL looked up by its expressions, and its batch form (the full entry's
 * addUrl / addUrls are js/filters/writers.ts's), which run on the batch engine of
 * js/filters/wasm-filter.ts with their own {@link BatchOps}. A layer of the filter
 * classes (WasmFilter, UrlFilter, FamilyFilter), over the URL functions of js/url/.
 */
import { Key } from '../common/checks.js';
import { BATCH_MAX_KEYS, Chunk } from '../common/chunk.js';
import { Answers, writeAnswers } from '../common/answers.js';
import { Status } from '../common/status.js';
import { MAX_URL_EXPRESSIONS, urlError, withAsciiHost } from '../url/url.js';
import type { Handle } from '../boundary/core-types.js';
import { BatchOps, WasmFilter } from './wasm-filter.js';

/** Answer codes of a chunk of URLs, reused from chunk to chunk. */
let codeScratch: Int8Array | undefined;

/** A filter with the URL methods. Not exported from the package. */
export abstract class UrlFilter extends WasmFilter {
  /** How URLs are looked up: canonicalized and expanded by the core; one too long is refused before it is read. @internal */
  protected static readonly urlOps: BatchOps = {
    contain: (f, h, chunk, out, at) => (f as UrlFilter).containUrlChunk(h, chunk, out, at),
    refuses: (f, key) => (f as UrlFilter).core.urlTooLong(key),
    refusal: (f, key, index) => urlError((f as UrlFilter).core, Status.UrlTooLong, key, index),
  };

  /**
   * True if any of the URL's expressions (up to 30: host suffixes × path
   * prefixes, see {@link urlExpressions}) is in the filter; one crossing into
   * WebAssembly, which canonicalizes, expands, hashes and probes. Never false
   * for a URL under an entry that was added (and, for a cuckoo filter, not deleted).
   *
   * @throws InvalidUrlError if the string cannot be a URL; ArgumentTypeError, FilterDisposedError.
   * @example
   * ```ts
   * if (f.hasUrl(link.href)) warn(link);
   * ```
   */
  hasUrl(url: Key): boolean {
    return this.matchCode(url) === 1;
  }

  /**
   * The first of the URL's expressions that is in the filter, for "blocked
   * because of …" messages, or null if none is (exact host first, then shorter
   * host suffixes; per host the exact path with query, without, then `/`,
   * `/1/`, ...).
   * @throws InvalidUrlError, ArgumentTypeError, FilterDisposedError as {@link hasUrl}.
   * @example
   * ```ts
   * f.addUrl('evil.example/login/');
   * f.matchUrl('https://www.evil.example/login/form.php?x=1'); // 'evil.example/login/'
   * ```
   */
  matchUrl(url: Key): string | null {
    return this.matchCode(url) === 1 ? this.core.urlSpan() : null;
  }

  /**
   * `hasUrl` for many URLs, crossing into WebAssembly once per chunk; optionally into the caller's
   * Uint8Array `out`, as `hasAll(keys, out)` takes it: `out[i]` becomes 1 if `hasUrl(urls[i])`,
   * else 0, and the batch allocates nothing per URL.
   * @param urls - an iterable or array-like of URLs (strings or UTF-8 Uint8Arrays), as for `hasAll`.
   * @param out - optional: a Uint8Array with at least one byte per URL (see `hasAll` for its checks).
   * @returns without `out`: `result[i] === hasUrl(urls[i])`, a new boolean[]. With it: `out`.
   * @throws InvalidUrlError at the first URL that cannot be one (its `index` names it).
   *   ArgumentTypeError, ArgumentRangeError, FilterDisposedError as for `hasAll` (`out` included).
   * @example
   * ```ts
   * const answers = new Uint8Array(urls.length);
   * f.hasAllUrls(urls, answers); // answers[i] === 1: urls[i] may be blocked
   * ```
   */
  hasAllUrls(urls: Iterable<Key> | ArrayLike<Key>, out?: undefined): boolean[];
  hasAllUrls<Out extends Uint8Array>(urls: Iterable<Key> | ArrayLike<Key>, out: Out): Out;
  hasAllUrls(urls: Iterable<Key> | ArrayLike<Key>, out?: Uint8Array): boolean[] | Uint8Array {
    return this.containKeys(urls, UrlFilter.urlOps, out);
  }

  /**
   * The false-positive rate of one URL lookup, a probability: a URL is looked
   * up by up to 30 expressions, so its rate is at most 1 − (1 − ε)^30 ≈ 30·ε,
   * ε the per-key {@link falsePositiveRate}. Size a URL filter for ε = URL rate / 30.
   */
  get urlFalsePositiveRate(): number {
    return 1 - (1 - this.falsePositiveRate) ** MAX_URL_EXPRESSIONS;
  }

  /** 1 found, 0 not found; throws for a refused URL. */
  private matchCode(url: Key): number {
    const h = this.live();
    let r = this.core.urlMatch(this.familyId, h, url, undefined);
    if (r < 0) {
      r = withAsciiHost(this.core, (host) => this.core.urlMatch(this.familyId, h, url, host), r);
      if (r < 0) throw urlError(this.core, -r, url);
    }
    return r;
  }

  /**
   * containChunk for URLs: internationalized hosts are looked up again one by
   * one; the answers are written once every URL of the chunk has one.
   */
  private containUrlChunk(handle: Handle, chunk: Chunk, out: Answers, at: number): number {
    const n = chunk.count;
    const codes = (codeScratch ??= new Int8Array(BATCH_MAX_KEYS));
    this.core.urlMatchBatch(this.familyId, handle, chunk, codes);
    for (let i = 0; i < n; ++i) {
      let code = codes[i];
      if (code < 0) {
        if (code === -Status.UrlNonAsciiHost) {
          const url = chunk.key(i);
          code = withAsciiHost(this.core, (host) => this.core.urlMatch(this.familyId, handle, url, host));
        }
        if (code < 0) throw urlError(this.core, -code, chunk.key(i), at + i);
        codes[i] = code;
      }
    }
    return writeAnswers(codes, 0, n, out, at);
  }
}
