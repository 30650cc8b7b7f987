// A monorepo built at test time for the multi-root tests on the real CodeGraph CLI: a workspace
// with a package.json and two sub-projects, each indexed on its own with `codegraph init -y`
// (run in the sub-project, never at the root, so the workspace has no index of its own):
// `packages/shop`, a copy of the shop fixture, and `packages/other`, a small TypeScript ledger
// whose symbols the shop has none of. Both have a `src/checkout.ts`: a path cited by one root is
// a different file in the other, so an answer resolved against the wrong root shows.
import fs from "node:fs";
import path from "node:path";
import { indexShop } from "./pi-harness.mjs";

/** The other project's files, by path relative to it. */
export const OTHER_FILES = {
  "src/ledger.ts": `export interface Entry {
  account: string;
  amount: number;
}

export class Ledger {
  private entries: Entry[] = [];

  postEntry(entry: Entry): void {
    this.entries.push(entry);
  }

  balanceOf(account: string): number {
    return this.entries.filter((e) => e.account === account).reduce((sum, e) => sum + e.amount, 0);
  }
}
`,
  "src/reconcile.ts": `import { type Entry, Ledger } from "./ledger";

export function reconcileAccounts(entries: Entry[], account: string): number {
  const ledger = new Ledger();
  for (const entry of entries) ledger.postEntry(entry);
  return ledger.balanceOf(account);
}
`,
  "src/checkout.ts": `import type { Ledger } from "./ledger";

export function settleInvoice(ledger: Ledger, account: string, amountDue: number): number {
  ledger.postEntry({ account, amount: -amountDue });
  return ledger.balanceOf(account);
}
`,
};

/** The shop's symbols (none of them is the other project's) and the other's (none is the shop's). */
export const SHOP_SYMBOLS = ["CheckoutService", "PaymentProcessor", "StripeProcessor", "calculateTotal"];
export const OTHER_SYMBOLS = ["Ledger", "postEntry", "balanceOf", "reconcileAccounts", "settleInvoice"];

/**
 * The monorepo at `ws` (created): `{ ws, shop, other }`, the sub-projects' directories, each
 * indexed by the pinned CLI; the workspace itself has a package.json and no index.
 */
export function buildMonorepo(ws) {
  fs.mkdirSync(path.join(ws, "packages"), { recursive: true });
  fs.writeFileSync(
    path.join(ws, "package.json"),
    `${JSON.stringify({ name: "monorepo", private: true, workspaces: ["packages/*"] }, null, 2)}\n`,
  );
  const shop = indexShop(path.join(ws, "packages", "shop"));
  const other = path.join(ws, "packages", "other");
  for (const [file, text] of Object.entries(OTHER_FILES)) {
    fs.mkdirSync(path.dirname(path.join(other, file)), { recursive: true });
    fs.writeFileSync(path.join(other, file), text);
  }
  indexShop(other, { copy: false });
  return { ws, shop, other };
}

/**
 * The `path:line` citations of a CodeGraph answer (outside its fenced source blocks), as
 * `{ file, line }`, unique: what a model would turn into a `read`.
 */
export function citations(text) {
  const found = new Map();
  let fenced = false;
  for (const l of text.split("\n")) {
    if (l.trimStart().startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    for (const m of l.matchAll(/(?<![\w/.])((?:[\w.-]+\/)+[\w.-]+\.(?:ts|py)):(\d+)/g))
      found.set(`${m[1]}:${m[2]}`, { file: m[1], line: Number(m[2]) });
  }
  return [...found.values()];
}
