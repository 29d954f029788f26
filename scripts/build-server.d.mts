/** The production builds' directory (.amp/build): one subdirectory per build, named by its content. */
export declare const BUILD_DIR: string;
/** Bundles server.ts and bench/target.ts (scripts/build-server.mjs); resolves with the server entry's path. */
export declare function buildServer(): Promise<string>;
