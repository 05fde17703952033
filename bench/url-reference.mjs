// A JavaScript implementation of Google Safe Browsing's "URLs and Hashing"
// (developers.google.com/safe-browsing/v4/urls-hashing; the v5 reference
// safe-browsing/reference/URLs.and.Hashing for IPv6 hosts), written for the
// URL benchmark (bench/url.mjs) as the baseline the core is compared with, and
// checked against the library by tests/js/url-reference.test.ts. It follows
// the docs, and where they leave a choice open, the choices src/url/url_canon.h
// and src/url/url_expressions.h document:
//
//   canonicalize(url)   -> { url, schemeLength, hostStart, hostEnd, pathEnd, hasQuery, hostKind }
//   canonicalizeUrl(url) -> 'http://host/path?query'
//   expressions(canon)  -> up to 30 strings 'host/path' (host suffix × path prefix)
//   urlExpressions(url) -> expressions(canonicalize(url))
//   entryExpression(e)  -> the one expression a blocklist entry is stored as
//
// Canonicalization, in this order:
//   1. a string is taken as its UTF-8 bytes (a lone surrogate as U+FFFD, as
//      TextEncoder does), a Uint8Array as it is; longer than 2 MiB: 'too-long';
//   2. bytes <= 0x20 are trimmed at the start (nothing left: 'empty'), the
//      fragment is cut at the first '#', bytes <= 0x20 are trimmed at the end,
//      then tab, CR and LF are removed everywhere (a fragment alone: 'no-host');
//   3. percent-escapes %HH are decoded until none is left;
//   4. scheme: ALPHA *(ALPHA / DIGIT / "+" / "-" / ".") before a ':' that does
//      not start a port (":" digits, then '/', '?' or the end), lowercased, and
//      then "//" must follow (else 'no-host'); "http" when there is none;
//   5. the authority runs to the first '/' or '?'; the host follows its last
//      '@'; a bracketed host is an IPv6 literal, optionally followed by
//      ":" digits; otherwise a trailing ":" digits (maybe none) is the port;
//      no host left: 'no-host';
//   6. a name host: any ':', '[' or ']' in it is 'bad-host'; dots stripped at
//      both ends and collapsed; only dots: 'bad-host'; ASCII lowercased; bytes
//      >= 0x80 all in well-formed UTF-8 sequences: an internationalized name,
//      turned into Punycode by the platform's URL parser as js/url/url.ts does
//      (then the same rules again over that ASCII host), some well-formed and
//      some not: 'bad-host', none well-formed: escaped like any other byte;
//      without bytes to escape, an IPv4 address in any form inet_aton takes
//      (1 to 4 parts, decimal, octal "0..", hex "0x..") becomes dotted decimal;
//   7. an IPv6 host (RFC 4291 text, at most one "::" for one or more zero
//      groups, an optional dotted quad at the end, no zone id; else
//      'bad-host') is written as RFC 5952 text in brackets, or as dotted
//      decimal when it is IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96);
//   8. path (up to the first '?'): "." segments and empty segments dropped,
//      ".." drops the segment before it; it ends in '/' when its last segment
//      is "", "." or ".." (and anything is left); "" becomes "/";
//   9. the query (after the first '?', which is kept even with nothing after
//      it) as it is;
//  10. in host, path and query every byte <= 0x20 or >= 0x7f, '#' and '%' is
//      written as %XX, uppercase hex.
//
// Expressions: host variants are the exact host, then for a name host the
// suffixes of 5, 4, 3 and 2 labels that are shorter than the host (never the
// last label alone), except a suffix that is an IPv4 address in another form
// than dotted decimal (no entry can equal it);
// an IP host is only itself. Path variants are the path with '?' and query
// (when there is a '?'), the path without it, then the prefixes "/", "/1/",
// "/1/2/", "/1/2/3/" of the path up to its first four '/', each unless it is
// the whole path. Host-major order. Every expression is a substring of the
// canonical URL, and is taken as one (String.prototype.slice), nothing copied.
//
// Errors are thrown as UrlReferenceError with `reason` 'empty', 'no-host',
// 'bad-host' or 'too-long', the reasons of the library's InvalidUrlError.

