// The RedisBloom fixtures (tests/fixtures/redis/README.md): read from
// ../shared/redis and ../shared/data when they are beside the clone (CI has
// them), else from the copies in tests/fixtures/redis. Items as the fixtures'
// README defines them: members = blocklist_domains.txt lines, trimmed,
// non-empty, deduplicated, in file order; non-members = benign_opendns.txt
// entries (the same way) that are not members.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
export const SHARED_REDIS = join(root, '..', 'shared', 'redis');
export const SHARED_DATA = join(root, '..', 'shared', 'data');
export const COPIES = join(root, 'tests', 'fixtures', 'redis');

export interface Fixture {
  name: string;
  type: 'CF' | 'BF';
  reserve: string;
  /** `batch`: one command for all the step's items (`CF.INSERT`), whose outcome has the per-item `answers`. */
  build: { command: string; items: 'members' | 'added' | 'nonmembers' | 'none'; count: number; batch?: boolean }[];
  outcome: Record<string, Outcome>;
  info: Record<string, number | null>;
  chunks: [number, string][];
  probes: {
    members: number;
    nonMembers: number;
    memberAnswers: string;
    nonMemberAnswers: string;
    /** CF.COUNT of each probed member / of the first 1,000 non-members, comma-separated (the limits fixtures). */
    memberCounts?: string;
    nonMemberCounts?: string;
  };
}

/** A step's outcome: commands applied before an error; for a batch step, the one command's per-item answers (1 = added). */
export interface Outcome {
  applied?: number;
  commands?: number;
  answers?: number[];
  error: string | null;
}

/** The outcome as [keys applied, error]: a batch's answers that are 1 before the first that is not. */
export function appliedOf(o: Outcome): [number, string | null] {
  if (o.answers === undefined) return [o.applied!, o.error];
  const stop = o.answers.findIndex((a) => a !== 1);
  return [stop < 0 ? o.answers.length : stop, o.error];
}

/** A counts probe as numbers. */
export function countsOf(text: string | undefined): number[] {
  return text === undefined ? [] : text.split(',').map(Number);
}

/** True when ../shared has the fixtures and the lists (CUCKOO_NO_SHARED=1 reads the copies, as a fresh clone does). */
export const HAVE_SHARED =
  process.env.CUCKOO_NO_SHARED !== '1' &&
  existsSync(join(SHARED_REDIS, 'README.md')) &&
  existsSync(join(SHARED_DATA, 'blocklist_domains.txt')) &&
  existsSync(join(SHARED_DATA, 'benign_opendns.txt'));

function entries(path: string): string[] {
  const seen = new Set<string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const t = line.trim();
    if (t.length > 0) seen.add(t);
  }
  return [...seen];
}

/** The fixture files' names in `dir`. */
export function fixtureNames(dir = HAVE_SHARED ? SHARED_REDIS : COPIES): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort();
}

export function loadFixture(file: string, dir = HAVE_SHARED ? SHARED_REDIS : COPIES): Fixture {
  return { ...JSON.parse(readFileSync(join(dir, file), 'utf8')), file } as Fixture;
}

/** Members and non-members from ../shared/data, or the copies' prefixes of them. */
export function loadItems(shared = HAVE_SHARED): { members: string[]; nonMembers: string[] } {
  if (!shared) return { members: entries(join(COPIES, 'members.txt')), nonMembers: entries(join(COPIES, 'nonmembers.txt')) };
  const members = entries(join(SHARED_DATA, 'blocklist_domains.txt'));
  const set = new Set(members);
  return { members, nonMembers: entries(join(SHARED_DATA, 'benign_opendns.txt')).filter((x) => !set.has(x)) };
}

/** The fixture's chunks with their bytes decoded. */
export function chunksOf(f: Fixture): [number, Uint8Array][] {
  return f.chunks.map(([it, b64]) => [it, new Uint8Array(Buffer.from(b64, 'base64'))]);
}

/** An INFO label camelCased: 'Number of items inserted' -> 'numberOfItemsInserted'. */
export function camel(label: string): string {
  return label
    .split(' ')
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0].toUpperCase() + w.slice(1).toLowerCase()))
    .join('');
}

/** The fixture's INFO with camelCased labels. */
export function infoOf(f: Fixture): Record<string, number | null> {
  return Object.fromEntries(Object.entries(f.info).map(([k, v]) => [camel(k), v]));
}

/** `CF.RESERVE KEY cap [BUCKETSIZE b] [MAXITERATIONS n] [EXPANSION e]` / `BF.RESERVE KEY err cap [EXPANSION e] [NONSCALING]` as create() options. */
export function reserveOptions(f: Fixture): Record<string, number | boolean> {
  const [cmd, , ...args] = f.reserve.split(' ');
  if (cmd === 'CF.RESERVE') {
    const o: Record<string, number> = { capacity: Number(args[0]) };
    const names: Record<string, string> = { BUCKETSIZE: 'bucketSize', MAXITERATIONS: 'maxIterations', EXPANSION: 'expansion' };
    for (let i = 1; i < args.length; i += 2) o[names[args[i]]] = Number(args[i + 1]);
    return o;
  }
  const o: Record<string, number | boolean> = { errorRate: Number(args[0]), capacity: Number(args[1]) };
  for (let i = 2; i < args.length; ++i) {
    if (args[i] === 'NONSCALING') o.nonScaling = true;
    else if (args[i] === 'EXPANSION') o.expansion = Number(args[++i]);
  }
  return o;
}

/**
 * Each build step with its items: `members` the next unused members, `added` members from the first, `nonmembers` the
 * non-members, `none` no keys (a command that takes only the filter's key, such as CF.COMPACT, issued `count` times).
 */
export function stepsOf(f: Fixture, items: { members: string[]; nonMembers: string[] }) {
  let used = 0;
  return f.build.map((step) => {
    let keys: string[];
    if (step.items === 'members') {
      keys = items.members.slice(used, used + step.count);
      used += step.count;
    } else if (step.items === 'added') {
      keys = items.members.slice(0, step.count);
    } else if (step.items === 'none') {
      keys = [];
    } else {
      keys = items.nonMembers.slice(0, step.count);
    }
    const outcome = f.outcome[`${step.command} ${step.items} x${step.count}${step.batch === true ? ' batch' : ''}`];
    return { ...step, keys, outcome };
  });
}
