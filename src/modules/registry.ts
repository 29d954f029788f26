import type { ModuleDefinition } from './types';
import text from './text';
import json from './json';
import csv from './csv';
import markdown from './markdown';
import html from './html';
import yaml from './yaml';
import template from './template';
import language from './language';
import validate from './validate';
import crypto from './crypto';
import math from './math';
import datetime from './datetime';
import qrcode from './qrcode';
import image from './image';
import pdf from './pdf';
import compress from './compress';
import http from './http';

/**
 * Every built-in module pack, code included. Imported only where every pack is wanted at once:
 * the definitions process (definitions.ts, for the catalog) and tests. The action workers and the
 * event loop load packs one by one as they need them (packs.ts).
 */
export const BUILTIN_MODULES: ModuleDefinition[] = [
  text,
  json,
  csv,
  markdown,
  html,
  yaml,
  template,
  language,
  validate,
  crypto,
  math,
  datetime,
  qrcode,
  image,
  pdf,
  compress,
  http,
];
