/**
 * The list formats `cuckoo-wasm build` reads, and which one a list is written in.
 * Pure functions over the list's text, no I/O.
 *
 * - `lines`: one entry per line, as blocklists are written ({@link listEntry}: trimmed, blank and `#`
 *   lines skipped). `query` reads its standard input by the same rule, so a list queried against the
 *   filter built from it finds every entry.
 * - `hosts`: hosts(5) lines, `ADDRESS HOST [HOST...]` with `#` comments anywhere on a line. Every
 *   host is an entry except local names (localhost, broadcasthost, ip6-*, local) and addresses
 *   (`0.0.0.0 0.0.0.0`, `127.0.0.1 ::1`), each skipped and counted as its own kind.
 * - `adblock`: Adblock Plus / uBlock Origin network rules. `||host^` (or `||host`) blocks a
 *   host: its entry is the host. `||host/path`, `||host:port/…` and `|http(s)://…|` block URLs:
 *   their entry is the URL, taken with --urls only. `!` comments and `[Adblock Plus …]` headers
 *   are skipped. A rule no key can stand for (cosmetic, exception, regular expression, options
 *   other than a plain block, a wildcard, an unanchored pattern) is skipped and counted by kind.
 *   A URL entry is stored as its Safe Browsing expression (docs/URLS.md), which matches the
 *   host and its parent domains and the path exactly or, ending in `/`, as a directory; an
 *   Adblock rule also matches longer paths.
 * - `csv`: comma-separated values with a header row, fields quoted as RFC 4180 says ("…", ""
 *   for a quote, line breaks inside quotes). Leading `#` lines are comments; when the last of them
 *   holds the column names (`# id,dateadded,url,…`, as abuse.ch's URLhaus dumps do) it is the header.
 *   One column gives the entries: named with `csv:NAME` (or its 1-based number), by default the
 *   only column, or the one named url / link (with --urls) or domain / host / hostname.
 */

/** A list format `build --format` takes (besides `auto`). */
export type ListFormat = 'lines' | 'hosts' | 'adblock' | 'csv';

/** Why an entry of a list was not taken: each kind is counted and reported. */
export type SkipKind = keyof typeof SKIP_KINDS;

/** What each skip kind is, as reported. */
export const SKIP_KINDS = {
  cosmetic: 'cosmetic rules (element hiding, scriptlets: ##, #@#, #?#, #$#, #%#, $$)',
  exception: 'exception rules (@@)',
  regex: 'regular expression rules (/…/)',
  options: 'rules with options other than a plain block ($third-party, $script, $domain=…)',
  wildcard: 'rules with a wildcard (* or ^ inside the pattern)',
  unanchored: 'unanchored rules (match anywhere in a URL, not a host or URL prefix)',
  'needs-urls': 'URL rules (||host/path, |https://…|): add --urls to take them',
  'not-a-host': 'rules whose host has characters no host has',
  'local-name': 'local names (localhost, broadcasthost, ip6-*, local)',
  address: 'addresses in place of a host name (0.0.0.0 0.0.0.0, 127.0.0.1 ::1)',
  'no-address': 'lines that do not start with an address (not hosts lines)',
  'no-value': 'rows with the column empty or missing',
} as const;

/** One entry and the line it starts on (1-based). */
export interface NumberedEntry {
  entry: string;
  line: number;
}

/** Entries not taken, of one kind. */
export interface Skipped {
  kind: SkipKind;
  count: number;
  /** The first one and its line, as an example. */
  example: string;
  line: number;
}

/** A list read in one format. */
export interface ListRead {
  format: ListFormat;
  /** csv: the column the entries come from. */
  column?: string;
  /** auto: why this format was chosen; undefined when --format named it. */
  detected?: string;
  entries: NumberedEntry[];
  /** Entries not taken, by kind, in the order of {@link SKIP_KINDS}. */
  skipped: Skipped[];
  /** Lines that say the format and what was skipped, for the user. */
  report: string[];
}

const FORMATS: readonly ListFormat[] = ['lines', 'hosts', 'adblock', 'csv'];

/** Line breaks: CRLF, LF, or a CR not followed by LF (as node:readline splits standard input). */
const LINE_BREAK = /\r\n|\n|\r/;