/** Longest input accepted, in UTF-8 bytes (src/url/url_canon.h kMaxUrlBytes). */
export const MAX_URL_BYTES = 2 << 20;

/** What the canonical host is (src/url/url_canon.h HostKind). */
export const HostKind = Object.freeze({ Name: 0, IPv4: 1, IPv6: 2 });

/** A string that cannot be a URL; `reason` as the library's InvalidUrlError. */
export class UrlReferenceError extends Error {
  constructor(reason, input) {
    super(`not a URL (${reason}): ${typeof input === 'string' ? JSON.stringify(input.slice(0, 200)) : `${input.length} bytes`}`);
    this.name = 'UrlReferenceError';
    this.reason = reason;
  }
}

// ---------------------------------------------------------------------------
// Byte strings: a string whose every code unit is one byte (0..255). ASCII
// input is its own byte string.

const NON_ASCII = /[^\x00-\x7f]/;

/** The UTF-8 bytes of `s` as a byte string (lone surrogates as U+FFFD, as TextEncoder). */
function utf8Bytes(s) {
  let out = '';
  for (let i = 0; i < s.length; ++i) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      out += s[i];
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        ++i;
      } else {
        c = 0xfffd;
      }
    }
    if (c < 0x800) out += String.fromCharCode(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out += String.fromCharCode(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out += String.fromCharCode(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

/** The bytes of a Uint8Array as a byte string. */
function byteString(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i += 4096) out += String.fromCharCode(...bytes.subarray(i, i + 4096));
  return out;
}

/** A byte string of well-formed UTF-8 as the text it encodes. */
function utf8Text(bytes) {
  const a = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; ++i) a[i] = bytes.charCodeAt(i);
  return new TextDecoder().decode(a);
}

const HEX = '0123456789ABCDEF';
/** Bytes written as %XX: <= 0x20, >= 0x7f, '#', '%'. */
const ESCAPED = /[\x00-\x20\x7f-\xff#%]/;
const ESCAPED_ALL = /[\x00-\x20\x7f-\xff#%]/g;
const escapeByte = (ch) => {
  const c = ch.charCodeAt(0);
  return `%${HEX[c >> 4]}${HEX[c & 15]}`;
};
/** Step 10 over a byte string. */
const escape = (s) => (ESCAPED.test(s) ? s.replace(ESCAPED_ALL, escapeByte) : s);

const ESCAPE_SEQUENCE = /%[0-9A-Fa-f]{2}/;
const ESCAPE_SEQUENCES = /%([0-9A-Fa-f]{2})/g;
const decodeByte = (_, hh) => String.fromCharCode(parseInt(hh, 16));

/**
 * Step 3: decodes %HH until none is left. Each pass decodes the escapes
 * present, left to right; two escapes never overlap and every decoding
 * shortens the text, so the passes reach the one text without escapes
 * whatever the order ("%2525" -> "%25" -> "%").
 */
function unescapeRepeatedly(s) {
  while (ESCAPE_SEQUENCE.test(s)) s = s.replace(ESCAPE_SEQUENCES, decodeByte);
  return s;
}

const isAlpha = (c) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const isDigit = (c) => c >= 0x30 && c <= 0x39;
const isSchemeChar = (c) => isAlpha(c) || isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e;

// ---------------------------------------------------------------------------
// Hosts.

const hexValue = (c) => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
const isHex = (c) => isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

/**
 * inet_aton's forms over host[from, to) (dots already stripped and
 * collapsed): 1 to 4 parts, each decimal, octal ("0" then 0-7) or hex ("0x"
 * then at least one hex digit), every part but the last at most 255, the last
 * filling the remaining bytes. The address as a number, or -1.
 */
export function parseIPv4(host, from = 0, to = host.length) {
  if (from >= to || !isDigit(host.charCodeAt(from))) return -1; // every form starts with a digit
  let address = 0;
  let parts = 0;
  for (let i = from; ; ) {
    if (parts === 4 || i >= to) return -1;
    let v = 0;
    let j = i;
    if (host.charCodeAt(j) === 0x30 && j + 1 < to && (host.charCodeAt(j + 1) | 0x20) === 0x78) {
      j += 2;
      for (; j < to && isHex(host.charCodeAt(j)); ++j) if ((v = v * 16 + hexValue(host.charCodeAt(j))) > 0xffffffff) return -1;
      if (j === i + 2) return -1; // "0x" alone
    } else if (host.charCodeAt(j) === 0x30) {
      for (++j; j < to && host.charCodeAt(j) >= 0x30 && host.charCodeAt(j) <= 0x37; ++j) {
        if ((v = v * 8 + host.charCodeAt(j) - 0x30) > 0xffffffff) return -1;
      }
    } else {
      for (; j < to && isDigit(host.charCodeAt(j)); ++j) if ((v = v * 10 + host.charCodeAt(j) - 0x30) > 0xffffffff) return -1;
      if (j === i) return -1;
    }
    ++parts;
    if (j === to) {
      const room = 2 ** (8 * (5 - parts)); // the last part fills the bytes the others left
      return v < room ? address * room + v : -1;
    }
    if (host.charCodeAt(j) !== 0x2e || v > 255) return -1;
    address = address * 256 + v;
    i = j + 1;
  }
}

const dottedQuad = (a) => `${Math.floor(a / 16777216)}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`;

const HEX_GROUP = /^[0-9a-f]{1,4}$/i;
const QUAD_PART = /^(?:0|[1-9][0-9]{0,2})$/;

/** A dotted quad inside an IPv6 literal (RFC 3986 IPv4address: 4 decimal parts, no leading zeros): its 32 bits, or -1. */
function parseDottedQuad(s) {
  const parts = s.split('.');
  if (parts.length !== 4) return -1;
  let a = 0;
  for (const p of parts) {
    if (!QUAD_PART.test(p) || +p > 255) return -1;
    a = a * 256 + +p;
  }
  return a;
}

/** The text between an IPv6 literal's brackets (RFC 4291 §2.2) as 8 groups, or null. */
function parseIPv6(s) {
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (text, last) => {
    if (text === '') return [];
    const tokens = text.split(':');
    const g = [];
    for (let i = 0; i < tokens.length; ++i) {
      const t = tokens[i];
      if (HEX_GROUP.test(t)) {
        g.push(parseInt(t, 16));
      } else if (last && i === tokens.length - 1 && t.includes('.')) {
        const a = parseDottedQuad(t);
        if (a < 0) return null;
        g.push(Math.floor(a / 65536), a & 0xffff);
      } else {
        return null; // empty (a single ':' at an end, or ":::"), too long, not hex
      }
    }
    return g;
  };
  if (halves.length === 1) {
    const g = groupsOf(s, true);
    return g !== null && g.length === 8 ? g : null;
  }
  const head = groupsOf(halves[0], false);
  const tail = groupsOf(halves[1], true);
  if (head === null || tail === null || head.length + tail.length > 7) return null; // "::" is at least one group
  return [...head, ...new Array(8 - head.length - tail.length).fill(0), ...tail];
}

/** An IPv6 address's canonical host: dotted decimal if IPv4-mapped or NAT64, else "[RFC 5952]". */
function ipv6Host(g) {
  const mapped = g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0;
  if (mapped || nat64) return { host: dottedQuad(g[6] * 65536 + g[7]), kind: HostKind.IPv4 };
  // The longest run of two or more zero groups (the first of equal runs) becomes "::".
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      ++i;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) ++j;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  const text =
    bestStart < 0
      ? hex.join(':')
      : `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
  return { host: `[${text}]`, kind: HostKind.IPv6 };
}

/**
 * Whether the bytes >= 0x80 of a byte string are all ('valid'), none
 * ('none-valid') or only some ('mixed') in well-formed UTF-8 sequences
 * (Unicode Table 3-7), or 'ascii' without any. A lead byte that does not
 * start a well-formed sequence counts alone and decoding goes on at the byte
 * after it.
 */
function classifyNonAscii(s) {
  let valid = 0;
  let invalid = 0;
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      ++i;
      continue;
    }
    let need = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c === 0xe0) (need = 2), (lo = 0xa0);
    else if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) need = 2;
    else if (c === 0xed) (need = 2), (hi = 0x9f);
    else if (c === 0xf0) (need = 3), (lo = 0x90);
    else if (c >= 0xf1 && c <= 0xf3) need = 3;
    else if (c === 0xf4) (need = 3), (hi = 0x8f);
    let ok = need > 0 && i + need < s.length;
    if (ok) {
      const c1 = s.charCodeAt(i + 1);
      ok = c1 >= lo && c1 <= hi;
      for (let k = 2; ok && k <= need; ++k) {
        const ck = s.charCodeAt(i + k);
        ok = ck >= 0x80 && ck <= 0xbf;
      }
    }
    if (ok) {
      ++valid;
      i += need + 1;
    } else {
      ++invalid;
      ++i;
    }
  }
  if (valid === 0 && invalid === 0) return 'ascii';
  if (invalid === 0) return 'valid';
  return valid === 0 ? 'none-valid' : 'mixed';
}

/**
 * An internationalized host in Punycode, by the platform's WHATWG URL parser
 * (js/url/url.ts punycodeHost does the same): undefined when it refuses the host
 * or gives back anything but printable ASCII. A host holding a character
 * the parser would end it at or drop ('#', '\\', '/', '?', '@', ':', tab, CR,
 * LF: a decoded "%23" and the like) is refused first, as the library does.
 */
function punycodeHost(host) {
  if (/[\t\n\r#/\\?@:]/.test(host)) return undefined;
  try {
    const ascii = new URL(`http://${host}/`).hostname;
    return /^[\x21-\x7e]+$/.test(ascii) ? ascii : undefined;
  } catch {
    return undefined;
  }
}

const LOWER = /[A-Z]+/g;
const HOST_FORBIDDEN = /[:[\]]/;
const DOT_RUNS = /\.{2,}/g;

/** Step 6: a name host (a byte string) -> { host, kind }; throws 'bad-host'. `input` names the URL in errors. */
function nameHost(raw, allowNonAscii, input) {
  // One pass: a host of lowercase letters, digits and single inner dots (most
  // hosts) needs only the IPv4 check; uppercase letters only lowercasing.
  let upper = false;
  let plain = true;
  for (let i = 0; i < raw.length && plain; ++i) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d) continue;
    if (c === 0x2e) plain = i > 0 && i < raw.length - 1 && raw.charCodeAt(i - 1) !== 0x2e;
    else if (c >= 0x41 && c <= 0x5a) upper = true;
    else plain = !(c <= 0x20 || c >= 0x7f || c === 0x23 || c === 0x25 || c === 0x3a || c === 0x5b || c === 0x5d);
  }
  if (plain) {
    const h = upper ? raw.toLowerCase() : raw;
    const a = parseIPv4(h);
    return a >= 0 ? { host: dottedQuad(a), kind: HostKind.IPv4 } : { host: h, kind: HostKind.Name };
  }
  if (HOST_FORBIDDEN.test(raw)) throw new UrlReferenceError('bad-host', input);
  let h = raw;
  if (h.charCodeAt(0) === 0x2e || h.charCodeAt(h.length - 1) === 0x2e || h.includes('..')) {
    h = h.replace(DOT_RUNS, '.');
    const from = h.charCodeAt(0) === 0x2e ? 1 : 0;
    const to = h.length > from && h.charCodeAt(h.length - 1) === 0x2e ? h.length - 1 : h.length;
    h = h.slice(from, to);
  }
  if (h.length === 0) throw new UrlReferenceError('bad-host', input);
  if (NON_ASCII.test(h)) {
    h = h.replace(LOWER, (m) => m.toLowerCase()); // ASCII letters only, not Latin-1 ones
    const utf8 = classifyNonAscii(h);
    if (utf8 === 'mixed' || (!allowNonAscii && utf8 !== 'ascii')) throw new UrlReferenceError('bad-host', input);
    if (utf8 === 'valid') {
      const ascii = punycodeHost(utf8Text(h));
      if (ascii === undefined || /[/?@]/.test(ascii)) throw new UrlReferenceError('bad-host', input);
      return nameHost(ascii, false, input);
    }
    return { host: escape(h), kind: HostKind.Name };
  }
  h = h.toLowerCase();
  if (ESCAPED.test(h)) return { host: escape(h), kind: HostKind.Name };
  const a = parseIPv4(h);
  return a >= 0 ? { host: dottedQuad(a), kind: HostKind.IPv4 } : { host: h, kind: HostKind.Name };
}

