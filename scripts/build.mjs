// Builds the npm package's JavaScript from TypeScript and the wasm build
// (build/wasm/cuckoo-core.{js,wasm} and cuckoo-reader.{js,wasm}, each module with its Emscripten
// glue, made by `cmake --build build/wasm`):
//   dist/index.mjs    ES module       } for browsers and bundlers: the glue and the .wasm are
//   dist/index.cjs    CommonJS        } bundled in (the .wasm as a raw DEFLATE stream, made with
//                                     } zopfli, that js/boundary/wasm-embedded.ts inflates), so no fetch, file
//                                     } path or bundler setup is needed
//   dist/node.mjs     ES module       } for Node.js (package.json's "node" condition): the same,
//   dist/node.cjs     CommonJS        } with the .wasm as is (a faster first create(): no zlib)
//   dist/workerd.mjs  ES module for Cloudflare Workers (package.json's "workerd" condition): the same
//                     code without the embedded .wasm; it imports ./cuckoo-core.wasm as a module, which
//                     Workers' bundlers (wrangler's esbuild) upload beside the Worker
//   dist/cuckoo-core.wasm  the module as a file (package export "./cuckoo-core.wasm"), for the
//                     workerd build and initWasm(); its custom section 'cuckoo-wasm' holds the
//                     release's id (CUCKOO_WASM_ID), which initWasm checks
//   dist/reader.mjs, reader.cjs, reader-node.mjs, reader-node.cjs, reader-workerd.mjs
//                     the read-only entry (package export "./reader", js/reader.ts), built the same
//                     five ways over its own module, build/wasm/cuckoo-reader.wasm (the full
//                     module's core without the writers), shipped as dist/cuckoo-reader.wasm
//                     with its own id
//   dist/cli.cjs      the `cuckoo-wasm` command (the .wasm as is)
//   dist/testing.mjs  test- and bench-only raw access to the boundary (js/testing.ts), over
//                     ./index.mjs; not in package.json "exports"
//   dist/types/       .d.ts (CommonJS view) and dist/types-esm/ (same files, ES-module view), with
//                     wasm-module.d.ts (js/wasm-module.d.ts), the types of the .wasm exports
// and writes the bundles' sizes where README.md and docs/*.md state them, between markers (FIGURES below).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { deflateAsync } from '@gfx/zopfli';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = join(root, 'build', 'wasm');
for (const f of ['cuckoo-core.js', 'cuckoo-core.wasm', 'cuckoo-reader.js', 'cuckoo-reader.wasm']) {
  if (!existsSync(join(wasmDir, f))) {
    console.error(`missing build/wasm/${f}: run \`bash scripts/build.sh\` (it runs em++ first)`);
    process.exit(1);
  }
}
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

// Each module as a file, marked as this release's: a custom section (WebAssembly core spec §5.5.3: id 0,
// size, name, bytes) named 'cuckoo-wasm' holding the package version, the module's name and a hash of it.
// The embedded copies are the .wasm as built, without it; each as raw DEFLATE (RFC 1951), zopfli's:
// about 5% smaller than zlib's best.
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
async function shipModule(name) {
  const wasm = readFileSync(join(wasmDir, `${name}.wasm`));
  const id = `${version}+${name}+${createHash('sha256').update(wasm).digest('hex').slice(0, 16)}`;
  writeFileSync(join(dist, `${name}.wasm`), Buffer.concat([wasm, customSection('cuckoo-wasm', Buffer.from(id))]));
  const deflated = join(wasmDir, `${name}.wasm.deflate`);
  writeFileSync(deflated, await deflateAsync(wasm, { numiterations: 15 }));
  return { id, raw: join(wasmDir, `${name}.wasm`), deflated, file: `${name}.wasm` };
}
const fullModule = await shipModule('cuckoo-core');
const readerModule = await shipModule('cuckoo-reader');