/** How many content lines auto detection looks at. */
const SAMPLE_LINES = 100;

/**
 * Reads a list in the format `--format` names.
 *
 * @param text - The list, decoded from UTF-8.
 * @param format - `auto` (the default), `lines`, `hosts`, `adblock`, `csv` or `csv:COLUMN`.
 * @param options.urls - Entries are URLs (build --urls): Adblock URL rules are taken, and the
 *   default CSV column is a URL column.
 * @returns The entries in order (repeats kept), what was skipped by kind, and a report.
 * @throws Error if `format` is none of those, or a CSV list has no such column.
 * @example readList('0.0.0.0 ads.example # ad server\n', 'auto').entries // [{ entry: 'ads.example', line: 1 }]
 */
export function readList(text: string, format = 'auto', options: { urls?: boolean } = {}): ListRead {
  const entries: NumberedEntry[] = [];
  const parser = new ListParser(format, options, (entry, line) => entries.push({ entry, line }));
  for (const line of text.split(LINE_BREAK)) parser.push(line);
  return { ...parser.end(), entries };
}

/** A list read in one format, its entries handed out as they were read ({@link ListParser}). */
export type ListSummary = Omit<ListRead, 'entries'>;

/**
 * Reads a list one line at a time, so that a list of any length is read in bounded memory: each entry is handed to
 * `onEntry` as soon as its line (its record, for CSV) is complete. What {@link readList} does with a whole text, and
 * `cuckoo-wasm publish` with a stream. `auto` keeps the lines it needs to choose the format (the first
 * {@link SAMPLE_LINES} that are not blank, and 20 past the leading comments), then reads them in that format.
 *
 * @example
 * ```ts
 * const p = new ListParser('auto', {}, (entry) => keys.push(entry));
 * for (const line of lines) p.push(line);
 * const { format, report } = p.end();
 * ```
 */
export class ListParser {
  private readonly column: string | undefined;
  private readonly urls: boolean;
  private readonly skips = new Skips();
  /** auto: the lines kept until the format is chosen; undefined once it is. */
  private sample: string[] | undefined;
  private sampleContent = 0;
  /** auto: the index of the first line that is neither blank nor a # comment, once seen. */
  private sampleFirst = -1;
  private detection: { format: ListFormat; why: string } | undefined;
  private chosen: ListFormat | undefined;
  private index = 0;
  private started = false;
  private csv: CsvState | undefined;

  /**
   * @param format - `auto`, `lines`, `hosts`, `adblock`, `csv` or `csv:COLUMN`, as {@link readList}.
   * @param options.urls - Entries are URLs, as {@link readList}.
   * @param onEntry - Called with each entry and the (1-based) line it starts on, in the list's order.
   * @throws Error if `format` is none of those.
   */
  constructor(
    format = 'auto',
    options: { urls?: boolean } = {},
    private readonly onEntry: (entry: string, line: number) => void,
  ) {
    const [name, ...rest] = format.split(':');
    const column = rest.length > 0 ? rest.join(':') : undefined;
    if (!(name === 'auto' || FORMATS.includes(name as ListFormat)) || (column !== undefined && name !== 'csv') || column === '') {
      throw new Error(`--format must be auto, lines, hosts, adblock, csv or csv:COLUMN, got "${format}"`);
    }
    this.column = column;
    this.urls = options.urls === true;
    if (name === 'auto') this.sample = [];
    else this.chosen = name as ListFormat;
  }

  /**
   * Reads the list's next line (without its line break; a byte order mark before the first is dropped).
   * @throws Error for a CSV list without the column asked for (or none to default to).
   */
  push(line: string): void {
    if (!this.started) {
      this.started = true;
      if (line.startsWith('\uFEFF')) line = line.slice(1);
    }
    if (this.sample === undefined) {
      this.take(line, this.index++);
      return;
    }
    const i = this.sample.length;
    this.sample.push(line);
    const t = line.trim();
    if (t !== '') this.sampleContent += 1;
    if (this.sampleFirst < 0 && t !== '' && !line.trimStart().startsWith('#')) this.sampleFirst = i;
    if (this.sampleContent >= SAMPLE_LINES && this.sampleFirst >= 0 && this.sample.length > this.sampleFirst + 20) this.detect();
  }

