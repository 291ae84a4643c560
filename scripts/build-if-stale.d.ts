/** Why `root`'s dist/ needs a build ("dist/cli.js is missing", "src is newer than dist/"), or null when it is up to date. */
export function staleReason(root: string): string | null;
/** Runs `npm run build` in `root` when dist/ is stale; answers whether it built. */
export function buildIfStale(root: string, log: (line: string) => void): boolean;
