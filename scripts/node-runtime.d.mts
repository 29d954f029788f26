/** The Node flags for a server started with `env` (scripts/node-runtime.mjs). */
export declare function nodeFlags(env: Record<string, string | undefined>): string[];
/** The environment the server gets besides its caller's (whose own values win). */
export declare const runtimeEnv: Record<string, string>;
