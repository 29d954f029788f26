// Flat config: fast, syntax-only rules (no type information; `npm run typecheck` runs tsc).
import js from '@eslint/js';
import eslintConfigPrettier from 'eslint-config-prettier/flat';
import drizzle from 'eslint-plugin-drizzle';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const nodeGlobals = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'URLSearchParams', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'structuredClone', 'fetch', 'AbortController', 'AbortSignal', 'TextEncoder', 'TextDecoder', 'globalThis'].map(
    (name) => [name, 'readonly'],
  ),
);

export default defineConfig(
  globalIgnores(['node_modules/', '.amp/', '.next/', '.next-*/', 'test-results/', '.data/', '.test-data/', 'drizzle/', 'next-env.d.ts', 'coverage/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    // Plain JS (scripts, configs) runs on Node; TypeScript files get undefined names from tsc.
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: nodeGlobals },
  },
  {
    plugins: { drizzle },
    rules: {
      'drizzle/enforce-delete-with-where': ['error', { drizzleObjectName: ['db', 'tx'] }],
      'drizzle/enforce-update-with-where': ['error', { drizzleObjectName: ['db', 'tx'] }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  {
    // Tests poke at JSON bodies of many shapes; typing each one would add noise, not safety.
    files: ['tests/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // Last, so it switches off every stylistic rule above that Prettier owns.
  eslintConfigPrettier,
);
