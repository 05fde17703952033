// The C++ core's include graph has no cycle, between files or between folders:
// src/ is layers, each including only what lies below it. Includes are written
// from src/ (`#include "cuckoo/cuckoo_filter.h"`); one that names no file of
// src/ (third_party/'s xxhash) is outside the graph. A folder is the first path
// segment under src/; a file at the top (status.h) is a node of its own.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cycles } from './graph';

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

test('src/ is scanned: each folder, the registries, and the includes between them', () => {
  expect(files).toEqual(expect.arrayContaining(['status.h', 'common/families.def', 'cuckoo/table_encodings.def', 'cuckoo/cuckoo_filter.h', 'format/format.h', 'patch/patch.cc']));
  expect(fileGraph.get('cuckoo/cuckoo_filter.h')).toEqual(expect.arrayContaining(['cuckoo/cuckoo_core.h', 'status.h']));
  expect(folderGraph.get('patch')).toEqual(expect.arrayContaining(['format', 'status.h']));
});

test('no include cycle between files of src/', () => {
  expect(cycles([...fileGraph.keys()], (f) => fileGraph.get(f)!)).toEqual([]);
});

test('no include cycle between folders of src/', () => {
  expect(cycles([...folderGraph.keys()], (f) => folderGraph.get(f) ?? [])).toEqual([]);
});
