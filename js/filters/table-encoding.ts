/**
 * How a cuckoo filter's bucket table is stored: from its number in the core
 * (cuckoo::TableEncoding, src/cuckoo/cuckoo_params.h; the format header's encoding
 * byte, docs/FORMAT.md §2) to its name in the API (`info().encoding`, the registry's
 * {@link TableEncoding}), and the check of the `semiSort` option that picks it.
 * @internal
 */
import { describe } from '../common/checks.js';
import { ArgumentRangeError, ArgumentTypeError } from '../common/errors.js';
import { ENCODINGS, type TableEncoding } from '../registry.js';

/** cuckoo::TableEncoding::kPacked (the registry's, checked against the core at load). */
export const ENCODING_PACKED = ENCODINGS.packed.id;
/** cuckoo::TableEncoding::kSemiSorted (likewise). */
export const ENCODING_SEMI_SORTED = ENCODINGS['semi-sorted'].id;

const NAMES = Object.fromEntries(Object.entries(ENCODINGS).map(([name, e]) => [e.id, name])) as Record<number, TableEncoding>;

/** The name of the encoding the core numbers `n`. */
export function encodingName(n: number): TableEncoding {
  const name = NAMES[n];
  if (name === undefined) throw new Error(`the core reported table encoding ${n}, which this build does not name`);
  return name;
}

/**
 * The core's encoding number for the `semiSort` option of a filter with
 * `bucketSize` slots per bucket (already checked to be 2, 4 or 8).
 * @throws ArgumentTypeError if `semiSort` is given and not a boolean.
 * @throws ArgumentRangeError if `semiSort` is true and `bucketSize` is not 4.
 */
export function toEncoding(semiSort: unknown, bucketSize: number): number {
  // Semi-sorted by default wherever it applies: its lookups cost within a few percent of the
  // bit-packed table's (README.md, "Semi-sorted buckets", has the figures).
  if (semiSort === undefined) return bucketSize === 4 ? ENCODING_SEMI_SORTED : ENCODING_PACKED;
  if (typeof semiSort !== 'boolean') throw new ArgumentTypeError(`semiSort must be true or false, got ${describe(semiSort)}`);
  if (semiSort && bucketSize !== 4) {
    throw new ArgumentRangeError(
      `semiSort needs bucketSize 4, got bucketSize ${bucketSize}: a semi-sorted bucket encodes the sorted 4-bit ` +
        'prefixes of exactly four fingerprints (Fan et al. 2014 §5.2). Use bucketSize 4, or omit semiSort',
    );
  }
  return semiSort ? ENCODING_SEMI_SORTED : ENCODING_PACKED;
}
