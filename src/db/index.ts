export * from './client';
export * as schema from './schema';
