/**
 * URLs as Google Safe Browsing's "URLs and Hashing" turns them into lookup
 * keys (src/url/url_canon.h, src/url/url_expressions.h, docs/URLS.md): the canonical
 * URL, and the host-suffix × path-prefix expressions a URL is looked up by.
 * The rules run in the core; this file adds the one step the core leaves to
 * the platform, turning an internationalized host into Punycode, and the
 * errors.
 */
import { ArgumentTypeError } from '../common/errors.js';
import { Status, statusError } from '../common/status.js';
import { Key, describe, isKey, isUint8Array } from '../common/checks.js';
import { loadCore } from '../boundary/load.js';
import type { AsciiHost } from '../boundary/core-types.js';
import type { ReadCore } from '../boundary/read-core.js';
import type { Core } from '../boundary/wasm-core.js';

/** Most expressions a URL is looked up by: 5 hosts × 6 paths. */
export const MAX_URL_EXPRESSIONS = 30;

/**
 * The Punycode form of an internationalized host (`bücher.example` →
 * `xn--bcher-kva.example`), by the platform's WHATWG URL parser, which maps it
 * by UTS #46 the same way in Node.js and browsers. Undefined if the parser
 * refuses the host or gives back anything but printable ASCII, and for a host
 * holding a character the parser would end the host at (`#`, `/`, `\`, `?`),
 * read as userinfo or port (`@`, `:`) or drop (tab, CR, LF): the core keeps
 * those in a host (decoded from `%23`, `%5C`, `%09`), and the parser would
 * convert only a part of the host, or another host.
 */
export function punycodeHost(host: string): string | undefined {
  if (/[\t\n\r#/\\?@:]/.test(host)) return undefined;
  try {
    const ascii = new URL(`http://${host}/`).hostname;
    return /^[\x21-\x7e]+$/.test(ascii) ? ascii : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs a URL call of the core, and once more with the host in Punycode when
 * the first says the host is not ASCII. `call` returns a status, or for
 * lookups a result that is -status when the URL was refused. A caller that
 * made the first call itself passes its result as `first`.
 */
export function withAsciiHost(core: ReadCore, call: (host: AsciiHost) => number, first = call(undefined)): number {
  if (first !== Status.UrlNonAsciiHost && first !== -Status.UrlNonAsciiHost) return first;
  const host = punycodeHost(core.urlHost());
  if (host === undefined) return first < 0 ? -Status.UrlBadHost : Status.UrlBadHost;
  return call(host);
}

/** How a refused URL is shown in an error: the string itself, or what the bytes are. */
function shown(url: Key): string {
  return typeof url === 'string' ? url : new TextDecoder().decode(url);
}

/** The InvalidUrlError (or, for a status that is not a URL's, its own error) for a refused URL. */
export function urlError(core: ReadCore, status: number, url: Key, index?: number): Error {
  return statusError(status, { url: { input: shown(url), index }, detail: core.statusMessage(status) });
}

/** The URL argument of the pure functions: a string or UTF-8 bytes. */
function checkUrl(url: unknown, name: string): Key {
  if (!isKey(url)) {
    throw new ArgumentTypeError(
      isUint8Array(url)
        ? `${name} is a Uint8Array whose buffer was detached: it has no bytes to read`
        : `${name} must be a string (or its UTF-8 bytes), got ${describe(url)}`,
    );
  }
  return url;
}

/**
 * The one expression a blocklist entry is stored as (what {@link WasmFilter.addUrl}
 * adds): `evil.example` → `evil.example/`, `HTTP://Evil.example/a/./b` → `evil.example/a/b`.
 * @throws InvalidUrlError if the entry cannot be a URL.
 * @internal
 */
export function entryExpression(core: Core, entry: Key): string {
  const status = withAsciiHost(core, (host) => core.urlEntry(entry, host));
  if (status !== Status.Ok) throw urlError(core, status, entry);
  return core.urlSpan();
}

/**
 * A URL canonicalized by the Safe Browsing rules: fragment removed,
 * percent-escapes decoded repeatedly, host lowercased with dots collapsed, IP
 * addresses in dotted decimal (IPv4 in any legal form, IPv4-mapped and NAT64
 * IPv6 to IPv4), internationalized hosts in Punycode, `.` and `..` resolved,
 * then control, space, non-ASCII, `#` and `%` bytes escaped as `%XX`. The same
 * code the filters' URL methods run.
 *
 * @param url - a URL (`https://Evil.EXAMPLE/a/./b#x`), with or without a scheme (`evil.example/a`), or its UTF-8 bytes.
 * @returns the canonical URL as the Safe Browsing docs write it (`http://evil.example/a/b`).
 * @throws InvalidUrlError if the string cannot be a URL (its `reason` says why).
 * @throws ArgumentTypeError if `url` is neither a string nor a Uint8Array.
 * @example
 * ```ts
 * await canonicalizeUrl('http://www.GOOgle.com/'); // 'http://www.google.com/'
 * ```
 */
export async function canonicalizeUrl(url: string | Uint8Array): Promise<string> {
  const key = checkUrl(url, 'url');
  const core = await loadCore();
  const status = withAsciiHost(core, (host) => core.urlCanonicalize(key, host));
  if (status !== Status.Ok) throw urlError(core, status, key);
  return core.urlCanonical();
}

/**
 * The expressions a URL is looked up by (Safe Browsing's suffix/prefix
 * expressions): the exact host and up to 4 host suffixes (from the last 5
 * labels, never the top-level label alone; an IP address only as itself),
 * each with up to 6 paths (the exact path with its query, without it, and up
 * to 4 prefixes from `/`). At most 30, exact host first.
 *
 * @returns strings of the form `host/path` (`a.b.c/1/2.html?param=1`, `b.c/1/`).
 * @throws InvalidUrlError, ArgumentTypeError as {@link canonicalizeUrl}.
 * @example
 * ```ts
 * await urlExpressions('http://a.b.c/1/2.html?param=1');
 * // ['a.b.c/1/2.html?param=1', 'a.b.c/1/2.html', 'a.b.c/', 'a.b.c/1/', 'b.c/1/2.html?param=1', ...]
 * ```
 */
export async function urlExpressions(url: string | Uint8Array): Promise<string[]> {
  const key = checkUrl(url, 'url');
  const core = await loadCore();
  const n = withAsciiHost(core, (host) => core.urlExpressions(key, host));
  if (n < 0) throw urlError(core, -n, key);
  return core.urlSpans(n);
}