function customSection(name, payload) {
  const leb128 = (n) => {
    const out = [];
    do {
      out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      n >>>= 7;
    } while (n > 0);
    return Buffer.from(out);
  };
  const content = Buffer.concat([leb128(name.length), Buffer.from(name), payload]);
  return Buffer.concat([Buffer.from([0]), leb128(content.length), content]);
}

/**
 * esbuild options of the bundles over `module` (shipModule's), instantiated by `instance` (js/boundary/), for
 * {@link bundle}: `glue` is the module's Emscripten glue (build/wasm/cuckoo-core.js or cuckoo-reader.js), and
 * `embed` says how the .wasm is embedded: 'deflated' (the browsers' bundles), 'raw' (Node.js's) or 'none' (Workers').
 */
const bundleOver = (module, instance, firstCall, glue) => ({
  bundle: true,
  platform: 'neutral',
  target: 'es2020',
  glue: join(wasmDir, glue),
  embed: 'deflated',
  module,
  alias: {
    'cuckoo-core-wasm': module.raw,
    'cuckoo-core-default': join(root, 'js/boundary/wasm-embedded.ts'),
    'cuckoo-core-instance': join(root, `js/boundary/${instance}.ts`),
    // publish() writes files: the browsers' and Workers' bundles get a stub that refuses (forNode: the real one).
    'cuckoo-publish': join(root, 'js/feed/publish-unsupported.ts'),
  },
  define: {
    CUCKOO_WASM_DEFLATED: 'true',
    CUCKOO_WASM_ID: JSON.stringify(module.id),
    CUCKOO_WASM_FILE: JSON.stringify(module.file),
    CUCKOO_FIRST_CALL: JSON.stringify(firstCall),
  },
  loader: { '.wasm': 'binary' },
  // The Workers build's .wasm stays an import of the file beside the bundle.
  plugins: [
    {
      name: 'wasm-file',
      setup(b) {
        b.onResolve({ filter: /^cuckoo-core-wasm-file$/ }, () => ({ path: `./${module.file}`, external: true }));
      },
    },
  ],
  legalComments: 'inline',
  logLevel: 'warning',
});

/**
 * Builds one bundle in two esbuild passes, so that the TypeScript and the Emscripten glue are minified each as
 * suits it:
 *  1. the TypeScript, minified (without keepNames, which wraps every function: about 1.1 KB gzipped; the classes
 *     users see say their names themselves, js/common/named.ts); the glue is left an import ('cuckoo-core-glue');
 *  2. that output and the glue linked into one file, minified, and written in `format`.
 * Lines are of about 1,000 characters at most: Node prints the source line of an uncaught error's throw, which
 * would otherwise be the whole bundle. Where `embed` is 'deflated', the .wasm's raw DEFLATE stream is the first
 * line, in base64, unsplit (CUCKOO_WASM_DEFLATE_BASE64, read by js/boundary/wasm-embedded.ts): lineLimit's
 * splits would cost about 0.7 KB gzipped, and gzip (level 9) codes base64 then JavaScript in 0.8 KB less than
 * JavaScript then base64 (0.2 KB for the reader), and than the base64 in the middle as esbuild's binary loader
 * puts it.
 */
async function bundle({ glue, embed, module, format, outfile, banner, ...first }) {
  const typescript = await build({
    ...first,
    define: { ...first.define, CUCKOO_WASM_DEFLATED: String(embed === 'deflated') },
    format: 'esm',
    external: ['cuckoo-core-glue'],
    minify: true,
    write: false,
  });
  const lines = banner ? [banner.js] : [];
  if (embed === 'deflated') lines.push(`var CUCKOO_WASM_DEFLATE_BASE64=${JSON.stringify(readFileSync(module.deflated).toString('base64'))};`);
  await build({
    stdin: { contents: typescript.outputFiles[0].text, resolveDir: root, sourcefile: basename(outfile), loader: 'js' },
    bundle: true,
    platform: first.platform,
    target: first.target,
    format,
    outfile,
    // What pass 1 imports is the glue, and what it left external stays so.
    plugins: [
      {
        name: 'glue',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => (args.path === 'cuckoo-core-glue' ? { path: glue } : { path: args.path, external: true }));
          b.onLoad({ filter: /.*/ }, (args) => ({ contents: withoutFetchers(withoutStrings(withoutExportWrappers(readFileSync(args.path, 'utf8'), args.path), args.path), args.path), loader: 'js' }));
        },
      },
    ],
    banner: { js: lines.join('\n') },
    legalComments: 'inline',
    minify: true,
    lineLimit: 1000,
    logLevel: 'warning',
  });
}