  /**
   * Ends the list.
   * @returns The format, what was skipped by kind, and the report, as {@link readList}.
   * @throws Error for a CSV list with no header row.
   */
  end(): ListSummary {
    if (this.sample !== undefined) this.detect();
    if (this.chosen === 'csv') this.csvEnd();
    const skipped = this.skips.list();
    const used = this.csv?.column;
    const chosen = this.chosen!;
    const detection = this.detection;
    const report = [
      `format:              ${chosen}${used === undefined ? '' : ` (column "${used}")`}${detection ? ` (detected: ${detection.why})` : ''}`,
      ...skipped.map((s) => `skipped:             ${s.count} ${SKIP_KINDS[s.kind]}, e.g. line ${s.line}: ${clip(s.example)}`),
    ];
    return { format: chosen, column: used, detected: detection?.why, skipped, report };
  }

  /** auto: chooses the format from the lines kept, and reads them in it. */
  private detect(): void {
    const sample = this.sample!;
    this.sample = undefined;
    this.detection = detectFormat(sample);
    this.chosen = this.detection.format;
    for (const line of sample) this.take(line, this.index++);
  }

  /** Line `i` (0-based) in the chosen format. */
  private take(raw: string, i: number): void {
    switch (this.chosen) {
      case 'hosts':
        return hostsLine(raw, i + 1, this.skips, this.onEntry);
      case 'adblock':
        return adblockLine(raw, i + 1, this.skips, this.urls, this.onEntry);
      case 'csv':
        return this.csvLine(raw, i);
      default: {
        const entry = listEntry(raw);
        if (entry !== undefined) this.onEntry(entry, i + 1);
      }
    }
  }