// ---------------------------------------------------------------------------
// Paths.

/** An empty segment ("//") or a "." or ".." segment: what step 8 changes. */
const DOT_OR_EMPTY_SEGMENT = /\/(?:\.\.?)?\/|\/\.\.?$/;

/** Step 8 over p (empty, or starting with '/'), then step 10. */
function canonicalPath(p) {
  if (p.length === 0) return '/';
  if (!DOT_OR_EMPTY_SEGMENT.test(p)) return escape(p);
  const segments = p.split('/'); // segments[0] is '' (before the first '/')
  const kept = [];
  let slash = false;
  for (let i = 1; i < segments.length; ++i) {
    const s = segments[i];
    if (s === '..') kept.pop();
    if (s === '' || s === '.' || s === '..') {
      slash = true;
      continue;
    }
    kept.push(s);
    slash = false;
  }
  if (kept.length === 0) return '/';
  return escape(`/${kept.join('/')}${slash ? '/' : ''}`);
}

// ---------------------------------------------------------------------------
// The whole URL.

/**
 * Canonicalizes a URL (a string, or its bytes as a Uint8Array; see the steps at the top of this file).
 * @returns {{ url: string, schemeLength: number, hostStart: number, hostEnd: number,
 *   pathEnd: number, hasQuery: boolean, hostKind: number }} the canonical URL and where its
 *   parts are: scheme [0, schemeLength), host [hostStart, hostEnd), path [hostEnd, pathEnd),
 *   then '?' and the query when hasQuery.
 * @throws UrlReferenceError
 */
