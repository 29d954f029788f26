// Flat config: fast, syntax-only rules (no type information; `npm run typecheck` runs tsc).
import js from '@eslint/js';
import eslintConfigPrettier from 'eslint-config-prettier/flat';
import drizzle from 'eslint-plugin-drizzle';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'structuredClone',
    'fetch',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'globalThis',
  ].map((name) => [name, 'readonly']),
);

/** Links go through components/ui/link.tsx, which does not prefetch every link in view. */
const NEXT_LINK = { name: 'next/link', message: "Import { Link } from '@/components/ui/link' (no viewport prefetch)." };

export default defineConfig(
  globalIgnores([
    'node_modules/',
    '.amp/',
    '.next/',
    '.next-*/',
    'test-results/',
    '.data/',
    '.test-data/',
    'drizzle/',
    'next-env.d.ts',
    'coverage/',
    'packages/*/dist/',
  ]),
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
    // Browser code (components/, client/) imports only client/, components/ and src/contract/: the
    // server's code must not reach the bundle. The router's type is the one exception (erased).
    files: ['components/**/*.{ts,tsx}', 'client/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [NEXT_LINK],
          patterns: [
            {
              regex: '^(@/|(\\.\\./)+)src/server/router$',
              allowTypeImports: true,
              message:
                'Import the router as a type only (`import type { AppRouter }`), or use RouterInputs/RouterOutputs from @/client/trpc/types.',
            },
            {
              regex: '^(@/|(\\.\\./)+)src/(?!contract/)',
              message: 'Browser code imports only src/contract/ from src/ (pure modules): move what it needs there.',
            },
            {
              regex: '^(@/|(\\.\\./)+)app(/|$)',
              message:
                'Browser code does not import app/: tRPC glue is in @/client, server actions reach components as props from their page.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['app/**/*.{ts,tsx}'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [NEXT_LINK] }] },
  },
  {
    // The link itself.
    files: ['components/ui/link.tsx'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    // The contract is what both sides import: zod and its own modules, nothing else.
    files: ['src/contract/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!zod$|\\./)', message: 'src/contract/ imports only zod and its own modules.' }] },
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
