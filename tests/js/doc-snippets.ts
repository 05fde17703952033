// The code blocks of README.md and docs/*.md, as the docs test (docs.test.ts) runs them. Each fenced block has a
// declaration on the line before it, an HTML comment the rendered page does not show, that says how it runs and what
// it leaves to the reader:
//
//   <!-- snippet: node given=entries,links -->       a module run in Node.js, `given` names defined before it (GIVENS)
//   <!-- snippet: node redis=blocklist:cf-grow -->    the same, with the fake Redis server (fake-redis.ts) holding the
//                                                    key `blocklist` from fixture cf-grow, at redis://localhost:6379
//   <!-- snippet: sh files=day1.txt,day2.txt -->      each command run in a folder holding those files (FILES);
//                                                    a node snippet takes files= too
//   <!-- snippet: json -->                            JSON (a member alone, `"key": value`, is read inside braces)
//   <!-- snippet: chromium-page given=… -->           a page's script (and its worker's, after a line `// worker.js`),
//                                                    run by tests/browser/docs.test.ts under the strict CSP
//   <!-- snippet: extension given=chrome -->          an extension's service worker, run by tests/browser/docs.test.ts
//                                                    in a temporary MV3 extension
//   <!-- snippet: not run: why -->                    a synopsis or a contributor's command, with the reason
//
// Every TypeScript snippet is also type-checked as a strict project that installed the package would (docs.test.ts).
// In a node or page snippet, a statement whose comment starts with a value (`filter.has('x'); // true: …`, `// null`,
// `// 'evil.example/'`) is checked: the statement's value must be that one.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

export const ROOT = join(__dirname, '..', '..');

export interface Snippet {
  /** README.md or docs/NAME.md, and the line of the opening fence (1-based). */
  file: string;
  line: number;
  lang: string;
  code: string;
  /** The declaration's kind: node, sh, json, chromium-page, or 'not run'. */
  kind: string;
  /** given=…: names the harness defines before the snippet. */
  given: string[];
  /** files=…: files the harness writes in the folder the snippet runs in. */
  files: string[];
  /** redis=key:fixture,…: the fake server's keys. */
  redis: Record<string, string> | undefined;
  /** The declaration as written (for messages), or undefined where there is none. */
  declaration: string | undefined;
}

/** The markdown files whose blocks are run: what the package ships and what a contributor reads. */
export function docFiles(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

/** Every fenced block of `file`, with its declaration. */
export function snippetsOf(file: string): Snippet[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const out: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    // A fence may be indented (a block inside a list item): its lines lose that indentation.
    const open = /^(\s*)(`{3,}|~{3,})([\w+-]*)/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    const close = new RegExp(`^\\s*${open[2]}\\s*$`);
    for (i++; i < lines.length && !close.test(lines[i]); i++) body.push(lines[i].slice(open[1].length));
    let before = start - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const declared = before >= 0 ? /^<!-- snippet: (.*) -->$/.exec(lines[before].trim()) : null;
    const declaration = declared?.[1];
    const words = declaration?.startsWith('not run:') ? ['not run'] : (declaration ?? '').split(/\s+/).filter(Boolean);
    const option = (name: string) => words.find((w) => w.startsWith(`${name}=`))?.slice(name.length + 1);
    const redis = option('redis');
    out.push({
      file,
      line: start + 1,
      lang: open[3],
      code: body.join('\n'),
      kind: words[0] ?? '',
      given: option('given')?.split(',') ?? [],
      files: option('files')?.split(',') ?? [],
      redis: redis === undefined ? undefined : Object.fromEntries(redis.split(',').filter(Boolean).map((kv) => kv.split(':') as [string, string])),
      declaration,
    });
  }
  return out;
}

/**
 * The files a snippet holds: a line `// NAME.js …` (or .ts) starts one, as in a snippet that shows a worker and the
 * page beside it; a snippet without such a line is one file, named ''.
 */
export function filesOf(s: Snippet): { name: string; code: string }[] {
  const files: { name: string; code: string[] }[] = [{ name: '', code: [] }];
  for (const line of s.code.split('\n')) {
    const start = /^\/\/ ([\w-]+)\.(?:js|ts)\b/.exec(line);
    if (start) files.push({ name: start[1], code: [] });
    files[files.length - 1].code.push(line);
  }
  return files.filter((f) => f.code.some((l) => l.trim() !== '')).map((f) => ({ name: f.name, code: f.code.join('\n') }));
}

/** Every block of every doc file. */
export function allSnippets(): Snippet[] {
  return docFiles().flatMap(snippetsOf);
}

/** A value a comment may state: true, false, null, undefined, a number, or a single-quoted string. */
const STATED = String.raw`(true|false|null|undefined|-?\d+(?:\.\d+)?|'(?:[^'\\]|\\.)*')`;
const CHECKED = new RegExp(String.raw`^(\s*)(?!(?:const|let|var|for|if|return|import|export|await using|using)\b)([^/].*?);\s*//\s*${STATED}(?=$|:|\s\(|\s*$)`);

/**
 * The snippet's TypeScript with each stated value checked: `expr; // true: …` becomes `__check(expr, true, 'file:line');`.
 * Returns the code and how many statements it checks.
 */
export function withChecks(s: Snippet): { code: string; checks: number } {
  let checks = 0;
  const code = s.code
    .split('\n')
    .map((line, i) => {
      const m = CHECKED.exec(line);
      if (!m) return line;
      checks++;
      return `${m[1]}__check(${m[2]}, ${m[3]}, ${JSON.stringify(`${s.file}:${s.line + 1 + i}`)});`;
    })
    .join('\n');
  return { code, checks };
}

/** The snippet's TypeScript as a JavaScript module (types erased; imports, comments and lines kept). */
export function toJavaScript(code: string): string {
  return ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  }).outputText;
}
