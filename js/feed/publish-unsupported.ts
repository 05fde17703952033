/**
 * `publish` in the bundles for browsers and Workers (dist/index.*, dist/workerd.mjs; esbuild alias 'cuckoo-publish',
 * scripts/build.mjs): publishing writes files, so there it only refuses, and those bundles carry no Node.js module.
 */
import { PublishError } from '../common/errors.js';
import type { PublishOptions, PublishResult } from './publish-options.js';

/**
 * Refuses: a feed is published in Node.js, Deno or Bun (js/feed/publish.ts).
 * @throws PublishError('unsupported-runtime'), as a rejection.
 */
export async function publish(options: PublishOptions): Promise<PublishResult> {
  void options;
  throw new PublishError(
    'publish runs in Node.js, Deno or Bun: it writes files. This build of cuckoo-wasm (for browsers and Workers) has none; run the publisher under Node.js (cuckoo-wasm publish, or import cuckoo-wasm there)',
    'unsupported-runtime',
  );
}
