export * from './tenants';
export * from './keys';
export * from './metering';
export * from './catalog';
export * from './executions';
export * from './events';
export * from './memory';
export * from './webhooks';