export function canonicalize(input) {
  let s = typeof input === 'string' ? (NON_ASCII.test(input) ? utf8Bytes(input) : input) : byteString(input);
  if (s.length > MAX_URL_BYTES) throw new UrlReferenceError('too-long', input);

  // Step 2.
  let first = 0;
  while (first < s.length && s.charCodeAt(first) <= 0x20) ++first;
  if (first === s.length) throw new UrlReferenceError('empty', input);
  let end = s.indexOf('#', first);
  if (end < 0) end = s.length;
  while (end > first && s.charCodeAt(end - 1) <= 0x20) --end;
  if (end === first) throw new UrlReferenceError('no-host', input);
  if (first > 0 || end < s.length) s = s.slice(first, end);
  if (s.includes('\t') || s.includes('\n') || s.includes('\r')) s = s.replace(/[\t\n\r]/g, '');
  // Step 3.
  if (s.includes('%')) s = unescapeRepeatedly(s);

  // Step 4.
  const n = s.length;
  let scheme = 'http';
  let pos = 0;
  if (isAlpha(s.charCodeAt(0))) {
    let i = 1;
    while (i < n && isSchemeChar(s.charCodeAt(i))) ++i;
    if (i < n && s.charCodeAt(i) === 0x3a) {
      let j = i + 1;
      while (j < n && isDigit(s.charCodeAt(j))) ++j;
      const port = j > i + 1 && (j === n || s.charCodeAt(j) === 0x2f || s.charCodeAt(j) === 0x3f);
      if (!port) {
        if (s.charCodeAt(i + 1) !== 0x2f || s.charCodeAt(i + 2) !== 0x2f) throw new UrlReferenceError('no-host', input);
        scheme = s.slice(0, i).toLowerCase();
        pos = i + 3;
      }
    }
  }

  // Step 5.
  let authorityEnd = pos;
  let at = -1;
  let colon = -1;
  for (; authorityEnd < n; ++authorityEnd) {
    const c = s.charCodeAt(authorityEnd);
    if (c === 0x2f || c === 0x3f) break;
    if (c === 0x40) at = authorityEnd;
    else if (c === 0x3a) colon = authorityEnd;
  }
  const hostBegin = at >= 0 ? at + 1 : pos;
  let host;
  if (s.charCodeAt(hostBegin) === 0x5b && hostBegin < authorityEnd) {
    // Step 7: "[" IPv6 "]" [":" digits].
    const close = s.indexOf(']', hostBegin + 1);
    if (close < 0 || close >= authorityEnd) throw new UrlReferenceError('bad-host', input);
    if (close + 1 < authorityEnd) {
      if (s.charCodeAt(close + 1) !== 0x3a) throw new UrlReferenceError('bad-host', input);
      for (let j = close + 2; j < authorityEnd; ++j) {
        if (!isDigit(s.charCodeAt(j))) throw new UrlReferenceError('bad-host', input);
      }
    }
    const groups = parseIPv6(s.slice(hostBegin + 1, close));
    if (groups === null) throw new UrlReferenceError('bad-host', input);
    host = ipv6Host(groups);
  } else {
    let hostEnd = authorityEnd;
    if (colon >= hostBegin) {
      let j = colon + 1;
      while (j < authorityEnd && isDigit(s.charCodeAt(j))) ++j;
      if (j === authorityEnd) hostEnd = colon;
    }
    if (hostEnd === hostBegin) throw new UrlReferenceError('no-host', input);
    host = nameHost(s.slice(hostBegin, hostEnd), true, input);
  }

  // Steps 8-10.
  const q = s.indexOf('?', authorityEnd);
  const path = canonicalPath(s.slice(authorityEnd, q < 0 ? n : q));
  const query = q < 0 ? '' : `?${escape(s.slice(q + 1))}`;
  const hostStart = scheme.length + 3;
  const hostEnd = hostStart + host.host.length;
  return {
    url: `${scheme}://${host.host}${path}${query}`,
    schemeLength: scheme.length,
    hostStart,
    hostEnd,
    pathEnd: hostEnd + path.length,
    hasQuery: q >= 0,
    hostKind: host.kind,
  };
}

