/**
 * The options and result of `publish` (js/feed/publish.ts, docs/FEED.md §5), apart from its code so that every
 * entry's types name them while only the Node.js bundles carry the code (scripts/build.mjs, alias 'cuckoo-publish').
 */
import type { FeedFile, FeedPatch } from './manifest.js';

/** An Ed25519 private key as node:crypto holds it (a `KeyObject` of `createPrivateKey` or `generateKeyPairSync('ed25519')`). */
export interface SigningKeyObject {
  readonly type: string;
  readonly asymmetricKeyType?: string;
}

/** A RedisBloom filter to publish, read with CF.SCANDUMP / BF.SCANDUMP as `cuckoo-wasm redis-pull` reads it. */
export interface PublishRedisSource {
  /** The server: `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. Needs the package `redis` (node-redis v5 or v6). */
  readonly url: string;
  /** The key holding a cuckoo filter (CF) or Bloom filter (BF). */
  readonly key: string;
  /** 'cf' or 'bf'; found with TYPE when omitted. */
  readonly type?: 'cf' | 'bf';
}

/**
 * What `publish` publishes, where, and how (docs/FEED.md §5). Give `list` or `redis`, and `out` and `state`.
 * @throws PublishError('options') from `publish` for an option missing or out of range.
 */
export interface PublishOptions {
  /**
   * A list file, read as `cuckoo-wasm build` reads it (`format`, `urls`), streamed line by line (UTF-8; a list of
   * any length is read in bounded memory). Give this or `redis`.
   */
  readonly list?: string;
  /** A RedisBloom filter to publish as it is on the server (a RedisCuckooFilter or RedisBloomFilter feed). Give this or `list`. */
  readonly redis?: PublishRedisSource;
  /** The served folder (created if missing): manifest.json and the content-named filter and patch files (docs/FEED.md §1). */
  readonly out: string;
  /**
   * The publisher's own folder (created if missing; never serve it): the last versions' filters and the current
   * version's entries, sorted, one per line. Keep it beside `out`: a run goes on from it.
   */
  readonly state: string;
  /**
   * The feed's name, 1 to 128 characters of `A-Z a-z 0-9 . _ -`. Default: the list file's name without its extension,
   * other characters replaced by `-` (or the Redis key so sanitized). A state folder holds one feed: another name is refused.
   */
  readonly name?: string;
  /** `list`'s format: `auto` (default), `lines`, `hosts`, `adblock`, `csv` or `csv:COLUMN` (docs/cli.md, build). */
  readonly format?: string;
  /**
   * Publish a list with no entries (an empty filter). Default false: such a list is refused (PublishError 'list'),
   * as a list that failed to download would otherwise empty every client's filter.
   */
  readonly allowEmpty?: boolean;
  /** Entries are URLs, stored as their Safe Browsing canonical expressions (as `build --urls`). Default false. */
  readonly urls?: boolean;
  /**
   * 'cuckoo' (default: entries removed are deleted, so a version is a patch), 'bloom' (an entry removed builds it
   * again, fullOnly) or 'fuse' (a binary fuse filter, the smallest: static, so every version is built again and
   * published fullOnly; `capacity` and `expansion` are not for it).
   */
  readonly type?: 'cuckoo' | 'bloom' | 'fuse';
  /** The false-positive rate per lookup, in (0, 1). Default 0.001. */
  readonly falsePositiveRate?: number;
  /** With `urls`: the rate per URL lookup (up to 30 expressions), in (0, 1), instead of `falsePositiveRate`. */
  readonly urlFalsePositiveRate?: number;
  /**
   * Entries the filter is built for, when it is built: the first version, and each one built again (fullOnly).
   * Default: the version's entries × 1.25 (a quarter of headroom, so that versions can add entries and stay patches).
   * When a list outgrows it, the filter is built again for its entries × 1.25.
   */
  readonly capacity?: number;
  /** Growth factor 2..1024: the filter grows when full (a sub-filter added; patches still apply) instead of being built again. Default: none. */
  readonly expansion?: number;
  /** How many earlier versions get a patch to the new one (those since the filter was last built again). An integer 0..1000, default 10. */
  readonly keep?: number;
  /** The manifest's `pollSeconds`: the least seconds clients wait between two fetches. An integer ≥ 1, default 300. */
  readonly pollSeconds?: number;
  /**
   * An Ed25519 private key signing the manifest's envelope (docs/FEED.md §2): the path of a PKCS#8 PEM file
   * (`cuckoo-wasm keygen`) or a node:crypto KeyObject. Default: unsigned.
   * @throws PublishError('signing-key') from `publish` when it is neither.
   */
  readonly signingKey?: string | SigningKeyObject;
  /** The time written as `published`. Default: now. */
  readonly now?: Date;
}

/** What a `publish` run did. */
export interface PublishResult {
  /** False when the list was unchanged: nothing was written to `out`. */
  readonly published: boolean;
  /** The feed's name. */
  readonly name: string;
  /** The version `out` serves now (the new one, or the unchanged one). */
  readonly version: number;
  /** The filter's class: 'CuckooFilter', 'BloomFilter', 'RedisCuckooFilter' or 'RedisBloomFilter'. */
  readonly family: string;
  /** True when the filter was built again: no patch leads to it. */
  readonly fullOnly: boolean;
  /**
   * Entries added and removed since the version before. For a Redis source, the change of the filter's item count
   * (RedisBloom counts items, not distinct entries): `added` when it grew, `removed` when it shrank.
   */
  readonly added: number;
  readonly removed: number;
  /** Distinct entries of this version (a Redis source: the filter's item count). */
  readonly entries: number;
  /** The full filter's file. */
  readonly full: FeedFile;
  /** The patches to this version, newest base first. */
  readonly patches: readonly FeedPatch[];
  /** What reading the list found: its format and what was skipped (as `build` prints it); empty for a Redis source. */
  readonly report: readonly string[];
}
