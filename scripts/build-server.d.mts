/** Bundles server.ts and bench/target.ts into .amp/build/<hash>/ (scripts/build-server.mjs); resolves with the server entry's path. */
export declare function buildServer(): Promise<string>;