/** The canonical URL as a string. @throws UrlReferenceError */
export function canonicalizeUrl(input) {
  return canonicalize(input).url;
}

/**
 * The suffix/prefix expressions of a canonical URL (from {@link canonicalize}),
 * host-major: at most 30, each a slice of `canon.url`.
 */
export function expressions(canon) {
  const { url, hostStart, hostEnd, pathEnd } = canon;
  // Host starts: the exact host, then suffixes of 5, 4, 3, 2 labels shorter than it.
  const starts = [hostStart];
  if (canon.hostKind === HostKind.Name) {
    const found = []; // the byte after the 2nd, 3rd, 4th, 5th dot from the end
    let dots = 0;
    for (let i = hostEnd - 1; i > hostStart && found.length < 4; --i) {
      if (url.charCodeAt(i) === 0x2e && ++dots >= 2) found.push(i + 1);
    }
    for (let k = found.length - 1; k >= 0; --k) {
      if (parseIPv4(url, found[k], hostEnd) < 0 || parseDottedQuad(url.slice(found[k], hostEnd)) >= 0) starts.push(found[k]);
    }
  }
  // Path ends: with the query, without it, then the prefixes up to the first four '/'.
  const ends = [];
  if (canon.hasQuery) ends.push(url.length);
  ends.push(pathEnd);
  let slashes = 0;
  for (let i = hostEnd; i < pathEnd && slashes < 4; ++i) {
    if (url.charCodeAt(i) !== 0x2f) continue;
    ++slashes;
    if (i + 1 !== pathEnd) ends.push(i + 1);
  }
  const out = [];
  for (const h of starts) for (const e of ends) out.push(url.slice(h, e));
  return out;
}

/** The expressions a URL is looked up by. @throws UrlReferenceError */
export function urlExpressions(input) {
  return expressions(canonicalize(input));
}

/**
 * The expression a blocklist entry is stored as: the entry canonicalized
 * without its scheme and "://" ("evil.example" -> "evil.example/").
 * @throws UrlReferenceError
 */
export function entryExpression(entry) {
  const c = canonicalize(entry);
  return c.url.slice(c.hostStart);
}
