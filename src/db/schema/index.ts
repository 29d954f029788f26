export * from './tenants';
export * from './keys';
