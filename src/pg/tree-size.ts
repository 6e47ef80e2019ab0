/**
 * How large a parse tree is once printed: its nodes counted as the deparser meets them. The rewrite
 * may place one subtree at several places (a divisor both checked and divided by): those are one
 * object in memory but printed each time, and nested they multiply — `a/(a/(a/…))` fifteen deep
 * (80 characters) deparsed into gigabytes and ran the process out of memory. Counted with each
 * object's size remembered by identity: linear in the objects, whatever the printed size.
 */
export function printedNodes(root: object): number {
  const size = new Map<object, number>();
  // post-order without recursion: a node is summed once all its children are
  const stack: { node: object; done: boolean }[] = [{ node: root, done: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (size.has(top.node)) {
      stack.pop();
      continue;
    }
    const children = Object.values(top.node).filter((v): v is object => v !== null && typeof v === 'object');
    if (!top.done) {
      top.done = true;
      for (const c of children) if (!size.has(c)) stack.push({ node: c, done: false });
      continue;
    }
    stack.pop();
    let n = 1;
    for (const c of children) n += size.get(c)!;
    size.set(top.node, n);
  }
  return size.get(root)!;
}