  private csvLine(raw: string, i: number): void {
    const csv = (this.csv ??= { leading: true, lastComment: undefined, header: undefined, index: -1, column: undefined, records: undefined });
    if (csv.leading) {
      if (raw.trim() === '' || raw.trimStart().startsWith('#')) {
        if (raw.trim() !== '') csv.lastComment = raw.trim();
        return;
      }
      csv.leading = false;
      if (csv.lastComment !== undefined) {
        const names = csvRecords([csv.lastComment.replace(/^#+\s*/, '')], 0)[0]?.fields.map((f) => f.trim());
        if (names && names.length >= 2 && names.every((n) => COLUMN_NAME.test(n))) this.csvHeader(names);
      }
      csv.records = new CsvRecordReader((record) => this.csvRecord(record));
    }
    csv.records!.push(raw, i);
  }

  private csvRecord({ fields, line }: CsvRecord): void {
    const csv = this.csv!;
    if (csv.header === undefined) {
      this.csvHeader(fields.map((f) => f.trim()));
      return;
    }
    const value = fields[csv.index]?.trim();
    if (value) this.onEntry(value, line);
    else this.skips.add('no-value', fields.join(','), line);
  }

  private csvEnd(): void {
    this.csv?.records?.end();
    if (this.csv?.header === undefined) throw new Error('the CSV list has no header row: give --format lines for a list of one entry per line');
  }

  /** The CSV list's header: which column the entries come from. */
  private csvHeader(header: string[]): void {
    const csv = this.csv!;
    csv.header = header;
    const column = this.column;
    const lower = header.map((h) => h.toLowerCase());
    let index: number;
    if (column !== undefined) {
      index = header.indexOf(column);
      if (index < 0) index = lower.indexOf(column.toLowerCase());
      if (index < 0 && /^\d+$/.test(column) && Number(column) >= 1 && Number(column) <= header.length) index = Number(column) - 1;
      if (index < 0) throw new Error(`the CSV list has no column "${column}": its columns are ${header.map((h) => `"${h}"`).join(', ')}`);
    } else {
      // A bare host stands for the whole site among URL entries; a URL is no domain key.
      const preferred = this.urls ? ['url', 'uri', 'link', 'domain', 'host', 'hostname'] : ['domain', 'host', 'hostname'];
      index = header.length === 1 ? 0 : lower.findIndex((h) => preferred.includes(h));
      if (index < 0) {
        const url = this.urls ? -1 : lower.findIndex((h) => ['url', 'uri', 'link'].includes(h));
        throw new Error(
          url >= 0
            ? `the CSV list's column "${header[url]}" holds URLs: add --urls to take them as URL entries, or give --format csv:${header[url]} to take them as keys`
            : `the CSV list has columns ${header.map((h) => `"${h}"`).join(', ')} and none is named ${preferred.join(', ')}: give the column as --format csv:NAME`,
        );
      }
    }
    csv.index = index;
    csv.column = header[index];
  }
}

/** Where a CSV list's reading is: in its leading comments, or in its records (the header first). */
interface CsvState {
  leading: boolean;
  /** The last leading comment line, which may hold the column names. */
  lastComment: string | undefined;
  header: string[] | undefined;
  /** The entries' column. */
  index: number;
  column: string | undefined;
  records: CsvRecordReader | undefined;
}

/**
 * The format of a list, from its first {@link SAMPLE_LINES} lines that are not blank: Adblock
 * when it starts with an `[Adblock …]` header or most lines are Adblock rules or `!` comments,
 * hosts when most are `ADDRESS HOST`, CSV when a header row of column names is followed by rows
 * of as many fields, else lines.
 *
 * @param lines - The list's lines.
 * @returns The format and why, e.g. "95 of the first 100 lines are ADDRESS HOST".
 */
export function detectFormat(lines: readonly string[]): { format: ListFormat; why: string } {
  const sample: string[] = [];
  for (const line of lines) {
    const t = line.trim();
    if (t !== '') sample.push(t);
    if (sample.length === SAMPLE_LINES) break;
  }
  if (sample.length > 0 && /^\[(adblock|ublock|adguard)\b.*\]$/i.test(sample[0])) {
    return { format: 'adblock', why: `the first line is the header ${sample[0]}` };
  }
  const content = sample.filter((t) => !t.startsWith('#') || isCosmetic(t));
  const of = (n: number, what: string) => `${n} of the first ${content.length} lines that are not # comments are ${what}`;
  const hosts = content.filter((t) => HOSTS_LINE.test(t)).length;
  const adblock = content.filter((t) => /^(!|\|\||@@|\|[a-z]+:)/i.test(t) || isCosmetic(t)).length;
  if (hosts * 2 > content.length) return { format: 'hosts', why: of(hosts, 'ADDRESS HOST') };
  if (adblock * 2 > content.length) return { format: 'adblock', why: of(adblock, 'Adblock rules or ! comments') };
  const csv = csvHeader(lines);
  if (csv !== undefined) return { format: 'csv', why: `a header row of ${csv.length} column names (${csv.join(', ')}) and rows of as many fields` };
  return { format: 'lines', why: 'no other format fits: one entry per line' };
}

/** Counts of skipped entries by kind, with the first of each. */
class Skips {
  private readonly byKind = new Map<SkipKind, Skipped>();

  add(kind: SkipKind, example: string, line: number): void {
    const s = this.byKind.get(kind);
    if (s) s.count += 1;
    else this.byKind.set(kind, { kind, count: 1, example, line });
  }

  list(): Skipped[] {
    return (Object.keys(SKIP_KINDS) as SkipKind[]).flatMap((k) => this.byKind.get(k) ?? []);
  }
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/**
 * The entry on one line of a `lines` list (and of `query`'s standard input): whitespace around it
 * trimmed (String.prototype.trim: spaces, tabs, Unicode spaces, and U+FEFF, so a UTF-8 byte order
 * mark before the first entry goes too); none for a line that is then empty or starts with `#`.
 * Only whole-line comments: `#` inside an entry is kept, as URLs may contain it.
 *
 * @param line - One line, with or without its line break.
 * @returns The line trimmed, or `undefined` for a blank line or a `#` comment.
 * @example listEntry('\uFEFF  evil.example \r') === 'evil.example'; listEntry('# note') === undefined
 */
export function listEntry(line: string): string | undefined {
  const entry = line.trim();
  return entry === '' || entry.startsWith('#') ? undefined : entry;
}

/**
 * Why `key`, whose canonical expression is `expression` (entryExpression), is not a URL, or undefined if it can be
 * one: the canonicalizer escapes or keeps what no host name holds (white space, `%`, `<`, `|`, ...) rather than
 * refusing it, so a host with such a character came from text that names no host (`not a url`).
 */
export function notAUrl(key: string, expression: string): string | undefined {
  const host = expression.slice(0, expression.indexOf('/'));
  // A canonical host: letters, digits, '.', '-', '_' (lowercased, in Punycode), or a bracketed IPv6 address.
  return /^(?:[a-z0-9._-]+|\[[0-9a-f:.]+\])$/.test(host) ? undefined : `"${key}" is not a URL: its host would be ${host}, which no host name can be`;
}

// ---- hosts ----

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
/** An IPv6 address, loosely: hex groups and colons, maybe an IPv4 tail or a zone (fe80::1%lo0). */
const IPV6 = /^[0-9a-f]*:[0-9a-f:.]*(%\S+)?$/i;
const HOSTS_LINE = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f]*:[0-9a-f:.]*(%\S+)?)\s+[^\s#]/i;
const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain', 'local', 'broadcasthost', 'localdomain']);

function isAddress(token: string): boolean {
  return IPV4.test(token) || IPV6.test(token);
}

/** A name a hosts file gives the machine or its network, not a host to block. */
function isLocalName(host: string): boolean {
  const h = host.toLowerCase();
  return LOCAL_NAMES.has(h) || h.startsWith('ip6-');
}

function hostsLine(raw: string, line: number, skips: Skips, onEntry: (entry: string, line: number) => void): void {
  const hash = raw.indexOf('#');
  const tokens = (hash < 0 ? raw : raw.slice(0, hash)).trim().split(/\s+/);
  if (tokens[0] === '') return;
  if (!isAddress(tokens[0])) {
    skips.add('no-address', raw.trim(), line);
    return;
  }
  for (const host of tokens.slice(1)) {
    if (isAddress(host)) skips.add('address', host, line);
    else if (isLocalName(host)) skips.add('local-name', host, line);
    else onEntry(host, line);
  }
}

// ---- Adblock ----

/** Element hiding, extended CSS, scriptlet, CSS injection and HTML filtering rules. */
function isCosmetic(rule: string): boolean {
  return /#[@]?[?$%]?#|#@?\$\?#|\$@?\$/.test(rule);
}

/** Options that block what the pattern matches, all of it: the rule is a plain block. */
const PLAIN_OPTIONS = new Set(['all', 'important', 'document', 'doc']);
/** The characters of a host (IDN hosts as Unicode or punycode). */
const HOST = /^[\p{L}\p{N}._-]+$/u;

function adblockLine(raw: string, line: number, skips: Skips, urls: boolean, onEntry: (entry: string, line: number) => void): void {
  const rule = raw.trim();
  if (rule === '' || rule.startsWith('!') || /^\[.*\]$/.test(rule)) return;
  const kind = adblockKind(rule);
  if (kind === 'comment') return;
  if (typeof kind === 'string') skips.add(kind, rule, line);
  else if (kind.url && !urls) skips.add('needs-urls', rule, line);
  else onEntry(kind.entry, line);
}

/** What one Adblock rule is: an entry (a host, or a URL), a comment, or the kind it is skipped as. */
function adblockKind(rule: string): { entry: string; url: boolean } | SkipKind | 'comment' {
  if (isCosmetic(rule)) return 'cosmetic';
  if (rule.startsWith('#')) return 'comment';
  if (rule.startsWith('@@')) return 'exception';
  if (/^\/.*\/(\$[^/]*)?$/.test(rule) && rule.length > 2) return 'regex';
  let pattern = rule;
  const dollar = rule.lastIndexOf('$');
  if (dollar > 0) {
    const opts = rule.slice(dollar + 1).split(',').map((o) => o.trim().toLowerCase());
    if (!opts.every((o) => PLAIN_OPTIONS.has(o))) return 'options';
    pattern = rule.slice(0, dollar);
  }
  let anchored: 'host' | 'start';
  if (pattern.startsWith('||')) anchored = 'host';
  else if (pattern.startsWith('|')) anchored = 'start';
  else return 'unanchored';
  // A trailing separator or end anchor ends the URL or the host; a trailing * adds nothing.
  let body = pattern.slice(anchored === 'host' ? 2 : 1).replace(/\*+$/, '').replace(/\^?\|?$/, '');
  if (body === '' || /[*^|]/.test(body)) return 'wildcard';
  if (anchored === 'start') {
    if (!/^https?:\/\/[^/?#]/i.test(body)) return 'unanchored';
    return { entry: body, url: true };
  }
  const hostEnd = body.search(/[/:?#]/);
  const host = hostEnd < 0 ? body : body.slice(0, hostEnd);
  if (!HOST.test(host)) return 'not-a-host';
  if (hostEnd < 0) return { entry: host, url: false };
  body = body.replace(/^([^/?#]*)$/, '$1/');
  return { entry: body, url: true };
}

// ---- CSV ----

/** One record: its fields and the line it starts on. */
interface CsvRecord {
  fields: string[];
  line: number;
}

/**
 * The records of CSV text (RFC 4180: comma-separated, "…" quoted, "" a quote inside quotes,
 * CRLF or LF between records, line breaks kept inside quotes), from line `first` on.
 * A quote inside an unquoted field is kept as it is.
 */
function csvRecords(lines: readonly string[], first: number): CsvRecord[] {
  const records: CsvRecord[] = [];
  const reader = new CsvRecordReader((r) => records.push(r));
  for (let i = first; i < lines.length; ++i) reader.push(lines[i], i);
  reader.end();
  return records;
}

/** {@link csvRecords} one line at a time: each record is handed to `emit` once its last line is read. */
class CsvRecordReader {
  private fields: string[] = [];
  private field = '';
  private quoted = false;
  private start = 0;

  constructor(private readonly emit: (record: CsvRecord) => void) {}

  /** Line `i` (0-based) of the list. */
  push(line: string, i: number): void {
    let fresh = true; // at the start of a field
    if (!this.quoted) {
      this.start = i;
      if (line.trim() === '') return;
    }
    let { field, quoted } = this;
    for (let j = 0; j < line.length; ++j) {
      const c = line[j];
      if (quoted) {
        if (c !== '"') field += c;
        else if (line[j + 1] === '"') (field += '"'), ++j;
        else quoted = false;
      } else if (c === ',') {
        this.fields.push(field);
        field = '';
        fresh = true;
        continue;
      } else if (c === '"' && fresh) {
        quoted = true;
      } else {
        field += c;
      }
      fresh = false;
    }
    this.quoted = quoted;
    if (quoted) {
      this.field = field + '\n';
      return;
    }
    this.fields.push(field);
    const record = { fields: this.fields, line: this.start + 1 };
    this.fields = [];
    this.field = '';
    this.emit(record);
  }

  /** The end of the list: a record cut short by it is handed out as it is. */
  end(): void {
    if (this.quoted || this.fields.length > 0) this.emit({ fields: [...this.fields, this.field], line: this.start + 1 });
  }
}

/** Column names: words, not hosts or URLs. */
const COLUMN_NAME = /^[\p{L}_][\p{L}\p{N} _-]*$/u;

/** The index of the first line after the leading `#` comments, and the header they end with, if any. */
function csvStart(lines: readonly string[]): { first: number; commentHeader?: string[] } {
  let first = 0;
  while (first < lines.length && (lines[first].trim() === '' || lines[first].trimStart().startsWith('#'))) ++first;
  for (let i = first - 1; i >= 0; --i) {
    const t = lines[i].trim();
    if (t === '') continue;
    const names = csvRecords([t.replace(/^#+\s*/, '')], 0)[0]?.fields.map((f) => f.trim());
    return names && names.length >= 2 && names.every((n) => COLUMN_NAME.test(n)) ? { first, commentHeader: names } : { first };
  }
  return { first };
}

/** The column names of a CSV list whose first rows have as many fields as its header, else undefined. */
function csvHeader(lines: readonly string[]): string[] | undefined {
  const { first, commentHeader } = csvStart(lines);
  const records = csvRecords(lines.slice(0, first + 20), first);
  // The last record may be cut short by the end of the sample.
  if (lines.length > first + 20) records.pop();
  const header = commentHeader ?? records.shift()?.fields.map((f) => f.trim());
  if (!header || header.length < 2 || !header.every((n) => COLUMN_NAME.test(n)) || records.length === 0) return undefined;
  return records.every((r) => r.fields.length === header.length) ? header : undefined;
}
