// Cycles in an import or include graph, for the layering tests of js/ (boundary.test.ts) and src/
// (src-includes.test.ts).

/**
 * The groups of nodes that reach each other through `edges` (Tarjan's strongly connected components), each sorted,
 * the groups of more than one node (or of one that imports itself) only: every cycle runs within one of them.
 */
export function cycles(nodes: readonly string[], edges: (node: string) => readonly string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group = stack.splice(stack.indexOf(v));
      if (group.length > 1 || edges(v).includes(v)) found.push(group.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found;
}
