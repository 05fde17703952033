/**
 * Reading the lists the `cuckoo-wasm` command takes: one entry per line, as blocklists are
 * written. The same rules hold for a list file and for standard input, so a list queried
 * against the filter built from it finds every entry:
 *   - a line ends at LF, CRLF or a lone CR (as node:readline splits standard input);
 *   - whitespace around an entry is trimmed (String.prototype.trim: spaces, tabs, Unicode
 *     spaces, and U+FEFF, so a UTF-8 byte order mark before the first entry goes too);
 *   - a line that is then empty, or starts with `#`, is not an entry. Only whole-line
 *     comments: `#` inside an entry is kept, as URLs may contain it.
 * Pure functions over strings, no I/O.
 */

/** Line breaks: CRLF, LF, or a CR not followed by LF. */
const LINE_BREAK = /\r\n|\n|\r/;

/**
 * The entry on one line of a list.
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
 * The entries of a whole list, in order (repeats kept: counting or skipping them is the caller's choice).
 *
 * @param text - The list, decoded from UTF-8.
 * @returns One string per entry line (see {@link listEntry}).
 * @example listEntries('\uFEFFa.example\r\n\r\n# c\r\nb.example\r\n') // ['a.example', 'b.example']
 */
export function listEntries(text: string): string[] {
  return numberedListEntries(text).map(({ entry }) => entry);
}

/**
 * The entries of a whole list with their 1-based line numbers, for messages about one entry.
 *
 * @example numberedListEntries('# c\nb.example\n') // [{ entry: 'b.example', line: 2 }]
 */
export function numberedListEntries(text: string): { entry: string; line: number }[] {
  const entries: { entry: string; line: number }[] = [];
  text.split(LINE_BREAK).forEach((line, i) => {
    const entry = listEntry(line);
    if (entry !== undefined) entries.push({ entry, line: i + 1 });
  });
  return entries;
}
