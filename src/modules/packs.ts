/**
 * Each built-in module pack by name, loaded on first use. The action worker threads (worker.mjs,
 * run.ts) load only the packs whose actions they are asked to run, instead of every pack and its
 * libraries at start-up: a worker with every pack loaded held about 130 MB more than one without
 * (docs/performance.md, Memory). The catalog, which needs every definition, keeps the eager list
 * in registry.ts; packs.test.ts checks the two name the same modules.
 */
import type { ModuleDefinition } from './types';

type PackModule = { default: ModuleDefinition };

export const PACK_LOADERS: Readonly<Record<string, () => Promise<PackModule>>> = {
  text: () => import('./text'),
  json: () => import('./json'),
  csv: () => import('./csv'),
  markdown: () => import('./markdown'),
  html: () => import('./html'),
  yaml: () => import('./yaml'),
  template: () => import('./template'),
  language: () => import('./language'),
  validate: () => import('./validate'),
  crypto: () => import('./crypto'),
  math: () => import('./math'),
  datetime: () => import('./datetime'),
  qrcode: () => import('./qrcode'),
  image: () => import('./image'),
  pdf: () => import('./pdf'),
  compress: () => import('./compress'),
  http: () => import('./http'),
};