/**
 * The glue (`path`'s text) less the wrappers it makes of the module's C exports, one each (Emscripten 3.1.6:
 * `var _cf_add=Module["_cf_add"]=function(){return(_cf_add=Module["_cf_add"]=Module["asm"]["cf_add"]).apply(null,arguments)};`),
 * which nothing calls: js/boundary calls the instance's exports directly. What stays: the glue object's _malloc
 * and _free (js/boundary/read-core.ts calls them), the dynCall_ wrappers (embind looks them up by name), and any
 * wrapper whose name the glue uses elsewhere. About 1.0 KB gzipped of dist/index.mjs, 0.6 KB of dist/reader.mjs.
 */
function withoutExportWrappers(text, path) {
  const wrapper = /var (_\w+)=Module\["\1"\]=function\(\)\{return\(\1=Module\["\1"\]=Module\["asm"\]\["\w+"\]\)\.apply\(null,arguments\)\};/g;
  let kept = text;
  let removed = 0;
  for (const [declaration, name] of text.matchAll(wrapper)) {
    if (name === '_malloc' || name === '_free') continue;
    const without = kept.replace(declaration, '');
    if (new RegExp(`(?<![\\w$])${name}(?![\\w$])`).test(without)) continue;
    kept = without;
    removed++;
  }
  // A glue of another Emscripten writes them otherwise: better a failed build than a bigger bundle unnoticed.
  if (removed === 0) throw new Error(`${path}: found no export wrappers to remove (has the Emscripten glue changed?)`);
  return kept;
}

/**
 * The glue less its own ways of fetching files (XMLHttpRequest, the script's directory, the window title), which it
 * sets up for -sENVIRONMENT=web: this package hands it the module through `instantiateWasm`
 * (js/boundary/instance.ts) and links no file system, so nothing reads them. About 0.2 KB gzipped of each bundle.
 */
function withoutFetchers(text, path) {
  const start = text.indexOf('if(ENVIRONMENT_IS_WEB||ENVIRONMENT_IS_WORKER){');
  if (start < 0) throw new Error(`${path}: found no environment set-up (has the Emscripten glue changed?)`);
  let depth = 0;
  let end = -1;
  for (let i = text.indexOf('{', start); i < text.length; ++i) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) {
      end = i + 1;
      break;
    }
  }
  if (text.startsWith('else{}', end)) end += 'else{}'.length;
  return text.slice(0, start) + text.slice(end);
}

