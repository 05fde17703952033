// The main job in a page or worker, shared by the test pages: build a cuckoo
// filter from real domains, serialize it, load the bytes back, and count false
// negatives (must be 0) and false positives. Takes the library as an argument so
// each page can import it its own way (plain ES module, bundle, worker).

/** Fetches a list of one entry per line. */
export async function fetchLines(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return (await response.text()).split('\n').filter(Boolean);
}

/** Builds a filter from `members` and returns its bytes and statistics. */
export async function build(CuckooFilter, members) {
  const filter = await CuckooFilter.create({ capacity: members.length, falsePositiveRate: 0.001 });
  try {
    const added = filter.addAll(members);
    return { bytes: filter.toBytes(), added };
  } finally {
    filter.dispose();
  }
}

/** Loads `bytes` and checks every member (has and hasAll) and every benign domain; `bytesSha256` names the bytes. */
export async function check(CuckooFilter, bytes, members, benign) {
  const filter = await CuckooFilter.fromBytes(bytes);
  try {
    let falseNegatives = 0;
    for (const d of members) if (!filter.has(d)) falseNegatives++;
    const batchFalseNegatives = filter.hasAll(members).filter((found) => !found).length;
    let falsePositives = 0;
    for (const d of benign) if (filter.has(d)) falsePositives++;
    const again = filter.toBytes();
    const identical = again.length === bytes.length && again.every((b, i) => b === bytes[i]);
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    return {
      members: members.length,
      benign: benign.length,
      falseNegatives,
      batchFalseNegatives,
      falsePositives,
      byteLength: filter.byteLength,
      bitsPerItem: filter.bitsPerItem,
      roundTripIdentical: identical,
      bytesSha256: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''),
    };
  } finally {
    filter.dispose();
  }
}

/** Records the page's CSP violations from now on (call before anything loads the module). */
export function recordViolations() {
  const violations = [];
  self.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.violatedDirective}: ${e.blockedURI}`));
  return violations;
}

/** Publishes a page's result (or its error) for the test to read. */
export function publish(promise, violations) {
  promise.then(
    (result) => { window.__result = { ok: true, ...result, violations }; },
    (e) => { window.__result = { ok: false, name: e?.name, code: e?.code, reason: e?.reason, message: String(e?.message ?? e), violations }; },
  );
}
