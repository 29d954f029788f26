export * from './tenants';
export * from './keys';
export * from './metering';