/** The whole declaration `function name(...){...}` in `text` (its braces matched), or undefined. */
function functionDeclaration(text, name) {
  const start = text.indexOf(`function ${name}(`);
  if (start < 0) return undefined;
  let depth = 0;
  for (let i = text.indexOf('{', start); i < text.length; ++i) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/**
 * The glue less embind's string types, std::string and std::wstring, which no binding of this package passes
 * (bindings/embind.cc crosses numbers, vals and memory views; emval makes its strings from C strings): their
 * registrations (which embind's builtin types always make) keep the names, and a value of one would throw; the
 * UTF-8, UTF-16 and UTF-32 codecs only they used go. About 1.2 KB gzipped of each bundle.
 */
function withoutStrings(text, path) {
  let kept = text;
  const refuse = (type) => `function(){throw new TypeError("cuckoo-wasm passes no ${type}")}`;
  for (const [registration, type, parameters] of [
    ['__embind_register_std_string', 'std::string', 'rawType,name'],
    ['__embind_register_std_wstring', 'std::wstring', 'rawType,charSize,name'],
  ]) {
    const declaration = functionDeclaration(kept, registration);
    if (declaration === undefined) throw new Error(`${path}: found no ${type} registration (has the Emscripten glue changed?)`);
    kept = kept.replace(
      declaration,
      `function ${registration}(${parameters}){registerType(rawType,{name:readLatin1String(name),` +
        `"fromWireType":${refuse(type)},"toWireType":${refuse(type)},"argPackAdvance":8,"readValueFromPointer":simpleReadValueFromPointer,destructorFunction:null})}`,
    );
  }
  for (const name of ['UTF8ToString', 'stringToUTF8', 'lengthBytesUTF8', 'UTF16ToString', 'stringToUTF16', 'lengthBytesUTF16', 'UTF32ToString', 'stringToUTF32', 'lengthBytesUTF32', 'UTF8ArrayToString', 'stringToUTF8Array']) {
    const declaration = functionDeclaration(kept, name);
    if (declaration === undefined) continue;
    const without = kept.replace(declaration, '');
    if (new RegExp(`(?<![\\w$])${name}(?![\\w$])`).test(without)) continue; // still used elsewhere: kept
    kept = without;
  }
  for (const decoder of ['UTF8Decoder', 'UTF16Decoder']) {
    const withoutDecoder = kept.replace(new RegExp(`var ${decoder}=[^;]*;`), '');
    if (!new RegExp(`(?<![\\w$])${decoder}(?![\\w$])`).test(withoutDecoder)) kept = withoutDecoder;
  }
  return kept;
}

// Node.js: the .wasm as is (its base64 decoded by Node's own decoder), so that the
// first create() loads no zlib and inflates nothing (bench/ab.mjs --only-load
// times it). Wire size does not matter there.
const forNode = (common) => ({
  ...common,
  platform: 'node',
  embed: 'raw',
  alias: { ...common.alias, 'cuckoo-publish': join(root, 'js/feed/publish.ts') },
});

// Workers: no .wasm embedded; js/boundary/wasm-workerd.ts imports the .wasm beside the bundle
// (dist/cuckoo-core.wasm or dist/cuckoo-reader.wasm).
const forWorkerd = (common) => ({
  ...common,
  embed: 'none',
  alias: { ...common.alias, 'cuckoo-core-default': join(root, 'js/boundary/wasm-workerd.ts') },
});

/** The five bundles of one entry: `${base}.mjs` / `.cjs` (browsers, bundlers), `${node}.mjs` / `.cjs`, `${workerd}.mjs`. */
async function buildEntry(entry, module, instance, firstCall, base, node, workerd) {
  const common = bundleOver(module, instance, firstCall, module.file.replace(/\.wasm$/, '.js'));
  const entryPoints = [join(root, entry)];
  await bundle({ ...common, entryPoints, format: 'esm', outfile: join(dist, `${base}.mjs`) });
  await bundle({ ...common, entryPoints, format: 'cjs', outfile: join(dist, `${base}.cjs`) });
  await bundle({ ...forNode(common), entryPoints, format: 'esm', outfile: join(dist, `${node}.mjs`) });
  await bundle({ ...forNode(common), entryPoints, format: 'cjs', outfile: join(dist, `${node}.cjs`) });
  await bundle({ ...forWorkerd(common), entryPoints, format: 'esm', outfile: join(dist, `${workerd}.mjs`) });
  return common;
}

const common = await buildEntry('js/index.ts', fullModule, 'full-instance', 'create() / fromBytes()', 'index', 'node', 'workerd');
await buildEntry('js/reader.ts', readerModule, 'reader-instance', 'fromBytes()', 'reader', 'reader-node', 'reader-workerd');
await bundle({
  ...forNode(common),
  entryPoints: [join(root, 'js/cli/main.ts')],
  format: 'cjs',
  outfile: join(dist, 'cli.cjs'),
  banner: { js: '#!/usr/bin/env node' },
  // `cuckoo-wasm --version`.
  define: { ...common.define, CUCKOO_VERSION: JSON.stringify(version) },
});

// testing.mjs imports the ES module itself, so that both share one module instance.
const indexAsExternal = {
  name: 'index-as-external',
  setup(b) {
    b.onResolve({ filter: /^\.\/index\.js$/ }, () => ({ path: './index.mjs', external: true }));
  },
};
await bundle({
  ...common,
  embed: 'none',
  entryPoints: [join(root, 'js/testing.ts')],
  format: 'esm',
  outfile: join(dist, 'testing.mjs'),
  plugins: [indexAsExternal],
});

execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
  stdio: 'inherit',
});
// The .wasm exports' declarations (hand-written: tsc emits no .d.ts it is given), in both views below.
cpSync(join(root, 'js', 'wasm-module.d.ts'), join(dist, 'types', 'wasm-module.d.ts'));
// The same declarations under a "type": "module" scope, so TypeScript reads them
// as the ES-module entry's types (the "import" condition of package.json exports).
cpSync(join(dist, 'types'), join(dist, 'types-esm'), { recursive: true });
writeFileSync(join(dist, 'types-esm', 'package.json'), '{ "type": "module" }\n');
mkdirSync(join(dist, 'types'), { recursive: true });

