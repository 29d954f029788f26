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
 * Every built-in module pack. Loaded by the catalog (definitions) on the main thread; the action
 * workers load packs one by one as they need them (packs.ts).
 */
export const BUILTIN_MODULES: ModuleDefinition[] = [
  text, json, csv, markdown, html, yaml, template, language, validate,
  crypto, math, datetime, qrcode, image, pdf, compress, http,
];

const IO_ACTIONS = new Set(BUILTIN_MODULES.flatMap((m) => m.actions.filter((a) => a.io).map((a) => `${m.name}/${a.name}`)));

/** True for an action marked `io: true` (it runs on the event loop, see runIoAction in run.ts). */
export function isIoAction(module: string, action: string): boolean {
  return IO_ACTIONS.has(`${module}/${action}`);
}
