// The C++ core's include graph has no cycle, between files or between folders:
// src/ is layers, each including only what lies below it. Includes are written
// from src/ (`#include "cuckoo/cuckoo_filter.h"`); one that names no file of
// src/ (third_party/'s xxhash) is outside the graph. A folder is the first path
// segment under src/; a file at the top (status.h) is a node of its own.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const srcDir = join(__dirname, '..', '..', 'src');

/** Every .h, .cc and .def file under src/, as a path relative to it ('cuckoo/cuckoo_filter.h'). */
function sourceFiles(dir = srcDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.(h|cc|def)$/.test(e.name) ? [relative(srcDir, join(dir, e.name))] : [],
  );
}

const files = sourceFiles();
const fileGraph = new Map(
  files.map((f) => [f, [...readFileSync(join(srcDir, f), 'utf8').matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)].map((m) => m[1]).filter((i) => files.includes(i))]),
);
const folderOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);
const folderGraph = new Map<string, string[]>();
for (const [file, includes] of fileGraph) {
  const from = folderOf(file);
  const to = folderGraph.get(from) ?? [];
  for (const i of includes) if (folderOf(i) !== from && !to.includes(folderOf(i))) to.push(folderOf(i));
  folderGraph.set(from, to);
}

/** The strongly connected components of `graph` (Tarjan's algorithm). */
function components(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(member);
      } while (member !== node);
      found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

test('src/ is scanned: each folder, the registries, and the includes between them', () => {
  expect(files).toEqual(expect.arrayContaining(['status.h', 'common/families.def', 'cuckoo/table_encodings.def', 'cuckoo/cuckoo_filter.h', 'format/format.h', 'patch/patch.cc']));
  expect(fileGraph.get('cuckoo/cuckoo_filter.h')).toEqual(expect.arrayContaining(['cuckoo/cuckoo_core.h', 'status.h']));
  expect(folderGraph.get('patch')).toEqual(expect.arrayContaining(['format', 'status.h']));
});

test('no include cycle between files of src/', () => {
  expect(components(fileGraph).filter((c) => c.length > 1)).toEqual([]);
});

test('no include cycle between folders of src/', () => {
  expect(components(folderGraph).filter((c) => c.length > 1)).toEqual([]);
});