// Each entry's sizes where README.md and the guides state them, between markers: <!-- size:begin --> and
// <!-- size:end --> (dist/index.mjs, in KB and KB gzipped), <!-- reader-size:begin --> and <!-- reader-size:end -->
// (dist/reader.mjs), and <!-- figure:NAME -->…<!-- /figure --> for the FIGURES below.
const sizeOf = (file) => {
  const bytes = readFileSync(join(dist, file));
  const gzipped = gzipSync(bytes, { level: 9 }).length;
  return { bytes: bytes.length, gzipped, figures: `${(bytes.length / 1000).toFixed(1)} KB, ${(gzipped / 1000).toFixed(1)} KB gzipped` };
};
const index = sizeOf('index.mjs');
const reader = sizeOf('reader.mjs');
const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
const FIGURES = {
  'index-gzipped': kb(index.gzipped),
  'reader-gzipped': kb(reader.gzipped),
  // The JavaScript alone: the Workers bundle, which embeds no module.
  'index-js-gzipped': kb(sizeOf('workerd.mjs').gzipped),
  'reader-js-gzipped': kb(sizeOf('reader-workerd.mjs').gzipped),
  'index-wasm-deflated': kb(readFileSync(fullModule.deflated).length),
  'reader-wasm-deflated': kb(readFileSync(readerModule.deflated).length),
};
for (const path of [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f))]) {
  const text = readFileSync(path, 'utf8');
  const updated = text
    .replace(/(<!-- size:begin -->)[^]*?(<!-- size:end -->)/g, `$1${index.figures}$2`)
    .replace(/(<!-- reader-size:begin -->)[^]*?(<!-- reader-size:end -->)/g, `$1${reader.figures}$2`)
    .replace(/(<!-- figure:([\w-]+) -->)[^<\n]*(<!-- \/figure -->)/g, (all, open, name, close) => {
      if (!(name in FIGURES)) throw new Error(`${path}: no figure named ${name} (scripts/build.mjs FIGURES)`);
      return `${open}${FIGURES[name]}${close}`;
    });
  // A marker without its end on the same line would otherwise be left as it is, its figure stale.
  const unclosed = updated.split('\n').find((line) => (line.match(/<!-- figure:/g) ?? []).length !== (line.match(/<!-- \/figure -->/g) ?? []).length);
  if (unclosed !== undefined) throw new Error(`${path}: a figure marker without its <!-- /figure --> on the same line: ${unclosed}`);
  if (updated !== text) writeFileSync(path, updated);
}
console.log(
  `built dist/ (index.mjs: ${index.bytes} bytes, ${index.gzipped} gzipped; reader.mjs: ${reader.bytes} bytes, ${reader.gzipped} gzipped; ` +
    'index.cjs, node.*, workerd.mjs, cuckoo-core.wasm, reader.cjs, reader-node.*, reader-workerd.mjs, cuckoo-reader.wasm, cli.cjs, testing.mjs, types)',
);
